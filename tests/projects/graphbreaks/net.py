import pdb

import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        y = self.proj(x)
        if y.isnan().any():  # expect: PTL504
            pdb.set_trace()  # expect: PTL502
        return y

    def report(self, x):
        # Not reached from forward: never compiled.
        print(x.mean())
        return bool(x.sum() > 0) if x.numel() else False


class Net(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.head = Head(dim)
        self.blocks = nn.ModuleList([nn.Linear(dim, dim) for _ in range(2)])

    def forward(self, x):
        print("shape", x.shape)  # expect: PTL502
        for block in self.blocks:
            x = block(x)
        while x.norm().item() > 10.0:  # expect: PTL501, PTL504
            x = x / 2
        self.trace(x)
        return self.head(x)

    @torch.compiler.disable
    def trace(self, x):
        # Dynamo leaves this method to the eager interpreter.
        print(x.abs().max())
        if x.isnan().any():
            raise ValueError("nan")
