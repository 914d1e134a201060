import torch
import torch.nn as nn


@torch._dynamo.disable
def log_stats(x):
    # Dynamo leaves it to the eager interpreter.
    print(x.mean().item())


class SeqBlock(nn.Module):
    def forward(self, x):
        return x * x.max().item()  # expect: PTL501


class DictHead(nn.Module):
    def forward(self, x):
        return x.argmax(-1).tolist()  # expect: PTL501


class ListLayer(nn.Module):
    def forward(self, x):
        log_stats(x)
        return x + x.min().item()  # expect: PTL501


class Appended(nn.Module):
    def forward(self, x):
        return x / x.norm().item()  # expect: PTL501


class ItemsBlock(nn.Module):
    def forward(self, x):
        return x - x.std().item()  # expect: PTL501


class Optional(nn.Module):
    def forward(self, x):
        return x * x.sum().item()  # expect: PTL501


class Unused(nn.Module):
    def forward(self, x):
        # Stored in the model but never called from its forward.
        return x.mean().item()
