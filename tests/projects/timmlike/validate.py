import torch

from minitimm import create_model


@torch.no_grad()
def validate(model_name, loader):
    model = create_model(model_name)
    model.eval()
    correct = 0
    for input, target in loader:
        output = model(input)
        correct += (output.argmax(-1) == target).sum().item()
    return correct
