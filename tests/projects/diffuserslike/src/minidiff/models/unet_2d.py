import torch
import torch.nn as nn

from .unet_blocks import get_down_block


class UNet2DModel(nn.Module):
    def __init__(self, down_block_types=("DownBlock2D", "AttnDownBlock2D"), block_out_channels=(64, 128)):
        super().__init__()
        self.conv_in = nn.Conv2d(3, block_out_channels[0], 3, padding=1)
        self.time_embedding = nn.Linear(1, 512)
        self.down_blocks = nn.ModuleList([])
        output_channel = block_out_channels[0]
        for i, down_block_type in enumerate(down_block_types):
            input_channel = output_channel
            output_channel = block_out_channels[i]
            down_block = get_down_block(down_block_type, input_channel, output_channel, 512)
            self.down_blocks.append(down_block)
        self.conv_out = nn.Conv2d(block_out_channels[-1], 3, 3, padding=1)

    @classmethod
    def from_pretrained(cls, path, **kwargs):
        model = cls(**kwargs)
        model.load_state_dict(torch.load(path, weights_only=True))
        return model

    def forward(self, sample, timestep):
        temb = self.time_embedding(timestep[:, None].float())
        sample = self.conv_in(sample)
        for downsample_block in self.down_blocks:
            sample = downsample_block(sample, temb)
        return self.conv_out(sample)
