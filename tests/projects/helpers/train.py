import torch

from model import Decoder, Encoder, Transformer
from utils import compiler, maybe_compile

encoder = maybe_compile(Encoder())
decoder = compiler(Decoder())


def generate(model: Transformer, x):
    return model.step(x)


generate_compiled = torch.compile(generate)
