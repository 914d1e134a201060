from torch.utils.data import DataLoader, DistributedSampler


def build_loader(dataset, batch_size):
    # No epoch loop here: train.py runs the epochs, and never sets the epoch.
    sampler = DistributedSampler(dataset)  # expect: PTL406
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)


def build_eval_loader(dataset):
    sampler = DistributedSampler(dataset, shuffle=False)
    return DataLoader(dataset, sampler=sampler)
