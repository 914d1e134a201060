import contextlib

import torch._dynamo


@contextlib.contextmanager
def scalars_captured():
    # For a while only: the previous value comes back.
    old = torch._dynamo.config.capture_scalar_outputs
    try:
        torch._dynamo.config.capture_scalar_outputs = True
        yield
    finally:
        torch._dynamo.config.capture_scalar_outputs = old
