import torch
from torch.utils.data import DataLoader

from .helpers import accelerator_device as gd
from .helpers import host

loader = DataLoader(list(range(8)), batch_size=4, num_workers=2, pin_memory=True)


def relative_import(model):
    device = gd()
    for x in loader:
        model(x.to(device))  # expect: PTL402


def relative_host(model):
    for x in loader:
        model(x.to(host()))
