import torch._dynamo


def configure(args):
    # Process-wide: every compile after this call captures scalars, in any module.
    if args.capture_scalars:
        torch._dynamo.config.capture_scalar_outputs = True
