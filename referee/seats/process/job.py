"""A one-shot command in a bot's sandbox: run it to the end and collect its output.

``referee grade`` builds each submission with the same isolation its bot later plays
under (issue 13: "the same sandbox as play").  A build is not a bot — it answers no
requests, it writes a stream and exits — but everything else a bot gets applies
unchanged: the layer, a uid of its own as root, the private working directory (a
size-capped tmpfs under namespaces and bubblewrap), no network, the CPU, memory and
file caps sampled by the monitor, the process cap, and a tree killed whole at the end.
So :class:`Job` is a :class:`~referee.seats.process.bot.BotProcess` with one more way
to talk: :meth:`Job.output` reads its stdout to the end, bounded in time and in bytes,
instead of one line per request.

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
from referee.seats.process.bot import BotProcess

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


class Job(BotProcess):
    """A sandboxed process whose stdout is read to the end rather than line by line."""

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
                chunk = os.read(self._rfd, _READ_SIZE)
            except BlockingIOError:
                with trio.move_on_at(deadline) as scope:
                    await trio.lowlevel.wait_readable(self._rfd)
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
        await self._wait_exit(max(0.0, deadline - trio.current_time()))
        if self.exit_status is None and self.death is None:
            self.kill(Verdict.TIMEOUT, "closed its output but kept running to its wall-time limit")


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
            job._close_fd("_wfd")  # nothing to read: a job that waits for input sees EOF
            output, cut = await job.output(deadline, output_limit, sink)
            if job.death is None:
                await job.wait(deadline)
        except BotFault:
            pass
        finally:
            await job.close()  # shielded and bounded: nothing of the job outlives this
            nursery.cancel_scope.cancel()
    return JobResult(
        status=job.exit_status,
        stopped=job.death,
        detail=job.death_detail,
        output=output,
        output_cut=cut,
        stderr=job.stderr_text(),
        cpu_s=job.cpu_s,
        peak_rss_bytes=job.peak_rss,
        seconds=trio.current_time() - started,
        sandbox=job.sandbox,
        run_delay_s=sum(delays.values()) / 1e9,
        referee_delay_s=max(0, overload.referee_delay_ns() - referee_before) / 1e9,
    )


async def _sample_delays(job: Job, delays: dict[tuple[int, str], int]) -> None:
    """Every :data:`_DELAY_SAMPLE_S`, the run delay of each thread of the job's processes
    (``/proc/PID/task/TID/schedstat``), until cancelled."""
    while True:
        await trio.sleep(_DELAY_SAMPLE_S)
        if job.death is not None or job.exit_status is not None:
            continue
        for proc in job._tree():
            if proc.pid in job._supervisors:
                continue
            for tid, _, delay in overload.thread_schedstats(proc.pid):
                key = (proc.pid, tid)
                delays[key] = max(delays.get(key, 0), delay)
