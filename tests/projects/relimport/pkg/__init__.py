from .heads import ClassifierHead as Head

__all__ = ["Head"]
