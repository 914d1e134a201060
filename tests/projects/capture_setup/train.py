import argparse

import torch

from model import Net
from settings import configure

parser = argparse.ArgumentParser()
parser.add_argument("--capture-scalars", action="store_true")
args = parser.parse_args()
configure(args)
net = torch.compile(Net())
