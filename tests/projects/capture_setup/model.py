import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x: torch.Tensor):
        n = x.sum().item()  # captured where settings.configure turned the option on
        scale = float(x.mean())  # captured too
        if bool(x.max()):  # expect: PTL501, PTL504
            return x * n * scale
        return x
