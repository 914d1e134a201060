from torch.utils.data import DataLoader, DistributedSampler

from engine import train_one_epoch


def main(dataset, model, n_epochs):
    # engine.py sets the sampler's epoch at the start of each epoch.
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    for epoch in range(n_epochs):
        train_one_epoch(model, loader, epoch)
