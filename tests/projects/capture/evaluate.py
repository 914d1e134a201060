import torch

from model import Head

# No capture here: Head's `.item()` breaks the graph when this script runs.
head = torch.compile(Head())
