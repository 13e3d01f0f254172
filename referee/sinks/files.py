"""Writing files so that nothing recorded is lost: atomic replacement, and paths
checked before the first game (a finished match must never be lost to a typo)."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path


def unwritable(path: str) -> str | None:
    """Why file ``path`` cannot be written, or None."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        return f"{path} is a directory"
    if not parent.is_dir():
        return f"no such directory: {parent}"
    if target.exists() and not os.access(target, os.W_OK):
        return f"{path} is not writable"
    if not os.access(parent, os.W_OK | os.X_OK):
        # A summary is replaced through a new file beside it: the directory must be writable.
        return f"cannot write in {parent}: the directory is not writable"
    return None


def unusable_directory(path: str) -> str | None:
    """Why ``path`` cannot be (or become) a writable directory, or None."""
    target = Path(path)
    if target.exists():
        if not target.is_dir():
            return f"{path} is not a directory"
        if not os.access(target, os.W_OK | os.X_OK):
            return f"{path} is not writable"
        return None
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        return f"no such directory: {parent}"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot create {path}: {parent} is not writable"
    return None


def fsync_path(path: str | os.PathLike[str]) -> None:
    """Flush a file's data, or a directory's entries (a rename into it), to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(path: str, data: bytes, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` in one step (temporary file, fsync, rename).

    ``durable=False`` skips the fsync, for copies of what a database already holds
    (a tournament's per-match summaries): a power cut may then leave the old file, never
    a torn one, and a ``kill -9`` loses nothing either way."""
    target = Path(path)
    # A fresh name, created exclusively and never through a link (a link planted at a
    # predictable name must not be followed); the kernel applies the umask to 0o666.
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(temporary, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
