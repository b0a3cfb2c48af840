"""micrograd-widget: see backpropagation. The public face; every name is defined in its own module."""

from .display import save_svg
from .dot import draw_dot, graph_view, trace
from .engine import Value
from .export import save_html
from .extension import load_ipython_extension, unload_ipython_extension
from .gradcheck import gradcheck
from .nn import MLP, Layer, Module, Neuron, lecture_data, lecture_mlp, squared_error
from .ops import define_op
from .tape import Tape
from .training import TrainingWidget, watch
from .widget import GraphWidget, explore

__all__ = ["Value", "Module", "Neuron", "Layer", "MLP", "lecture_mlp", "lecture_data", "squared_error", "define_op",
           "Tape", "draw_dot", "graph_view", "trace", "GraphWidget", "explore", "TrainingWidget", "watch", "save_html",
           "save_svg", "gradcheck", "load_ipython_extension", "unload_ipython_extension"]
__version__ = "0.1.0"
