"""front_ends.py, several front ends (browser tabs) on one widget (issue 24: 6 and 9): a change in one tab reaches
the other (``answer_update``: the echo, then an update of what a tab still has wrong), the second tab does not undo
the first (``LastChanges``), and a refused or trimmed ``opened`` goes back to every tab, with or without echoes."""

from __future__ import annotations

import pytest
from builders import lecture_L
from helpers import FrontEnd, Kernel, folded_widget, leaves_of, moved_leaf, two_tabs
from ipywidgets.widgets import widget as ipywidget_module

from micrograd_widget.picture.fold_tree import build_tree, picture


def test_a_change_in_one_tab_reaches_the_other() -> None:
    nodes, widget, kernel, tab1, tab2 = two_tabs()
    tab1.send(leaf_values=moved_leaf(tab1, widget, nodes["a"], 0.5))
    tab1.send(output=widget.tape.index(nodes["d"]))
    tab1.receive()
    tab2.receive()
    assert kernel.echoes(), "an accepted change is echoed"
    assert tab2.state == tab1.state == {name: getattr(widget, name) for name in tab1.state}
    assert tab2.state["leaf_values"][widget.tape.leaves.index(widget.tape.index(nodes["a"]))] == 0.5


def test_the_second_tab_does_not_undo_the_first() -> None:
    nodes, widget, _, tab1, tab2 = two_tabs()
    tab1.send(leaf_values=moved_leaf(tab1, widget, nodes["a"], 0.5))
    tab2.receive()
    tab2.send(leaf_values=moved_leaf(tab2, widget, nodes["b"], 4.0))
    reference = lecture_L(a=0.5, b=4.0)
    assert leaves_of(nodes) == leaves_of(reference)
    assert nodes["L"].data == reference["L"].data and nodes["a"].grad == reference["a"].grad
    # tab 2 moves b again before tab 1's next change reaches it (its own echo still on its way)
    tab1.receive()
    tab2.receive()
    tab1.send(leaf_values=moved_leaf(tab1, widget, nodes["a"], -1.5))
    tab2.send(leaf_values=moved_leaf(tab2, widget, nodes["b"], 6.0))
    tab1.receive()
    tab2.receive()
    reference = lecture_L(a=-1.5, b=6.0)
    assert leaves_of(nodes) == leaves_of(reference) and nodes["L"].data == reference["L"].data
    assert tab1.state == tab2.state == {name: getattr(widget, name) for name in tab1.state}, "every tab agrees"
    assert widget.error == ""


def test_no_echo_when_jupyter_widgets_echo_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ipywidget_module, "JUPYTER_WIDGETS_ECHO", False)
    widget = folded_widget()
    kernel = Kernel(widget)
    tab = FrontEnd(kernel, "tab1")
    tab.send(leaf_values=[x + 0.5 if isinstance(x, float) else x for x in tab.state["leaf_values"]])
    assert kernel.echoes() == [] and widget.leaf_values == tab.state["leaf_values"]
    every = [g.key for g in build_tree(widget.tape, 60).groups]
    tab.send(opened=every[::-1])
    tab.receive()
    assert kernel.echoes() == [] and tab.state["opened"] == widget.opened != every[::-1], "trimmed: pushed back"


def test_an_opened_the_kernel_refused_or_trimmed_is_sent_back_to_every_tab() -> None:
    widget = folded_widget()
    kernel = Kernel(widget)
    tab1, tab2 = FrontEnd(kernel, "tab1"), FrontEnd(kernel, "tab2")
    tree = build_tree(widget.tape, 60)
    every = [g.key for g in tree.groups]
    # reference: in tree order, each asked-for box whose parent is open, while the picture fits 60 units
    fits = [k for k in every if len(picture(widget.tape, tree, [k]).shown) + len(picture(widget.tape, tree, [k]).boxes)
            <= 60 and tree.groups[tree.by_key[k]].parent < 0]
    assert len(fits) >= 2, "the test needs two boxes that open on their own"
    for asked, kept in [(fits[1::-1], None), (every[::-1], None), ([fits[0], "no-such-box"], widget.opened)]:
        before = list(widget.opened)
        tab1.send(opened=asked)
        tab1.receive()
        tab2.receive()
        if kept is not None:
            assert widget.opened == before and "no-such-box" in widget.error, "refused: nothing changes"
        else:
            assert widget.opened == [k for k in every if k in widget.opened] and widget.opened != asked
        assert tab1.state["opened"] == tab2.state["opened"] == widget.opened, "every tab shows what the kernel has"
