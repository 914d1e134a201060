import torch
import torch.nn as nn
import torch.nn.functional as F


class ResBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.norm = nn.GroupNorm(8, ch)
        self.conv = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x):
        h = self.conv(F.silu(self.norm(x)))
        if torch.isnan(h).any().item():  # expect: PTL501, PTL504
            h = torch.nan_to_num(h)
        return x + h


class UNet(nn.Module):
    def __init__(self, ch=64, depth=4):
        super().__init__()
        self.inp = nn.Conv2d(3, ch, 3, padding=1)
        self.down = nn.ModuleList([ResBlock(ch) for _ in range(depth)])
        self.mid = ResBlock(ch)
        self.up = nn.ModuleList([ResBlock(ch) for _ in range(depth)])
        self.out = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, x):
        h = self.inp(x)
        for blk in self.down:
            h = blk(h)
        h = self.mid(h)
        for blk in self.up:
            h = blk(h)
        return self.out(h)

    def training_loss(self, x, y):
        pred = self(x)
        loss = F.mse_loss(pred, y)
        self.last_loss = loss.item()
        return loss

    def sample_stats(self, x):
        return self(x).mean(dim=(0, 2, 3)).tolist()
