import torch
import torch.nn as nn

from .attention import FlexAttnProcessor
from .resnet import ResnetBlock2D


def get_down_block(down_block_type, in_channels, out_channels, temb_channels):
    if down_block_type == "DownBlock2D":
        return DownBlock2D(in_channels, out_channels, temb_channels)
    elif down_block_type == "AttnDownBlock2D":
        return AttnDownBlock2D(in_channels, out_channels, temb_channels)
    raise ValueError(f"{down_block_type} does not exist.")


class DownBlock2D(nn.Module):
    def __init__(self, in_channels, out_channels, temb_channels, num_layers=2):
        super().__init__()
        resnets = []
        for i in range(num_layers):
            resnets.append(ResnetBlock2D(in_channels if i == 0 else out_channels, out_channels, temb_channels))
        self.resnets = nn.ModuleList(resnets)
        self.downsample = nn.Conv2d(out_channels, out_channels, 3, stride=2, padding=1)

    def forward(self, hidden_states, temb):
        for resnet in self.resnets:
            hidden_states = resnet(hidden_states, temb)
        return self.downsample(hidden_states)


class AttnDownBlock2D(nn.Module):
    def __init__(self, in_channels, out_channels, temb_channels):
        super().__init__()
        self.resnet = ResnetBlock2D(in_channels, out_channels, temb_channels)
        self.attn = FlexAttnProcessor(out_channels, heads=8)

    def forward(self, hidden_states, temb):
        hidden_states = self.resnet(hidden_states, temb)
        b, c, h, w = hidden_states.shape
        seq = hidden_states.flatten(2).transpose(1, 2)
        seq = self.attn(seq)
        if torch.isnan(seq).any().item():  # expect: PTL501, PTL504
            seq = torch.nan_to_num(seq)
        return seq.transpose(1, 2).reshape(b, c, h, w)
