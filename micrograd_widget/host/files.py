"""Writing the files the package makes (``save_html``'s page, ``save_svg``'s picture): a regular file atomically,
so a failure half-way never leaves a truncated file where the user's old one was; through a symbolic link, the file
it points to (the link stays a link); a device file (``/dev/null``) in place, never replaced by a regular file; a
FIFO or socket refused before any work. Errors name the path the user gave (``~`` expanded), never the temporary
file, cut to a sane length, and say what to do."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

__all__ = ["writable_path", "replace_file", "shown"]

_MAX_PATH_CHARS = 200   # a path in a message is cut to this many characters, its start and its end kept
_HINTS = {              # what to do, after the system's words, for the errors a user can act on
    errno.EACCES: "give a path in a folder you can write to",
    errno.EPERM: "give a path in a folder you can write to",
    errno.EROFS: "give a path on a disk that is not read-only",
    errno.ENOSPC: "free some space or give a path on another disk",
    errno.ENAMETOOLONG: "give a shorter path",
}


def shown(path: str | os.PathLike[str]) -> str:
    """``path`` quoted for a message, its middle cut to '…' when it is longer than a few lines of text."""
    return repr(_cut(os.fspath(path)))


def _cut(text: str) -> str:
    """``text`` with its middle cut to '…' when it is longer than ``_MAX_PATH_CHARS``, its start and end kept."""
    if len(text) <= _MAX_PATH_CHARS:
        return text
    return text[:_MAX_PATH_CHARS // 2 - 1] + "…" + text[-(_MAX_PATH_CHARS // 2):]


def writable_path(path: str | os.PathLike[str], caller: str, example: str) -> Path:
    """``path`` as a Path (``~`` expanded), once it can name a file to write: raises, before any work is done,
    IsADirectoryError when it names a folder (or ends in a slash), FileNotFoundError when its folder (a link's
    target's folder) does not exist, NotADirectoryError when that is a file, OSError for a FIFO, a socket or a
    loop of links, PermissionError when the folder is not writable; each message names ``path``, the function
    ``caller`` the user called, and what to do (``example``: a file name)."""
    given = os.fspath(path)
    if not isinstance(given, str):
        raise TypeError(f"{caller}: the path must be a str or a pathlib.Path, got {type(given).__name__}")
    expanded = os.path.expanduser(given)
    said = shown(given) if expanded == given else f"{shown(given)} (that is {shown(expanded)})"
    if os.path.basename(expanded) in ("", ".", ".."):
        raise IsADirectoryError(f"{caller}: {said} names a folder, not a file; add a file name, such as "
                                f"{os.path.join(given, example)!r}")
    target = Path(expanded)
    real, link = _followed(target), os.path.islink(target)
    if link:
        said += f", a link to {shown(real)}"
    mode = _mode(real, target)
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(f"{caller}: {said} is a folder; give a file name such as {example!r}")
    if mode is not None and _refused(mode):
        raise _refusal(said, mode, caller, example)
    folder = real.parent if link else target.parent
    if not folder.is_dir():
        if folder.exists():
            raise NotADirectoryError(f"{caller}: cannot write {said}: {shown(folder)} is a file, not a folder; give "
                                     "a path in an existing folder")
        if given.startswith("~") and expanded == given:
            raise FileNotFoundError(f"{caller}: cannot write {said}: {shown(given.split(os.sep)[0])} names no home "
                                    "folder here; write the folder out in full")
        raise FileNotFoundError(f"{caller}: cannot write {said}: the folder {shown(folder)} does not exist; create "
                                f"it first (os.makedirs({shown(folder)}, exist_ok=True)) or give a path in an "
                                "existing folder")
    in_place = mode is not None and _device(mode)
    code = _unwritable(real if in_place else folder, in_place)
    if code is not None:
        hint = "you may not write to this device; give another path" if in_place else _HINTS[code]
        raise OSError(code, f"{caller}: cannot write {said}: {os.strerror(code).lower()}; {hint}")
    return target


def replace_file(target: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to the file ``target`` names (the file at the end of its links): a device file in
    place; any other file as a temporary file in that file's folder renamed over it, keeping an existing file's
    permissions, so that on any failure the temporary file is removed and the file is as it was. A FIFO or socket
    is refused. An OSError that names a file (the temporary one) is raised again naming ``target``."""
    real = _followed(target)
    mode = _mode(real, target)
    if mode is not None and _refused(mode):
        raise _refusal(shown(target), mode, "replace_file", "graph.html")
    if mode is not None and _device(mode):
        _write_in_place(real, target, text)
        return
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    except OSError as err:
        raise _naming(err, target) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(temporary, 0o644 if mode is None else stat.S_IMODE(mode))
        os.replace(temporary, real)
    except OSError as err:
        Path(temporary).unlink(missing_ok=True)
        raise _naming(err, target) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _followed(target: Path) -> Path:
    """The path at the end of ``target``'s chain of symbolic links (``target`` when it is no link; a dangling link's
    target), or an OSError naming ``target`` for a loop of links."""
    if not os.path.islink(target):
        return target
    real = Path(os.path.realpath(target))
    if os.path.islink(real):
        raise OSError(errno.ELOOP, f"{shown(target)} is a loop of symbolic links; give a regular file path")
    return real


def _mode(real: Path, target: Path) -> int | None:
    """The file type and permissions of ``real``, or None when no file is there yet."""
    try:
        return real.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as err:
        raise _naming(err, target) from None


def _unwritable(path: Path, file: bool) -> int | None:
    """Why this process cannot write the device file ``path`` (``file``) or make a file in the folder ``path``: the
    errno (EROFS for a read-only disk, EACCES for permissions), or None when it can."""
    if os.access(path, os.W_OK if file else os.W_OK | os.X_OK):
        return None
    readonly = getattr(os, "ST_RDONLY", 0)
    if readonly and hasattr(os, "statvfs") and os.statvfs(path).f_flag & readonly:
        return errno.EROFS
    return errno.EACCES


def _device(mode: int) -> bool:
    """A character or block device: written in place, as ``/dev/null`` must stay a device."""
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode)


