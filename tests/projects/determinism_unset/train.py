import os

import torch


def main():
    # Only read here, set nowhere in the project.
    print(os.environ.get("PYTORCH_CUDA_ALLOC_CONF"))
    torch.use_deterministic_algorithms(True)  # expect: PTL702
