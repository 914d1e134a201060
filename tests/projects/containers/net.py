import torch.nn as nn

from blocks import Appended, DictHead, ItemsBlock, ListLayer, Optional, SeqBlock, Unused


class Net(nn.Module):
    def __init__(self, depth, use_extra):
        super().__init__()
        self.stem = nn.Sequential(SeqBlock(), nn.ReLU())
        self.heads = nn.ModuleDict({"cls": DictHead(), "aux": nn.Identity()})
        self.layers = nn.ModuleList([ListLayer() for _ in range(depth)])
        self.extra = nn.ModuleList()
        for _ in range(depth):
            self.extra.append(Appended())
        self.named = nn.ModuleDict(dict(a=ItemsBlock()))
        self.opt = Optional() if use_extra else None
        self.unused = Unused()

    def forward(self, x):
        x = self.stem(x)
        x = self.layers[0](x)
        for i, layer in enumerate(self.layers):
            x = layer(x)
        for block in self.extra:
            x = block(x)
        for name, block in self.named.items():
            x = block(x)
        if self.opt is not None:
            x = self.opt(x)
        return self.heads["cls"](x)
