# Layers that train.py picks with `isinstance` in a walk over a model's modules and compiles.
import torch.nn as nn


class Attention(nn.Module):
    def forward(self, x):
        return x * x.amax().item()  # expect: PTL501


class MLP(nn.Module):
    def forward(self, x):
        return x / x.sum().item()  # expect: PTL501


class Norm(nn.Module):
    def forward(self, x):
        return x - x.mean().item()  # never compiled: not reported


class Gate(nn.Module):
    def forward(self, x):
        return x * bool(x.any().item())  # expect: PTL501
