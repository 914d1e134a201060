import torch
from torch.nn.attention.flex_attention import flex_attention

from blocks import Block


def build(name):
    return Block(flex_attention)


def make_and_compile(name):
    # A model built by a factory: what it compiles is not known, so flex_attention stays quiet.
    return torch.compile(build(name))
