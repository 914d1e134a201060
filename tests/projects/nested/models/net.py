import torch.nn as nn

from models.blocks import Block


class Net(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.block = Block(dim)

    def forward(self, x):
        return self.block(x)
