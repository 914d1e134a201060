import torch

from model import Stack

model = Stack(8, 2)
for block in model.blocks:
    block.compile()
model.compile_heads()
print(model(torch.randn(2, 8)))
