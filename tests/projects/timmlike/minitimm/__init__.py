from .models import create_model, list_models
from .layers import Mlp, Attention
