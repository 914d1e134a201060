from ._registry import register_model, list_models
from ._factory import create_model
from .vision_transformer import *
from .convnext import *
