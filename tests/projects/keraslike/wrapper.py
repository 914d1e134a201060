class Trainer:
    """Not an nn.Module: its own `compile` configures training and traces nothing."""

    def compile(self, optimizer):
        self.optimizer = optimizer

    def forward(self, x):
        return x.sum().item()


def fit(optimizer):
    trainer = Trainer()
    trainer.compile(optimizer)
    return trainer
