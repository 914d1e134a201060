from .attention import Attention
from .mlp import Mlp
from .drop import DropPath
from .patch_embed import PatchEmbed
