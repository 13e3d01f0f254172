"""Resource and time limits for one bot.

Each game declares its seed's values as defaults (:attr:`referee.games.base.Game.limits`);
a bot's manifest may override them, and the command line overrides both.  Merging is
field by field: an unset field (``None``) in an override keeps the value below it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

MiB = 1 << 20
GiB = 1 << 30

#: An answer that took this share of the decision limit or more is *close to it*: on a
#: slower or busier machine it might have timed out.  Such answers are kept with the CPU
#: they used (``BotFigures.slow_answers``), and a tournament flags their matches
#: (``near-limit`` events, ``--rerun-close``).
NEAR_LIMIT = 0.8


class Limits(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    #: Wall seconds from spawn to the first answer (precomputation is allowed before it).
    startup_s: float = 60.0
    #: Wall seconds for each later answer.
    decision_s: float = 10.0
    #: Whether the first answer may use what is left of the startup allowance.  False
    #: (Liar's Dice: seed 001 gives every decision 50 ms): the allowance ends when the
    #: bot has read its first request, and that decision, like every later one, has
    #: ``decision_s`` from then on (docs/limits-and-verdicts.md, "The first decision").
    first_answer_in_startup: bool = True
    #: Wall seconds a bot whose answer timed out has to give that late answer (it is read
    #: and dropped) before its next request is written, at most ``startup_s``; one that
    #: has not given it by then is hung: stopped, verdict ``timeout`` (``startup`` if it
    #: never answered at all).  0: no wait — the next request is written at once, and a
    #: bot still owing the late answer when that request times out too is stopped as hung.
    late_s: float = 0.0
    #: CPU seconds for the bot's whole process tree over one match (None: no budget).
    cpu_s: float | None = 600.0
    #: Resident memory of the whole process tree, in bytes (None: no cap).
    memory_bytes: int | None = 2 * GiB
    #: Optional RLIMIT_AS per process; off by default because JVM and Go reserve far more
    #: address space than they use.
    address_space_bytes: int | None = None
    #: RLIMIT_FSIZE: largest file a bot may write in its directory.
    file_size_bytes: int = 64 * MiB
    #: RLIMIT_NOFILE.
    open_files: int = 256
    #: Size of each private tmpfs under bwrap (/tmp, /dev/shm, the working directory):
    #: tmpfs pages are memory that RSS does not show, so each must be bounded.
    disk_bytes: int = 256 * MiB
    #: RLIMIT_NPROC (processes and threads), applied only when the bot has a uid of its
    #: own: the kernel counts per uid, so under a shared uid it would count the referee.
    processes: int = 512
    #: Longest reply line; longer is a protocol fault, never unbounded memory.
    max_line_bytes: int = 4096
    #: Bytes of stderr kept per bot: the first half and the last half.
    stderr_bytes: int = 1 * MiB
    #: Seconds to wait for a process to exit after SIGKILL before giving up on it.
    exit_s: float = 2.0

    def merged(self, override: LimitsOverride | None) -> Limits:
        if override is None:
            return self
        changes = {f: v for f in override.__struct_fields__ if (v := getattr(override, f)) is not None}
        return msgspec.structs.replace(self, **changes)

    def lowered(self, request: LimitsOverride | None) -> Limits:
        """These limits, each field lowered where ``request`` asks for less.

        A bot's manifest is its author's: it may ask for tighter limits, never looser
        ones (a ``decision_s`` of 1e9, a 16 GiB ``stderr_bytes``); only the command line
        raises a limit.  ``None`` (no limit) is above every number.
        """
        if request is None:
            return self
        changes = {}
        for name in request.__struct_fields__:
            wanted = getattr(request, name)
            if wanted is None:
                continue
            current = getattr(self, name)
            if current is None or wanted < current:
                changes[name] = wanted
        return msgspec.structs.replace(self, **changes) if changes else self


if TYPE_CHECKING:
    # What the checker sees of the class made below (it cannot follow defstruct): a
    # frozen struct taking Limits' fields by keyword, each one optional.

    class LimitsOverride(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
        def __init__(self, **fields: Any) -> None: ...

        def __getattr__(self, name: str) -> Any: ...

else:
    #: The same fields as :class:`Limits`, all optional (``None``: unchanged): what a manifest
    #: or the command line changes.  Made from Limits' own fields, so the two cannot drift.
    LimitsOverride = msgspec.defstruct(
        "LimitsOverride",
        [(field.name, field.type | None, None) for field in msgspec.structs.fields(Limits)],
        module=__name__,
        frozen=True,
        forbid_unknown_fields=True,
    )
