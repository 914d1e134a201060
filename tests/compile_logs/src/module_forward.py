# A graph break in an nn.Module's forward, the module compiled as a whole.
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 2)

    def forward(self, x):
        h = self.a(x).relu()
        if h.mean().item() > 10.0:  # run: PTL901, PTL902
            h = h * 0.5
        return self.b(h)


model = torch.compile(Net(), backend="eager")
with torch.no_grad():
    for _ in range(2):
        model(torch.randn(3, 4))
