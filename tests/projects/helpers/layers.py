from utils import maybe_compile


@maybe_compile
def fused(x):
    return x.sum().item()  # expect: PTL501


def plain(x):
    return x.sum().item()  # never compiled
