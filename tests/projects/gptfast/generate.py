import torch

from model import Transformer


def decode_one_token(model: Transformer, x):
    return model(x)


def main(compile=True):
    global decode_one_token
    if compile:
        decode_one_token = torch.compile(decode_one_token, mode="reduce-overhead", fullgraph=True)
    return decode_one_token(Transformer(8), torch.randn(2, 8))
