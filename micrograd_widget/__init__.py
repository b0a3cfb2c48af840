"""micrograd-widget: see backpropagation. The public face; every name is defined in its own module."""

from .dot import draw_dot, graph_view, trace
from .engine import Value

__all__ = ["Value", "draw_dot", "graph_view", "trace"]
__version__ = "0.1.0"
