import torch.nn as nn


class Encoder(nn.Module):
    def forward(self, x):
        return x.sum().item()  # expect: PTL501


class Decoder(nn.Module):
    def forward(self, x):
        return x.max().item()  # expect: PTL501


class Transformer(nn.Module):
    def forward(self, x):
        return x

    def step(self, x):
        return x.min().item()  # expect: PTL501

    def describe(self, x):
        return x.min().item()  # never compiled


class Unused(nn.Module):
    def forward(self, x):
        return x.sum().item()  # never compiled
