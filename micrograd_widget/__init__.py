"""micrograd-widget: see backpropagation. The public face; every name is defined in its own module."""

from .dot import draw_dot, graph_view, trace
from .engine import Value
from .extension import load_ipython_extension, unload_ipython_extension

__all__ = ["Value", "draw_dot", "graph_view", "trace", "load_ipython_extension", "unload_ipython_extension"]
__version__ = "0.1.0"
