import torch
from torch.utils.data import DataLoader

from utils import amp_context, full_dtype, half_dtype, off_context, plain_context, some_dtype

loader = DataLoader(list(range(8)), batch_size=4)


def fp16_without_scaler(model, optimizer):
    for x in loader:
        with torch.autocast("cuda", dtype=half_dtype()):  # expect: PTL202
            loss = model(x)
        loss.backward()
        optimizer.step()


def fp32_without_scaler(model, optimizer):
    for x in loader:
        with torch.autocast("cuda", dtype=full_dtype()):
            loss = model(x)
        loss.backward()
        optimizer.step()


def unknown_dtype_without_scaler(model, optimizer, name):
    for x in loader:
        with torch.autocast("cuda", dtype=some_dtype(name)):
            loss = model(x)
        loss.backward()
        optimizer.step()


def backward_in_helper_context(model, optimizer):
    for x in loader:
        with amp_context():
            loss = model(x)
            loss.backward()  # expect: PTL204
        optimizer.step()


def backward_in_disabled_or_plain_context(model, optimizer):
    for x in loader:
        with off_context():
            loss = model(x)
            loss.backward()
        with plain_context():
            loss = model(x)
            loss.backward()
        optimizer.step()
