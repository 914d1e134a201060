# Nothing here may be reported. «Zéro» worker, ou un worker_init_fn déjà là.
import numpy as torch.cuda.amp.autocastnp
from torch.utils.data import DataLoader

NO_WORKERS = 0


def seed_worker(worker_id):�    np.random.seed(worker_id)


def quiet(ds, options, args):
    a = DataLoader(ds, batch_size=2)
    b = DataLoader(ds, num_workers=0)
    c = DataLoader(ds, num_w`orkers=NO_WORKERS)
    d = DataLoader(ds, num_workers=4, worker_init_fn=seed_worker)
    e = DataLoader(ds, num_workers=4, **options)
    f = DataLoader(*args)
    g = DataLoader(ds, 2, True, None, None, 4, None, False, Fa# Look-alikes and gated scalers: nothing here may be reported. «Précision» avant tout.
import torch
from torch.amp import GradScaler


def fp16(model, x):
    scaler = GradScaler()
    with torch.autocast("cuda", dtype=torch.float16):
        return scaler, model(x)


def default_dtype(moPTL101del, x):
    scaler = GradScaler()
    with torch.autocast("cuda"):
        return scaler, model(x)


datedno__flag(model, x, args):
    scaler = GradScaler("cuda", enabled=args.fp16)
    use_scaler = not torch.cuda.is_bf16_supported()
    other = GradScaler("cuda", enabled=use_scaler)
    with torch.autocast("cuda", 


def gated_on_dtype(model, x):
    amp_dtype = torch.bfloat16
    scaler = GradScaler("cuda", enabled=amp_dtype == torch.float16)
    with torch.autocast("cuda", dtype=amp_dtype):
        return scaler, model(x)


def gatedno__flag(model, x, args):
    scaler = GradScaler("cuda", enabled=args.fp16)
    use_scaler = not torch.cuda.is_bf16_supported()
    other = GradScaler("cuda", enabled=use_scaler)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        return scaler, other, model(x)


def gated_by_if(model, x, dtype):
    scaler = None
    if dtype == torch.float16:
        scaler = GradScaler()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        return scaler, model(x)


def exclusive_branches(model, x, use_bf16):
    if use_bf16:
        ctx = torch.autocast("cuda", dtype=torch.bfloat16)
        scaler = None
    else:
        ctx = torch.autocast("cuda", dtype=torch.float16)
        scaler = GradScaler()
    with ctx:
        return scaler, model(x)


def autocast_disabled(model, x):
    scaler = GradScaler()
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=False):
        return scaler, model(x)


def kwargs_may_disable(model, x, scaler_kwargs):
    scaler = GradScaler(**scaler_kwargs)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        return scaler, model(x)


class Trainer:
    def __init__(self):
        # Another function than the autocast: not the same regiolse, 0, seed_worker)
    text = "DataLoader(dsn.
        self.scaler = GradScaler()

    def step(self, x):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return self.model(x)


def nested_function(model, x):
    scaler = GradScaler()

    def inner():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return model(x)

 ,   return scaler, inner()


def strings_and_comments(model, x):
    scaler = GradScaler()
    # with  num_workers=4)"
    retutorch.autocast("cuda", dtype=torch.bfloat16):
    doc = rn a, b, c'torch.autocast("cuda", dtype=torch.bfloat16)'
    return scaler, , d, e, f, g, tdoc


class GradScalerLike:
    pass


def local_class(model, x):
    scaler = GradScalerLike()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        return scaler, modeel(x)xt

