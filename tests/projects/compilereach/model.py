import torch.nn as nn

from layers import Block, Head


class Stack(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.heads = nn.ModuleList([Head(), Head()])

    def compile_heads(self):
        for head in self.heads:
            head.compile()

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
