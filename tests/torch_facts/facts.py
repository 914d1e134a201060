"""A handful of rules/torch_releases.cpp's facts, checked against a real PyTorch.

Run under the release it names: prints one line per fact and exits 1 when one does not hold.
"""
import inspect
import sys

import torch

release = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
failures = []


def fact(key, added, present):
    expected = release >= added
    status = "ok" if present == expected else "WRONG"
    if present != expected:
        failures.append(key)
    print(f"{status:5} {key}: added {added[0]}.{added[1]}, {'present' if present else 'absent'} in {torch.__version__}")


fact("torch.nn.functional.scaled_dot_product_attention", (2, 0),
     hasattr(torch.nn.functional, "scaled_dot_product_attention"))
if hasattr(torch.nn.functional, "scaled_dot_product_attention"):
    fact("torch.nn.functional.scaled_dot_product_attention(scale=)", (2, 1),
         "scale" in (torch.nn.functional.scaled_dot_product_attention.__doc__ or "").split("\n")[1])
fact("torch.amp.GradScaler", (2, 3), hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"))
fact("torch.GradScaler", (2, 3), hasattr(torch, "GradScaler"))
fact("torch.amp.custom_fwd", (2, 4), hasattr(torch, "amp") and hasattr(torch.amp, "custom_fwd"))
import torch.utils.checkpoint as cp  # noqa: E402

fact("torch.utils.checkpoint.checkpoint_sequential(use_reentrant=)", (2, 1),
     "use_reentrant" in inspect.signature(cp.checkpoint_sequential).parameters)
fact("torch.load:weights_only-default-true", (2, 6),
     inspect.signature(torch.load).parameters["weights_only"].default is not False)
try:
    import torch._dynamo.config as dynamo_config

    fact("torch._dynamo.config.recompile_limit", (2, 7), hasattr(dynamo_config, "recompile_limit"))
except ImportError:
    fact("torch._dynamo.config.recompile_limit", (2, 7), False)
try:
    from torch.nn.attention import flex_attention  # noqa: F401

    has_flex = True
except ImportError:
    has_flex = False
fact("torch.nn.attention.flex_attention", (2, 5), has_flex)

sys.exit(1 if failures else 0)
