# The break happens in a helper the compiled function calls: two user frames.
import torch


def norm_factor(x):
    total = x.abs().sum()
    return float(total.item()) + 1.0  # run: PTL901


def body(x):
    y = x * 3
    return y / norm_factor(y)


@torch.compile(backend="eager")
def run(x):
    z = body(x)
    return z.relu()


run(torch.randn(5))
