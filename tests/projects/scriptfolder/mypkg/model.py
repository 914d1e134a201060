import torch
import torch.nn as nn

from .layers import Gate


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = Gate(dim)

    def forward(self, x: torch.Tensor):
        if x.sum() > 0:  # expect: PTL504
            x = -x
        return self.gate(x)

    def describe(self, x: torch.Tensor):
        return x.sum().item()  # not reached from forward
