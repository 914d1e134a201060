def train_one_epoch(model, loader, epoch):
    loader.sampler.set_epoch(epoch)
    for batch in loader:
        model(batch)
