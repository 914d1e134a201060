import torch.nn as nn


class Tiny(nn.Module):
    def forward(self, x):
        return x.max().item()  # expect: PTL501
