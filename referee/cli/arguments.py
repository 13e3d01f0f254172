"""Command-line pieces that `referee match` and `referee check` share: the game
options and the limit options (their flags, parsing and help), and what they make."""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from typing import Any, NoReturn

from referee import games
from referee.core.limits import LimitsOverride, MiB
from referee.core.seeding import SEEDS
from referee.stats.sprt import SprtSpec, parse_sprt

#: Exit statuses, shared by the commands (each one's epilog says what it means by them).
EXIT_OK = 0
#: The command ran but what it checked failed (``referee check``), or it could not go on.
EXIT_FAILED = 1
#: A usage error — a bad option, bot or path — said in one line.
EXIT_USAGE = 2
#: A bot cannot start (or its build failed).
EXIT_CANNOT_START = 3
#: An output could not be written (the disk filled up): the summary at the end, or the
#: log or an export during the match, which stopped there.
EXIT_CANNOT_WRITE = 4


def say(line: str) -> None:
    """One line on stderr as ``referee: LINE``, if stderr is still there (a hung-up
    terminal, a closed pipe: the results matter more than the message)."""
    with contextlib.suppress(OSError):
        print(f"referee: {line}", file=sys.stderr, flush=True)


#: Words that lift a limit (``--cpu-limit none``).
_UNLIMITED = {"none", "inf", "unlimited"}


def _positive(text: str, unit: str, lift: bool) -> float:
    if lift and text.lower() in _UNLIMITED:
        return math.inf
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(
            f"must be a positive number of {unit}" + (" or 'none'" if lift else "")
        )
    return value


def match_seed(text: str) -> int:
    """A ``--seed``: a whole number in ``range(SEEDS)``."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < SEEDS:
        raise argparse.ArgumentTypeError("must be a whole number from 0 to 2**64-1")
    return value


def seconds_or_none(text: str) -> float:
    return _positive(text, "seconds", lift=True)


def seconds(text: str) -> float:
    return _positive(text, "seconds", lift=False)


def mib_or_none(text: str) -> int:
    value = _positive(text, "MiB", lift=True)
    return 1 << 62 if math.isinf(value) else int(value * MiB)


def mib(text: str) -> int:
    return int(_positive(text, "MiB", lift=False) * MiB)


def add_limit_options(parser: argparse.ArgumentParser, title: str, *, full: bool) -> None:
    """The limit flags: the three every run has, and with ``full`` (a match) the CPU
    budget and RLIMIT_AS, with 'none' lifting a limit.  ``referee check`` takes the
    three, finite (it must end)."""
    group = parser.add_argument_group(title)
    time_type, memory_type = (seconds_or_none, mib_or_none) if full else (seconds, mib)
    group.add_argument("--startup-timeout", type=time_type, metavar="S", help="seconds to the first answer")
    group.add_argument("--decision-timeout", type=time_type, metavar="S", help="seconds per later answer")
    group.add_argument(
        "--memory-limit", type=memory_type, metavar="MIB", help="resident MiB of a bot's process tree"
    )
    if full:
        group.add_argument(
            "--cpu-limit", type=seconds_or_none, metavar="S", help="CPU seconds per bot per match"
        )
        group.add_argument(
            "--address-space-limit", type=mib_or_none, metavar="MIB", help="RLIMIT_AS per process (off)"
        )


def limits_from(args: argparse.Namespace) -> LimitsOverride | None:
    """The override the limit flags given make, or None when none was given."""
    fields = {
        "startup_s": args.startup_timeout,
        "decision_s": args.decision_timeout,
        "memory_bytes": args.memory_limit,
        "cpu_s": getattr(args, "cpu_limit", None),
        "address_space_bytes": getattr(args, "address_space_limit", None),
    }
    fields = {k: v for k, v in fields.items() if v is not None}
    return LimitsOverride(**fields) if fields else None


def add_game_options(parser: argparse.ArgumentParser, title: str) -> None:
    """One flag per game option (``Game.option_specs``) of any game: ``--cards N``.  A
    name that two games declare with another type or help is refused (one flag cannot
    mean two things)."""
    group = parser.add_argument_group(title)
    first: dict[str, tuple[str, games.Option]] = {}
    for name, cls in games.available().items():
        for option, spec in cls.option_specs.items():
            if option in first:
                if (first[option][1].type, first[option][1].help) != (spec.type, spec.help):
                    raise ValueError(f"game option --{option} of {name} clashes with {first[option][0]}'s")
                continue
            first[option] = (name, spec)
            group.add_argument(
                "--" + option.replace("_", "-"),
                dest=f"option_{option}",
                type=spec.type,
                metavar="N",
                help=f"{spec.help} (default {spec.default})",
            )


def game_options(args: argparse.Namespace, only: type[games.Game] | None = None) -> dict[str, Any]:
    """The game options given (those of game ``only``, if named; the others are left
    for the game to refuse)."""
    given = {
        k.removeprefix("option_"): v
        for k, v in vars(args).items()
        if k.startswith("option_") and v is not None
    }
    return {k: v for k, v in given.items() if only is None or k in only.option_specs}


class OneLineErrors(argparse.ArgumentParser):
    """A parser whose usage errors are one line on stderr (exit 2), naming ``--help``,
    rather than the whole usage block first: the line is what a user needs to see."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def sprt_spec(text: str) -> SprtSpec:
    """``--sprt``'s value: ``elo0=0 elo1=5 alpha=0.05 beta=0.05`` (referee.stats.sprt)."""
    try:
        return parse_sprt(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
