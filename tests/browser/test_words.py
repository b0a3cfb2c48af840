"""The words a learner reads about folding (issue 19), in Chromium at 1000 x 900 with a fake model: the folding
sentence said once (the status line, not also inside the picture), and a fold box's inspector saying what the box
holds, why it is folded and how to open it, in the sentences written below by hand."""

from __future__ import annotations

import pytest
from builders import lecture_mlp_loss

from micrograd_widget.core.tape import Tape
from micrograd_widget.graph.widget import GraphWidget

from .mgw_browser.dom import poll
from .mgw_browser.folds import drawn

pytestmark = pytest.mark.browser

_READ_WORDS = """r => ({
  status: r.querySelector('span.mgw-status[data-role="status"]')?.textContent ?? null,
  svgTexts: [...r.querySelectorAll('[data-role="graph"] svg text')].map(t => t.textContent),
  text: r.innerText,
})"""


def test_the_folding_sentence_is_said_once_and_a_box_says_what_why_and_how(show, guarded, tmp_path) -> None:
    guarded.page.set_viewport_size({"width": 1000, "height": 900})
    loss = lecture_mlp_loss()
    tape = Tape.from_value(loss)
    neuron = sum(1 for s in tape.scopes if s == "layers.0.neurons.0")
    assert (len(tape), neuron) == (398, 44), "the lecture's MLP loss and its first neuron, as counted by hand"
    view = show(GraphWidget(loss))
    poll(lambda: drawn(view, settle=False), lambda d: "layers.0.neurons.0" in d["boxes"] and not d["busy"], "folded")
    sentence = "381 folded into 9 boxes, one per module"
    words = view.root.evaluate(_READ_WORDS)
    assert words["text"].count(sentence) == 1, words["text"]
    assert words["status"] == f"Showing 17 of 398 nodes; {sentence}.", words["status"]
    assert not any("showing" in t.lower() for t in words["svgTexts"]), "the picture repeats the status line"

    view.root.locator('[data-role="graph"] g.mgw-fold[data-fold="layers.0.neurons.0"]').click()
    inspector = view.root.locator('[data-role="inspector"]')
    poll(lambda: inspector.get_attribute("data-fold"), lambda k: k == "layers.0.neurons.0", "the box inspected")
    assert inspector.locator("p").all_inner_texts() == [
        "Neuron layers.0.neurons.0: 44 nodes made inside it.",
        "Folded to keep the picture readable: the graph has 398 nodes and the picture draws at most 250 boxes "
        "(node_budget), so parts of it are drawn as one box each.",
        "Click Expand (or double-click the box) to open it in place; Collapse closes it again.",
    ]
    guarded.page.screenshot(path=str(tmp_path / "words.png"))
