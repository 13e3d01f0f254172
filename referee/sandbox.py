"""What a bot process is allowed, set up between fork and exec.

The always-on layer: its own session and process group, a private 0700 working
directory, a minimal environment, kernel rlimits as backstops (CPU seconds, file size,
no core dumps, open files, optionally address space) and ``oom_score_adj`` 1000 so the
kernel's OOM killer picks a bot before the referee.  The psutil monitor in
:mod:`referee.monitor` is the primary CPU and memory enforcement; the rlimits only stop
what slips between its samples.

Stronger layers (a uid per seat, bubblewrap namespaces) wrap the same spawn; they are
chosen by ``--sandbox`` (see docs/security.md).
"""

from __future__ import annotations

import ctypes
import math
import os
import resource
import secrets
import sys
from collections.abc import Callable

from referee.limits import Limits

#: Environment variable carrying a per-bot random token; the final sweep finds escaped
#: descendants (a double-forked daemon) by it.
TOKEN_VAR = "REFEREE_BOT_TOKEN"
#: Where a bot's own files (its manifest directory) are, since it runs elsewhere.
HOME_VAR = "REFEREE_BOT_DIR"

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


def bot_environment(workdir: str, home: str) -> tuple[dict[str, str], str]:
    """A minimal environment for a bot, and its sweep token."""
    token = secrets.token_hex(8)
    env = {
        # The user's PATH, so that "python3 bot.py" runs the python3 they get at their
        # prompt (a virtualenv, Homebrew, pyenv); it names programs, it holds no secrets.
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": workdir,
        "TMPDIR": workdir,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        HOME_VAR: home,
        TOKEN_VAR: token,
    }
    return env, token


def _rlimit_value(value: float | None) -> int:
    if value is None or math.isinf(value):
        return resource.RLIM_INFINITY
    return int(value)


def rlimits_for(limits: Limits) -> list[tuple[int, tuple[int, int]]]:
    """The kernel backstops for ``limits`` as (resource, (soft, hard)) pairs."""
    out = [
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_FSIZE, (limits.file_size_bytes, limits.file_size_bytes)),
        (resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files)),
    ]
    if limits.cpu_s is not None and not math.isinf(limits.cpu_s):
        # Per process, whole seconds, and SIGXCPU can be caught: the hard limit one
        # second later delivers SIGKILL.  The monitor normally acts first.
        soft = math.ceil(limits.cpu_s) + 1
        out.append((resource.RLIMIT_CPU, (soft, soft + 1)))
    if limits.address_space_bytes is not None:
        cap = _rlimit_value(limits.address_space_bytes)
        out.append((resource.RLIMIT_AS, (cap, cap)))
    return out


def preexec(limits: Limits) -> Callable[[], None]:
    """The function run in the child between fork and exec.

    It only makes system calls (no locks, no imports), which keeps it safe to run
    after fork.
    """
    pairs = rlimits_for(limits)
    setrlimit = resource.setrlimit
    linux = sys.platform.startswith("linux")

    def child() -> None:
        for res, value in pairs:
            try:  # noqa: SIM105 -- keep the code between fork and exec minimal
                setrlimit(res, value)
            except (ValueError, OSError):
                # A limit above our own hard limit cannot be raised: keep the lower one.
                pass
        if linux:
            try:
                fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
                os.write(fd, b"1000")
                os.close(fd)
            except OSError:
                pass

    return child
