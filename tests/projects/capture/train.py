import torch

from model import Head, Net

torch._dynamo.config.capture_scalar_outputs = True

net = torch.compile(Net())
head = torch.compile(Head())
