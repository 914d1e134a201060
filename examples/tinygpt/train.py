"""Training loop: bf16 autocast, DDP, a compiled step."""
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from tinygpt.data import make_loader
from tinygpt.model import TinyGPT

AMP_DTYPE = torch.bfloat16


@torch.compile
def compute_loss(model, x, y):
    _, loss = model(x, y)
    return loss


@torch.compile
def token_accuracy(logits, y):
    return (logits.argmax(-1) == y).float().mean().item()


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    text = open("input.txt", encoding="utf-8").read()
    loader = make_loader(text, block_size=128, batch_size=32)
    model = TinyGPT(vocab_size=256).cuda()
    model = DDP(model, device_ids=[rank], find_unused_parameters=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scaler = torch.cuda.amp.GradScaler()
    for step, (x, y) in enumerate(loader):
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        with torch.cuda.amp.autocast(dtype=AMP_DTYPE):
            loss = compute_loss(model, x, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        if rank == 0 and step % 100 == 0:
            # Outside the compiled region: reading the loss here is fine.
            print(f"step {step}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
