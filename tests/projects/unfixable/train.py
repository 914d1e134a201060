# `unfixable = ["PTL107"]`: its findings are reported without a fix everywhere (the CLI, the
# editor's quick fixes and fix-all); PTL101's fix is still offered and applied.
import torch

w = torch.zeros(3, require_grad=True)


def freeze(model):
    for p in model.parameters():
        p.require_grad = False


with torch.cuda.amp.autocast():
    y = w * 2
