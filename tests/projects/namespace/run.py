import torch

from ns.models.mlp import step

fast_step = torch.compile(step)
