"""Writing the files the package makes (``save_html``'s page, ``save_svg``'s picture): atomically, so a failure
half-way never leaves a truncated file where the user's old one was."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["replace_file"]


def replace_file(target: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to a temporary file in ``target``'s folder, then rename it over ``target``, keeping
    an existing file's permissions; on any failure the temporary file is removed and ``target`` is as it was."""
    mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
