import torch.nn as nn


class MLPRegressor(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, 1))

    def forward(self, x):
        out = self.net(x)
        print("batch mean", out.mean().item())  # expect: PTL501, PTL502
        return out
