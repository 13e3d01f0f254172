"""The tournament's worker processes, seen from the parent, and the two executors.

* :class:`MatchExecutor` — for games whose bots are started per match (Yahtzee, Bidding
  Wars, Hold'em): ``concurrency`` worker processes, worker *i* pinned to usable core
  *i mod cores* (its matches' bots with it: a wake-up across cores costs ~55 µs, on one
  core ~2 µs), each playing one whole match at a time.  Matches are handed out in
  schedule order as workers come free.
* :class:`SessionExecutor` — for games whose bots live for the whole tournament (dice
  poker, Liar's Dice): one worker holds every bot and plays each round with up to
  ``concurrency`` matches at once (:mod:`referee.tournament.session`); it is pinned to
  one core when it plays one match at a time.

Both hand every message of a match to the runner's ``handle`` as it arrives; a worker
that dies mid-match raises :class:`WorkerLost` (the runner stops the tournament: a
crash of the referee's own code, or the machine's OOM killer).  Workers are spawned
from the main thread (``PR_SET_PDEATHSIG`` fires when the spawning *thread* ends) in
sessions of their own, so that a terminal's Ctrl-C reaches only the parent.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import trio

from referee.core.botspec import BotSpec
from referee.match.spec import MatchConfig, MatchSpec
from referee.tournament import wire

#: How long a worker may take to stop after its input is closed (it closes its bots,
#: each bounded) before it is killed.
STOP_GRACE_S = 15.0

Handler = Callable[[wire.ToParent], None]


class MatchPlayer(Protocol):
    """An executor that plays whole matches: :class:`MatchExecutor`, or the cluster's."""

    async def play(self, matches: Sequence[tuple[str, MatchSpec]], handle: Handler) -> None: ...

    async def close(self, handle: Handler | None = None) -> None: ...


class RoundPlayer(Protocol):
    """An executor that plays a session's rounds: :class:`SessionExecutor`, or the cluster's."""

    async def play(self, matches: Sequence[wire.RoundMatch], handle: Handler) -> None: ...

    async def close(self, handle: Handler | None = None) -> None: ...


class WorkerLost(Exception):
    """A worker process ended without finishing what it was given; one-line message."""


