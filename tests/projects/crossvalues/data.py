import numpy as np
import torch
from torch.utils.data import Dataset, get_worker_info


class RngDataset(Dataset):
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self.rng.random()


class WorkerSeeded(Dataset):
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        if info is not None:
            self.rng = np.random.default_rng(info.seed)
        return self.rng.random()


class GlobalDraws(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.rand(1) + np.random.rand()


def make_dataset():
    return RngDataset(0)
