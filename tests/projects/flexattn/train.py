import torch

from nets.attention import mask_for, passed_around, run_with
from nets.model import Model


def main(batches):
    model = torch.compile(Model(64, 4, 2))
    for x in batches:
        loss = model(x, mask_for(x.shape[1])).sum()
        loss.backward()
        run_with(passed_around, x, x, x)
