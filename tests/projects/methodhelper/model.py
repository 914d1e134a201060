import torch.nn as nn


class Encoder(nn.Module):
    def forward(self, x):
        return x.sum().item()  # expect: PTL501


class Decoder(nn.Module):
    def forward(self, x):
        return x.sum().item()  # expect: PTL501


class Head(nn.Module):
    def forward(self, x):
        return x.sum().item()  # trainer.py throws the compiled wrapper away: eager


class Probe(nn.Module):
    def forward(self, x):
        return x.sum().item()  # passed to a method that compiles nothing
