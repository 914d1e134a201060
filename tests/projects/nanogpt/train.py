import torch

from model import GPT


def main(config, batches):
    model = GPT(config)
    model = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters())
    for x, y in batches:
        _, loss = model(x, y)
        loss.backward()
        optimizer.step()
        print(loss.item())  # outside the compiled model: fine
