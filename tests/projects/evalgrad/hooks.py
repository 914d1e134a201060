from evaluation import predict

CALLBACKS = {"predict": predict}
