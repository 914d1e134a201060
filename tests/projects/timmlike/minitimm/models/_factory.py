from ._registry import model_entrypoint


def create_model(model_name, pretrained=False, **kwargs):
    create_fn = model_entrypoint(model_name)
    model = create_fn(pretrained=pretrained, **kwargs)
    return model
