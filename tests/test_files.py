"""files.py, as save_html, save_svg and GraphWidget.save_svg use it: a regular file replaced atomically, a link
followed (it stays a link), a device written in place (it stays a device), a FIFO or socket refused before any work,
``~`` expanded, a trailing slash refused, and errors that name the path the user gave, cut to a sane length.
Device nodes are made with os.mknod in a temporary folder, never in the real /dev."""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from builders import lecture_L

from micrograd_widget import GraphWidget, display, save_html, save_svg
from micrograd_widget.engine import Value
from micrograd_widget.host import export
from micrograd_widget.host.files import replace_file, writable_path

Save = Callable[[Any], Path]


@pytest.fixture
def widget() -> Iterator[GraphWidget]:
    w = GraphWidget(lecture_L()["L"])
    yield w
    w.close()


@pytest.fixture
def saves(widget: GraphWidget) -> dict[str, Save]:
    """Every way a user writes a file: save_html of a Value and of a widget, save_svg and GraphWidget.save_svg."""
    L = lecture_L()["L"]
    return {"save_html": lambda p: save_html(L, p), "save_html(widget)": lambda p: save_html(widget, p),
            "save_svg": lambda p: save_svg(L, p), "GraphWidget.save_svg": widget.save_svg}


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page built or a picture laid out fails the test: the path must be refused before either."""
    def worked(*args: object) -> str:
        raise AssertionError("the file was built before its path was checked")

    monkeypatch.setattr(export, "_write", worked)
    monkeypatch.setattr(display, "render_svg", worked)


def written(path: Path, how: str) -> None:
    """``path`` holds what ``how`` writes: a page or an SVG picture."""
    text = path.read_text(encoding="utf-8")
    if "html" in how:
        assert text.startswith("<!DOCTYPE html>") and "<title>micrograd-widget</title>" in text
    else:
        assert ET.fromstring(text).tag == "{http://www.w3.org/2000/svg}svg"


def as_non_root(job: Callable[[], str]) -> str:
    """``job()`` run as a user other than root (root may write anywhere): in a child process as ``nobody`` when the
    tests run as root, else here. Returns what it returned, or the type and text of what it raised."""
    def run() -> str:
        try:
            return job()
        except Exception as err:
            return f"{type(err).__name__}: {err}"

    if os.geteuid() != 0:
        return run()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: becomes nobody, sends its answer, exits without running pytest's teardown
        try:
            os.close(read)
            os.setgroups([])
            os.setresgid(65534, 65534, 65534)
            os.setresuid(65534, 65534, 65534)
            answer = run()
        except BaseException as err:
            answer = f"the child failed: {err!r}"
        os.write(write, answer.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        answer = pipe.read().decode()
    os.waitpid(child, 0)
    return answer


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder a non-root child can enter (pytest's tmp_path is under a folder only its owner may enter)."""
    folder = Path(tempfile.mkdtemp(prefix="mgw-files-"))
    folder.chmod(0o755)
    yield folder
    folder.chmod(0o755)  # a test may have made it read-only
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


