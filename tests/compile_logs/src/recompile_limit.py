# A function recompiled for every new value until the recompile limit is hit.
import torch


@torch.compile(backend="eager", dynamic=False)
def shift(x, k):  # run-2.6: PTL902
    return x + k  # run-2.14: PTL902


for k in range(12):
    shift(torch.randn(2), k)
