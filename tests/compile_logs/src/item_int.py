# .item() and int(t) inside compiled code: each breaks the graph.
import torch


@torch.compile(backend="eager")
def scale(x):
    s = x.sum().item()  # run: PTL901  # run-2.6: PTL902
    y = x * 2
    n = int(y.max())  # run: PTL901, PTL902
    return y / (s + n)  # run-2.14: PTL902


for _ in range(3):
    scale(torch.randn(8))
