import torch

from model import Head

# No capture in this script's process (nothing it imports turns it on): Head's `.item()` breaks
# the graph when this script runs, although train.py's compile of Head captures it.
head = torch.compile(Head())
