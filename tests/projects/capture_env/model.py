import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x: torch.Tensor):
        n = x.sum().item()  # captured: run.py sets TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS before compiling
        return x * n if bool(x.max()) else x  # expect: PTL501, PTL504
