"""The JupyterLite site of examples/ (``launch.sh --lite DIR``): the notebooks with a Python kernel in the browser.

Everything the site loads is fetched at build time from PyPI and npm into a cache (``MGW_LITE_CACHE``, by default
``~/.cache/micrograd-widget/lite``) and copied into the site, so served from any static host it makes no request
beyond itself: Pyodide's runtime from npm (``.ci/lite/package.json`` pins the version jupyterlite-pyodide-kernel
names), this package's wheel built from the tree, and the pure-Python wheels the kernel and the notebooks load,
listed in the site's own ``pyodide-lock.json`` (Pyodide's lock cut down to them, their sha256 those of the files
here) and loaded when the kernel starts, so the notebooks run as they are.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["build_site", "cache_dir", "site_lock", "KERNEL_PACKAGES", "main"]

ROOT = Path(__file__).resolve().parents[2]
PINS = ROOT / ".ci" / "lite"                   # package.json, package-lock.json: npm's pyodide, pinned
KERNEL_SETTINGS = "@jupyterlite/pyodide-kernel-extension:kernel"
# What the kernel installs as it starts, unless Pyodide already loaded it (pyodide-kernel's worker.ts,
# initPackageManager and initKernel): preloaded from the site's lock, with this package.
KERNEL_PACKAGES = ("micropip", "piplite", "ipykernel", "comm", "pyodide-kernel", "jedi", "ipython")
# Python packages whose only job is a front end's files, which the site has already (jupyterlab_widgets'
# labextension) or which the kernel's own wheels stand in for (widgetsnbextension): not loaded in Pyodide.
FRONT_END_ONLY = frozenset({"jupyterlab-widgets"})
# Requirements are read as Pyodide's Python would (PEP 508 markers).
MARKERS = {"python_version": "3.14", "python_full_version": "3.14.2", "sys_platform": "emscripten",
           "platform_system": "Emscripten", "platform_machine": "wasm32", "os_name": "posix",
           "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": ""}
ROOT_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>micrograd-widget examples</title>
<script id="jupyter-config-data" type="application/json" data-jupyter-lite-root=".">{}</script>
<script>window.location.replace("lab/index.html")</script></head>
<body><p><a href="lab/index.html">Open the examples in JupyterLite</a></p></body></html>
"""
LABEXTENSIONS = ("anywidget", "@jupyter-widgets/jupyterlab-manager", "@jupyterlite/pyodide-kernel-extension")


def canonical(name: str) -> str:
    """A distribution name as PEP 503 compares them (``prompt_toolkit`` is ``prompt-toolkit``)."""
    return "-".join(name.replace("_", "-").replace(".", "-").lower().split("-"))


def cache_dir() -> Path:
    """Where the downloads are kept between builds (``MGW_LITE_CACHE``, else ``~/.cache/micrograd-widget/lite``)."""
    given = os.environ.get("MGW_LITE_CACHE")
    if given:
        return Path(given).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "micrograd-widget" / "lite"


def _run(command: list[str], what: str, cwd: Path | None = None) -> None:
    """Run ``command``; when it fails, raise a RuntimeError saying ``what`` it was doing and what it printed."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode:
        said = (done.stderr or done.stdout).strip().splitlines()[-15:]
        raise RuntimeError(f"{what} failed ({' '.join(command[:4])} ... exited {done.returncode}):\n"
                           + "\n".join(said))


def pyodide_runtime(cache: Path) -> Path:
    """Pyodide's runtime files (npm's ``pyodide`` package at the pinned version) in the cache, installed by
    ``npm ci`` from ``.ci/lite``'s lock when missing; checked against the version the kernel requires."""
    from jupyterlite_pyodide_kernel.constants import (  # type: ignore[import-untyped]  # it ships no py.typed
        PYODIDE_VERSION,
    )

    pinned = json.loads((PINS / "package.json").read_text())["dependencies"]["pyodide"]
    if pinned != PYODIDE_VERSION:
        raise RuntimeError(f"jupyterlite-pyodide-kernel needs Pyodide {PYODIDE_VERSION} exactly, and "
                           f".ci/lite/package.json pins {pinned}: pin {PYODIDE_VERSION} there (and run "
                           "'npm install --package-lock-only' in .ci/lite)")
    npm = cache / "npm"
    runtime = npm / "node_modules" / "pyodide"
    installed = runtime / "package.json"
    if not installed.exists() or json.loads(installed.read_text())["version"] != pinned:
        npm.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(PINS / name, npm / name)
        _run(["npm", "ci", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error"],
             f"installing Pyodide {pinned} from npm", cwd=npm)
    return runtime


def fetch_wheel(name: str, version: str, wheels: Path) -> Path:
    """The pure-Python wheel of ``name`` ``version`` from PyPI, downloaded into ``wheels`` unless it is there."""
    def cached() -> Path | None:
        for path in wheels.glob("*.whl"):
            dist, ver = path.name.split("-")[:2]
            if canonical(dist) == canonical(name) and ver == version:
                return path
        return None

    found = cached()
    if found is None:
        _run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
              "--only-binary=:all:", "--platform", "any", "--implementation", "py", "--python-version", "3.14",
              "--abi", "none", "-d", str(wheels), f"{name}=={version}"],
             f"downloading {name} {version} (a pure-Python wheel) from PyPI")
        found = cached()
        if found is None:
            raise RuntimeError(f"pip downloaded no wheel of {name} {version} into {wheels}")
    return found


