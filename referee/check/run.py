"""Playing the check: its matches one after the other, collecting every fault the bot
made and what its processes observed."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import trio

from referee.check.observe import CheckProcess, Recorder
from referee.check.plan import CheckMatch, plan_phases
from referee.core import interrupts
from referee.core.botspec import BotSpec
from referee.core.limits import LimitsOverride
from referee.core.overload import schedstat
from referee.core.records import GameRecord
from referee.core.verdict import Verdict
from referee.games.base import Game
from referee.match import MatchConfig, MatchError
from referee.sinks._abc import Sink, Standing

#: The check stops after this many late answers: each one costs a whole decision limit,
#: and two are enough to fail the item.
STOP_AFTER_TIMEOUTS = 2


class _Stop(Exception):
    """Raised from the match's per-game callback: the rest of the check would only repeat."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _stop_reason(exc: BaseException) -> str | None:
    """The reason of a :class:`_Stop`, also when trio wrapped it in exception groups."""
    if isinstance(exc, _Stop):
        return exc.reason
    if isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        return _stop_reason(exc.exceptions[0])
    return None


class _GameWatcher(Sink):
    """Hands each finished game (with its transcript) to the check as it ends."""

    wants_transcript = True

    def __init__(self, on_game: Callable[[GameRecord], None]) -> None:
        self._on_game = on_game

    def game(self, record: GameRecord, standing: Standing) -> None:
        self._on_game(record)


@dataclass
class Fault:
    """One penalised decision (or information line) of the bot, as the match judged it."""

    verdict: Verdict
    detail: str
    where: str
    line: str | None = None
    reply: str | None = None


@dataclass
class CheckRun:
    """Everything the games showed; :func:`judge` turns it into the checklist."""

    game: Game
    bot: BotSpec
    opponent: str
    seed: int
    layer: str = ""
    recorder: Recorder | None = None
    faults: list[Fault] = field(default_factory=list)
    opponent_faults: list[Fault] = field(default_factory=list)
    games: int = 0
    positions: int = 0
    stopped: str | None = None
    #: The stop signal that ended the check early, if one did.
    signal: int | None = None
    cannot_start: str | None = None
    elapsed: float = 0.0
    #: Seconds the referee was runnable without a CPU over the check (its scheduling delay).
    referee_wait: float = 0.0

    @property
    def processes(self) -> list[CheckProcess]:
        return self.recorder.processes if self.recorder else []


#: The match's startup hint ends by sending the student here: inside the check, it is dropped.
SEND_TO_CHECK = "; referee check BOT tells more"


def _derived(detail: str) -> bool:
    """A penalty that repeats an earlier cause (the bot was already down)."""
    return detail.startswith("not running since")


def play(
    game_cls: type[Game],
    options: dict[str, Any],
    bot: BotSpec,
    opponents: list[BotSpec],
    config: MatchConfig,
    random_games: int,
    signals: Sequence[int] = (),
) -> CheckRun:
    """Play the check's matches and collect what they showed.

    A stop signal (Ctrl-C) ends the match in progress cleanly (``interrupts``); one that
    arrives between matches, recorded in ``signals``, ends the check before the next.
    """
    game = game_cls(**options)
    run = CheckRun(game=game, bot=bot, opponent=opponents[0].name, seed=config.seed)
    recorder = Recorder(bot.name, game.kinds_of_line)
    run.recorder = recorder
    process_class = recorder.process_class()
    started = time.perf_counter()
    waited = schedstat()[1]
    for phase in plan_phases(game, random_games):
        if signals:
            run.signal = signals[0]
            break
        labels = {index: position.name for index, position in phase.plan if position is not None}

        def on_game(record: GameRecord, labels: dict[int, str] = labels) -> None:
            _collect(run, record, labels.get(record.game))
            _maybe_stop(run, record)

        specs = [bot, *opponents[: phase.seats - 1]]
        match = CheckMatch(
            game_cls(**options),
            specs,
            msgspec.structs.replace(config, games=len(phase.plan)),
            phase.plan,
            process_class,
            sinks=[_GameWatcher(on_game)],
        )
        run.layer = match.layer.value
        try:
            _, run.signal = trio.run(interrupts.run_until_signalled, match.run)
        except MatchError as exc:
            run.cannot_start = str(exc)
        except BaseException as exc:
            reason = _stop_reason(exc)
            if reason is None:
                raise
            run.stopped = reason
        if run.cannot_start or run.stopped or run.signal is not None:
            break
    if run.signal is not None:
        run.stopped = interrupts.describe(run.signal)
    run.elapsed = time.perf_counter() - started
    run.referee_wait = max(0, schedstat()[1] - waited) / 1e9
    return run


def seats_needed(game: Game) -> int:
    """The most seats a match of the check has: the usual count, or a position's."""
    return max([2 if 2 in game.seats else game.seats.low, *(p.seats for p in game.check_positions())])


def check_bot(
    game_cls: type[Game],
    options: dict[str, Any],
    bot: BotSpec,
    opponents: list[BotSpec],
    *,
    seed: int,
    limits: LimitsOverride | None,
    pin: bool,
    sandbox: str,
    allow_root_bots: bool,
    random_games: int,
    signals: Sequence[int] = (),
) -> CheckRun:
    """:func:`play` the check with the match configuration it uses: ``recover`` on (one
    crash does not end it), no game log (the moves are what the check reads), the bots'
    stderr in a folder of its own, removed after."""
    stderr_dir = tempfile.mkdtemp(prefix="referee-check-")
    config = MatchConfig(
        game=game_cls.name,
        seed=seed,
        recover=True,
        pin=pin,
        sandbox=sandbox,
        allow_root_bots=allow_root_bots,
        limits=limits,
        log_path=os.devnull,  # the games' moves are what the check reads; the file is not needed
        stderr_dir=stderr_dir,
        options=options,
    )
    try:
        return play(game_cls, options, bot, opponents, config, random_games, signals)
    finally:
        shutil.rmtree(stderr_dir, ignore_errors=True)


def _collect(run: CheckRun, record: GameRecord, position: str | None) -> None:
    """The bot's and the opponents' faults in one finished game."""
    if position is None:
        run.games += 1
        where = f"game {record.game}"
    else:
        run.positions += 1
        where = f'game {record.game}, position "{position}"'
    bot = run.bot.name
    for step in record.transcript or ():
        if step.kind == "ask" and step.verdict is not None:  # a penalised request
            detail = (step.detail or "").replace(SEND_TO_CHECK, "")
            fault = Fault(Verdict(step.verdict), detail, where, step.line, step.reply)
            (run.faults if record.seats[step.seat] == bot else run.opponent_faults).append(fault)
    for forfeit in record.forfeits:
        # Penalties without a request line: an information line that failed, or a bot
        # already down (which repeats its cause, recorded where it happened).
        if forfeit.position is None and not _derived(forfeit.detail) and forfeit.player == bot:
            run.faults.append(
                Fault(Verdict(forfeit.verdict), forfeit.detail.replace(SEND_TO_CHECK, ""), where)
            )


def _maybe_stop(run: CheckRun, record: GameRecord) -> None:
    """Stop when playing on would only repeat a failure at a high price."""
    if any(p.first_answer_s is not None for p in run.processes):
        late = sum(1 for f in run.faults if f.verdict in (Verdict.TIMEOUT, Verdict.CPU))
        if late >= STOP_AFTER_TIMEOUTS:
            raise _Stop(f"stopped after {late} late answers (each costs a whole decision limit)")
    elif any(forfeit.player == run.bot.name for forfeit in record.forfeits):
        raise _Stop("stopped after the first game: the bot never answered")
