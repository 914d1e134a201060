import torch
import torch.nn.functional as F

from minidiff.models import UNet2DModel


def main(args, loader):
    model = UNet2DModel(block_out_channels=(64, 128))
    if args.resume:
        model = UNet2DModel.from_pretrained(args.resume)
    if args.compile:
        model = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for clean_images in loader:
        noise = torch.randn_like(clean_images)
        timesteps = torch.randint(0, 1000, (clean_images.shape[0],))
        noise_pred = model(clean_images + noise, timesteps)
        loss = F.mse_loss(noise_pred, noise)
        loss.backward()
        optimizer.step()
        print(f"loss {loss.item()}")