def wheel_metadata(path: Path) -> tuple[str, str, list[str], list[str]]:
    """A wheel's (name, version, requirements in Pyodide, top-level import names)."""
    from packaging.requirements import Requirement

    with zipfile.ZipFile(path) as whl:
        names = whl.namelist()
        info = next(n for n in names if n.count("/") == 1 and n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(whl.read(info).decode("utf-8"))
    requires = []
    for line in meta.get_all("Requires-Dist") or []:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(MARKERS):
            requires.append(canonical(req.name))
    imports = sorted({n.split("/")[0].removesuffix(".py") for n in names
                      if not n.split("/")[0].endswith((".dist-info", ".data"))
                      and (n.endswith(".py") or "/" in n)})
    return str(meta["Name"]), str(meta["Version"]), requires, imports


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def site_lock(lock: dict[str, Any], wanted: list[str], given: dict[str, Path],
              fetch: Any) -> tuple[dict[str, Any], list[Path]]:
    """The site's ``pyodide-lock.json`` and the wheels it names: ``wanted`` and everything they require, each
    from ``given`` (name -> wheel: this package's, the kernel's own), else Pyodide's ``lock`` (its version,
    fetched from PyPI by ``fetch(name, version)``), else the version installed here; nothing else, so no entry
    of the lock points at a file the site lacks (which Pyodide would fetch from its CDN)."""
    theirs = {canonical(key): entry for key, entry in lock["packages"].items()}
    packages: dict[str, Any] = {}
    wheels: list[Path] = []
    todo = [canonical(n) for n in wanted]
    while todo:
        name = todo.pop()
        if name in packages or name in FRONT_END_ONLY:
            continue
        if name in given:
            path = given[name]
        elif name in theirs:
            path = fetch(name, theirs[name]["version"])
        else:
            try:
                version = metadata.version(name)
            except metadata.PackageNotFoundError:
                raise RuntimeError(f"the site needs {name}, which is neither in Pyodide's lock nor installed here: "
                                   "install it into this environment and build again") from None
            path = fetch(name, version)
        _, version, requires, imports = wheel_metadata(path)
        if name in theirs:  # Pyodide's lock knows what its builds need (its depends), keep that
            requires = [canonical(d) for d in theirs[name]["depends"]]
        requires = [r for r in requires if r not in FRONT_END_ONLY]
        packages[name] = {"name": name, "version": version, "file_name": path.name, "install_dir": "site",
                          "sha256": _sha256(path), "package_type": "package", "imports": imports,
                          "depends": sorted(set(requires)), "unvendored_tests": False, "shared_library": False}
        wheels.append(path)
        todo.extend(requires)
    return {"info": lock["info"], "packages": dict(sorted(packages.items()))}, wheels


def _kernel_wheels() -> dict[str, Path]:
    """The kernel's own wheels (piplite, pyodide-kernel, its ipykernel and widgetsnbextension stand-ins), as the
    kernel's labextension in this environment ships them; widgetsnbextension 4 (ipywidgets 8's)."""
    found = _labextension("@jupyterlite/pyodide-kernel-extension") / "static" / "pypi"
    wheels: dict[str, Path] = {}
    for path in sorted(found.glob("*.whl")):
        name = canonical(path.name.split("-")[0])
        if name == "widgetsnbextension" and not path.name.split("-")[1].startswith("4."):
            continue
        wheels[name] = path
    return wheels


def _labextension(name: str) -> Path:
    """The prebuilt labextension ``name`` installed in this environment (where ``jupyter lite build`` takes it)."""
    from jupyter_core.paths import jupyter_path

    for share in jupyter_path("labextensions"):
        if (Path(share) / name / "package.json").exists():
            return Path(share) / name
    raise RuntimeError(f"the labextension {name} is not installed here: install micrograd-widget[lite]")


def own_wheel(into: Path) -> Path:
    """This package's wheel, built from the tree (with its widget bundle, micrograd_widget/static/)."""
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps", "-w",
          str(into), str(ROOT)], "building micrograd-widget's wheel")
    return next(into.glob("micrograd_widget-*.whl"))


