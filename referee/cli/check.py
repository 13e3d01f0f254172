"""``referee check BOT --game NAME``: does a bot keep the rules every match relies on?

A student runs it before a tournament.  It plays a few short games between the bot and
the game's reference player (a sample player that never faults), poses every kind of
line the game has, and prints a checklist::

    startup        it started and gave its first answer within the startup allowance
    answers        it answered every request, with a line that parses
    extra output   it printed nothing but its answers
    legal moves    the rules allowed every move
    decision time  no answer came late (max and 99th percentile against the limit)
    memory         its peak resident memory stayed under the cap
    exit on EOF    once its input closed after the games, it exited by itself, status 0
    coverage       every kind of line the game has was posed at least once

Verdicts mean exactly what they mean in ``referee match``: the games are played by a
:class:`~referee.match.Match` with the same limits, sandbox and penalties (``recover``
on, so that one crash does not end the check).  Its bots run in :class:`CheckProcess`, a
:class:`~referee.seats.process.bot.BotProcess` that only observes more: it times each answer,
looks for output no request asked for, samples memory more often, and at the end closes
the bot's input and waits to see whether the bot exits by itself.

Rare lines (a Yahtzee joker needs a second Yahtzee in one game) would not reliably come
up in a few random games, so each game module supplies positions set up where they
happen (:meth:`~referee.games.base.Game.check_positions`), a classifier for its lines
(:meth:`~referee.games.base.Game.kinds_of_line`) and its reference player
(:attr:`~referee.games.base.Game.check_opponent`).  This module knows no game: a new
game gets a full check by implementing those three.

Exit status: 0 every item passed, 1 an item failed, 2 a usage error, 3 the bot could not
be started at all, 128 + N after signal N (Ctrl-C: 130).  An item that cannot be judged
(the bot never answered, the check was stopped) is "skip", with the reason; it fails
nothing by itself, and comes with the failure that made it moot.
"""

from __future__ import annotations

import argparse
import array
import collections
import fcntl
import json
import math
import os
import secrets
import shlex
import shutil
import sys
import tempfile
import termios
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import psutil
import trio

from referee import games
from referee.cli import arguments
from referee.core import interrupts
from referee.core import overload as machine
from referee.core.botspec import BotSpec, BotSpecError, resolve
from referee.core.limits import Limits, MiB
from referee.core.records import GameRecord
from referee.core.seeding import deal_seed
from referee.core.verdict import BotFault, Verdict, printable
from referee.games.base import SAMPLE_PLAYERS, CheckPosition, Game, GameState
from referee.match import Match, MatchConfig, MatchError, Scheduled
from referee.seats.process import sandbox
from referee.seats.process.bot import BotProcess, describe_status, eof_grace_s
from referee.sinks._abc import Sink, Standing

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_CANNOT_START = 3

#: Random games per check (at the usual seat count) when ``--games`` is not given.
DEFAULT_GAMES = 10
#: The check stops after this many late answers: each one costs a whole decision limit,
#: and two are enough to fail the item.
STOP_AFTER_TIMEOUTS = 2
#: How often (seconds) the bot's memory is sampled while it answers; the match's monitor
#: samples 4 times a second, too rarely for a check that lasts a second or two.
SAMPLE_EVERY_S = 0.02
#: After this long without a first answer, say what the check is waiting for.
SLOW_START_NOTICE_S = 5.0
#: Bytes of leftover output read from a bot that has exited.
LEFTOVER_MAX = 1 << 16
STDERR_TAIL_LINES = 5

#: Issue 28, a late answer (or a late exit on EOF) the grading machine caused, not the
#: bot: the rule and its thresholds are referee.core.overload's (docs/grading.md).
OVERLOAD_CPU_SHARE = machine.CPU_SHARE
OVERLOAD_WAIT_SHARE = machine.WAIT_SHARE
OVERLOAD_REFEREE_WAIT_SHARE = machine.REFEREE_WAIT_SHARE

ITEMS = (
    ("startup", "startup"),
    ("answers", "answers"),
    ("output", "extra output"),
    ("legal", "legal moves"),
    ("time", "decision time"),
    ("memory", "memory"),
    ("eof", "exit on EOF"),
    ("coverage", "coverage"),
)

# ---------------------------------------------------------------------------- observing the bot


@dataclass
class Stray:
    """Output nobody asked for: seen waiting before a request, or left at the end."""

    after_line: bytes | None
    after_reply: bytes | None
    waiting: int
    #: What it was, when the check could read it (only after the bot has exited: before,
    #: reading it would change what the match sees).
    data: bytes | None = None


@dataclass
class Eof:
    """How the bot ended once its input was closed."""

    exited: bool
    seconds: float
    status: str | None
    clean: bool


schedstat = machine.schedstat


@dataclass
class Overload:
    """What a timed wait for the bot showed of the machine (all in seconds)."""

    what: str  #: "decision", "first answer", "exit on EOF"
    wall: float
    limit: float
    cpu: float  #: the bot's CPU meanwhile
    bot_wait: float  #: how long the bot was runnable without a CPU
    referee_wait: float  #: how long the referee was

    @property
    def machine_caused(self) -> bool:
        return machine.machine_caused(self.cpu, self.limit, self.wall, self.bot_wait, self.referee_wait)

    def describe(self) -> str:
        return (
            f"{self.what}: it used {_duration(self.cpu)} of CPU in {_duration(self.wall)} (limit "
            f"{_duration(self.limit)}) and waited {_duration(self.bot_wait)} for a CPU; the referee waited "
            f"{_duration(self.referee_wait)}"
        )


