"""examples/launch.sh and .ci/setup.sh, run for real on a copy of the repository's scripts whose tools are fakes that
log their calls (so nothing is installed or built): ``--html PATH`` is the caller's PATH, a second launch skips the
setup that is up to date and runs again what changed or went missing, and the examples open from a git-ignored
working copy, so running them leaves examples/ as committed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p.name for p in (REPO / "examples").glob("*.ipynb"))

FAKE_PYTHON = """#!/usr/bin/env bash
echo "python $*" >> "$LAUNCH_LOG"
case "$1 ${2:-}" in
    "-m pip") [ -z "${FAIL_PIP:-}" ] || { echo "pip: no network" >&2; exit 1; }; exit 0 ;;
    "-m micrograd_widget.host.demo") PYTHONPATH="$MGW_REPO" exec "$REAL_PYTHON" "$@" ;;
    "-m jupyter") exit 0 ;;
esac
echo "fake python: unexpected $*" >&2; exit 3
"""
FAKE_NPM = """#!/usr/bin/env bash
echo "npm $*" >> "$LAUNCH_LOG"
case "$*" in
    "--prefix js ci "*) mkdir -p js/node_modules && cp js/package-lock.json js/node_modules/.package-lock.json ;;
    "--prefix js run --silent build") echo "bundle of $(cat js/view.js)" > micrograd_widget/static/views.js
                                      echo ops > js/core/ops.js; echo shared > js/core/shared.js ;;
    *) echo "fake npm: unexpected $*" >&2; exit 3 ;;
esac
"""


class Repo:
    """A copy of the scripts in ``root``, with fake .venv, npm, node and dot; ``run`` launches it from ``cwd``."""

    def __init__(self, tmp: Path) -> None:
        self.root, self.log = tmp / "repo", tmp / "calls.log"
        bin_dir = tmp / "bin"
        for rel in (".ci/setup.sh", "examples/launch.sh", "pyproject.toml", *(f"examples/{n}" for n in EXAMPLES)):
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / rel, self.root / rel)
        self.write("js/package.json", '{"name": "fake"}\n')
        self.write("js/package-lock.json", '{"lockfileVersion": 3}\n')
        self.write("js/view.js", "view 1\n")
        self.write("micrograd_widget/core/ops.py", "OPS = 1\n")
        self.write("micrograd_widget/static/views.js", "bundle of view 1\n")
        self.write("js/core/ops.js", "ops\n")
        self.write("js/core/shared.js", "shared\n")
        self.site = self.root / ".venv/lib/python3.11/site-packages"
        self.write(".venv/lib/python3.11/site-packages/jupyterlab-4.2.0.dist-info/METADATA", "")
        self.write(".venv/lib/python3.11/site-packages/_editable_impl_micrograd_widget.pth", f"{self.root}\n")
        for path, text in ((self.root / ".venv/bin/python", FAKE_PYTHON), (bin_dir / "npm", FAKE_NPM),
                           (bin_dir / "node", "#!/bin/sh\necho v20.0.0\n"), (bin_dir / "dot", "#!/bin/sh\n")):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            path.chmod(0o755)
        self.env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "LAUNCH_LOG": str(self.log),
                    "REAL_PYTHON": sys.executable, "MGW_REPO": str(REPO), "PYTHON": sys.executable}

    def write(self, rel: str, text: str) -> None:
        (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.root / rel).write_text(text, encoding="utf-8")

    def run(self, *args: str, cwd: Path | None = None, **env: str) -> tuple[subprocess.CompletedProcess[str], str]:
        """Launch with ``args``; the process and the tool calls it made (one a line)."""
        self.log.write_text("", encoding="utf-8")
        done = subprocess.run(["bash", str(self.root / "examples/launch.sh"), *args], cwd=cwd or self.root,
                              env={**self.env, **env}, capture_output=True, text=True, timeout=120)
        return done, self.log.read_text(encoding="utf-8")


def setup_steps(calls: str) -> set[str]:
    """Which of setup's slow steps the calls show: pip, npm-ci, build."""
    marks = {"pip": "-m pip install", "npm-ci": "npm --prefix js ci", "build": "npm --prefix js run --silent build"}
    return {step for step, mark in marks.items() if mark in calls}


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path)


def test_html_path_is_the_callers_and_a_second_run_skips_the_setup_that_is_up_to_date(repo: Repo,
                                                                                         tmp_path: Path) -> None:
    caller = tmp_path / "my folder"
    (caller / "sub").mkdir(parents=True)
    first, calls = repo.run("--html", "page.html", cwd=caller)
    assert first.returncode == 0, first.stderr
    assert setup_steps(calls) == {"pip", "npm-ci", "build"}
    page = caller / "page.html"
    assert page.is_file() and page.stat().st_size > 10_000, "the page was not written in the caller's folder"
    assert not (repo.root / "page.html").exists(), "the page was written into the repository"
    assert str(page) in first.stdout

    second, calls = repo.run("--html", "sub/again.html", cwd=caller)
    assert second.returncode == 0, second.stderr
    assert setup_steps(calls) == set(), f"a second launch ran setup again:\n{calls}"
    assert second.stdout.count("up to date") == 3
    assert (caller / "sub" / "again.html").is_file()
    default, _ = repo.run("--html", cwd=caller)
    assert default.returncode == 0 and (caller / "micrograd-widget-demo.html").is_file()
    extra, calls = repo.run("--html", "a.html", "b.html", cwd=caller)
    assert extra.returncode != 0 and "--html takes one PATH" in extra.stderr and "b.html" in extra.stderr
    assert not (caller / "a.html").exists()


