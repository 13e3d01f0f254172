"""Nothing a bot starts outlives it unnoticed.

A bot may fork and let its parent exit, so that its child re-parents away from the
referee (the classic double-forked daemon).  Three things keep such escapees in reach:

* the referee makes itself a *child subreaper* (:func:`become_subreaper`), so orphaned
  descendants re-parent to it instead of to init, where it can still see them;
* every bot's environment carries a random token (:data:`TOKEN_VAR`), and the final
  sweep finds live escapees by it (:func:`carrying_token`);
* dead orphans, whose environment can no longer be read, are collected for what they
  are: zombie children that nobody else waits for (:func:`reap_orphans`).  Bot
  leaders are left alone (:data:`LEADERS`): their own BotProcess collects their status.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterable, Iterator

import psutil

#: Environment variable carrying a per-bot random token; the final sweep finds escaped
#: descendants (a double-forked daemon) by it.
TOKEN_VAR = "REFEREE_BOT_TOKEN"


_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make orphaned bot descendants re-parent to this process instead of init.

    A double-forked daemon then stays findable (and reapable) as our child.
    Linux only; returns whether it took effect.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


#: Children this process spawned and has not reaped yet — bot leaders, and any other
#: child whose exit status its owner collects (a grading run's child commands): never
#: reaped by :func:`reap_orphans`, which would lose that status.
LEADERS: set[int] = set()


@contextlib.contextmanager
def owned(pid: int) -> Iterator[None]:
    """While inside, ``pid`` (a child of ours) is left to its owner to reap."""
    LEADERS.add(pid)
    try:
        yield
    finally:
        LEADERS.discard(pid)


#: Whether this kernel has /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN).
_CHILDREN_FILES = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def descendant_pids(pid: int, recursive: bool = True) -> list[int] | None:
    """The children of ``pid`` (with ``recursive``, theirs too, and so on), from each
    process's threads' ``/proc/PID/task/TID/children`` — ~0.1 ms for a bot's few
    processes, where psutil scans all of /proc (milliseconds on a busy machine).  A
    process that exits meanwhile is skipped (``[]`` for ``pid`` itself); ``None`` where
    those files cannot be read (a kernel without them, a /proc mounted with ``hidepid``):
    then ask psutil."""
    if not _CHILDREN_FILES:
        return None
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except FileNotFoundError:
            continue  # exited
        except OSError:
            return None
        for tid in tasks:
            try:
                with open(f"/proc/{parent}/task/{tid}/children", "rb") as fh:
                    below = [int(child) for child in fh.read().split()]
            except FileNotFoundError:
                continue  # the thread ended
            except OSError:
                return None
            found += below
            if recursive:
                todo += below
    return found


def child_pids(pid: int, recursive: bool = False) -> list[int]:
    """The pids of ``pid``'s children (all its descendants if ``recursive``):
    :func:`descendant_pids`, or psutil's scan of all of /proc where the kernel's children
    files cannot be read; [] once it is gone."""
    pids = descendant_pids(pid, recursive)
    if pids is not None:
        return pids
    try:
        return [child.pid for child in psutil.Process(pid).children(recursive=recursive)]
    except psutil.Error:
        return []


def reap_orphans() -> int:
    """Reap zombie children that are not bot leaders; returns how many.

    As a child subreaper the referee inherits every orphaned descendant of its bots.
    Once dead they are zombies whose environment can no longer be read, so they are
    collected here by what they are: dead children nobody else waits for.
    """
    reaped = 0
    for pid in child_pids(os.getpid()):
        if pid in LEADERS:
            continue
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                continue
            if os.waitpid(pid, os.WNOHANG)[0]:
                reaped += 1
        except (psutil.Error, ChildProcessError):
            continue
    return reaped


def carrying_token(token: str, procs: Iterable[psutil.Process]) -> list[psutil.Process]:
    """The processes among ``procs`` whose environment carries a bot's sweep token.

    A process that changed or scrubbed its environment, or a zombie (whose environment
    can no longer be read), is not found this way.
    """
    marker = f"{TOKEN_VAR}={token}".encode()
    found = []
    for proc in procs:
        try:
            with open(f"/proc/{proc.pid}/environ", "rb") as fh:
                if marker in fh.read():
                    found.append(proc)
        except OSError:
            continue
    return found
