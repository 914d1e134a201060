import torch


@torch.compile
def step(x: torch.Tensor):
    n = x.sum().item()  # captured: conftest.py turned the option on for the test run
    if bool(x.max()):  # expect: PTL501, PTL504
        return x * n
    return x


def test_step():
    assert step(torch.ones(2)).shape == (2,)
