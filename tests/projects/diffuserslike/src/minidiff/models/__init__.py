from .unet_2d import UNet2DModel
from .attention import FlexAttnProcessor
