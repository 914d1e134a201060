# New shapes and a changing Python constant: the function is compiled again.
import torch


@torch.compile(backend="eager")
def pad_to(x, width):  # run: PTL902
    out = torch.zeros(x.shape[0], width)
    out[:, : x.shape[1]] = x
    return out


@torch.compile(backend="eager", dynamic=False)
def mix(x, alpha):  # run-2.6: PTL902
    return x * alpha + (1 - alpha)  # run-2.14: PTL902


for n in (2, 3, 4):
    pad_to(torch.randn(n, 2), 6)
for a in (0.1, 0.2, 0.3):
    mix(torch.randn(4), a)
mix(torch.randn(4, dtype=torch.float64), 0.3)
