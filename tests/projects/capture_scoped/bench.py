import os

import torch

from model import Net

# Look-alikes that leave the option off in the process that compiles Net:
# capture_scalar_outputs = True  (a comment)
print("TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS is", os.environ.get("TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS"))
torch._dynamo.config.capture_scalar_outputs = False
NOTE = "set capture_scalar_outputs = True to capture .item()"


@torch._dynamo.config.patch(capture_scalar_outputs=True)
def scoped():
    pass


net = torch.compile(Net())
