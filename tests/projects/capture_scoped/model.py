import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x: torch.Tensor):
        n = x.sum().item()  # expect: PTL501
        return x * n
