import torch

from net import Net

model = torch.compile(Net(64))
opt = torch.optim.AdamW(model.parameters())
for step in range(10):
    loss = model(torch.randn(8, 64)).sum()
    loss.backward()
    opt.step()
    print(step, loss.item())
