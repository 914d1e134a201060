import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(8, 8), nn.ReLU())

    def forward(self, x):
        y = self.layers(x)
        print("norm", y.norm().item())  # expect: PTL501, PTL502
        return y
