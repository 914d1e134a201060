import argparse

import torch
import torch.nn as nn

from minitimm import create_model

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="vit_small_patch16_224")
parser.add_argument("--torchcompile", nargs="?", const="inductor", default=None)


def train_one_epoch(model, loader, optimizer, loss_fn):
    model.train()
    for input, target in loader:
        output = model(input)
        loss = loss_fn(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"loss {loss.item():.4f}")


def main():
    args = parser.parse_args()
    model = create_model(args.model, pretrained=False, num_classes=1000)
    if args.torchcompile:
        model = torch.compile(model, backend=args.torchcompile)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    train_one_epoch(model, [], optimizer, nn.CrossEntropyLoss())


if __name__ == "__main__":
    main()
