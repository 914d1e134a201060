from data import build_loader


def main(dataset, model, n_epochs):
    loader = build_loader(dataset, 32)
    for epoch in range(n_epochs):
        for batch in loader:
            model(batch)
