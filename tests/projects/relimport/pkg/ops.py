import torch


def clamp_logits(x):
    bound = x.abs().max().item()  # expect: PTL501
    return x.clamp(-bound, bound)


def unused(x):
    return x.tolist()
