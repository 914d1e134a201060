from torch.utils.data import DataLoader, DistributedSampler


def build_loader(dataset, batch_size):
    # train.py hands the loader to accelerate, which sets the epoch.
    sampler = DistributedSampler(dataset)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)


def run(model, loader, n_epochs):
    for epoch in range(n_epochs):
        for batch in loader:
            model(batch)
