import torch
import torch.nn as nn
import torch.nn.functional as F

from ..layers import DropPath, Mlp
from ._registry import register_model

__all__ = ["ConvNeXt"]


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim, drop_path=0.):
        super().__init__()
        self.conv_dw = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, 4 * dim)
        self.drop_path = DropPath(drop_path) if drop_path > 0. else nn.Identity()

    def forward(self, x):
        shortcut = x
        x = self.conv_dw(x)
        x = x.permute(0, 2, 3, 1)
        x = self.norm(x)
        x = self.mlp(x)
        x = x.permute(0, 3, 1, 2)
        return self.drop_path(x) + shortcut


class ConvNeXtStage(nn.Module):
    def __init__(self, in_chs, out_chs, depth=2):
        super().__init__()
        self.downsample = nn.Conv2d(in_chs, out_chs, kernel_size=2, stride=2) if in_chs != out_chs else nn.Identity()
        stage_blocks = []
        for i in range(depth):
            stage_blocks.append(ConvNeXtBlock(out_chs))
        self.blocks = nn.Sequential(*stage_blocks)

    def forward(self, x):
        x = self.downsample(x)
        return self.blocks(x)


class ConvNeXt(nn.Module):
    def __init__(self, dims=(96, 192, 384, 768), depths=(3, 3, 9, 3), num_classes=1000):
        super().__init__()
        self.stem = nn.Conv2d(3, dims[0], kernel_size=4, stride=4)
        self.stages = nn.ModuleList()
        prev = dims[0]
        for i in range(4):
            self.stages.append(ConvNeXtStage(prev, dims[i], depth=depths[i]))
            prev = dims[i]
        self.head = nn.Linear(dims[-1], num_classes)

    def forward(self, x):
        x = self.stem(x)
        for i, stage in enumerate(self.stages):
            x = stage(x)
            if not torch.isfinite(x).all().item():  # expect: PTL501, PTL504
                raise FloatingPointError(f"stage {i} overflowed")
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


@register_model
def convnext_tiny(pretrained=False, **kwargs):
    return ConvNeXt(dims=(96, 192, 384, 768), depths=(3, 3, 9, 3), **kwargs)
