import torch
from model import GPTConfig, GPT

init_from = 'gpt2'
compile = False
model = GPT.from_pretrained(init_from, dict(dropout=0.0))
model.eval()
if compile:
    model = torch.compile(model)

x = torch.tensor([[0]], dtype=torch.long)
with torch.no_grad():
    y = model.generate(x, 100, temperature=0.8, top_k=200)
    print(y[0].tolist())
