import torch

from tiny import Tiny

bench = torch.compile(Tiny())
