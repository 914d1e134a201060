import torch


def double(x):
    return x * 2


def probe(x):
    # Scoped: only the compile inside the `with` captures scalars.
    with torch._dynamo.config.patch({"capture_scalar_outputs": True}):
        return torch.compile(double)(x)
