"""host/lite.py without a browser: the site's Pyodide lock names exactly the wheels the site holds (the requirements'
closure, read as Pyodide's Python reads them, each sha256 that of its file), the pins agree with the version the
kernel package requires, and a folder that is not a site is never replaced. The site itself, end to end:
tests/browser/test_jupyterlite.py."""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from pathlib import Path

import pytest
from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION

from micrograd_widget.host import lite

ROOT = Path(__file__).resolve().parent.parent


def fake_wheel(folder: Path, name: str, version: str, requires: tuple[str, ...] | list[str] = ()) -> Path:
    """A minimal wheel of ``name`` with a package of that name and these Requires-Dist lines."""
    stem = f"{name.replace('-', '_')}-{version}"
    path = folder / f"{stem}-py3-none-any.whl"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(f"Requires-Dist: {r}\n"
                                                                                for r in requires)
    with zipfile.ZipFile(path, "w") as whl:
        whl.writestr(f"{name.replace('-', '_')}/__init__.py", "")
        whl.writestr(f"{stem}.dist-info/METADATA", meta)
    return path


PYODIDES_LOCK = {"info": {"python": "3.14.2"}, "packages": {
    "ipython": {"name": "ipython", "version": "9.0", "depends": ["traitlets", "prompt_toolkit"]},
    "traitlets": {"name": "traitlets", "version": "5.0", "depends": []},
    "prompt-toolkit": {"name": "prompt-toolkit", "version": "3.0", "depends": []},
    "numpy": {"name": "numpy", "version": "2.0", "depends": []},   # not needed: must not be in the site's lock
}}


def test_the_sites_lock_is_the_closure_of_what_it_needs_with_the_files_sha256(tmp_path: Path) -> None:
    fetched: list[tuple[str, str]] = []

    def fetch(name: str, version: str) -> Path:
        fetched.append((name, version))
        return fake_wheel(tmp_path, name, version)

    mine = fake_wheel(tmp_path, "micrograd-widget", "0.1.0", [
        "ipython>=8", "graphviz>=0.20", "jupyterlab_widgets~=3.0",
        'pywin32; sys_platform == "win32"', 'exceptiongroup; python_version < "3.11"'])
    site, wheels = lite.site_lock(PYODIDES_LOCK, ["micrograd-widget"], {"micrograd-widget": mine}, fetch)
    packages = site["packages"]
    assert set(packages) == {"micrograd-widget", "ipython", "traitlets", "prompt-toolkit", "graphviz"}
    from importlib.metadata import version
    assert sorted(fetched) == sorted([("ipython", "9.0"), ("traitlets", "5.0"), ("prompt-toolkit", "3.0"),
                                      ("graphviz", version("graphviz"))])  # the lock's versions, else this venv's
    assert sorted(p.name for p in wheels) == sorted(entry["file_name"] for entry in packages.values())
    for entry in packages.values():
        path = tmp_path / entry["file_name"]
        assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert set(entry["depends"]) <= set(packages), entry  # every dependency is in the site
        assert "://" not in json.dumps(entry)
    assert packages["micrograd-widget"]["depends"] == ["graphviz", "ipython"]
    assert packages["ipython"]["depends"] == ["prompt-toolkit", "traitlets"]  # Pyodide's depends, names compared
    assert packages["micrograd-widget"]["imports"] == ["micrograd_widget"]
    assert site["info"] == PYODIDES_LOCK["info"]


def test_a_package_found_nowhere_is_named(tmp_path: Path) -> None:
    mine = fake_wheel(tmp_path, "micrograd-widget", "0.1.0", ["no-such-package-anywhere"])
    with pytest.raises(RuntimeError, match="no-such-package-anywhere"):
        lite.site_lock(PYODIDES_LOCK, ["micrograd-widget"], {"micrograd-widget": mine},
                       lambda name, version: fake_wheel(tmp_path, name, version))


def test_the_pins_are_the_version_the_kernel_requires() -> None:
    manifest = json.loads((ROOT / ".ci/lite/package.json").read_text())
    lock = json.loads((ROOT / ".ci/lite/package-lock.json").read_text())
    assert manifest["dependencies"]["pyodide"] == PYODIDE_VERSION
    assert lock["packages"]["node_modules/pyodide"]["version"] == PYODIDE_VERSION
    extra = re.search(r"\nlite = \[[^\n]*\n(.*?)\n\]", (ROOT / "pyproject.toml").read_text(), re.S)
    assert extra, "pyproject.toml has no lite extra"
    pins = re.findall(r'"([^"]+)"', extra.group(1))
    assert len(pins) == 2 and all("==" in pin for pin in pins), pins  # exact pins: a rebuild gets the same site


def test_a_folder_that_is_not_a_site_is_never_replaced(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not a JupyterLite site"):
        lite.build_site(tmp_path, cache=tmp_path / "cache")
    assert (tmp_path / "notes.txt").read_text() == "mine" and not (tmp_path / "cache").exists()
    with pytest.raises(ValueError, match="holds the repository"):
        lite.build_site(ROOT.parent, cache=tmp_path / "cache")
