"""The static export in Chromium: ``save_html`` writes one self-contained page whose own small widget host
(js/host/host.js) renders the saved widget state with no kernel, no CDN and no ipywidgets manager. Opened from file://
and from http://127.0.0.1 (alone in its folder), it renders, its sliders move every number as the engine computes
them, the backprop stepper steps, it asks for nothing beyond itself (every request recorded with
``page.on("request")``) and logs no console error; hostile labels stay text."""

from __future__ import annotations

import shutil
from urllib.parse import urlsplit

import pytest

from micrograd_widget.core.ops import define_op
from micrograd_widget.engine import Value

from .mgw_browser.dom import WidgetDom, expected_numbers, poll, shown_equals
from .mgw_browser.graphs import HOSTILE_LABELS, hostile_graph, lecture_L
from .mgw_browser.steps import NOT_REACHED, StepperDom

pytestmark = pytest.mark.browser

ORIGINS = ("file", "http")


@pytest.fixture
def open_page(tmp_path, static_server, guarded, widget_bundle):
    """open_page(root, origin) -> (WidgetDom, requests): save_html(root) opened from file:// or from 127.0.0.1
    (copied alone into a folder of the test server), every request the page makes recorded."""
    from micrograd_widget import save_html

    def _open(root: Value, origin: str):
        out = save_html(root, tmp_path / "page.html")
        if origin == "file":
            url = out.as_uri()
        else:
            served = static_server.root / f"export-{tmp_path.name}"
            served.mkdir()
            shutil.copy(out, served / "page.html")
            url = f"{static_server.url}/{served.name}/page.html"
        requests: list[str] = []
        guarded.page.on("request", lambda request: requests.append(request.url))
        guarded.page.goto(url)
        view = WidgetDom(guarded.page)
        view.wait_ready(60)
        return view, requests, url

    return _open


def beyond_the_page(requests: list[str], url: str) -> list[str]:
    """The requests that are not the page itself, a blob: URL it made, or Chromium's own favicon probe."""
    own = urlsplit(url)
    extra = []
    for r in requests:
        u = urlsplit(r)
        if u.scheme == "blob" or (u.scheme == own.scheme and u.netloc == own.netloc and u.path == own.path):
            continue
        if u.scheme == own.scheme == "http" and u.netloc == own.netloc and u.path == "/favicon.ico":
            continue
        extra.append(r)
    return extra


def expect_clean(guarded, requests: list[str], url: str) -> None:
    assert beyond_the_page(requests, url) == [], f"the page is not self-contained: {requests}"
    assert not guarded.log.outside, f"the exported page asked the network: {guarded.log.outside}"
    assert not guarded.log.console_errors, f"console errors: {guarded.log.console_errors}"
    assert not guarded.log.page_errors and not guarded.log.dialogs, guarded.log.describe()


@pytest.mark.parametrize("origin", ORIGINS)
def test_the_exported_page_renders_and_its_sliders_move_every_number(open_page, guarded, origin):
    view, requests, url = open_page(lecture_L()["L"], origin)
    view.expect_numbers(expected_numbers(lecture_L()))
    a = view.move_slider("a", 0.75)
    assert a != 2.0, "slider a did not move"
    view.expect_numbers(expected_numbers(lecture_L(a=a)))
    f = view.move_slider("f", 0.1)
    assert f != -2.0, "slider f did not move"
    view.expect_numbers(expected_numbers(lecture_L(a=a, f=f)))
    view.type_number("b", 0.125)
    view.expect_numbers(expected_numbers(lecture_L(a=a, b=0.125, f=f)))
    expect_clean(guarded, requests, url)


@pytest.mark.parametrize("origin", ORIGINS)
def test_the_exported_page_steps_backprop(open_page, guarded, origin):
    nodes = lecture_L()
    view, requests, url = open_page(nodes["L"], origin)
    stepper = StepperDom(view)
    stepper.open()
    assert stepper.index() == (0, 3)
    grads = stepper.grads()
    assert grads["L"]["text"] == "1.0000" and grads["a"]["text"] == NOT_REACHED
    stepper.click("end")
    poll(stepper.index, lambda kn: kn == (3, 3), "the stepper to reach its last step")
    grads = stepper.grads()
    for label, v in nodes.items():
        assert shown_equals(grads[label]["text"], v.grad), f"{label}: {grads[label]} at the end, engine {v.grad}"
    stepper.click("back")
    assert stepper.index() == (2, 3) and stepper.current() == ["d"], "step 2 fires d"
    expect_clean(guarded, requests, url)


