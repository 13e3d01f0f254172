"""What a bot process is allowed: the isolation layers, set up around its spawn.

A bot runs under one *layer*, weakest to strongest ``none``, ``rlimits``, ``landlock``,
``namespaces`` (the default wherever the kernel allows it) and ``bwrap``; ``--sandbox
auto`` picks the strongest that works here, ``strict`` the strongest or refuses to run.
:mod:`.layers` says what each one stops and what it leaves open.

The package is small modules, one idea each, in the order a bot meets them:

:mod:`.layers`
    The layers themselves: :class:`Layer`, the ``--sandbox`` choices, the order of
    strength, and what each layer leaves open.
:mod:`.choice`
    Which layer this machine can run (each probed once, as bots would run) and the
    choice for ``--sandbox``, with the console lines that say when a stronger layer
    would be possible.
:mod:`.paths`
    The host's files every layer shows a bot (the system directories), and the
    secrets it must never read.
:mod:`.visibility`
    What a bot sees besides the system (its own files, its program's installation)
    and which program a bare name on the command line resolves to.
:mod:`.uids`
    As root: a uid of its own for every bot, and the checks that it can read its files.
:mod:`.rlimits`
    The kernel's rlimits, backstops behind the monitor.
:mod:`.plan`
    The plan for one bot's spawn under a layer (:func:`jail`), and its environment.
:mod:`.reaping`
    Nothing a bot starts escapes: the referee as child subreaper, the sweep token,
    and the reaping of orphans.

The machinery that carries the plan out lives beside them: :mod:`.spawn` starts every
bot with bounded waits; :mod:`.supervisor` (run as ``python3 -I -S``, standard library
only) builds the supervised layers from inside, with :mod:`.landlock` and
:mod:`.seccomp`; :mod:`.cgroups` gives a bot a cgroup of its own, as root or in a cgroup
subtree delegated to the user.
docs/security.md has the threat model and a measured table of what each layer stops.

Everything the rest of the referee uses is importable from the package itself.
"""

from __future__ import annotations

from referee.seats.process.sandbox import cgroups, landlock, seccomp
from referee.seats.process.sandbox.choice import (
    PROBE_TIMEOUT_S,
    advice,
    best_possible_note,
    bwrap_works,
    choose,
    probe_ahead,
    problem,
    supervised_problem,
)
from referee.seats.process.sandbox.layers import CHOICES, GAPS, Layer
from referee.seats.process.sandbox.paths import PROTOCOL_DIR, SUPERVISOR, SYSTEM_DIRS
from referee.seats.process.sandbox.plan import (
    HOME_VAR,
    Jail,
    RootBotRefused,
    bot_environment,
    jail,
)
from referee.seats.process.sandbox.plan import _user_tasks as _user_tasks
from referee.seats.process.sandbox.reaping import (
    LEADERS,
    TOKEN_VAR,
    become_subreaper,
    carrying_token,
    owned,
    reap_orphans,
)
from referee.seats.process.sandbox.rlimits import rlimits_for
from referee.seats.process.sandbox.uids import _allocate_uid as _allocate_uid
from referee.seats.process.sandbox.uids import _reachable as _reachable
from referee.seats.process.sandbox.uids import is_root, release_uid, uid_block
from referee.seats.process.sandbox.visibility import _installations as _installations
from referee.seats.process.sandbox.visibility import _visible as _visible
from referee.seats.process.sandbox.visibility import cannot_exec

# The underscored names above (imported ``as`` themselves) are for the tests.
__all__ = [
    "CHOICES",
    "GAPS",
    "HOME_VAR",
    "LEADERS",
    "PROBE_TIMEOUT_S",
    "PROTOCOL_DIR",
    "SUPERVISOR",
    "SYSTEM_DIRS",
    "TOKEN_VAR",
    "Jail",
    "Layer",
    "RootBotRefused",
    "advice",
    "become_subreaper",
    "best_possible_note",
    "bot_environment",
    "bwrap_works",
    "cannot_exec",
    "carrying_token",
    "cgroups",
    "choose",
    "is_root",
    "jail",
    "landlock",
    "owned",
    "probe_ahead",
    "problem",
    "reap_orphans",
    "release_uid",
    "rlimits_for",
    "seccomp",
    "supervised_problem",
    "uid_block",
]
