"""Data: random crops of a character corpus, with numpy-based augmentation."""
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class CharDataset(Dataset):
    def __init__(self, text: str, block_size: int):
        chars = sorted(set(text))
        self.stoi = {c: i for i, c in enumerate(chars)}
        self.data = np.array([self.stoi[c] for c in text], dtype=np.int64)
        self.block_size = block_size
        # Created once, before the DataLoader forks its workers.
        self.rng = np.random.default_rng()

    def __len__(self):
        return len(self.data) - self.block_size - 1

    def __getitem__(self, i):
        start = int(self.rng.integers(0, len(self)))
        chunk = torch.from_numpy(self.data[start:start + self.block_size + 1])
        return chunk[:-1], chunk[1:]


def make_loader(text: str, block_size: int, batch_size: int, workers: int = 4):
    dataset = CharDataset(text, block_size)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=workers, pin_memory=True)
