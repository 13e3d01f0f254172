"""A uid of its own for every bot, when the referee is root.

Run as root, a bot would be root: it could read every file and signal every process.
So each one gets a uid nobody else has, and the kernel's ordinary permission checks
then keep it out of everything that is not world-readable.  The uids come from a block
reserved for this referee process (derived from its pid, so two referees never hand
out the same one), and a uid is only given out when no live process holds it.

The price: a bot running as a stranger can only use files a stranger may read.
:func:`_reachable` and :func:`_readable_leaf` check that before the bot starts, so
that a bot whose files are private is refused with a reason rather than failing
mysteriously inside the sandbox.

Without root there is nothing to allocate: every bot runs as the referee's user.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import psutil

#: Bot uids: a block of 64 per referee process, from its pid (unique among live
#: processes), far above the usual /etc/subuid ranges and below 2**31.
_UID_SLOTS = 64
_uids_in_use: set[int] = set()


def uid_block(pid: int) -> range:
    """The bot uids the referee process ``pid`` hands out (when it runs as root)."""
    first = 1_000_000_000 + pid * _UID_SLOTS
    return range(first, first + _UID_SLOTS)


_BLOCK = uid_block(os.getpid())
_UID_BASE = _BLOCK.start


def is_root() -> bool:
    return os.geteuid() == 0


def _probe_uid() -> int | None:
    return _UID_BASE + _UID_SLOTS - 1 if is_root() else None  # the last slot is the probes'


#: The uids of this referee's block that live processes held when it first looked
#: (what a dead referee of the same pid left running), and those it has handed out since.
_held_at_start: set[int] | None = None
_handed_out: set[int] = set()
#: Matches may run on threads of one process (a Dask worker's): one allocation at a time.
_allocating = threading.Lock()


def _allocate_uid() -> int | None:
    """A uid no live process has, from this referee's block; None if all are busy.

    Which uids live processes hold is a scan of all of /proc (~2 ms with 70 processes,
    tens on a busy machine), done once, at the first call.  Only this referee hands out
    the uids of its block (the block is its pid's), so a uid that nothing held then and
    that it never handed out is held by nothing now: those go first.  Once each has been
    handed out, a free one is looked up again (one scan a call), as a process of its
    earlier bot may linger."""
    global _held_at_start
    usable = _BLOCK[:-1]  # the last one is the probes'
    with _allocating:
        if _held_at_start is None:
            _held_at_start = _held_in_block()
        taken = _uids_in_use | _held_at_start
        uid = next((u for u in usable if u not in taken and u not in _handed_out), None)
        if uid is None:
            held = _held_in_block()
            uid = next((u for u in usable if u not in taken and u not in held), None)
            if uid is None:
                return None
        _uids_in_use.add(uid)
        _handed_out.add(uid)
        return uid


def _held_in_block() -> set[int]:
    """The uids of this referee's block that live processes hold (a scan of /proc)."""
    held: set[int] = set()
    for proc in psutil.process_iter(["uids"]):
        uids = proc.info["uids"]
        if uids is not None:
            held.update(uid for uid in (uids.real, uids.effective) if uid in _BLOCK)
    return held


def release_uid(uid: int | None) -> None:
    """Give a bot's uid back, once nothing of the bot is left."""
    _uids_in_use.discard(uid)


def _reachable(path: str) -> bool:
    """Whether a stranger (a uid in no group of the file) can reach ``path``."""
    parts = Path(path).resolve().parts
    current = Path(parts[0])
    for part in parts[1:]:
        try:
            mode = current.stat().st_mode
        except OSError:
            return False
        if not mode & stat.S_IXOTH:
            return False
        current = current / part
    return _readable_leaf(str(current))


def _readable_leaf(path: str) -> bool:
    """Whether a stranger may read ``path`` itself (and list it, for a directory): under
    the namespaces layer the directories above a bound path are made anew, open to all."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return bool(mode & stat.S_IROTH) and (not stat.S_ISDIR(mode) or bool(mode & stat.S_IXOTH))
