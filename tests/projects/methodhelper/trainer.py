import torch

from model import Decoder, Encoder, Head, Probe


class Trainer:
    def __init__(self, compile_model: bool):
        self.compile_model = compile_model
        self.encoder = Encoder()
        self.decoder = Decoder()
        self.head = Head()
        self.probe = self.describe(Probe())

    def maybe_compile(self, module):
        return torch.compile(module) if self.compile_model else module

    def describe(self, module):
        print(module)
        return module

    def setup(self):
        self.encoder = self.maybe_compile(self.encoder)
        self.decoder = self.maybe_compile(module=self.decoder)
        self.maybe_compile(self.head)