def notebooks(into: Path) -> None:
    """examples/*.ipynb into ``into``, their kernel the site's Pyodide one (no kernel-choice dialog)."""
    into.mkdir(parents=True, exist_ok=True)
    for example in sorted((ROOT / "examples").glob("*.ipynb")):
        nb = json.loads(example.read_text(encoding="utf-8"))
        nb.setdefault("metadata", {})["kernelspec"] = {"name": "python", "display_name": "Python (Pyodide)",
                                                       "language": "python"}
        (into / example.name).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def build_site(out: Path, cache: Path | None = None) -> Path:
    """Build the JupyterLite site of examples/ into ``out`` (replaced whole) and return it."""
    cache = cache or cache_dir()
    out = out.expanduser().resolve()
    if out == ROOT or ROOT.is_relative_to(out):
        raise ValueError(f"{out} holds the repository: build the site into a folder of its own")
    if out.exists() and any(out.iterdir()) and not (out / "jupyter-lite.json").exists():
        raise ValueError(f"{out} is a folder with files in it and not a JupyterLite site: building would replace "
                         "it whole, so name a new folder (or an empty one, or a site built before)")
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    runtime = pyodide_runtime(cache)
    with tempfile.TemporaryDirectory(prefix="mgw-lite-") as tmp:
        lite = Path(tmp)
        given = {**_kernel_wheels(), "micrograd-widget": own_wheel(lite / "own")}
        lock = json.loads((runtime / "pyodide-lock.json").read_text())
        site, files = site_lock(lock, ["micrograd-widget", *KERNEL_PACKAGES], given,
                                lambda name, version: fetch_wheel(name, version, wheels))
        pyodide = lite / "static" / "pyodide"
        pyodide.mkdir(parents=True)
        for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"):
            shutil.copyfile(runtime / name, pyodide / name)
        for path in files:
            shutil.copyfile(path, pyodide / path.name)
        (pyodide / "pyodide-lock.json").write_text(json.dumps(site, indent=1) + "\n")
        settings = {"disablePyPIFallback": True, "loadPyodideOptions": {"packages": sorted(site["packages"])}}
        (lite / "jupyter-lite.json").write_text(json.dumps(
            {"jupyter-lite-schema-version": 0, "jupyter-config-data": {
                "appName": "micrograd-widget", "litePluginSettings": {KERNEL_SETTINGS: settings}}}, indent=1))
        notebooks(lite / "files")
        # Only the front ends the notebooks use, not every labextension of this environment (a lite dir's own
        # extensions/ folder is not copied by jupyterlite-core 0.8.6, so they are an extra path of their own).
        extensions = lite / "labextensions"
        for name in LABEXTENSIONS:
            shutil.copytree(_labextension(name), extensions / name)
        (lite / "jupyter_lite_config.json").write_text(json.dumps(
            {"FederatedExtensionAddon": {"extra_labextensions_path": [str(extensions)]}}))
        if out.exists():
            shutil.rmtree(out)
        _run([sys.executable, "-m", "jupyter", "lite", "build", "--lite-dir", str(lite), "--output-dir", str(out),
              "--contents", str(lite / "files"), "--ignore-sys-prefix", "--no-sourcemaps"],
             "jupyter lite build", cwd=lite)
    # The site's address opens the examples: jupyterlite-core 0.8.6's own root page stays blank when served as is
    # (the apps' pages read its empty jupyter-config-data, which this page keeps).
    (out / "index.html").write_text(ROOT_PAGE, encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m micrograd_widget.host.lite DIR``: build the site into DIR and say how to serve it."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m micrograd_widget.host.lite DIR (the folder to build the site into)", file=sys.stderr)
        return 2
    try:
        out = build_site(Path(args[0]))
    except (RuntimeError, ValueError, OSError) as err:
        print(f"launch.sh --lite: {err}", file=sys.stderr)
        return 1
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"built the JupyterLite site of examples/ into {out} ({size / 1e6:.0f} MB); serve it with "
          f"'python -m http.server -d {out}' and open http://localhost:8000/ (or put the folder on any static host)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
