import os
import random

import torch


def seed_everything(seed):
    os.environ.update({"CUBLAS_WORKSPACE_CONFIG": ":4096:8", "PYTHONHASHSEED": str(seed)})
    random.seed(seed)
    torch.manual_seed(seed)
