import torch
import torch.nn as nn
from torch.nn import functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.n_head = config.n_head

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        if q.abs().max().item() > 1e4:  # expect: PTL501, PTL504
            q = q.clamp(-1e4, 1e4)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    def debug_stats(self, x):
        # Not reached from forward: never compiled.
        return x.mean().item()


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.fc = nn.Linear(config.n_embd, 4 * config.n_embd)

    def forward(self, x):
        self.log_norm(x)
        return self.fc(x)

    @torch.compiler.disable
    def log_norm(self, x):
        # Dynamo leaves this method to the eager interpreter.
        print(x.norm().item())


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attn = CausalSelfAttention(config)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(x)
        return x + self.mlp(x)
