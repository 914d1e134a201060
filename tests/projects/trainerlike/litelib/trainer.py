import os

import torch
from torch import nn


class Trainer:
    def __init__(self, model: nn.Module, optimizer, precision="bf16-mixed", compile_model=True, max_epochs=1):
        self.model = model
        self.optimizer = optimizer
        self.max_epochs = max_epochs
        self.amp_dtype = torch.bfloat16 if precision == "bf16-mixed" else torch.float16
        self.scaler = torch.cuda.amp.GradScaler()
        if compile_model:
            self.model = torch.compile(self.model)

    def train_step(self, batch):
        x, y = batch
        with torch.autocast("cuda", dtype=self.amp_dtype):
            loss = self.model.training_loss(x, y)
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
        return loss.detach()

    def fit(self, loader):
        for epoch in range(self.max_epochs):
            for step, batch in enumerate(loader):
                loss = self.train_step(batch)
                if step % 50 == 0:
                    print(f"epoch {epoch} step {step} loss {loss.item():.4f}")


class BF16Trainer:
    def __init__(self, model, optimizer):
        self.model = torch.compile(model)
        self.optimizer = optimizer
        self.amp_dtype = torch.bfloat16
        self.scaler = torch.amp.GradScaler("cuda")  # expect: PTL201

    def train_step(self, x, y):
        with torch.autocast(device_type="cuda", dtype=self.amp_dtype):
            loss = nn.functional.mse_loss(self.model(x), y)
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss
