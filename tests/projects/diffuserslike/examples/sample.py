import torch

from minidiff.models import UNet2DModel
from minidiff.models.attention import attention_reference
from minidiff.pipelines.ddpm import DDPMPipeline


def main(path, scheduler):
    unet = UNet2DModel.from_pretrained(path)
    pipe = DDPMPipeline(unet, scheduler)
    q = torch.randn(1, 8, 128, 64)
    attention_reference(q, q, q)
    return pipe(batch_size=4)
