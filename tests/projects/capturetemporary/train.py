import torch

from model import Net
from tracing import scalars_captured

model = torch.compile(Net())
with scalars_captured():
    pass
model(torch.randn(3))
