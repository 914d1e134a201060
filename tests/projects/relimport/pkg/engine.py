import torch
import torch.nn as nn

from . import Head
from .backbone import Backbone


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        self.head = Head(16, 10)

    def forward(self, x):
        return self.head(self.backbone(x))


def build():
    return torch.compile(Net(), mode="max-autotune")