class _Watch:
    """A snapshot of the bot's and the referee's CPU and run delay, to measure a wait."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.began = time.monotonic()
        self.bot = schedstat(pids)
        self.referee = schedstat()

    def end(self, what: str, limit: float) -> Overload:
        bot, referee = schedstat(self.pids), schedstat()
        return Overload(
            what=what,
            wall=time.monotonic() - self.began,
            limit=limit,
            cpu=max(0, bot[0] - self.bot[0]) / 1e9,
            bot_wait=max(0, bot[1] - self.bot[1]) / 1e9,
            referee_wait=max(0, referee[1] - self.referee[1]) / 1e9,
        )


def _bytes_waiting(fd: int) -> int:
    """Bytes in a pipe not read yet (FIONREAD): looks without taking them."""
    if fd < 0:
        return 0
    count = array.array("i", [0])
    try:
        fcntl.ioctl(fd, termios.FIONREAD, count, True)
    except OSError:
        return 0
    return count[0]


class Recorder:
    """What the check learns about the bot, across all of its processes (restarts included)."""

    def __init__(self, bot_name: str, classify: Callable[[bytes], Sequence[str]]) -> None:
        self.bot_name = bot_name
        self.classify = classify
        #: The bot's processes, in the order they were started.
        self.processes: list[CheckProcess] = []
        #: How many lines of each kind the bot was sent.
        self.kinds: collections.Counter[str] = collections.Counter()

    def saw(self, line: bytes) -> None:
        self.kinds.update(self.classify(line))

    def process_class(self) -> type[CheckProcess]:
        """A :class:`CheckProcess` subclass that reports to this recorder (the match
        creates the processes, so the recorder travels on the class)."""
        return type("RecordedProcess", (CheckProcess,), {"recorder": self})


class CheckProcess(BotProcess):
    """A :class:`BotProcess` that also records what ``referee check`` judges beyond verdicts.

    Only the bot under check is observed (the reference player runs as usual).  Nothing
    here changes what the match sees: output waiting in the pipe is measured with
    FIONREAD, never read, until the bot has exited.
    """

    recorder: ClassVar[Recorder]

    def __init__(self, spec: BotSpec, *args: Any, **kwargs: Any) -> None:
        super().__init__(spec, *args, **kwargs)
        self.watched = spec.name == self.recorder.bot_name
        self.spawned_at: float | None = None
        self.start_error: str | None = None
        #: Seconds from spawn to the first answer: what the startup allowance bounds.
        self.first_answer_s: float | None = None
        #: Every later answer's latency, write to reply, as the match measures it.
        self.latencies_ns: list[int] = []
        #: How long each request that got no answer in time was waited for (a lower bound).
        self.late_ns: list[int] = []
        #: Requests written to it, and those it answered with one line (judged by the match after).
        self.requests = 0
        self.answers = 0
        self.strays: list[Stray] = []
        self.eof: Eof | None = None
        #: Every late wait (decision, first answer, exit on EOF) and what it showed of the machine.
        self.overloads: list[Overload] = []
        self._last: tuple[bytes, bytes] | None = None
        #: A request is out and neither answered nor judged: the check was stopped in it.
        self._pending = False
        self._sampled_at = 0.0
        if self.watched:
            self.recorder.processes.append(self)

    async def start(self, nursery: trio.Nursery) -> None:
        try:
            await super().start(nursery)
        except BotFault as fault:
            self.start_error = fault.detail
            raise
        self.spawned_at = trio.current_time()
        if self.watched and self.limits.startup_s > 2 * SLOW_START_NOTICE_S:
            nursery.start_soon(self._notice_slow_start)

    async def _notice_slow_start(self) -> None:
        """A bot that never flushes waits out the whole allowance (600 s in dice poker):
        say so, once, rather than seem to hang."""
        await trio.sleep(SLOW_START_NOTICE_S)
        if self.alive and self.first_answer_s is None:
            print(
                f"referee check: no first answer from {self.spec.name} after {SLOW_START_NOTICE_S:g} s; "
                f"waiting up to the startup allowance of {self.limits.startup_s:g} s "
                "(--startup-timeout S shortens it)",
                file=sys.stderr,
                flush=True,
            )

    async def request(self, line: bytes) -> bytes:
        if not self.watched:
            return await super().request(line)
        self.recorder.saw(line)
        self._look_for_stray_output()
        self.requests += 1
        first = self.first_answer_s is None
        watch = _Watch(self._pids())
        began = time.monotonic_ns()
        self._pending = True
        try:
            reply = await super().request(line)
        except BotFault as fault:  # it goes on to the match, which judges it
            self._pending = False
            if fault.verdict in (Verdict.TIMEOUT, Verdict.CPU, Verdict.STARTUP):
                limit = self.limits.startup_s if first else self.limits.decision_s
                self.overloads.append(watch.end("first answer" if first else "decision", limit))
            if not first and fault.verdict in (Verdict.TIMEOUT, Verdict.CPU):
                # No answer within the limit: its wait is a lower bound of its latency.
                self.late_ns.append(time.monotonic_ns() - began)
            if first and fault.verdict is Verdict.PROTOCOL:
                self._answered_first()  # badly, but in time: that is for another item
            raise
        self._pending = False
        elapsed = time.monotonic_ns() - began
        if first:
            self._answered_first()
        else:
            self.latencies_ns.append(elapsed)
        self.answers += 1
        self._last = (line, reply)
        now = trio.current_time()
        if now - self._sampled_at >= SAMPLE_EVERY_S:
            self._sampled_at = now
            self.sample()
        return reply

    def _pids(self) -> list[int]:
        """The bot's processes (its supervisor's too: it sleeps)."""
        if not self.alive or self.pid < 0:
            return []
        try:
            return [self.pid, *(p.pid for p in psutil.Process(self.pid).children(recursive=True))]
        except psutil.Error:
            return [self.pid]

    def _answered_first(self) -> None:
        self.first_answer_s = trio.current_time() - (self.spawned_at or 0.0)

    async def tell(self, line: bytes, expects_reply: bool = False) -> None:
        if self.watched:
            self.recorder.saw(line)
        await super().tell(line, expects_reply)

    def _look_for_stray_output(self) -> None:
        """Before a request is written, nothing should be waiting in the bot's stdout but
        the answers it owes to information lines (dice poker) or a timed-out request."""
        if self._last is None or self.death is not None or self._owed or self._discarding:
            return
        waiting = _bytes_waiting(self._rfd)
        if waiting and len(self.strays) < 20:
            self.strays.append(Stray(*self._last, waiting=waiting))

    async def close(self) -> None:
        # Not when a stop (Ctrl-C) interrupted a request: the bot is busy, not at its end.
        if self.watched and self.alive and not self._closed and not self._pending:
            with trio.CancelScope(shield=True):
                await self._watch_exit_on_eof()
        await super().close()

    async def _watch_exit_on_eof(self) -> None:
        """Close the bot's input and give it the exit allowance to exit by itself."""
        watch = _Watch(self._pids())
        self._close_fd("_wfd")
        began = trio.current_time()
        grace = eof_grace_s(self.limits)
        await self._wait_exit(grace)
        if self.exit_status is None:
            overload = watch.end("exit on EOF", grace)
            self.overloads.append(overload)
            if overload.machine_caused:
                # Starved, not stuck (issue 28): the exit allowance it would have on a quiet
                # machine, as CPU it could not get — wait up to the match's exit limit.
                await self._wait_exit(max(0.0, self.limits.exit_s - grace))
                overload.wall = trio.current_time() - began
        seconds = trio.current_time() - began
        status = self.exit_status
        self.eof = Eof(
            exited=status is not None,
            seconds=seconds,
            status=None if status is None else describe_status(status, self.layer is sandbox.Layer.BWRAP),
            clean=status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
        )
        if status is not None:
            leftover = self._unowed_output()
            if leftover:
                last_line, last_reply = self._last or (None, None)
                self.strays.append(Stray(last_line, last_reply, len(leftover), leftover))

    def _unowed_output(self) -> bytes:
        """What the exited bot left in its stdout beyond the answers it owed."""
        data = self._buf
        while len(data) < LEFTOVER_MAX:
            try:
                chunk = os.read(self._rfd, LEFTOVER_MAX)
            except OSError:  # BlockingIOError: nothing more (a child may hold the pipe)
                break
            if not chunk:
                break
            data += chunk
        owed = self._owed + (1 if self._discarding else 0)
        for _ in range(owed):
            _, newline, data = data.partition(b"\n")
            if not newline:
                return b""
        return data


