"""A tournament's worker process: plays the matches the parent sends, sends back records.

Started by :mod:`referee.tournament.workers` as ``python -m referee.tournament.worker``
with its commands on stdin and its reports on stdout, both in the frames of
:mod:`referee.tournament.wire`.  It plays one thing at a time:

* :class:`~referee.tournament.wire.PlayMatch`: a whole match, with ``run_match``'s
  engine — its bots started for it and closed after it — and a :class:`Relay` sink that
  sends the games back in batches;
* :class:`~referee.tournament.wire.OpenSession`, then rounds: the bots start once and
  live until the session ends (:mod:`referee.tournament.session`).

It dies with its parent (``PR_SET_PDEATHSIG``), and its bots die with it (they have the
same arrangement with the worker), so a ``kill -9`` of the referee leaves nothing
running.  The end of its input — the parent stopping — stops what it plays cleanly:
the match is marked stopped, its bots are closed, and the worker exits.  It runs in a
session of its own, so a Ctrl-C at the terminal reaches only the parent, which decides.
Its stdout carries frames only: file descriptor 1 is pointed at its stderr (a log file
in the tournament's directory) before anything can print.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import functools
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable

import msgspec
import trio

from referee.core.records import GameRecord, MatchRecord
from referee.core.verdict import Forfeit
from referee.games import get as get_game
from referee.match import Match, MatchError, MatchSpec, OutputError
from referee.seats import SeatFactory
from referee.seats.process import sandbox
from referee.seats.process.bot import BotProcess, sweep_stale_directories
from referee.sinks._abc import MatchInfo, Sink, Standing
from referee.tournament import wire
from referee.tournament.pool import BotPool
from referee.tournament.session import Session

#: Games per frame, and the longest a finished game waits before it is sent.
BATCH_GAMES = 250
BATCH_SECONDS = 0.5
#: Forfeit frames per match beyond which only one a second is sent (the games carry
#: every forfeit; these feed the live view's "last forfeits").
FORFEITS_SENT = 20


#: Where a match's frames go: a :class:`Sender` to the parent, or (on a cluster worker)
#: a list's ``append``.
Send = Callable[[wire.ToParent], None]


class Sender:
    """Writes frames to the parent, whole, from any task (the writes are blocking and
    short: the parent reads all the time)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __call__(self, message: wire.ToParent) -> None:
        wire.write_all(self.fd, wire.encode(message))


class Relay(Sink):
    """Sends a match's records to the parent: games in batches, forfeits and notices as
    they happen (forfeits thinned out past :data:`FORFEITS_SENT`)."""

    def __init__(self, key: str, send: Send) -> None:
        self.key = key
        self.send = send
        self._batch: list[GameRecord] = []
        self._deadline = 0.0
        self._forfeits = 0
        self._next_forfeit = 0.0

    def open(self, info: MatchInfo) -> None:
        self.send(wire.Opened(self.key))
        self._deadline = time.monotonic() + BATCH_SECONDS

    def game(self, record: GameRecord, standing: Standing) -> None:
        if record.transcript is not None or record.summary:
            # A game log in this worker wanted them; the parent stores neither.
            record = msgspec.structs.replace(record, transcript=None, summary={})
        batch = self._batch
        batch.append(record)
        if len(batch) >= BATCH_GAMES or time.monotonic() >= self._deadline:
            self.flush()

    def flush(self) -> None:
        if self._batch:
            self.send(wire.Games(self.key, self._batch))
            self._batch = []
        self._deadline = time.monotonic() + BATCH_SECONDS

    def forfeit(self, bot: str, forfeit: Forfeit) -> None:
        self._forfeits += 1
        if self._forfeits > FORFEITS_SENT:
            now = time.monotonic()
            if now < self._next_forfeit:
                return
            self._next_forfeit = now + 1.0
        self.send(wire.Forfeited(self.key, bot, forfeit))

    def notice(self, line: str) -> None:
        self.send(wire.Notice(self.key, line))

    def close(self, record: MatchRecord) -> None:
        self.flush()


def _build_match(
    key: str,
    spec: MatchSpec,
    send: Send,
    seat_factory: SeatFactory | None = None,
    played: list[GameRecord] | None = None,
) -> Match:
    game = get_game(spec.config.game)(**spec.config.options)
    match = Match(game, spec.bots, spec.config, sinks=[Relay(key, send)], seat_factory=seat_factory)
    if played:
        match.resume_after(played)
    return match


