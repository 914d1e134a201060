import torch

from litelib.callbacks import seed_everything
from litelib.trainer import BF16Trainer, Trainer
from project.models.mlp import MLPRegressor
from project.models.unet import UNet


def main(loader):
    seed_everything(0)
    torch.use_deterministic_algorithms(True)
    model = UNet(ch=64)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    trainer = Trainer(model, opt, precision="bf16-mixed")
    trainer.fit(loader)


def regress(x, y):
    reg = MLPRegressor(16)
    trainer = BF16Trainer(reg, torch.optim.SGD(reg.parameters(), lr=0.1))
    return trainer.train_step(x, y)
