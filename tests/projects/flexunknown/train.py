import torch

from blocks import Block, flex


def main(x):
    model = torch.compile(Block(flex))
    return model(x)
