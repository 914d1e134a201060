import torch

from models.net import Net

model = torch.compile(Net(8))
