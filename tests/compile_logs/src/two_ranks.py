# Two processes (ranks) compile the same code and write to the same log.
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


@torch.compile(backend="eager")
def rank_step(x, rank):  # run: PTL902
    y = x.cos()
    if rank == 0:
        print("rank zero")  # run: PTL901, PTL902
    return y + float(y.sum())  # run: PTL901, PTL902


def worker(rank, world):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = os.environ.get("PORT", "29533")
    os.environ.setdefault("USE_LIBUV", "0")  # Debian's builds have no libuv TCPStore
    dist.init_process_group("gloo", rank=rank, world_size=world)
    for n in (3, 5):
        rank_step(torch.randn(n), rank)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
