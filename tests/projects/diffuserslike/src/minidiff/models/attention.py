import torch
import torch.nn as nn
from torch.nn.attention.flex_attention import flex_attention, create_block_mask

_compiled_flex = torch.compile(flex_attention, dynamic=False)


class FlexAttnProcessor(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, 3 * dim)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, hidden_states, block_mask=None):
        b, n, c = hidden_states.shape
        q, k, v = self.to_qkv(hidden_states).view(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        out = flex_attention(q, k, v, block_mask=block_mask)
        return self.to_out(out.transpose(1, 2).reshape(b, n, c))


class FastFlexAttn(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.to_qkv(x).view(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        return _compiled_flex(q, k, v).transpose(1, 2).reshape(b, n, c)


def attention_reference(q, k, v):
    return flex_attention(q, k, v)  # expect: PTL603
