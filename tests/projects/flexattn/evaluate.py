import torch
import torch.nn.attention.flex_attention as fx

from nets.attention import FlexSelfAttention, reference_attention


@torch.no_grad()
def evaluate(q, k, v):
    layer = FlexSelfAttention(64, 4)
    a = layer.probe(q, k, v)
    b = reference_attention(q, k, v)
    c = fx.flex_attention(q, k, v)  # expect: PTL603
    return a, b, c
