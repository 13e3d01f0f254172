"""What a slow answer was made of: the bot's CPU meanwhile, and whether the machine made it late.

A timeout is the one result that can change with the machine, so the process seat keeps,
for every answer that took :data:`~referee.core.limits.NEAR_LIMIT` of the decision limit
or more and for every timeout, the CPU the bot's process tree used in that time
(docs/limits-and-verdicts.md, "CPU per decision"); and a timeout the machine caused —
the bot runnable but without a CPU, or the referee itself starved — says so with its
evidence (issue 28, :mod:`referee.core.overload`).

Only slow answers pay for it.  An answer back within the fast path's short wait is never
measured; when one is not, the seat calls :meth:`SlowAnswers.watch`, which reads the
bot's CPU counter and run delay (a few µs, against the millisecond already waited), and
reads them again when the answer comes (:meth:`SlowAnswers.answered`) or the limit passes
(:meth:`SlowAnswers.timed_out`).  The readings are the process tree's
(:class:`~referee.seats.process.child.Child`); the seat's clock says when to take them.
"""

from __future__ import annotations

import time
from collections.abc import MutableSequence

from referee.core import overload
from referee.core.limits import NEAR_LIMIT
from referee.seats import SLOW_KEPT
from referee.seats.process.child import Child
from referee.seats.process.fastpath import LATENCY_MAX

_now_ns = time.monotonic_ns  # CLOCK_MONOTONIC, as in the C fast path


class SlowAnswers:
    """The slow answers of one bot (``child``) held to ``decision_s`` a decision: how many,
    the first :data:`~referee.seats.SLOW_KEPT` as (wall ns, CPU ns or -1, timed out), and
    the CPU of the slowest."""

    def __init__(self, child: Child, decision_s: float) -> None:
        self._child = child
        #: An answer this slow (ns) or slower is kept: NEAR_LIMIT of the decision limit.
        self.near_ns = int(NEAR_LIMIT * decision_s * 1e9)
        #: Answers that slow, timeouts included, and the first SLOW_KEPT of them.
        self.count = 0
        self.kept: list[tuple[int, int, bool]] = []
        # The tree's CPU when a reply was not back within the short wait, and its start.
        self._wait_cpu: float | None = None
        self._wait_start = 0
        # The bot's and the referee's run delay (ns) when that wait began, and the
        # referee's when the bot was started: what tells a starved bot from a slow one.
        self._wait_delay: tuple[int, int] | None = None
        self._start_delay = 0
        self._slowest_cpu_ns = -1
        self._slowest_for = 0  # the answer's latency that _slowest_cpu_ns is of

    def started(self) -> None:
        """The bot has started: a startup timeout's evidence is measured from now."""
        self._start_delay = overload.referee_delay_ns()

    def watch(self, start: int) -> None:
        """The reply to a request that began at ``start`` (``time.monotonic_ns``) was not
        back within the short wait: read the tree's CPU and run delay now, so that a slow
        answer (or a timeout) can say how much of its wall time was the bot's computing.
        2.4 µs a CPU reading with a cgroup, 5.6 µs for a one-process bot without
        (``benchmarks/slow_decision_cost.py``), against ≥ 1 ms."""
        self._wait_start = start
        self._wait_cpu = self._child.cpu_reading()
        self._wait_delay = self._delay_reading()

    def unwatch(self) -> None:
        """A request begins that may be answered within the short wait, unwatched: an
        earlier request's reading is not its own."""
        self._wait_cpu = None

    def answered(self, elapsed: int, counters: MutableSequence[int]) -> None:
        """A new slowest answer (``elapsed`` ns, over ``counters[LATENCY_MAX]``, which it
        becomes), or one close to the limit: its CPU read once, for both."""
        cpu_ns = self.cpu_since_wait()
        if elapsed > counters[LATENCY_MAX]:
            counters[LATENCY_MAX] = self._slowest_for = elapsed
            self._slowest_cpu_ns = cpu_ns
        if elapsed >= self.near_ns:
            self.keep(elapsed, cpu_ns, False)

    def timed_out(self, limit_s: float) -> tuple[int, str | None]:
        """A decision timed out: it is kept; returns the CPU (ns, -1 if not watched) the
        tree used since its wait began, and the machine's evidence if the machine made it
        late, in words (else None)."""
        cpu_ns = self.cpu_since_wait()
        wall_ns = _now_ns() - self._wait_start
        self.keep(wall_ns, cpu_ns, True)
        return cpu_ns, self._overload(self._wait_delay, wall_ns, cpu_ns, limit_s)

    def startup_timed_out(self, wall_ns: int, limit_s: float) -> str | None:
        """No first answer within the startup allowance, ``wall_ns`` after the start: the
        machine's evidence if it made it late, else None.  Measured from the start, as a
        process's run delay counts from its birth."""
        self._child.processes()  # its processes, started since the last sample
        cpu = self._child.cpu_reading()
        return self._overload((0, self._start_delay), wall_ns, -1 if cpu is None else int(cpu * 1e9), limit_s)

    def keep(self, wall_ns: int, cpu_ns: int, timed_out: bool) -> None:
        """Count a slow answer, and keep it among the first SLOW_KEPT."""
        self.count += 1
        if len(self.kept) < SLOW_KEPT:
            self.kept.append((wall_ns, cpu_ns, timed_out))

    def cpu_since_wait(self) -> int:
        """CPU ns the tree used since :meth:`watch`, or -1 if not watched."""
        if self._wait_cpu is None:
            return -1
        now = self._child.cpu_reading()
        return -1 if now is None else max(0, int((now - self._wait_cpu) * 1e9))

    def slowest_cpu_ns(self, latency_max: int) -> int:
        """The CPU of the slowest answer, ``latency_max`` ns, or -1: the C fast path keeps
        the maximum itself, and a fast answer that became it was not measured (its CPU is
        unknown, and below a millisecond)."""
        return self._slowest_cpu_ns if self._slowest_for == latency_max else -1

    def new_stretch(self) -> None:
        """The slowest answer and the kept ones count afresh (the counts go on)."""
        self._slowest_cpu_ns = -1
        self._slowest_for = 0
        self.kept.clear()

    def _delay_reading(self) -> tuple[int, int] | None:
        """The run delay (ns) of the bot's known processes' threads, and the referee's:
        issue 28's evidence of a starved bot.  None after the bot is closed."""
        bot = self._child.run_delay()
        return None if bot is None else (bot, overload.referee_delay_ns())

    def _overload(
        self, before: tuple[int, int] | None, wall_ns: int, cpu_ns: int, limit_s: float
    ) -> str | None:
        """Whether a timeout of ``wall_ns`` with ``cpu_ns`` of CPU was the machine's, by the
        run delays since ``before``: its evidence in words, else None."""
        after = self._delay_reading()
        if before is None or after is None or cpu_ns < 0:
            return None
        wall, cpu = wall_ns / 1e9, cpu_ns / 1e9
        bot_wait, referee_wait = max(0, after[0] - before[0]) / 1e9, max(0, after[1] - before[1]) / 1e9
        if not overload.machine_caused(cpu, limit_s, wall, bot_wait, referee_wait):
            return None
        return overload.describe(cpu, wall, limit_s, bot_wait, referee_wait)


__all__ = ["SlowAnswers"]
