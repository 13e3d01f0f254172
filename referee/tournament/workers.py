"""The tournament's worker processes, seen from the parent: spawned in sessions of their
own, fed frames, reaped.  The executors built on them are
:mod:`referee.tournament.executors.local` and :mod:`~referee.tournament.executors.session`.

A worker that dies mid-match raises :class:`WorkerLost` (the runner stops the
tournament: a crash of the referee's own code, or the machine's OOM killer).  Workers
are spawned from the main thread (``PR_SET_PDEATHSIG`` fires when the spawning *thread*
ends) in sessions of their own, so that a terminal's Ctrl-C reaches only the parent.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections import deque
from collections.abc import Callable
from pathlib import Path

import trio

from referee.tournament import wire

#: How long a worker may take to stop after its input is closed (it closes its bots,
#: each bounded) before it is killed.
STOP_GRACE_S = 15.0


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

    async def stop(
        self, handle: Callable[[wire.ToParent], None] | None = None, grace: float = STOP_GRACE_S
    ) -> None:
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