@pytest.mark.parametrize("origin", ORIGINS)
def test_hostile_labels_stay_text_in_the_exported_page(open_page, guarded, origin):
    nodes = hostile_graph()
    view, requests, url = open_page(nodes["out"], origin)
    view.expect_numbers(expected_numbers(nodes))
    for label in HOSTILE_LABELS:
        assert view.count_with_attr("g[data-node]", "data-node", label) == 1, f"{label!r} is not one node's key"
        assert view.slider(label).count() == 1
    assert guarded.page.locator("img").count() == 0 and guarded.page.locator("body script:not([type])").count() == 0
    x = view.move_slider(HOSTILE_LABELS[0], 0.8)
    view.expect_numbers({"out": {"data": x * -2.0}})
    expect_clean(guarded, requests, url)


def test_a_graph_the_browser_cannot_replay_shows_its_numbers_and_says_it_needs_a_kernel(open_page, guarded):
    """As with ipywidgets' manager before, a message to the (absent) kernel is dropped; the view says so itself."""
    cube = define_op("cube", lambda x: x ** 3, lambda x, out: 3 * x * x)
    x = Value(1.5, label="x")
    y = Value.apply(cube, x)
    y.label = "y"
    y.backward()
    view, requests, url = open_page(y, "file")
    view.expect_numbers({"x": {"data": 1.5, "grad": 6.75}, "y": {"data": 3.375, "grad": 1.0}})
    view.move_slider("x", 0.9)
    poll(view.error_text, lambda text: "No kernel answered" in text, "the view to say no kernel answered", 15)
    view.expect_numbers({"x": {"grad": 6.75}, "y": {"data": 3.375}})
    expect_clean(guarded, requests, url)



def test_a_view_of_a_model_the_page_lacks_says_so_in_place(tmp_path, guarded, widget_bundle):
    """A damaged page (its view names a model the saved state does not hold) shows why, as text, where the view
    would be; the page itself does not fail."""
    from micrograd_widget import save_html

    out = save_html(lecture_L()["L"], tmp_path / "page.html")
    text = out.read_text(encoding="utf-8")
    start = text.index('"model_id": "') + len('"model_id": "')
    model_id = text[start:text.index('"', start)]
    out.write_text(text.replace(f'"model_id": "{model_id}"', '"model_id": "<img src=x onerror=alert(1)>"'),
                   encoding="utf-8")
    guarded.page.goto(out.as_uri())
    alert = guarded.page.locator(".mgw-host-view .mgw-host-error[role=alert]")
    alert.wait_for(timeout=10_000)
    assert alert.text_content() == \
        "This widget could not be shown: the page holds no widget model <img src=x onerror=alert(1)>"
    assert guarded.page.locator("img").count() == 0 and not guarded.log.dialogs
    assert not guarded.log.page_errors, guarded.log.describe()


def test_two_views_of_one_model_share_it_as_in_a_notebook(tmp_path, guarded, widget_bundle):
    """The host gives both views the same model: a slider moved in one view moves the other's numbers (the model's
    change events reach every view), and each view has the views' CSS (from the shared assets model, put in the
    view by the loader: the widget's own `_css` is empty)."""
    from micrograd_widget import save_html

    out = save_html(lecture_L()["L"], tmp_path / "page.html")
    text = out.read_text(encoding="utf-8")
    start = text.index('<script type="application/vnd.jupyter.widget-view+json">')
    view = text[start:text.index("</script>", start) + len("</script>")]
    out.write_text(text.replace(view, f"{view}\n<hr>\n{view}"), encoding="utf-8")
    guarded.page.goto(out.as_uri())
    first, second = (WidgetDom(guarded.page.locator(".mgw-host-view").nth(i)) for i in (0, 1))
    first.wait_ready(60)
    second.wait_ready(60)
    a = first.move_slider("a", 0.75)
    first.expect_numbers(expected_numbers(lecture_L(a=a)))
    second.expect_numbers(expected_numbers(lecture_L(a=a)))
    assert second.slider_range("a")[2] == a
    assert guarded.page.locator("style[data-anywidget]").count() == 0
    assert guarded.page.locator(".mgw-host-view style[data-mgw-css]").count() == 2
    assert not guarded.log.console_errors, guarded.log.describe()
