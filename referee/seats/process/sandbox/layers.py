"""The isolation layers: what each one is, and what each leaves open.

Weakest to strongest (``--sandbox``; ``auto`` picks the strongest that works here,
``strict`` the strongest or refuses to run):

``none``
    Its own session, a private 0700 working directory, a minimal environment, psutil
    accounting of its whole tree, every wait bounded.  For debugging, not for
    untrusted code.
``rlimits``
    Adds kernel rlimits as backstops, ``oom_score_adj`` 1000, and, when the referee is
    root, a uid of the bot's own.
``landlock``
    For machines that refuse unprivileged user namespaces: the bot runs under a
    supervisor (a child subreaper, so nothing it starts escapes accounting), confined
    by Landlock (reads only system and its own files, writes only its working
    directory, no TCP; signals and abstract sockets scoped to itself) and a seccomp
    filter (no ptrace, no sockets, no System V or POSIX IPC, no namespaces).
``namespaces``
    The default wherever the kernel allows it, root or not: the supervisor puts the bot
    in new user, pid, network, IPC, UTS and mount namespaces, behind a root that holds
    only the system directories and the bot's own files (read-only), a fresh /proc,
    and one size-capped tmpfs for /tmp, /dev/shm and its working directory; Landlock,
    the seccomp filter and a per-bot process cap on top.  As root, a uid of its own and
    (where available) a cgroup; without root, a cgroup where the user has a delegated
    subtree.
``bwrap``
    bubblewrap, where it is installed: namespaces much like the layer above, without
    the seccomp filter, Landlock or the process cap.

The order of strength is not the order of the enum: bubblewrap, for all its
namespaces, lacks the seccomp filter and the process cap, so ``auto`` prefers the
supervisor's own namespaces to it (``_PREFERENCE``).  Which of them this machine can
run is :mod:`.choice`'s question; how a bot is put in one is :mod:`.plan`'s.
"""

from __future__ import annotations

import enum


class Layer(enum.StrEnum):
    NONE = "none"
    RLIMITS = "rlimits"
    LANDLOCK = "landlock"
    NAMESPACES = "namespaces"
    BWRAP = "bwrap"


CHOICES = ("auto", "strict", *(layer.value for layer in Layer))
#: What ``auto`` tries, strongest first.
_PREFERENCE = (Layer.NAMESPACES, Layer.BWRAP, Layer.LANDLOCK, Layer.RLIMITS)


#: What each layer leaves open, for the console line when a stronger one would work.
GAPS = {
    Layer.NONE: "no isolation at all: a bot can read and write your files, talk to the other bots, "
    "and signal any of your processes",
    Layer.RLIMITS: "bots can read and write your files, talk to each other and signal your processes "
    "(as root: a uid of their own stops most of it)",
    Layer.LANDLOCK: "no private /tmp or process namespace: the working directory is on disk and, on "
    "kernels before 6.12, a bot can signal your other processes",
    Layer.BWRAP: "no seccomp filter and no process cap for non-root users",
    Layer.NAMESPACES: "",
}
