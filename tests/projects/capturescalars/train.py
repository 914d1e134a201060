import torch

from model import Net
from settings import configure

configure()
model = torch.compile(Net(8))
print(model(torch.randn(2, 8)).sum().item())
