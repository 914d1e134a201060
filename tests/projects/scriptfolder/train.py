import torch

from mypkg import Model

model = torch.compile(Model(16))
print(model(torch.randn(4, 16)).sum().item())