# ---------------------------------------------------------------------------- playing


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


@dataclass
class Phase:
    """One match of the check: a seat count, and its games by index (a position or a
    random game, ``None``)."""

    seats: int
    plan: list[tuple[int, CheckPosition | None]]


def plan_phases(game: Game, random_games: int) -> list[Phase]:
    """The matches to play: ``random_games`` at the usual seat count (two when the game
    allows it) and its positions; then, for positions that need more seats (a side pot),
    a few random games and those positions at that count.

    The match seats player ``(seat + index) % n`` in ``seat`` of game ``index``, and the
    bot is player 0: a position's game index is chosen to put the bot in its seat.
    Indices keep growing across phases, so every game of the check has its own number.
    """
    usual = 2 if 2 in game.seats else game.seats.low
    by_seats: dict[int, list[CheckPosition]] = {}
    for position in game.check_positions():
        if position.seats not in game.seats:
            raise ValueError(f"{game.name}: position {position.name!r} has {position.seats} seats")
        by_seats.setdefault(position.seats, []).append(position)
    phases = []
    index = 0
    for seats in [usual, *sorted(set(by_seats) - {usual})]:
        plan: list[tuple[int, CheckPosition | None]] = []
        extra = random_games if seats == usual else min(random_games, max(1, random_games // 4))
        for _ in range(extra):
            plan.append((index, None))
            index += 1
        for position in by_seats.get(seats, []):
            while (position.seat + index) % seats:
                index += 1
            plan.append((index, position))
            index += 1
        phases.append(Phase(seats, plan))
    return phases


class CheckMatch(Match):
    """A match that plays its phase's plan: random games as usual, positions as given.

    Game ``i`` of the plan is played as game number ``plan[i][0]`` of a match — which
    decides the seat rotation, so the bot sits where the position wants it — from the
    position's prepared state, or from a fresh deal when it has none."""

    def __init__(
        self,
        game: Game,
        specs: Sequence[BotSpec],
        config: MatchConfig,
        plan: list[tuple[int, CheckPosition | None]],
        process_class: type[BotProcess],
        sinks: Sequence[Sink] = (),
    ) -> None:
        super().__init__(game, specs, config, seat_factory=self._seat, sinks=sinks)
        self._process_class = process_class
        self.plan = plan
        self.games_requested = len(plan)
        self._positions = {index: position for index, position in plan if position is not None}

    def schedule(self) -> Iterator[Scheduled]:
        n = len(self.players)
        for index, _ in self.plan:
            yield Scheduled(index, index, index % n, deal_seed(self.config.seed, index))

    def deal(self, planned: Scheduled) -> GameState:
        position = self._positions.get(planned.index)
        return position.state if position is not None else super().deal(planned)

    def _seat(
        self, spec: BotSpec, limits: Limits, *, stderr_path: Path | None, cpu_budget_s: float | None
    ) -> BotProcess:
        """The match's own process seat, as the recording subclass."""
        return self._process_class(
            spec,
            limits,
            stderr_path=stderr_path,
            cpu_budget_s=cpu_budget_s,
            layer=self.layer,
            allow_root=self.config.allow_root_bots,
        )


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
_SEND_TO_CHECK = "; referee check BOT tells more"


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
            detail = (step.detail or "").replace(_SEND_TO_CHECK, "")
            fault = Fault(Verdict(step.verdict), detail, where, step.line, step.reply)
            (run.faults if record.seats[step.seat] == bot else run.opponent_faults).append(fault)
    for forfeit in record.forfeits:
        # Penalties without a request line: an information line that failed, or a bot
        # already down (which repeats its cause, recorded where it happened).
        if forfeit.position is None and not _derived(forfeit.detail) and forfeit.player == bot:
            run.faults.append(
                Fault(Verdict(forfeit.verdict), forfeit.detail.replace(_SEND_TO_CHECK, ""), where)
            )


def _maybe_stop(run: CheckRun, record: GameRecord) -> None:
    """Stop when playing on would only repeat a failure at a high price."""
    if any(p.first_answer_s is not None for p in run.processes):
        late = sum(1 for f in run.faults if f.verdict in (Verdict.TIMEOUT, Verdict.CPU))
        if late >= STOP_AFTER_TIMEOUTS:
            raise _Stop(f"stopped after {late} late answers (each costs a whole decision limit)")
    elif any(forfeit.player == run.bot.name for forfeit in record.forfeits):
        raise _Stop("stopped after the first game: the bot never answered")


# ---------------------------------------------------------------------------- judging


@dataclass
class Item:
    """One line of the checklist."""

    key: str
    title: str
    status: str  # "pass", "fail" or "skip"
    figure: str
    notes: list[str] = field(default_factory=list)
    #: The first failure: where, the line sent, the reply, why.
    failure: dict[str, str] | None = None
    hint: str | None = None


def _duration(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _mib(n: int) -> str:
    return f"{n / MiB:.1f} MiB" if n % MiB else f"{n // MiB} MiB"


def stderr_last_lines(text: str, lines: int = STDERR_TAIL_LINES) -> str:
    """The last non-blank lines of a bot's stderr."""
    return "\n".join([line.rstrip() for line in text.splitlines() if line.strip()][-lines:])


def _item_of(fault: Fault) -> str:
    """Which checklist item a verdict belongs to."""
    verdict, detail = fault.verdict, fault.detail
    if verdict is Verdict.STARTUP or (verdict is Verdict.CRASH and "before its first answer" in detail):
        return "startup"
    if verdict is Verdict.PROTOCOL:
        return "output" if detail.startswith("printed more than one line") else "answers"
    if verdict is Verdict.ILLEGAL:
        return "legal"
    if verdict in (Verdict.TIMEOUT, Verdict.CPU):
        return "time"
    if verdict is Verdict.MEMORY:
        return "memory"
    return "answers"  # a crash: the request got no answer


def _failure(fault: Fault) -> dict[str, str]:
    shown = {"at": fault.where}
    if fault.line is not None:
        shown["sent"] = fault.line
    if fault.reply is not None:
        shown["reply"] = printable(fault.reply)
    shown["why"] = f"{fault.verdict.value}: {fault.detail}"
    return shown


def _stderr_of(run: CheckRun) -> str:
    """The stderr tail of the first of the bot's processes that died or ended badly."""
    for process in run.processes:
        if process.death is not None or (process.eof is not None and not process.eof.clean):
            tail = stderr_last_lines(process.stderr_text())
            if tail:
                return tail
    return ""


def judge(run: CheckRun) -> list[Item]:
    """The checklist, one :class:`Item` per entry of :data:`ITEMS`."""
    game, processes = run.game, run.processes
    doc = f"docs/protocols/{game.name}.md"
    limits = processes[0].limits if processes else game.limits
    by_item: dict[str, list[Fault]] = {key: [] for key, _ in ITEMS}
    for process in processes:
        if process.start_error is not None:
            by_item["startup"].append(
                Fault(Verdict.STARTUP, process.start_error.replace(_SEND_TO_CHECK, ""), "start")
            )
    for fault in run.faults:
        by_item[_item_of(fault)].append(fault)
    answered = sum(p.answers for p in processes)
    items: dict[str, Item] = {}
    titles = dict(ITEMS)

    def item(key: str, figure: str, failed: bool = False, skip: bool = False) -> Item:
        status = "skip" if skip else "fail" if failed or by_item[key] else "pass"
        made = Item(key, titles[key], status, figure)
        if status == "fail" and by_item[key]:
            made.failure = _failure(by_item[key][0])
        items[key] = made
        return made

    requests = sum(p.requests for p in processes)
    # Nothing got through (no answer, or every one faulty at once): the items that judge
    # answers have nothing to judge.
    never_answered = answered == 0
    not_judged = "not judged: no answer got through" if never_answered else ""

    # 1. startup
    firsts = [p for p in processes if p.first_answer_s is not None]
    allowance = f"allowance {limits.startup_s:g} s"
    if by_item["startup"]:
        first = by_item["startup"][0]
        if "no first answer" in first.detail:
            figure = f"no first answer within the startup allowance of {limits.startup_s:g} s"
        else:
            figure = first.detail.split(";")[0]
        startup = item("startup", figure)
        if "no first answer" in first.detail and "flush" not in first.detail:
            startup.hint = (
                "flush stdout after every answer (C: fflush(stdout); Python: print(..., flush=True)); "
                "read one line at a time and answer it: buffered input (mawk without -W interactive) or "
                "reading all of stdin before answering waits for ever"
            )
    elif firsts:
        slowest = max(firsts, key=lambda p: p.first_answer_s or 0.0)
        starts = f" (the slowest of {len(firsts)} starts)" if len(firsts) > 1 else ""
        item(
            "startup",
            f"first answer {_duration(slowest.first_answer_s or 0.0)} after start{starts} ({allowance})",
        )
    elif requests:
        item("startup", "not judged: the check stopped before the first answer", skip=True)
    else:
        item("startup", "not judged: no request was posed", skip=True)

    # 2. answers
    bad = by_item["answers"]
    if never_answered and not bad:
        item("answers", not_judged, skip=True)
    else:
        answers = item(
            "answers",
            f"{len(bad)} of {requests} requests not answered in form"
            if bad
            else f"{answered} requests answered, every reply parses",
        )
        if bad and bad[0].verdict is Verdict.CRASH:
            answers.hint = (
                "it crashed (the end of its stderr is quoted above); the check restarted it and went on"
            )
        elif bad:
            answers.hint = f"answer each request with exactly one line, in the form {doc} gives"

    # 3. extra output
    strays = [stray for p in processes for stray in p.strays]
    extra = by_item["output"]
    if never_answered and not extra:
        item("output", not_judged, skip=True)
    else:
        count = len(extra) + len(strays)
        output = item(
            "output",
            f"{_count(count, 'time')} it printed more than its answers"
            if count
            else "nothing on stdout but the answers",
            failed=bool(strays),
        )
        if not extra and strays:
            stray = strays[0]
            output.failure = {"at": "after this answer" if stray.data is None else "after its last answer"}
            if stray.after_line is not None:
                output.failure["sent"] = stray.after_line.decode("ascii", "replace").rstrip("\n")
            if stray.after_reply is not None:
                output.failure["reply"] = printable(stray.after_reply.decode("utf-8", "backslashreplace"))
            output.failure["why"] = (
                f"then {stray.waiting} more bytes were waiting before the next request"
                if stray.data is None
                else f"it left '{printable(stray.data[:80].decode('utf-8', 'backslashreplace'))}' after its "
                "last answer (before exiting at end of input)"
            )
        if count:
            output.hint = (
                "write debugging output to stderr (C: fprintf(stderr, ...); Python: print(..., "
                f"file=sys.stderr)), and answer only the lines that ask for an answer ({doc}); a stray line "
                "is read as the answer to the next request, so later faults may follow from it"
            )

    # 4. legal moves
    illegal = by_item["legal"]
    moves = max(answered - sum(1 for f in bad if f.verdict is Verdict.PROTOCOL), 0)  # the rest parsed
    if never_answered:
        item("legal", not_judged, skip=True)
    else:
        legal = item(
            "legal",
            f"{len(illegal)} illegal of {moves} moves" if illegal else f"{moves} moves, all legal",
        )
        if illegal:
            legal.hint = f"the rules are in {doc}; 'why' is the referee's reason"

    # 5. decision time
    # A late answer counts at the time it was waited for (at least the limit): the
    # maximum and the percentile are of every request, the late ones included.
    late_waits = [ns for p in processes for ns in p.late_ns]
    latencies = sorted([*(ns for p in processes for ns in p.latencies_ns), *late_waits])
    limit = limits.decision_s
    late = by_item["time"]
    if never_answered:
        item("time", not_judged, skip=True)
    elif not latencies and not late:
        item("time", f"no answer after the first to time (limit {limit:g} s)")
    else:
        figure = f"limit {limit:g} s"
        p99 = 0.0
        if latencies:
            p99 = latencies[max(0, math.ceil(0.99 * len(latencies)) - 1)] / 1e9
            at_least = "over " if late_waits and latencies[-1] == max(late_waits) else ""
            figure = (
                f"max {at_least}{_duration(latencies[-1] / 1e9)}, 99th percentile {_duration(p99)} "
                f"of {_count(len(latencies), 'request' if late_waits else 'answer')} ({figure})"
            )
        timing = item("time", f"{len(late)} late; {figure}" if late else figure)
        if p99 > limit / 2:
            timing.notes.append(
                "the 99th percentile is over half the limit: a slower machine may time it out"
            )
        if late:
            timing.hint = (
                "answer every request within the limit: flush after each answer, and bound any search "
                "by time; 'did not read its input' means it stopped reading stdin"
            )

    # 6. memory
    peak = max((p.peak_rss for p in processes), default=0)
    cap = limits.memory_bytes
    limit_text = f"cap {_mib(cap)}" if cap else "no cap"
    if peak or by_item["memory"]:
        memory = item("memory", f"peak {_mib(peak)} ({limit_text})")
    else:
        memory = item("memory", f"not measured: no sample was taken ({limit_text})", skip=True)
    if by_item["memory"]:
        memory.hint = "the cap counts the resident memory of the bot's whole process tree"

    # 7. exit on EOF
    ends = [p.eof for p in processes if p.eof is not None]
    exit_s = eof_grace_s(limits)
    if not ends:
        item("eof", "not judged: the bot was not running when the games ended", skip=True)
    else:
        worst = next((e for e in ends if not e.exited), None) or next((e for e in ends if not e.clean), None)
        if worst is None:
            longest = max(ends, key=lambda e: e.seconds)
            item("eof", f"exited with code 0, {_duration(longest.seconds)} after its input closed "
                 f"(allowance {exit_s:g} s)")  # fmt: skip
        else:
            if worst.exited:
                figure = f"{worst.status}, {_duration(worst.seconds)} after its input closed"
            else:
                figure = f"still running {exit_s:g} s after its input closed: killed"
            eof = item("eof", figure, failed=True)
            eof.hint = (
                "read until end of file (fgets returns NULL; Python's readline returns ''; input() raises "
                "EOFError), then exit with status 0: the referee closes stdin after the last game"
            )

    # 8. coverage
    wanted = game.line_kinds()
    posed = run.recorder.kinds if run.recorder else collections.Counter()
    missing = [kind for kind in wanted if not posed[kind]]
    if not wanted:
        item("coverage", f"{game.name} names no kinds of line", skip=True)
    elif missing and (run.stopped or run.cannot_start):
        item("coverage", f"not judged: the check stopped before posing {', '.join(missing)}", skip=True)
    elif missing and (never_answered or any(made.status == "fail" for made in items.values())):
        # Games end at a fault (a Yahtzee forfeit): fix those first.
        item("coverage", f"not judged: the faults above ended games before {', '.join(missing)}", skip=True)
    elif missing:
        coverage = item("coverage", f"never posed: {', '.join(missing)}", failed=True)
        coverage.hint = "the games played did not reach them: play more with --games N"
    else:
        coverage = item("coverage", f"all {len(wanted)} kinds of line posed")
        coverage.notes.append(", ".join(f"{kind} ×{posed[kind]}" for kind in wanted))

    # Issue 28: late waits the machine caused, said where they count.
    overloads: dict[str, list[Overload]] = {"startup": [], "time": [], "eof": []}
    for process in processes:
        for overload in process.overloads:
            key = {"first answer": "startup", "decision": "time"}.get(overload.what, "eof")
            overloads[key].append(overload)
    for key, found in overloads.items():
        caused = [o for o in found if o.machine_caused]
        if caused and items[key].status != "skip":
            excused = " (given its exit limit: it was starved, not stuck)" if key == "eof" else ""
            items[key].notes.append(
                f"the grading machine was overloaded{excused}: " + "; ".join(o.describe() for o in caused[:3])
            )

    # A crash's own words, where the verdict does not already quote them.
    tail = _stderr_of(run)
    crashed = bool(bad) and bad[0].verdict is Verdict.CRASH
    for key in ("startup", "eof", *(("answers",) if crashed else ())):
        made = items[key]
        if made.status == "fail" and tail and "stderr:" not in (made.failure or {}).get("why", ""):
            made.notes.append("its stderr ends with:\n" + tail)
    return [items[key] for key, _ in ITEMS]


# ---------------------------------------------------------------------------- output


def render(run: CheckRun, items: list[Item], color: bool) -> str:
    """The checklist as text: one line per item, details under failures."""
    marks = (
        {"pass": "\x1b[32m✓\x1b[0m", "fail": "\x1b[31m✗\x1b[0m", "skip": "\x1b[33m–\x1b[0m"}
        if color
        else {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}
    )
    indent = " " * (len(marks["pass"]) if not color else 1)
    width = max(len(item.title) for item in items)
    out = [
        f"referee check: {run.bot.name} against {run.opponent}, {run.game.name}, seed {run.seed}: "
        f"{_count(run.games, 'game')} and {_count(run.positions, 'position')}, sandbox {run.layer or '-'}"
    ]
    if run.cannot_start and not any(p.start_error for p in run.processes):
        out.append(run.cannot_start)  # otherwise the startup item says it
    if run.stopped:
        out.append(run.stopped)
    for item in items:
        out.append(f"{marks[item.status]} {item.title:<{width}}  {item.figure}")
        pad = f"{indent}   "
        for key, value in (item.failure or {}).items():
            out.append(f"{pad}{key:<6} {value}")
        for note in item.notes:
            first, *rest = note.split("\n")
            out.append(f"{pad}{first}")
            out.extend(f"{pad}  {line}" for line in rest)
        if item.hint:
            out.append(f"{pad}hint   {item.hint}")
    if run.opponent_faults:
        fault = run.opponent_faults[0]
        out.append(
            f"note: the reference player was penalised {len(run.opponent_faults)} times "
            f"(first: {fault.verdict.value}: {fault.detail}); the games went on"
        )
    failed = [item.title for item in items if item.status == "fail"]
    passed = sum(1 for item in items if item.status == "pass")
    verdict = (
        f"FAILED: {', '.join(failed)}" if failed else "INTERRUPTED" if run.signal is not None else "PASSED"
    )
    if color:
        verdict = f"\x1b[1;{31 if failed or run.signal is not None else 32}m{verdict}\x1b[0m"
    out.append(f"{verdict} ({passed} of {len(items)} items passed, {run.elapsed:.1f} s)")
    return "\n".join(out)


def machine_caused(run: CheckRun, items: list[Item]) -> list[str]:
    """The failing items (startup, decision time, exit on EOF) with a late wait the
    machine caused (:attr:`Overload.machine_caused`): what a replay may pass."""
    keys = {"first answer": "startup", "decision": "time", "exit on EOF": "eof"}
    caused = {keys[o.what] for p in run.processes for o in p.overloads if o.machine_caused}
    return [item.key for item in items if item.status == "fail" and item.key in caused]


def report(run: CheckRun, items: list[Item], code: int) -> dict[str, Any]:
    """The checklist for ``--json``."""
    return {
        "bot": run.bot.name,
        "game": run.game.name,
        "opponent": run.opponent,
        "seed": run.seed,
        "sandbox": run.layer,
        "games": run.games,
        "positions": run.positions,
        "passed": code == EXIT_OK,
        "exit_code": code,
        "stopped": run.stopped,
        "cannot_start": run.cannot_start,
        "elapsed_s": round(run.elapsed, 3),
        "items": [
            {
                "key": item.key,
                "title": item.title,
                "status": item.status,
                "figure": item.figure,
                "notes": item.notes,
                "failure": item.failure,
                "hint": item.hint,
            }
            for item in items
        ],
        "coverage": dict(run.recorder.kinds) if run.recorder else {},
        # Issue 28: the failing timing items that the machine caused (a replay may pass).
        "machine_caused": machine_caused(run, items),
        "referee_wait_share": round(run.referee_wait / run.elapsed, 4) if run.elapsed else 0.0,
        "opponent_faults": [
            {"verdict": f.verdict.value, "detail": f.detail, "at": f.where} for f in run.opponent_faults
        ],
    }


# ---------------------------------------------------------------------------- command line


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``check`` subcommand to ``referee``'s subparsers."""
    check = subparsers.add_parser(
        "check",
        help="check that a bot keeps the protocol, before a tournament",
        description="Play a few short games between BOT and the game's reference player, pose every "
        "kind of line the game has, and print a checklist: startup, answers, extra output, legal moves, "
        "decision time, memory, exit on EOF, coverage. Exit status 0 when every item passes, 1 when one "
        "fails, 2 for a usage error, 3 when the bot cannot be started.",
    )
    check.add_argument("bot", metavar="BOT", help="executable, quoted command, or directory with bot.toml")
    check.add_argument(
        "--game", default="yahtzee", choices=list(games.available()), help="which game (default yahtzee)"
    )
    check.add_argument(
        "--games",
        type=int,
        default=DEFAULT_GAMES,
        help=f"random games besides the positions (default {DEFAULT_GAMES})",
    )
    check.add_argument(
        "--seed",
        type=arguments.match_seed,
        help="seed of the random games, 0 to 2**64-1 (default: random, printed)",
    )
    check.add_argument("--json", metavar="PATH", help="also write the checklist as JSON here")
    check.add_argument(
        "--opponent",
        metavar="BOT",
        help="play against this bot instead of the game's reference player (it should never fault)",
    )
    check.add_argument(
        "--sandbox",
        choices=sandbox.CHOICES,
        default="auto",
        help="isolation layer, as for `referee match` (default auto)",
    )
    check.add_argument(
        "--no-pin", dest="pin", action="store_false", help="do not pin referee and bots to one core"
    )
    check.add_argument(
        "--build",
        action="store_true",
        help="run the bot's bot.toml build command first, as `referee match --build` does — with your "
        "privileges, outside the sandbox: only for bots you trust",
    )
    check.add_argument(
        "--allow-root-bots",
        action="store_true",
        help="as root, run a bot whose files other users cannot read as root (never for untrusted code)",
    )
    arguments.add_game_options(check, "game options (as for `referee match`)")
    arguments.add_limit_options(check, "limits (default: the game's, as in `referee match`)", full=False)
    return check


def _opponent_specs(game_cls: type[Game], command: str | None, bot: BotSpec, count: int) -> list[BotSpec]:
    """``count`` reference players, named apart from the bot.  Raises BotSpecError."""
    if command is None:
        if game_cls.check_opponent is None:
            raise BotSpecError(f"{game_cls.name} names no reference player: pass --opponent BOT")
        path, *args = shlex.split(game_cls.check_opponent)
        script = SAMPLE_PLAYERS / path
        if not script.is_file():
            raise BotSpecError(
                f"the reference player {script} is missing (the check needs the source tree's "
                "sample_players/): pass --opponent BOT"
            )
        command = shlex.join([sys.executable, str(script), *args])
    spec = resolve(command)
    base = f"reference-{spec.name}"
    while True:
        names = [base] + [f"{base}-{k}" for k in range(2, count + 1)]
        if bot.name not in names:
            return [msgspec.structs.replace(spec, name=name) for name in names]
        base += "-opponent"


def main(args: argparse.Namespace) -> int:
    """Run ``referee check`` with parsed arguments; the exit status."""
    game_cls = games.get(args.game)
    if args.games < 0:
        print("referee: --games must be 0 or more", file=sys.stderr)
        return EXIT_USAGE
    options = arguments.game_options(args, only=game_cls)
    override = arguments.limits_from(args)
    try:
        game = game_cls(**options)
        seats = max([2 if 2 in game.seats else game.seats.low, *(p.seats for p in game.check_positions())])
        bot = resolve(args.bot)
        opponents = _opponent_specs(game_cls, args.opponent, bot, seats - 1)
        layer = sandbox.choose(args.sandbox)
    except (BotSpecError, ValueError) as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if bot.build and args.build:
        from referee.cli.commands import build_bot  # the same build as `referee match --build`

        bot, failure = build_bot(bot)
        if failure is not None:
            print(f"referee: bot {bot.name} cannot start: {failure}", file=sys.stderr)
            return EXIT_CANNOT_START
    elif bot.build:
        print(
            f"referee: not running bot {bot.name}'s build command ({bot.build}): a build runs outside "
            "the sandbox; pass --build to run it (only for bots you trust)",
            file=sys.stderr,
        )
    if args.json:
        parent = Path(args.json).parent
        if not parent.is_dir() or not os.access(parent, os.W_OK):
            print(f"referee: --json {args.json}: cannot write there", file=sys.stderr)
            return EXIT_USAGE
    warning = sandbox.advice(layer)
    if warning is None and layer is not sandbox.Layer.NONE:
        warning = sandbox.best_possible_note()
    if warning is not None:
        print(f"referee: {warning}", file=sys.stderr)
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    stderr_dir = tempfile.mkdtemp(prefix="referee-check-")
    config = MatchConfig(
        game=game_cls.name,
        seed=seed,
        recover=True,
        pin=args.pin,
        sandbox=args.sandbox,
        allow_root_bots=args.allow_root_bots,
        limits=override,
        log_path=os.devnull,  # the games' moves are what the check reads; the file is not needed
        stderr_dir=stderr_dir,
        options=options,
    )
    # A stop signal ends the check cleanly (bots closed) and prints what it found so far.
    with interrupts.catching() as guard:
        guard.raising = False
        try:
            run = play(game_cls, options, bot, opponents, config, args.games, guard.seen)
        finally:
            shutil.rmtree(stderr_dir, ignore_errors=True)
    if run.cannot_start and not run.cannot_start.startswith(f"bot {bot.name} "):
        print(f"referee: the opponent cannot start: {run.cannot_start}", file=sys.stderr)
        return EXIT_USAGE
    items = judge(run)
    if bot.build and not args.build and run.cannot_start:
        # Its program is most likely what the build makes.
        startup = next(item for item in items if item.key == "startup")
        startup.hint = (
            f"its bot.toml has a build command ({bot.build}) that was not run: build it first, or pass "
            "--build to let the check run it (only for bots you trust)"
        )
    if run.signal is not None:
        code = interrupts.exit_status(run.signal)
    elif run.cannot_start:
        code = EXIT_CANNOT_START
    elif any(item.status == "fail" for item in items):
        code = EXIT_FAILED
    else:
        code = EXIT_OK
    print(render(run, items, color=sys.stdout.isatty() and "NO_COLOR" not in os.environ))
    if args.json:
        try:
            Path(args.json).write_text(
                json.dumps(report(run, items, code), indent=2, ensure_ascii=False) + "\n"
            )
        except OSError as exc:
            print(f"referee: --json {args.json}: {exc}", file=sys.stderr)
    return code


__all__ = ["CheckMatch", "CheckProcess", "add_parser", "judge", "main", "plan_phases", "play"]