def usable_cores() -> list[int]:
    """The cores this process may run on, in order."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


class Worker:
    """One worker process: started by :meth:`spawn`, fed frames, read frame by frame."""

    def __init__(self, index: int, core: int | None, log_path: Path) -> None:
        self.index = index
        self.core = core
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self._to: trio.lowlevel.FdStream | None = None
        self._from: trio.lowlevel.FdStream | None = None
        self._frames = wire.Frames(to_parent=True)
        self._queue: deque[wire.ToParent] = deque()

    def spawn(self) -> None:
        """Start the process (synchronously: from the main thread, see the module's text)."""
        command_r, command_w = os.pipe()
        report_r, report_w = os.pipe()
        # -P: not the current directory first on sys.path, where a folder named
        # "referee" (the clone itself, run from its parent) would shadow the package.
        argv = [sys.executable, "-P", "-m", "referee.tournament.worker", "--parent", str(os.getpid())]
        if self.core is not None:
            argv += ["--core", str(self.core)]
        try:
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen(
                    argv,
                    stdin=command_r,
                    stdout=report_w,
                    stderr=log,
                    start_new_session=True,
                    close_fds=True,
                )
        except BaseException:
            for fd in (command_r, command_w, report_r, report_w):
                os.close(fd)
            raise
        os.close(command_r)
        os.close(report_w)
        self._to = trio.lowlevel.FdStream(command_w)
        self._from = trio.lowlevel.FdStream(report_r)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    async def send(self, message: wire.ToWorker) -> None:
        assert self._to is not None, "spawn first"
        try:
            await self._to.send_all(wire.encode(message))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise WorkerLost(f"worker {self.index} is gone ({self.exit_note()}): {exc}") from None

    async def receive(self) -> wire.ToParent:
        """The next message; WorkerLost when the worker's output ends."""
        assert self._from is not None, "spawn first"
        while not self._queue:
            try:
                messages = await wire.receive(self._from, self._frames)
            except (wire.FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                raise WorkerLost(f"worker {self.index}: {exc}") from None
            if not messages:
                await self._reap(1.0)
                raise WorkerLost(f"worker {self.index} ended ({self.exit_note()}); its log: {self.log_path}")
            self._queue.extend(messages)
        message = self._queue.popleft()
        if isinstance(message, wire.Failed):
            raise WorkerLost(f"worker {self.index} failed: {message.error}; its log: {self.log_path}")
        return message

    def exit_note(self) -> str:
        code = None if self.proc is None else self.proc.poll()
        if code is None:
            return "still running"
        return f"killed by signal {-code}" if code < 0 else f"exit status {code}"

    async def stop(self, handle: Handler | None = None, grace: float = STOP_GRACE_S) -> None:
        """End the worker: close its input (it stops what it plays, cleanly), pass what it
        still says to ``handle``, and kill it if it has not exited within ``grace``."""
        if self._to is not None:
            with contextlib.suppress(trio.ClosedResourceError, OSError):
                await self._to.aclose()
        with trio.move_on_after(grace):
            while self._from is not None:
                try:
                    message = await self.receive()
                except WorkerLost:
                    break
                if handle is not None:
                    handle(message)
        self.kill()
        await self._reap(2.0)
        if self._from is not None:
            with contextlib.suppress(trio.ClosedResourceError, OSError):
                await self._from.aclose()

    def kill(self) -> None:
        if self.running:
            assert self.proc is not None
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()

    async def _reap(self, wait_s: float) -> None:
        if self.proc is None:
            return
        with trio.move_on_after(wait_s):
            while self.proc.poll() is None:
                await trio.sleep(0.01)


class MatchExecutor:
    """``concurrency`` workers, each playing one whole match at a time (module docstring)."""

    def __init__(self, concurrency: int, log_dir: Path) -> None:
        cores = usable_cores()
        self.concurrency = concurrency
        self._workers = [
            Worker(i, cores[i % len(cores)], log_dir / f"worker-{i + 1}.log") for i in range(concurrency)
        ]

    async def play(self, matches: Sequence[tuple[str, MatchSpec]], handle: Handler) -> None:
        """Play every match, ``concurrency`` at a time, in the order given.

        Each worker is given its next match as soon as it starts the current one, so it
        goes from one match to the next without waiting for the parent to store the last
        (the worker plays them one after the other; the order and the results are the same).
        """
        queue = list(reversed(matches))

        async def serve(worker: Worker) -> None:
            given: list[str] = []
            while queue or given:
                if not given:
                    key, spec = queue.pop()
                    if not worker.running:
                        worker.spawn()
                    await worker.send(wire.PlayMatch(key, spec))
                    given.append(key)
                message = await worker.receive()
                handle(message)
                if isinstance(message, wire.Opened) and message.key == given[-1] and queue:
                    key, spec = queue.pop()
                    await worker.send(wire.PlayMatch(key, spec))
                    given.append(key)
                elif isinstance(message, wire.Closed) and message.key in given:
                    given.remove(message.key)

        async with trio.open_nursery() as nursery:
            for worker in self._workers[: max(1, min(self.concurrency, len(matches)))]:
                nursery.start_soon(serve, worker)

    async def close(self, handle: Handler | None = None) -> None:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for worker in self._workers:
                    if worker.proc is not None:
                        nursery.start_soon(worker.stop, handle)


class SessionExecutor:
    """One worker holding every bot for the whole tournament (module docstring)."""

    def __init__(
        self,
        bots: list[BotSpec],
        config: MatchConfig,
        concurrency: int,
        log_dir: Path,
        stderr_dir: Path,
    ) -> None:
        core = usable_cores()[0] if concurrency == 1 else None
        self._worker = Worker(0, core, log_dir / "worker-session.log")
        self._opening = wire.OpenSession(
            bots=bots, config=config, stderr_dir=str(stderr_dir), slots=concurrency
        )
        self.concurrency = concurrency

    async def play(self, matches: Sequence[wire.RoundMatch], handle: Handler) -> None:
        """Play one round of matches (each with its games per slice, or None, and the
        games a resumed match already holds)."""
        worker = self._worker
        if not worker.running:
            if worker.proc is not None:
                raise WorkerLost(f"the session's worker ended ({worker.exit_note()})")
            worker.spawn()
            await worker.send(self._opening)
        await worker.send(wire.PlayRound(list(matches)))
        while True:
            message = await worker.receive()
            if isinstance(message, wire.RoundDone):
                return
            handle(message)

    async def close(self, handle: Handler | None = None) -> None:
        with trio.CancelScope(shield=True):
            if self._worker.proc is not None:
                await self._worker.stop(handle)
