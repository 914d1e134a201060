import torch._dynamo


def configure():
    # Process-wide: every function compiled afterwards captures `.item()`.
    torch._dynamo.config.capture_scalar_outputs = True
