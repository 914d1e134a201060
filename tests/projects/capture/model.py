import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x: torch.Tensor):
        n = x.sum().item()  # captured: train.py turns capture_scalar_outputs on for its run
        positive = bool(x.max())  # expect: PTL501
        return x * n if positive else x


class Head(nn.Module):
    def forward(self, x):
        return x.sum().item()  # expect: PTL501


class Tail(nn.Module):
    def forward(self, x):
        return x.sum().item()  # `setup(True)` in tail.py may turn the capture on
