import torch
import torch.nn as nn
import torch.nn.functional as F


class ResnetBlock2D(nn.Module):
    def __init__(self, in_channels, out_channels, temb_channels=512):
        super().__init__()
        self.norm1 = nn.GroupNorm(32, in_channels)
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, padding=1)
        self.time_emb_proj = nn.Linear(temb_channels, out_channels)
        self.norm2 = nn.GroupNorm(32, out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1)
        self.conv_shortcut = nn.Conv2d(in_channels, out_channels, 1) if in_channels != out_channels else None

    def forward(self, input_tensor, temb):
        hidden_states = self.conv1(F.silu(self.norm1(input_tensor)))
        hidden_states = hidden_states + self.time_emb_proj(F.silu(temb))[:, :, None, None]
        hidden_states = self.conv2(F.silu(self.norm2(hidden_states)))
        if self.conv_shortcut is not None:
            input_tensor = self.conv_shortcut(input_tensor)
        scale = hidden_states.abs().max().item()  # expect: PTL501
        return (input_tensor + hidden_states) / max(scale, 1.0)
