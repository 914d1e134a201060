import functools

import torch

compiler = functools.partial(torch.compile, mode="max-autotune")


def maybe_compile(model, enabled=True):
    if enabled:
        return torch.compile(model)
    return model
