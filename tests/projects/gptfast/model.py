import torch.nn as nn


class Transformer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        logits = self.out(x)
        print(logits.argmax().item())  # expect: PTL501, PTL502
        return logits