async def _play_match(command: wire.PlayMatch, send: Send, stopping: trio.Event) -> None:
    match = _build_match(command.key, command.spec, send)
    error: str | None = None
    async with trio.open_nursery() as nursery:

        async def stop_when_told() -> None:
            await stopping.wait()
            match.stopped = "the tournament stopped"
            nursery.cancel_scope.cancel()

        nursery.start_soon(stop_when_told)
        try:
            await match.run()
        except (MatchError, OutputError) as exc:
            error = str(exc)
        finally:
            nursery.cancel_scope.cancel()
    if not match.completed and error is None and not stopping.is_set():
        error = match.stopped or "stopped"
    # Stopped because the parent closed our input: no error, the match stays to replay.
    send(wire.Closed(command.key, match.result(), error))


async def _session(
    opening: wire.OpenSession, commands: trio.MemoryReceiveChannel, send: Send, stopping: trio.Event
) -> None:
    config = opening.config
    layer = sandbox.choose(config.sandbox)
    # The session's config carries the tournament's seed: each bot's $REFEREE_SEED for
    # the life of its process, the same whichever match it starts in.
    make_seat = functools.partial(
        BotProcess,
        layer=layer,
        allow_root=config.allow_root_bots,
        seed=config.seed,
        hold_tells=get_game(config.game).hold_tells,
    )

    def restarted(bot: str, key: str | None, why: str) -> None:
        send(wire.Restarted(bot, key, why))

    def gave_up(bot: str, why: str) -> None:
        send(wire.Notice(None, f"bot {bot} is {why}"))

    def closed(key: str, match: Match, error: str | None) -> None:
        send(wire.Closed(key, match.result(), error))

    async with trio.open_nursery() as nursery:
        pool = BotPool(
            opening.bots,
            make_seat,
            nursery,
            stderr_dir=opening.stderr_dir,
            give_up_after=config.give_up_after,
            on_restart=restarted,
            on_give_up=gave_up,
        )
        session = Session(nursery, slots=opening.slots, closed=closed)

        async def stop_when_told() -> None:
            await stopping.wait()
            nursery.cancel_scope.cancel()

        nursery.start_soon(stop_when_told)
        try:
            async for command in commands:
                if not isinstance(command, wire.PlayRound):
                    raise RuntimeError(f"a session takes rounds, not {type(command).__name__}")
                matches = [
                    (
                        item.key,
                        _build_match(item.key, item.spec, send, pool.factory(item.key), item.played),
                        item.slice,
                    )
                    for item in command.matches
                ]
                await session.play_round(matches)
                send(wire.RoundDone())
        finally:
            await pool.close_all()
            nursery.cancel_scope.cancel()


async def serve(send: Send) -> None:
    """Read commands until the end of input; play them one at a time."""
    stopping = trio.Event()
    send_commands, commands = trio.open_memory_channel[wire.ToWorker](1000)
    sandbox.become_subreaper()
    sweep_stale_directories()

    async def read() -> None:
        frames = wire.Frames(to_parent=False)
        stream = trio.lowlevel.FdStream(os.dup(0))
        async with stream, send_commands:
            while True:
                messages = await wire.receive(stream, frames)
                if not messages:
                    break
                for message in messages:
                    await send_commands.send(message)
        stopping.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read)
        async for command in commands:
            if isinstance(command, wire.PlayMatch):
                await _play_match(command, send, stopping)
            elif isinstance(command, wire.OpenSession):
                await _session(command, commands, send, stopping)
            else:
                raise RuntimeError(f"unexpected {type(command).__name__} outside a session")
            if stopping.is_set():
                break
        nursery.cancel_scope.cancel()


def _die_with_parent(parent: int) -> None:
    """SIGKILL this process when its parent dies (and exit now if it already has)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="referee-worker")
    parser.add_argument("--parent", type=int, required=True, help="the parent's pid")
    parser.add_argument("--core", type=int, help="the core to pin this worker (and its bots) to")
    args = parser.parse_args(argv)
    _die_with_parent(args.parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    out = os.dup(1)
    os.dup2(2, 1)  # stray prints go to the log, never into the frames
    os.set_inheritable(out, False)
    if args.core is not None and hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {args.core})
    send = Sender(out)
    try:
        trio.run(serve, send)
    except BaseException as exc:  # a bug of the referee's: say it in one line, keep the trace in the log
        traceback.print_exc()
        leaf = exc
        while isinstance(leaf, BaseExceptionGroup) and len(leaf.exceptions) == 1:
            leaf = leaf.exceptions[0]
        with contextlib.suppress(OSError):
            send(wire.Failed(f"{type(leaf).__name__}: {leaf}"))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
