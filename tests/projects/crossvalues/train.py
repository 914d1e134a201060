import torch
import utils
from torch.distributed.fsdp import MixedPrecisionPolicy
from torch.utils.data import DataLoader

from pkg import accelerator_device
from utils import (
    amp_context,
    cpu_device,
    default_device,
    device_object,
    full_dtype,
    get_device,
    given_device,
    half_context,
    half_dtype,
    host_device,
    low_dtype,
    maybe_device,
    pick_device,
    some_dtype,
)

loader = DataLoader(list(range(8)), batch_size=4, num_workers=2, pin_memory=True)


def from_import(model):
    device = get_device()
    for x in loader:
        model(x.to(device))  # expect: PTL402


def module_attribute(model):
    for x in loader:
        model(x.to(utils.pick_device()))  # expect: PTL402


def device_objects(model):
    for x in loader:
        model(x.to(device_object()))  # expect: PTL402
        model(x.to(default_device()))  # expect: PTL402
        model(x.to(accelerator_device()))  # expect: PTL402
        model(x.to(maybe_device()))  # expect: PTL402


def host_targets(model):
    for x in loader:
        model(x.to(host_device()))
        model(x.to(cpu_device()))
        model(x.to(full_dtype()))
        model(x.to(low_dtype()))


def unknown_targets(model, name):
    for x in loader:
        model(x.to(given_device(name)))
        model(x.to(some_dtype(name)))


reduce_low = MixedPrecisionPolicy(param_dtype=low_dtype(), reduce_dtype=low_dtype())  # expect: PTL203
reduce_half = MixedPrecisionPolicy(param_dtype=half_dtype(), reduce_dtype=utils.half_dtype())  # expect: PTL203
reduce_full = MixedPrecisionPolicy(param_dtype=low_dtype(), reduce_dtype=full_dtype())
reduce_unknown = MixedPrecisionPolicy(param_dtype=low_dtype(), reduce_dtype=some_dtype("float32"))


def bf16_with_scaler(model, optimizer):
    scaler = torch.amp.GradScaler("cuda")  # expect: PTL201
    for x in loader:
        with torch.autocast("cuda", dtype=low_dtype()):
            loss = model(x)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def bf16_helper_context_with_scaler(model, optimizer):
    scaler = torch.amp.GradScaler("cuda")  # expect: PTL201
    for x in loader:
        with amp_context():
            loss = model(x)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def fp16_helper_context_with_scaler(model, optimizer):
    scaler = torch.amp.GradScaler("cuda")
    for x in loader:
        with half_context():
            loss = model(x)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
