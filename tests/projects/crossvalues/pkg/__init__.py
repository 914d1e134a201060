from .helpers import accelerator_device
