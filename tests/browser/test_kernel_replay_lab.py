"""End to end in a real JupyterLab 4: a graph with a user-defined op is replayed by the running kernel for each
slider frame, its answer travelling as two Float64 binary buffers through the real comm (issue 12), and the
view shows the kernel's numbers."""

from __future__ import annotations

import pytest

from .mgw_browser.jupyter import write_notebook
from .mgw_browser.lab import open_notebook, run_all, widget_in_cell

pytestmark = [pytest.mark.browser, pytest.mark.jupyterlab]

CUBE_CELL = """from micrograd_widget import Value, explore
from micrograd_widget.core.ops import define_op
cube = define_op("cube", lambda a: a ** 3, lambda a, out: 3 * a * a)
x = Value(2.0, label="x")
y = Value.apply(cube, x); y.label = "y"
z = y * 0.5; z.label = "z"
w = explore(z)
w
"""


def test_a_user_op_graph_is_replayed_by_the_kernel_through_binary_buffers(jupyterlab, guarded_lab, notebook_name):
    page = guarded_lab.page
    write_notebook(jupyterlab.notebooks / notebook_name, [CUBE_CELL])
    open_notebook(page, jupyterlab, notebook_name)
    run_all(page, "lab")
    view = widget_in_cell(page, 0)
    view.expect_numbers({"y": {"data": 8.0, "grad": 0.5}, "z": {"data": 4.0, "grad": 1.0}})
    took = view.set_slider("x", 3.0)
    view.expect_numbers({"x": {"data": took, "grad": 1.5 * took * took}, "y": {"data": took ** 3, "grad": 0.5},
                         "z": {"data": 0.5 * took ** 3, "grad": 1.0}}, timeout_s=30)
    assert not view.error_text(), view.error_text()
