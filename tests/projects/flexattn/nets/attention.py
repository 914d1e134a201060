import torch
import torch.nn as nn
from torch.nn.attention.flex_attention import create_block_mask, flex_attention


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


class FlexSelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.heads = heads

    def forward(self, x, block_mask):
        # Reached from the model train.py compiles: a fused kernel.
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.attend(q, k, v, block_mask)

    def attend(self, q, k, v, block_mask):
        return flex_attention(q, k, v, block_mask=block_mask)

    @torch.compiler.disable
    def attend_eager(self, q, k, v):
        return flex_attention(q, k, v)  # expect: PTL603

    def probe(self, q, k, v):
        # Never reached from forward, called from evaluate.py only.
        return flex_attention(q, k, v)  # expect: PTL603


def reference_attention(q, k, v):
    return flex_attention(q, k, v)  # expect: PTL603


def passed_around(q, k, v):
    # Handed to `run_with` in train.py, which nothing compiles: eager.
    return flex_attention(q, k, v)  # expect: PTL603


def run_with(attention, q, k, v):
    return attention(q, k, v)


def handed_on(q, k, v):
    # Read as a value in this file: whoever receives it may compile it, so it is not reported.
    return flex_attention(q, k, v)


ATTENTION_IMPLS = {"flex": handed_on}


def mask_for(seq_len):
    return create_block_mask(causal, None, None, seq_len, seq_len)
