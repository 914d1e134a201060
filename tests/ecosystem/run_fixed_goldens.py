"""Runs the PTL401 fixture goldens with the installed PyTorch: each dataset of a golden must
give every worker its own random numbers once fixed, and the fixture before the fix must not
(where the rule's premise holds for that PyTorch). Exits 77 when torch or numpy is missing.

    python3 tests/ecosystem/run_fixed_goldens.py tests/fixtures/data
"""
import importlib.util
import os
import shutil
import sys
import tempfile
import warnings

try:
    import numpy  # noqa: F401
    import torch
except ImportError:
    sys.exit(77)

warnings.filterwarnings("ignore")

# Fixture -> does its unfixed dataset repeat numbers across workers on this PyTorch?
FIXTURES = {
    "PTL401.py": True,
    "PTL401_aliases.py": True,
    "PTL401_module_generator.py": True,
    "PTL401_datamodule.py": True,
    "PTL401_adds_import.py": True,
    # The global numpy stream: duplicated only before PyTorch 1.9.
    "PTL401_torch_1_8.py": tuple(int(p) for p in torch.__version__.split(".")[:2]) < (1, 9),
}


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def loaders(module):
    if hasattr(module, "loaders"):
        return list(module.loaders(2))
    return [v for v in vars(module).values() if isinstance(v, torch.utils.data.DataLoader)]


def values(loader):
    out = []
    for batch in loader:
        items = batch.tolist() if isinstance(batch, torch.Tensor) else batch
        out += items if isinstance(items, list) else [items]
    return [float(v) for v in out]


def main(fixtures):
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for index, (fixture, duplicates) in enumerate(FIXTURES.items()):
            for fixed in (False, True):
                source = os.path.join(fixtures, fixture + (".fixed" if fixed else ""))
                path = os.path.join(tmp, f"case{index}_{int(fixed)}.py")
                shutil.copyfile(source, path)
                module = load(path, f"case{index}_{int(fixed)}")
                for n, loader in enumerate(loaders(module)):
                    torch.manual_seed(0)
                    first = values(loader)
                    torch.manual_seed(0)
                    again = values(loader)
                    repeated = len(set(first)) < len(first)
                    expected = duplicates and not fixed
                    ok = repeated == expected and first == again
                    failures += not ok
                    print(f"{'ok  ' if ok else 'FAIL'} {os.path.basename(source)} loader {n}: "
                          f"{len(first)} values, {len(set(first))} distinct, reproducible={first == again}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/data"))