@pytest.mark.parametrize("change,steps", [
    ("edit pyproject.toml", {"pip", "build"}),
    ("uninstall a package", {"pip", "build"}),
    ("point the editable install elsewhere", {"pip", "build"}),
    ("delete js/node_modules", {"npm-ci"}),   # the same lock installs the same tree: the build is still current
    ("edit package-lock.json", {"npm-ci", "build"}),
    ("edit a js source", {"build"}),
    ("edit a Python generator", {"build"}),
    ("edit the built bundle", {"build"}),
    ("delete the stamps", {"pip", "npm-ci", "build"}),
])
def test_a_launch_runs_again_each_step_whose_inputs_or_results_changed(repo: Repo, change: str,
                                                                       steps: set[str]) -> None:
    assert repo.run("--no-browser")[0].returncode == 0
    edits = {
        "edit pyproject.toml": lambda: repo.write("pyproject.toml", "[project]\nname = 'x'\n"),
        "uninstall a package": lambda: shutil.rmtree(repo.site / "jupyterlab-4.2.0.dist-info"),
        "point the editable install elsewhere": lambda: repo.write(
            ".venv/lib/python3.11/site-packages/_editable_impl_micrograd_widget.pth", "/elsewhere\n"),
        "delete js/node_modules": lambda: shutil.rmtree(repo.root / "js/node_modules"),
        "edit package-lock.json": lambda: repo.write("js/package-lock.json", '{"lockfileVersion": 4}\n'),
        "edit a js source": lambda: repo.write("js/view.js", "view 2\n"),
        "edit a Python generator": lambda: repo.write("micrograd_widget/core/ops.py", "OPS = 2\n"),
        "edit the built bundle": lambda: repo.write("micrograd_widget/static/views.js", "stale\n"),
        "delete the stamps": lambda: shutil.rmtree(repo.root / ".ci/stamps"),
    }
    edits[change]()
    done, calls = repo.run("--no-browser")
    assert done.returncode == 0, done.stderr
    assert setup_steps(calls) == steps, calls
    assert setup_steps(repo.run("--no-browser")[1]) == set(), "the run after did not skip again"


def test_a_step_that_failed_runs_again_next_time(repo: Repo) -> None:
    failed, calls = repo.run("--no-browser", FAIL_PIP="1")
    assert failed.returncode != 0 and "pip: no network" in failed.stderr
    assert "build" not in setup_steps(calls) and "jupyter" not in calls
    done, calls = repo.run("--no-browser")
    assert done.returncode == 0, done.stderr
    assert setup_steps(calls) == {"pip", "npm-ci", "build"}


def test_the_test_command_always_builds_and_checks_the_bundle(repo: Repo) -> None:
    """tests/run.sh compares the bundle before and after setup's build, so under --for-tests the build is never
    skipped; the installs are."""
    script = f'source "{repo.root}/.ci/setup.sh" --for-tests; [ "$bundle_before_build" = "$bundle_after_build" ]'
    for expected in ({"pip", "npm-ci", "build"}, {"build"}):
        repo.log.write_text("", encoding="utf-8")
        done = subprocess.run(["bash", "-c", script], env=repo.env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert setup_steps(repo.log.read_text(encoding="utf-8")) == expected


def test_the_examples_open_from_a_working_copy_that_keeps_the_learners_changes(repo: Repo) -> None:
    work = repo.root / "my-notebooks"
    done, calls = repo.run("--no-browser")
    assert done.returncode == 0, done.stderr
    assert f"-m jupyter lab --notebook-dir={work}" in calls and calls.rstrip().endswith("--no-browser")
    for name in EXAMPLES:
        assert (work / name).read_bytes() == (REPO / "examples" / name).read_bytes()

    first, second, third = (work / name for name in EXAMPLES[:3])
    first.write_text('{"saved by JupyterLab": "with outputs"}', encoding="utf-8")   # the learner ran it
    repo.write(f"examples/{EXAMPLES[1]}", '{"a new version": 2}')                       # upstream changed it
    repo.write(f"examples/{EXAMPLES[2]}", '{"a new version": 3}')
    third.write_text('{"the learner edited this one": true}', encoding="utf-8")
    done, _ = repo.run("--no-browser")
    assert done.returncode == 0, done.stderr
    assert first.read_text(encoding="utf-8") == '{"saved by JupyterLab": "with outputs"}', "the learner's run was lost"
    assert second.read_text(encoding="utf-8") == '{"a new version": 2}', "an untouched copy was not updated"
    assert third.read_text(encoding="utf-8") == '{"the learner edited this one": true}', "the learner's edit was lost"
    assert f"examples/{EXAMPLES[2]} has changed" in done.stdout and "delete it to get the new example" in done.stdout
    assert EXAMPLES[0] not in done.stdout and EXAMPLES[1] not in done.stdout
    assert (repo.root / f"examples/{EXAMPLES[0]}").read_bytes() == (REPO / "examples" / EXAMPLES[0]).read_bytes()


def test_the_working_copy_and_the_stamps_are_ignored_by_git() -> None:
    done = subprocess.run(["git", "check-ignore", "--no-index", "my-notebooks/01_expressions.ipynb",
                           ".ci/stamps/build"], cwd=REPO, capture_output=True, text=True, timeout=30)
    assert done.stdout.split() == ["my-notebooks/01_expressions.ipynb", ".ci/stamps/build"], done.stderr
