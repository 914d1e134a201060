import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor):
        scale = x.abs().max().item()
        steps = int(x.sum())
        if bool(x.mean()):  # expect: PTL501, PTL504
            steps += 1
        return self.proj(x) * scale * steps
