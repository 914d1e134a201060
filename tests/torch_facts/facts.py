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


# PTL705's 2.14 allocator parser (analysis/alloc_conf.cpp): the device-neutral pass runs on a CPU
# build through torch._C._accelerator_setAllocatorSettings; the CUDA keys need a CUDA build.
def allocator_verdict(text):
    torch._C._accelerator_setAllocatorSettings("large_segment_size_mb:20")  # reset what a row changed
    try:
        torch._C._accelerator_setAllocatorSettings(text)
        return True
    except Exception:  # ValueError, IndexError (stoull), RuntimeError (index asserts)
        return False


def allocator_fact(text, accepted):
    got = allocator_verdict(text)
    status = "ok" if got == accepted else "WRONG"
    if got != accepted:
        failures.append(f"allocator {text!r}")
    print(f"{status:5} allocator {text!r}: {'accepted' if got else 'rejected'} by {torch.__version__}")


if release >= (2, 14) and hasattr(torch._C, "_accelerator_setAllocatorSettings"):
    for text, accepted in [("max_split_size_mb:20", True), ("max_split_size_mb:19", False),
                           ("max_split_size_mb:128MB", True), ("max_split_size_mb:-1", True),
                           ("max_split_size_mb:4294967296", True), ("max_split_size_mb:abc", False),
                           ("max_split_size_mb:128:3", False), ("garbage_collection_threshold:1", False),
                           ("roundup_power2_divisions:[256:1,512:2,>:4]", True), ("roundup_power2_divisions:0", False),
                           ("roundup_power2_divisions:[256:1,>:4", False), ("expandable_segments:true", False),
                           ("large_segment_size_mb:64,max_split_size_mb:32", False)]:
        allocator_fact(text, accepted)
    import os
    import subprocess

    def settings_under(env):
        code = "import torch; print(torch._C._accelerator_getAllocatorSettings())"
        run = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True)
        return run.stdout.strip()

    both = settings_under({"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:100", "PYTORCH_ALLOC_CONF": "max_split_size_mb:200"})
    alone = settings_under({"PYTORCH_ALLOC_CONF": "max_split_size_mb:200"})
    read = both == "max_split_size_mb:100" and alone == "max_split_size_mb:200"
    if not read:
        failures.append("PYTORCH_ALLOC_CONF")
    print(f"{'ok' if read else 'WRONG':5} PYTORCH_ALLOC_CONF: read when PYTORCH_CUDA_ALLOC_CONF is unset, which wins "
          f"({both!r}, {alone!r})")

sys.exit(1 if failures else 0)
