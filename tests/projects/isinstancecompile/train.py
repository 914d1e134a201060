# Compiles the layers of a model in place, picked by their class.
from layers import MLP, Attention, Gate, Norm


def compile_layers(model):
    for m in model.modules():
        if isinstance(m, Attention):
            m.compile()
        elif isinstance(m, Norm):
            pass
    for _, module in model.named_modules():
        if isinstance(module, (MLP,)) and not module.training:
            module.compile(dynamic=False)


def compile_either(model):
    for m in reversed(list(model.modules())):
        if isinstance(m, Attention) or isinstance(m, Gate):
            m.compile(backend="inductor")
