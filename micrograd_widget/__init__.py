"""micrograd-widget: see backpropagation. The public face; every name is defined in its own module."""

from .engine import Value

__all__ = ["Value"]
__version__ = "0.1.0"