def test_a_regular_file_is_replaced_atomically_keeping_its_permissions(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole picture goes to a temporary file beside the target, renamed over it; the old file's mode stays."""
    target = tmp_path / "pic.svg"
    target.write_text("old")
    target.chmod(0o640)
    renames = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        renames.append((Path(src), Path(dst), Path(src).read_text()))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    save_svg(lecture_L()["L"], target)
    [(src, dst, text)] = renames
    assert dst == target and src.parent == tmp_path and src.name.startswith(".pic.svg.")
    assert "<svg" in text, "the whole picture is written before the rename"
    assert target.read_text() == text and (target.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pic.svg"]


def test_a_character_device_stays_a_device(tmp_path: Path, saves: dict[str, Save]) -> None:
    """A clone of /dev/null (as root in Docker or Colab, saving to /dev/null replaced the device with a file)."""
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    for how, save in saves.items():
        assert save(null) == null, how
        assert stat.S_ISCHR(null.lstat().st_mode) and null.lstat().st_rdev == os.makedev(1, 3), how
    assert [p.name for p in tmp_path.iterdir()] == ["null"]


def test_a_full_device_raises_an_oserror_naming_the_path(tmp_path: Path, saves: dict[str, Save]) -> None:
    """A clone of /dev/full: every write fails with ENOSPC; the error names the path given and says what to do."""
    full = tmp_path / "full"
    os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    for how, save in saves.items():
        with pytest.raises(OSError) as err:
            save(full)
        assert err.value.errno == errno.ENOSPC and err.value.filename == str(full), how
        assert "free some space" in str(err.value) and ".tmp" not in str(err.value), how
        assert stat.S_ISCHR(full.lstat().st_mode), how


def test_a_device_in_a_folder_you_cannot_write_is_written(shared_folder: Path) -> None:
    """As non-root, /dev/null (in /dev, where no one but root makes files) gave a PermissionError about a
    temporary file: a device is written in place, so its folder's permissions do not matter."""
    null = shared_folder / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    null.chmod(0o666)  # as /dev/null is (mknod's mode is cut by the umask)
    shared_folder.chmod(0o555)
    L = lecture_L()["L"]
    assert as_non_root(lambda: str(save_svg(L, null))) == str(null)
    assert stat.S_ISCHR(null.lstat().st_mode)


def test_a_folder_you_cannot_write_is_named_before_any_work(shared_folder: Path, no_work: None) -> None:
    """As non-root, into a read-only folder: a PermissionError naming the path given and what to do, raised before
    the page is built; and, should the check before have passed (an ACL it misread), the failing temporary file is
    reported as the path given."""
    target = shared_folder / "p.html"
    shared_folder.chmod(0o555)
    L = lecture_L()["L"]
    said = as_non_root(lambda: str(save_html(L, target)))
    assert said == (f"PermissionError: [Errno 13] save_html: cannot write {str(target)!r}: permission denied; "
                    "give a path in a folder you can write to")

    def late() -> str:
        os.access = lambda *args, **kwargs: True  # in the child only (or restored below)
        replace_file(writable_path(target, "save_html", "graph.html"), "text")
        return "written"

    access = os.access
    try:
        said = as_non_root(late)
    finally:
        os.access = access
    assert said == (f"PermissionError: [Errno 13] Permission denied (give a path in a folder you can write to): "
                    f"{str(target)!r}")
    assert list(shared_folder.iterdir()) == []


def test_a_chain_of_links_is_followed_and_stays_links(tmp_path: Path, saves: dict[str, Save]) -> None:
    """first -> link.html -> real.html (in another folder): real.html is replaced, beside itself; links stay."""
    (tmp_path / "pages").mkdir()
    real = tmp_path / "pages" / "real.html"
    real.write_text("the old page")
    real.chmod(0o640)
    link, first = tmp_path / "link.html", tmp_path / "first"
    link.symlink_to(Path("pages") / "real.html")
    first.symlink_to(link)
    for how, save in saves.items():
        assert save(first) == first, how
        assert first.is_symlink() and os.readlink(first) == str(link), how
        assert link.is_symlink() and os.readlink(link) == str(Path("pages") / "real.html"), how
        written(real, how)
        assert stat.S_IMODE(real.stat().st_mode) == 0o640, how
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first", "link.html", "pages"]
    assert [p.name for p in (tmp_path / "pages").iterdir()] == ["real.html"]


def test_a_dangling_link_writes_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.svg"
    link.symlink_to(tmp_path / "new.svg")
    assert save_svg(lecture_L()["L"], link) == link
    assert link.is_symlink()
    written(tmp_path / "new.svg", "svg")


def test_a_link_into_a_missing_folder_or_a_loop_is_named(tmp_path: Path, saves: dict[str, Save],
                                                          no_work: None) -> None:
    link, a, b = tmp_path / "link.html", tmp_path / "a", tmp_path / "b"
    link.symlink_to(tmp_path / "no" / "real.html")
    a.symlink_to(b)
    b.symlink_to(a)
    for how, save in saves.items():
        with pytest.raises(FileNotFoundError) as err:
            save(link)
        assert (f"cannot write {str(link)!r}, a link to {str(tmp_path / 'no' / 'real.html')!r}: the folder "
                f"{str(tmp_path / 'no')!r} does not exist") in str(err.value), how
        with pytest.raises(OSError, match="is a loop of symbolic links; give a regular file path") as loop:
            save(a)
        assert loop.value.errno == errno.ELOOP, how
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "link.html"]


def test_a_fifo_or_socket_is_refused_before_it_is_opened(tmp_path: Path, saves: dict[str, Save],
                                                         no_work: None) -> None:
    """A FIFO with no reader would block the open for ever: refused in words, from its type, before any work."""
    fifo, sock = tmp_path / "fifo", tmp_path / "sock"
    os.mkfifo(fifo)
    os.mknod(sock, stat.S_IFSOCK | 0o666)
    for how, save in saves.items():
        caller = how.split("(")[0].removeprefix("GraphWidget.")
        with pytest.raises(OSError) as err:
            save(fifo)
        assert str(err.value) == (f"{caller}: will not write {str(fifo)!r}: it is a named pipe (FIFO), which would "
                                  "wait for a reader; give a regular file path such as "
                                  f"{'graph.html' if 'html' in how else 'graph.svg'!r}"), how
        with pytest.raises(OSError, match=re.escape(f"will not write {str(sock)!r}: it is a socket; give a")):
            save(sock)
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and stat.S_ISSOCK(sock.lstat().st_mode)
    with pytest.raises(OSError, match="it is a named pipe"):
        replace_file(fifo, "text")


def test_a_home_folder_tilde_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``~/x.html`` is in the home folder; a missing folder under it is named both ways, and the advice creates
    the expanded folder, never one named '~'."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    L = lecture_L()["L"]
    assert save_html(L, "~/x.html") == tmp_path / "x.html"
    written(tmp_path / "x.html", "html")
    with pytest.raises(FileNotFoundError) as err:
        save_svg(L, Path("~/no/x.svg"))
    assert str(err.value) == (f"save_svg: cannot write '~/no/x.svg' (that is {str(tmp_path / 'no' / 'x.svg')!r}): "
                              f"the folder {str(tmp_path / 'no')!r} does not exist; create it first "
                              f"(os.makedirs({str(tmp_path / 'no')!r}, exist_ok=True)) or give a path in an existing "
                              "folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.html"]


def test_a_path_ending_in_a_slash_names_a_folder(tmp_path: Path, saves: dict[str, Save], no_work: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``"out/"`` is a folder, existing or not: refused (it used to write a file named out), with the fix."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "there").mkdir()
    for how, save in saves.items():
        name = "graph.html" if "html" in how else "graph.svg"
        for path in ("out/", "out" + os.sep, "out/.", "there/"):
            with pytest.raises(IsADirectoryError) as err:
                save(path)
            assert str(err.value).endswith(f"{path!r} names a folder, not a file; add a file name, such as "
                                           f"{os.path.join(path, name)!r}"), how
    assert [p.name for p in tmp_path.iterdir()] == ["there"]


def test_a_missing_folder_is_named_before_any_work(tmp_path: Path, saves: dict[str, Save], no_work: None) -> None:
    """Into a missing folder, under a file, onto a folder: an error naming the path the user gave (never the
    temporary file beside it) and what to do, before a page is built or a picture laid out; nothing written."""
    missing = tmp_path / "no" / "such" / "p.html"
    under_a_file = tmp_path / "notes.txt" / "p.html"
    (tmp_path / "notes.txt").write_text("a file")
    for how, save in saves.items():
        caller = how.split("(")[0].removeprefix("GraphWidget.")
        with pytest.raises(FileNotFoundError) as err:
            save(missing)
        said = str(err.value)
        assert said.startswith(f"{caller}: ") and repr(str(missing)) in said and ".tmp" not in said, how
        assert f"the folder {str(missing.parent)!r} does not exist; create it first" in said, how
        with pytest.raises(NotADirectoryError, match=re.escape(f"{str(tmp_path / 'notes.txt')!r} is a file, not")):
            save(under_a_file)
        with pytest.raises(IsADirectoryError, match=re.escape(f"{str(tmp_path)!r} is a folder; give a file")):
            save(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_a_very_long_path_makes_a_short_message(tmp_path: Path, saves: dict[str, Save], no_work: None) -> None:
    """A 10,000-character path is cut in the message (its start and end kept), which stays a few lines long."""
    folder = "d" * 10_000
    long = tmp_path / folder / "p.html"
    for how, save in saves.items():
        with pytest.raises(OSError) as err:
            save(long)
        said = str(err.value)
        assert len(said) < 800 and str(tmp_path) in said and "ddd…ddd" in said and said.count("d" * 200) == 0, how


def test_the_last_check_names_the_target_never_its_temporary_file(tmp_path: Path) -> None:
    """replace_file alone, for a folder removed after the check or a target that turned out to be a folder: the
    OSError names the target, and no temporary file stays."""
    gone = tmp_path / "gone" / "x.svg"
    with pytest.raises(FileNotFoundError) as err:
        replace_file(gone, "text")
    assert err.value.filename == str(gone) and ".tmp" not in str(err.value)
    folder = tmp_path / "dir"
    folder.mkdir()
    with pytest.raises(IsADirectoryError) as err_dir:
        replace_file(folder, "text")
    assert err_dir.value.filename == str(folder) and ".tmp" not in str(err_dir.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir"] and list(folder.iterdir()) == []


def test_a_path_that_is_no_text_is_refused() -> None:
    with pytest.raises(TypeError, match=r"save_html: the path must be a str or a pathlib\.Path, got bytes"):
        save_html(Value(1.0), b"x.html")  # type: ignore[arg-type]  # a bytes path, which the signature excludes
