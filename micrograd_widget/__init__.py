"""micrograd-widget: see backpropagation. The public face; every name is defined in its own module."""

from micrograd_widget.core.gradcheck import gradcheck
from micrograd_widget.core.ops import define_op
from micrograd_widget.core.tape import Tape
from micrograd_widget.display import save_svg
from micrograd_widget.engine import Value
from micrograd_widget.graph.widget import GraphWidget, explore
from micrograd_widget.host.export import save_html
from micrograd_widget.host.extension import load_ipython_extension, unload_ipython_extension
from micrograd_widget.nn import MLP, Layer, Module, Neuron, lecture_data, lecture_mlp, squared_error
from micrograd_widget.picture.dot import draw_dot, graph_view, trace
from micrograd_widget.training.widget import TrainingWidget, watch

__all__ = ["Value", "Module", "Neuron", "Layer", "MLP", "lecture_mlp", "lecture_data", "squared_error", "define_op",
           "Tape", "draw_dot", "graph_view", "trace", "GraphWidget", "explore", "TrainingWidget", "watch", "save_html",
           "save_svg", "gradcheck", "load_ipython_extension", "unload_ipython_extension"]
__version__ = "0.1.0"
