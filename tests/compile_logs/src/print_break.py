# print inside compiled code breaks the graph.
import torch


def step(x):
    y = torch.relu(x)
    print("step", y.shape)  # run: PTL901
    return y + 1


compiled = torch.compile(step, backend="eager")
compiled(torch.randn(4))
compiled(torch.randn(4))
