import os

import torch

from model import Net

# Read when torch._dynamo is first imported (at the first compile, not by `import torch`).
os.environ.setdefault("TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS", "1")

net = torch.compile(Net())
