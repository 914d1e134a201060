import torch


def accelerator_device():
    if torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


def host():
    return "cpu"
