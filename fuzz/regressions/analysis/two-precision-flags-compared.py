# A scaler gated on a test of two precision flags: PTL201 once swapped them back and forth
# forever (found by the fuzz smoke).
import torch
from torch.cuda.amp import GradScaler as Scaler


def step(net, batch, cfg):
    s = None
    if cfg.fp16 == cfg.use_bf16:
        s = Scaler()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = net(batch)
    return s, out
