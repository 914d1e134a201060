from accelerate import Accelerator

from data import build_loader, run


def main(dataset, model, n_epochs):
    accelerator = Accelerator()
    loader = accelerator.prepare(build_loader(dataset, 32))
    run(model, loader, n_epochs)
