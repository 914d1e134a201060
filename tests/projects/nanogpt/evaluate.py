import torch

from model import Critic


def evaluate(critic: Critic, batches):
    # An evaluation script that compiles nothing.
    total = 0.0
    for x in batches:
        total += critic(x).mean().item()
    return total
