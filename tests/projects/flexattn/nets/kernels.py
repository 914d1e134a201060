import functools

import torch
from torch.nn.attention.flex_attention import flex_attention
from torch.nn.attention import flex_attention as flex_module

flex_attention = torch.compile(flex_attention)
compiled_flex = torch.compile(flex_module.flex_attention, dynamic=False)
causal_flex = functools.partial(torch.compile(flex_module.flex_attention), score_mod=None)


def attend(q, k, v):
    # The module-level name is the compiled function.
    return flex_attention(q, k, v)


def attend_static(q, k, v):
    return compiled_flex(q, k, v)


def attend_partial(q, k, v):
    return causal_flex(q, k, v)


@torch.compile
def attend_compiled(q, k, v):
    return flex_module.flex_attention(q, k, v)


def attend_eager(q, k, v):
    return flex_module.flex_attention(q, k, v)  # expect: PTL603
