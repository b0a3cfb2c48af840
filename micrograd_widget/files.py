"""Writing the files the package makes (``save_html``'s page, ``save_svg``'s picture): atomically, so a failure
half-way never leaves a truncated file where the user's old one was, and with errors that name the path asked for,
never the temporary file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["writable_path", "replace_file"]


def writable_path(path: str | os.PathLike[str], caller: str, example: str) -> Path:
    """``path`` as a Path, once it can name a file to write: raises, before any work is done, IsADirectoryError when
    it is a folder, FileNotFoundError when its folder does not exist, NotADirectoryError when that is a file; each
    message names ``path``, the function ``caller`` the user called, and what to do (``example``: a file name)."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise IsADirectoryError(f"{caller}: {str(target)!r} is a folder; give a file name such as {example!r}")
    if not folder.is_dir():
        if folder.exists():
            raise NotADirectoryError(f"{caller}: cannot write {str(target)!r}: {str(folder)!r} is a file, not a "
                                     "folder; give a path in an existing folder")
        raise FileNotFoundError(f"{caller}: cannot write {str(target)!r}: the folder {str(folder)!r} does not exist; "
                                f"create it first (os.makedirs({str(folder)!r}, exist_ok=True)) or give a path in "
                                "an existing folder")
    return target


def replace_file(target: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to a temporary file in ``target``'s folder, then rename it over ``target``, keeping
    an existing file's permissions; on any failure the temporary file is removed and ``target`` is as it was. An
    OSError that names a file (the temporary one) is raised again naming ``target``."""
    try:
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as err:
        raise _naming(err, target) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except OSError as err:
        Path(temporary).unlink(missing_ok=True)
        raise _naming(err, target) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _naming(err: OSError, target: Path) -> OSError:
    """``err`` as the user should see it: the same kind of error about ``target`` when it named a file."""
    if err.filename is None or err.strerror is None:
        return err
    return type(err)(err.errno, err.strerror, str(target))
