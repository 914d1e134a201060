import torch.nn as nn

from .attention import FlexSelfAttention


class Model(nn.Module):
    def __init__(self, dim, heads, depth):
        super().__init__()
        self.layers = nn.ModuleList([FlexSelfAttention(dim, heads) for _ in range(depth)])

    def forward(self, x, block_mask):
        for layer in self.layers:
            x = x + layer(x, block_mask)
        return x
