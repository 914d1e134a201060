import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x: torch.Tensor):
        # The training run never turns scalar capture on: only the test runner's process does.
        n = x.sum().item()  # expect: PTL501
        return x * n


def train():
    net = torch.compile(Net())
    return net(torch.ones(2))
