import torch.nn as nn
from torch.nn.attention.flex_attention import flex_attention


class Block(nn.Module):
    def __init__(self, attention_fn):
        super().__init__()
        # Any callable: train.py passes an attention function in.
        self.attention_fn = attention_fn
        self.proj = nn.Linear(64, 64)

    def forward(self, x):
        if x.sum().item() > 0:  # expect: PTL501, PTL504
            x = -x
        return self.proj(self.attention_fn(x, x, x))


def flex(q, k, v):
    # Compiled: Block.forward, which train.py compiles, calls it through `self.attention_fn`.
    return flex_attention(q, k, v)
