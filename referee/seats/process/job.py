"""A one-shot command in a bot's sandbox: run it to the end and collect its output.

``referee grade`` builds each submission with the same isolation its bot later plays
under (issue 13: "the same sandbox as play").  A build is not a bot — it answers no
requests, it writes a stream and exits — but everything else a bot gets applies
unchanged: the layer, a uid of its own as root, the private working directory (a
size-capped tmpfs under namespaces and bubblewrap), no network, the CPU, memory and
file caps sampled by the monitor, the process cap, and a tree killed whole at the end.
So :class:`Job` holds the same :class:`~referee.seats.process.child.Child` a bot's seat
does (its stderr drained alike), and starts and stops it the same way; where a seat reads one line per request,
:meth:`Job.output` reads its stdout to the end, bounded in time and in bytes.

:func:`run_job` is the whole lifetime in one call, as a build wants it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import BinaryIO

import trio

from referee.core import overload
from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.core.verdict import BotFault, Verdict
from referee.seats.process import sandbox
from referee.seats.process.child import CannotStart, Child, eof_grace_s
from referee.seats.process.monitor import Monitor, shared_monitor

_READ_SIZE = 1 << 16
#: How often a job's processes' run delay is sampled (issue 28): a compiler process
#: starved of CPU lives for many samples; the delay of one gone between two is lost.
_DELAY_SAMPLE_S = 0.2


@dataclass
class JobResult:
    """How a job ended, and what it wrote."""

    #: Its wait status (``os.waitstatus_to_exitcode`` reads it), None if it never exited.
    status: int | None
    #: Why the referee stopped it (TIMEOUT past the wall limit, CPU, MEMORY past a cap,
    #: STARTUP if it could not start), None if it ended by itself.
    stopped: Verdict | None
    detail: str
    output: bytes
    #: Its output went past ``output_limit``: what was read is cut there.
    output_cut: bool
    stderr: str
    cpu_s: float
    peak_rss_bytes: int
    seconds: float
    #: The isolation it ran under, described (layer, uid, parts).
    sandbox: str
    #: Issue 28: seconds its processes were runnable without a CPU (the kernel's run
    #: delay, sampled), and the referee's own over the job.
    run_delay_s: float = 0.0
    referee_delay_s: float = 0.0

    @property
    def exit_code(self) -> int | None:
        """Its exit code (negative: killed by that signal), None if it never exited."""
        return None if self.status is None else os.waitstatus_to_exitcode(self.status)


class Job:
    """A sandboxed command whose stdout is read to the end rather than line by line.

    Create, ``await start(nursery)``, read :meth:`output`, :meth:`wait`, ``await
    close()``; :attr:`death` says why the referee stopped it, if it did.
    """

    def __init__(
        self,
        spec: BotSpec,
        limits: Limits,
        *,
        layer: sandbox.Layer = sandbox.Layer.RLIMITS,
        allow_root: bool = False,
        monitor: Monitor | None = None,
    ) -> None:
        self.spec = spec
        self.limits = limits
        self.layer = layer
        #: The process tree in its jail.
        self.child = Child(spec, limits, layer, allow_root=allow_root)
        self._stdin = self._stdout = -1
        self._monitor = monitor
        #: Why the referee stopped it (or why it could not start), once it did.
        self.death: Verdict | None = None
        self.death_detail = ""
        self._closed = False

    @property
    def alive(self) -> bool:
        return self.death is None and self.child.spawned

    async def start(self, nursery: trio.Nursery) -> None:
        """Start it.  Raises ``BotFault(STARTUP)`` if it cannot be started."""
        try:
            pipes = await self.child.start(nursery)
        except CannotStart as exc:
            self.kill(Verdict.STARTUP, exc.detail)
            await self.close()  # a sandbox that was not ready: its process stopped
            raise BotFault(Verdict.STARTUP, exc.detail) from None
        self._stdin, self._stdout = pipes.stdin, pipes.stdout
        if self._monitor is None:
            self._monitor = shared_monitor(nursery)
        self._monitor.watch(self)

    def close_input(self) -> None:
        """Close its stdin: a job that waits for input sees end of file."""
        fd, self._stdin = self._stdin, -1
        _close(fd)

    def kill(self, verdict: Verdict, detail: str) -> None:
        """Stop it now with ``verdict`` (the first cause wins)."""
        if self.death is None:
            self.death = verdict
            self.death_detail = detail
        self.child.kill()

    def sample(self) -> None:
        """Update its CPU and memory (called by the monitor); stop it over a cap."""
        if self.death is not None:
            return
        over = self.child.sample()
        if over is not None:
            self.kill(*over)

    def stderr_text(self) -> str:
        return self.child.stderr.text()

    async def output(self, deadline: float, limit: int, sink: BinaryIO | None = None) -> tuple[bytes, bool]:
        """Everything it writes to stdout until it closes it — returned, or written to
        ``sink`` (then b"" is returned: a build's tree is not held in memory) — and
        whether it went past ``limit`` bytes (then reading stops there and the job is
        stopped).

        Past ``deadline`` (trio time) it is killed with a TIMEOUT verdict.  A job the
        monitor kills (CPU, memory, files) closes its stdout with its death: what it
        wrote until then is kept, and :attr:`death` says why.
        """
        chunks: list[bytes] = []
        size = 0

        def keep(chunk: bytes) -> None:
            if sink is None:
                chunks.append(chunk)
            else:
                sink.write(chunk)

        while True:
            try:
                chunk = os.read(self._stdout, _READ_SIZE)
            except BlockingIOError:
                with trio.move_on_at(deadline) as scope:
                    await trio.lowlevel.wait_readable(self._stdout)
                if scope.cancelled_caught:
                    self.kill(Verdict.TIMEOUT, "still running at its wall-time limit")
                    return b"".join(chunks), False
                continue
            except OSError:
                chunk = b""
            if not chunk:
                return b"".join(chunks), False
            size += len(chunk)
            if size > limit:
                keep(chunk[: len(chunk) - (size - limit)])
                self.kill(Verdict.MEMORY, f"wrote more than {limit >> 20} MiB of output")
                return b"".join(chunks), True
            keep(chunk)
            await trio.lowlevel.checkpoint()

    async def wait(self, deadline: float) -> None:
        """Wait (until ``deadline``) for it to exit by itself once its output has ended."""
        await self.child.wait_exit(max(0.0, deadline - trio.current_time()))
        if self.child.exit_status is None and self.death is None:
            self.kill(Verdict.TIMEOUT, "closed its output but kept running to its wall-time limit")

    async def close(self) -> None:
        """Stop it and everything it started, reap it and give back what it held;
        bounded in time, shielded, safe to call twice."""
        if self._closed:
            return
        self._closed = True
        with trio.CancelScope(shield=True):
            if self._monitor is not None:
                self._monitor.forget(self)  # one last sample first
            self.close_input()
            survived = await self.child.stop(eof_grace_s(self.limits) if self.alive else None)
            fd, self._stdout = self._stdout, -1
            _close(fd)
            if survived and self.death is None:
                self.death = Verdict.CRASH
                self.death_detail = "did not exit after SIGKILL"


async def run_job(
    spec: BotSpec,
    limits: Limits,
    layer: sandbox.Layer,
    *,
    wall_s: float,
    output_limit: int,
    allow_root: bool = False,
    sink: BinaryIO | None = None,
) -> JobResult:
    """Run ``spec``'s command to its end under ``layer`` and ``limits``, within ``wall_s``;
    its stdout returned in :attr:`JobResult.output`, or written to ``sink``.

    ``limits.cpu_s`` is its CPU budget, ``memory_bytes`` its memory (its tmpfs
    included), ``disk_bytes`` the size of its private working directory and ``processes``
    its process cap; its stdin is closed.  Never raises for anything the job does; a
    cancellation (Ctrl-C) still ends it and everything it started.
    """
    started = trio.current_time()
    deadline = started + wall_s
    job = Job(spec, limits, layer=layer, allow_root=allow_root)
    output, cut = b"", False
    delays: dict[tuple[int, str], int] = {}  # (pid, tid) -> its run delay when last seen
    referee_before = overload.referee_delay_ns()
    async with trio.open_nursery() as nursery:
        try:
            await job.start(nursery)
            nursery.start_soon(_sample_delays, job, delays)
            job.close_input()  # nothing to read: a job that waits for input sees EOF
            output, cut = await job.output(deadline, output_limit, sink)
            if job.death is None:
                await job.wait(deadline)
        except BotFault:
            pass
        finally:
            await job.close()  # shielded and bounded: nothing of the job outlives this
            nursery.cancel_scope.cancel()
    child = job.child
    return JobResult(
        status=child.exit_status,
        stopped=job.death,
        detail=job.death_detail,
        output=output,
        output_cut=cut,
        stderr=job.stderr_text(),
        cpu_s=child.cpu_s,
        peak_rss_bytes=child.peak_rss,
        seconds=trio.current_time() - started,
        sandbox=child.description,
        run_delay_s=sum(delays.values()) / 1e9,
        referee_delay_s=max(0, overload.referee_delay_ns() - referee_before) / 1e9,
    )


async def _sample_delays(job: Job, delays: dict[tuple[int, str], int]) -> None:
    """Every :data:`_DELAY_SAMPLE_S`, the run delay of each thread of the job's processes
    (``/proc/PID/task/TID/schedstat``), until cancelled."""
    while True:
        await trio.sleep(_DELAY_SAMPLE_S)
        if job.death is not None or job.child.exit_status is not None:
            continue
        for proc in job.child.processes():
            if proc.pid in job.child.supervisors:
                continue
            for tid, _, delay in overload.thread_schedstats(proc.pid):
                key = (proc.pid, tid)
                delays[key] = max(delays.get(key, 0), delay)


def _close(fd: int) -> None:
    if fd >= 0:
        trio.lowlevel.notify_closing(fd)
        os.close(fd)
