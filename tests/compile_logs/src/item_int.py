# .item() and int(t) inside compiled code: each breaks the graph.
import torch


@torch.compile(backend="eager")
def scale(x):
    s = x.sum().item()
    y = x * 2
    n = int(y.max())
    return y / (s + n)


for _ in range(3):
    scale(torch.randn(8))
