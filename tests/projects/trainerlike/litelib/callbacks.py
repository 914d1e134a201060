import os

import torch


def seed_everything(seed: int):
    os.environ["PL_GLOBAL_SEED"] = str(seed)
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.manual_seed(seed)
