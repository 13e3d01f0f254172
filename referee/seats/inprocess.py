"""A seat that is a Python callable in the referee's own process.

``decide(line) -> reply`` gets each request as text without its newline and returns the
reply as text (or bytes), one line.  ``inform(line)``, if given, gets the information
lines.  Either may be a coroutine function: it is then awaited under the limit, and
cancelled when it runs over.

It has **no isolation**: it is for tests (thousands of games without a process),
trusted reference players, and the later seats that are not programs at all (a human
at a terminal, a bot over TCP), which need exactly this shape.  The verdicts mirror a
process seat's where they can:

* an exception is a ``crash`` (the seat is dead, like a process that exited);
* a reply that is not one line of text is a ``protocol`` fault;
* an answer later than the limit (the startup allowance for the first) is a ``timeout``:
  a coroutine is cancelled at the limit; a plain function cannot be interrupted, so it
  is timed, and a late reply is thrown away.

CPU is the calling thread's CPU time during the calls (for a coroutine, that includes
what other tasks ran while it waited); there is no CPU budget and memory is not
measured (it is the referee's own), so ``peak_rss_bytes`` is 0.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import trio

from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.core.verdict import BotFault, Verdict
from referee.seats._abc import Seat, SeatFactory, SeatUsage

Decide = Callable[[str], str | bytes | Awaitable[str | bytes]]
Inform = Callable[[str], Any]


class InProcessSeat(Seat):
    def __init__(self, decide: Decide, limits: Limits, *, inform: Inform | None = None) -> None:
        self.decide = decide
        self.inform = inform
        self.limits = limits
        self.death: Verdict | None = None
        self.death_detail = ""
        self._started = False
        self._decisions = 0
        self._latency_total = 0
        self._latency_max = 0
        self._first_answer = 0
        self._cpu_ns = 0

    @classmethod
    def factory(
        cls, players: Mapping[str, Decide], informs: Mapping[str, Inform] | None = None
    ) -> SeatFactory:
        """A seat factory for a match whose bots are the callables in ``players``,
        by bot name (``BotSpec.name``)."""

        def make(
            spec: BotSpec, limits: Limits, *, stderr_path: Path | None, cpu_budget_s: float | None
        ) -> InProcessSeat:
            return cls(players[spec.name], limits, inform=(informs or {}).get(spec.name))

        return make

    @property
    def alive(self) -> bool:
        return self._started and self.death is None

    @property
    def description(self) -> str:
        return "in-process (no isolation)"

    async def start(self, nursery: trio.Nursery) -> None:
        self._started = True

    async def request(self, line: bytes) -> bytes:
        if self.death is not None:
            raise BotFault(self.death, self.death_detail)
        first = not self._decisions
        # Nothing to start in-process: a first decision held to the decision limit
        # (Limits.first_answer_in_startup False) has just that, like every other.
        startup = first and self.limits.first_answer_in_startup
        allowed = self.limits.startup_s if startup else self.limits.decision_s
        started, cpu_started = time.perf_counter_ns(), time.thread_time_ns()
        try:
            result = self.decide(line[:-1].decode("utf-8", "replace"))
            if inspect.isawaitable(result):
                with trio.move_on_after(allowed) as scope:
                    result = await result
                if scope.cancelled_caught:
                    detail = f"no reply in time (limit {allowed:g} s)"
                    if startup:  # as for a process: no first answer in time ends it
                        self.kill(Verdict.STARTUP, detail)
                    raise BotFault(Verdict.STARTUP if startup else Verdict.TIMEOUT, detail)
        except BotFault:
            raise
        except Exception as exc:
            detail = f"raised {type(exc).__name__}: {exc}"
            self.kill(Verdict.CRASH, detail)
            raise BotFault(Verdict.CRASH, detail) from None
        finally:
            self._cpu_ns += time.thread_time_ns() - cpu_started
        elapsed = time.perf_counter_ns() - started
        if elapsed > allowed * 1e9:
            verdict = Verdict.STARTUP if startup else Verdict.TIMEOUT
            if startup:
                self.kill(verdict, f"no first answer within the startup allowance of {allowed:g} s")
            raise BotFault(verdict, f"answered after {elapsed / 1e9:.3f} s (limit {allowed:g} s)")
        try:
            reply = result.encode("utf-8") if isinstance(result, str) else result
        except UnicodeEncodeError:
            raise BotFault(Verdict.PROTOCOL, "returned text that is not valid UTF-8") from None
        if not isinstance(reply, bytes):
            raise BotFault(Verdict.PROTOCOL, f"returned a {type(result).__name__}, not text")
        if reply.endswith(b"\n"):  # one line, with or without its newline
            reply = reply[:-1]
        if b"\n" in reply:
            raise BotFault(Verdict.PROTOCOL, "returned more than one line", reply)
        if len(reply) > self.limits.max_line_bytes:
            raise BotFault(Verdict.PROTOCOL, f"reply longer than {self.limits.max_line_bytes} bytes")
        self._count(elapsed, first)
        return reply

    def _count(self, elapsed: int, first: bool) -> None:
        self._decisions += 1
        if first:
            self._first_answer = elapsed  # carries its startup work, as for a process
            return
        self._latency_total += elapsed
        self._latency_max = max(self._latency_max, elapsed)

    async def tell(self, line: bytes, expects_reply: bool = False) -> None:
        if self.death is not None or self.inform is None:
            return
        try:
            result = self.inform(line[:-1].decode("utf-8", "replace"))
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            self.kill(Verdict.CRASH, f"raised {type(exc).__name__} on an information line: {exc}")

    def kill(self, verdict: Verdict, detail: str) -> None:
        if self.death is None:
            self.death = verdict
            self.death_detail = detail

    async def close(self) -> None:
        self._started = False

    def new_stretch(self) -> None:
        self._latency_max = 0

    def usage(self) -> SeatUsage:
        return SeatUsage(
            answered=bool(self._decisions),
            cpu_s=self._cpu_ns / 1e9,
            decisions=self._decisions,
            latency_ns_total=self._latency_total,
            latency_ns_max=self._latency_max,
            first_answer_ns=self._first_answer,
        )
