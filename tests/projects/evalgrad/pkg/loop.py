import torch

from . import metrics


def score(model, batches):
    with torch.inference_mode():
        return [metrics.score_model(model, b) for b in batches]


def gather(model, batches):
    return [metrics.collect_outputs(model, b) for b in batches]
