import torch


def run_checks(model, loader):
    # Not named as an evaluation, but train.py calls it with grad mode on.
    model.eval()
    outputs = []
    for x in loader:
        outputs.append(model(x))  # expect: PTL707
    return outputs


def evaluate(model, loader):
    # train.py calls it only under `torch.no_grad()`.
    model.eval()
    return [model(x) for x in loader]


def validate(model, loader):
    # train.py calls it from a function decorated with `@torch.no_grad()`.
    model.eval()
    return [model(x) for x in loader]


def predict(model, x):
    # hooks.py hands it on as a callback: its caller is unknown.
    model.eval()
    return model(x)


def infer(model, x):
    # Called nowhere, and named as an evaluation: reported as in one file.
    model.eval()
    return model(x)  # expect: PTL707


def update_step(model, x):
    # Called from train.py's training step, which runs a backward pass.
    model.eval()
    return model(x)
