import torch.nn as nn


class Backbone(nn.Module):
    def forward(self, x):
        steps = int(x.sum().item())  # expect: PTL501
        return x * steps
