import contextlib

import torch

DEFAULT_DEVICE = "cuda"
HOST = "cpu"


def get_device():
    return "cuda"


def pick_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


def device_object():
    return torch.device("cuda")


def default_device():
    return DEFAULT_DEVICE


def host_device():
    return HOST


def cpu_device():
    return torch.device("cpu")


def given_device(device):
    return device


def low_dtype():
    return torch.bfloat16


def half_dtype():
    return torch.float16


def full_dtype():
    return torch.float32


def some_dtype(name):
    return getattr(torch, name)


def maybe_device():
    if torch.cuda.is_available():
        return "cuda"


def amp_context():
    return torch.autocast("cuda", dtype=torch.bfloat16)


def off_context():
    return torch.autocast("cuda", dtype=torch.bfloat16, enabled=False)


def plain_context():
    return contextlib.nullcontext()


def half_context():
    return torch.autocast("cuda", dtype=torch.float16)