def _refused(mode: int) -> bool:
    """A FIFO (opening one to write waits for a reader, maybe forever) or a socket (cannot be opened)."""
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _refusal(said: str, mode: int, caller: str, example: str) -> OSError:
    """The error for a FIFO or socket at the path ``said``, raised before it is opened."""
    kind = "a named pipe (FIFO), which would wait for a reader" if stat.S_ISFIFO(mode) else "a socket"
    return OSError(f"{caller}: will not write {said}: it is {kind}; give a regular file path such as {example!r}")


def _write_in_place(real: Path, target: Path, text: str) -> None:
    """Write ``text`` into the device ``real`` (no rename: the device stays), checking, before a byte is written,
    that what was opened is still a device (non-blocking open: a FIFO put there meanwhile does not hang)."""
    nonblocking = getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(real, os.O_WRONLY | nonblocking | getattr(os, "O_NOCTTY", 0))
    except OSError as err:
        raise _naming(err, target) from None
    try:
        mode = os.fstat(fd).st_mode
        if not _device(mode):
            raise _refusal(shown(target), mode, "replace_file", "graph.html")
        if nonblocking:
            os.set_blocking(fd, True)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            fd = -1
            file.write(text)
    except OSError as err:
        raise _naming(err, target) from None
    finally:
        if fd >= 0:
            os.close(fd)


def _naming(err: OSError, target: Path) -> OSError:
    """``err`` (from writing ``target``) as the user should see it: the same kind of error, naming ``target``
    (shortened), never the temporary file, with what to do for the errors a user can act on."""
    if err.strerror is None:
        return err
    hint = _HINTS.get(err.errno or 0)
    return type(err)(err.errno, f"{err.strerror} ({hint})" if hint else err.strerror, _cut(str(target)))
