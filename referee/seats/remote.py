"""A seat played by a bot on another machine, over a relay connection (``referee serve``).

The match drives a :class:`RemoteSeat` exactly as it drives a local process: the game's
lines go out as ``ask``/``tell`` (:mod:`protocol.relay`), replies come back, and every
wait is bounded by the seat's own limit plus a network allowance
(:data:`NETWORK_ALLOWANCE_S`, ``--network-allowance``).  A client that stalls gets the
``timeout`` verdict (``startup`` before its first answer), one that still owes the
previous answer when the next one is late is stopped as hung, one that disconnects
gets ``crash``, one that sends what was not asked for (or floods) gets ``protocol`` and
is disconnected — the verdicts a local bot gets, with the same consequences in the game.

Time is measured here, on the server, from writing the request to reading its reply.
The client says how long its bot thought (``THINK_US``); the rest of the round trip is
the network's and is reported apart (:meth:`Client.network`).  The client's word never
extends a limit: a slow network costs the player, within the allowance.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable

import trio

from protocol import relay
from referee.core.limits import Limits
from referee.core.verdict import BotFault, Verdict
from referee.seats._abc import Seat, SeatUsage, notes_usage
from referee.seats.remote_wire import Wire

#: Seconds added to every time limit of a remote seat for the network's round trip and
#: the relay: a lost packet's retransmission (~0.2-1 s) must not cost a game.
NETWORK_ALLOWANCE_S = 1.0
#: Messages a client may have in flight towards the server before it counts as flooding.
INBOX = 16
#: Messages queued towards a client; more means it stopped reading.
OUTBOX = 256
#: Seconds a client has to take a message off the wire before it is dropped.
SEND_S = 10.0
#: A client whose network round trips average below this (loopback, a LAN) gets the
#: fast path: the request and its answer in one C call that waits up to NEAR_WAIT_NS.
NEAR_NS = 300_000
NEAR_WAIT_NS = 1_000_000


def parse_client_line(line: bytes) -> tuple[str, bytes]:
    """A relay client's line → (kind, rest) (:mod:`protocol.relay`)."""
    kind, rest = relay.split(line)
    if kind not in relay.CLIENT_KINDS or kind == "hello":
        raise relay.RelayError(f"an unknown or repeated message {kind[:20]!r}")
    return kind, rest


class Client:
    """One connected remote player: its stream, a reader and a writer task.

    ``inbox`` receives the client's parsed messages ``(kind, rest, arrival_ns)``; it is
    closed when the connection ends.  ``send_now`` sends a line (the seat's path);
    ``send`` queues one without waiting, for the synchronous ``kill`` and the server's
    ``bye``, which come last.  A client that stops reading is disconnected.
    """

    def __init__(
        self,
        name: str,
        stream: trio.abc.Stream,
        max_line: int,
        parse: Callable[[bytes], tuple[str, bytes]] | None = None,
    ) -> None:
        self.name = name
        #: The name the client was told at login (the PPCA dialect's ``NAME_<table>_<id>``).
        self.login = name
        #: A line from the client → (kind, rest); RelayError if it is not one the client may send.
        self.parse = parse or parse_client_line
        self.stream = stream
        self.max_line = max_line
        self._out_send, self._out_recv = trio.open_memory_channel[bytes](OUTBOX)
        self._in_send, self.inbox = trio.open_memory_channel[tuple[str, bytes, int]](INBOX)
        self.connected = True
        #: Why the connection ended (one line), once it has.
        self.gone = ""
        #: Why the client was cut off for misbehaving (a protocol verdict's detail).
        self.misbehaved = ""
        #: Network round trips (ns): the sum, count and largest, over every answer.
        self.network_ns = [0, 0, 0]
        self._cancel = trio.CancelScope()
        self._send_lock = trio.Lock()
        #: Bytes of a line not yet whole.
        self.partial = b""
        #: Recent round trips (ns, a moving average): the fast path is for a near client.
        self.rtt_ns = 0
        self.wire = Wire(stream)

    async def run(self, buffered: bytes = b"") -> None:
        """Read and write until the connection ends; returns then (never raises)."""
        with self._cancel:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._write)
                await self._read(buffered)
                nursery.cancel_scope.cancel()
        self.connected = False
        self._in_send.close()
        with trio.move_on_after(1) as scope:
            scope.shield = True
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await self.stream.aclose()

    def send(self, line: bytes) -> None:
        if not self.connected:
            return
        try:
            self._out_send.send_nowait(line)
        except trio.WouldBlock:
            self.drop("it stopped reading what the server sends")
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass

    async def send_now(self, line: bytes) -> None:
        """Send ``line`` at once (the hot path: no hop through the writer task)."""
        if not self.connected:
            return
        lock = self._send_lock  # the writer task sends too (a kill's "stop", "bye")
        try:
            lock.acquire_nowait()  # no checkpoint on the usual, uncontended path
        except trio.WouldBlock:
            await lock.acquire()
        try:
            with trio.move_on_after(SEND_S) as scope:
                try:
                    await self.wire.send(line)
                except trio.BrokenResourceError:
                    self.drop("the connection closed")
                    return
            if scope.cancelled_caught:
                self.drop("it stopped reading what the server sends")
        finally:
            lock.release()

    def drop(self, why: str, *, misbehaved: bool = False) -> None:
        """End the connection now (synchronous)."""
        if not self.gone:
            self.gone = why
        if misbehaved and not self.misbehaved:
            self.misbehaved = why
        self.connected = False
        self._cancel.cancel()

    def network(self) -> tuple[float, float]:
        """Mean and largest network round trip (ms) over the answers so far."""
        total, count, largest = self.network_ns
        return (total / count / 1e6 if count else 0.0), largest / 1e6

    async def _write(self) -> None:
        async for line in self._out_recv:
            await self.send_now(line)
            if not self.connected:
                return

    async def _read(self, buf: bytes) -> None:
        if not self.feed(buf):
            return
        while True:
            chunk = await self.wire.receive()
            if not chunk:
                self.drop("the connection closed")
                return
            if not self.feed(chunk):
                return

    def feed(self, chunk: bytes) -> bool:
        """Take bytes the client sent: each whole line into the inbox, a partial one kept.
        False once the client is cut off for what it sent.  Synchronous, so the reader
        task and a seat's fast path (:meth:`RemoteSeat.request`) never interleave."""
        limit = self.max_line + relay.OVERHEAD
        buf = self.partial + chunk
        start = len(self.partial)
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            line, buf, start = buf[:nl], buf[nl + 1 :], 0
            if not self._take(line, limit):
                return False
        self.partial = buf
        if len(buf) > limit:
            self.drop(f"sent a line longer than {limit} bytes", misbehaved=True)
            return False
        return True

    def _take(self, line: bytes, limit: int) -> bool:
        if len(line) > limit:
            self.drop(f"sent a line longer than {limit} bytes", misbehaved=True)
            return False
        try:
            kind, rest = self.parse(line)
        except relay.RelayError as exc:
            self.drop(f"sent {exc}", misbehaved=True)
            return False
        try:
            self._in_send.send_nowait((kind, rest, time.perf_counter_ns()))
        except trio.WouldBlock:
            self.drop(f"sent more than {INBOX} messages nobody asked for (flooding)", misbehaved=True)
            return False
        return True


class RemoteSeat(Seat):
    """One life of a remote player's bot in a match (module docstring)."""

    def __init__(self, client: Client, limits: Limits, allowance_s: float = NETWORK_ALLOWANCE_S) -> None:
        self.client = client
        self.limits = limits
        self.allowance_s = allowance_s
        self._started = False
        self._closed = False
        self._owed = 0  # late replies still to come, to be dropped
        self._decisions = 0
        self._answered = False
        self._first_ns = 0
        self._think_total = 0
        self._think_max = 0
        self._cpu_s = 0.0
        self._rss = 0
        #: The bot's notes as the client reported them at its stop (protocol.notes).
        self._notes: dict[str, int] = {}
        self._note_examples: dict[str, str] = {}

    @property
    def alive(self) -> bool:
        return self._started and self.death is None

    @property
    def description(self) -> str:
        return "remote (its own machine; sandbox and limits there)"

    def _require_connection(self) -> None:
        """A life cannot start on a connection that has ended (``startup``)."""
        if not self.client.connected:
            self._die(Verdict.STARTUP, f"not connected ({self.client.gone or 'gone'})")
            raise BotFault(Verdict.STARTUP, self.death_detail)

    async def start(self, nursery: trio.Nursery) -> None:
        client = self.client
        self._require_connection()
        await client.send_now(relay.message("start"))
        kind, rest, _ = await self._next(self.limits.startup_s + self.allowance_s, "start")
        if kind == "started":
            self._started = True
            return
        if kind == "fault":
            _, detail = relay.parse_fault(rest)
            self._die(Verdict.STARTUP, f"could not start on the player's machine: {detail}")
        else:
            self._misbehaved(f"answered 'start' with {kind!r}")
        raise BotFault(Verdict.STARTUP, self.death_detail)

    async def request(self, line: bytes) -> bytes:
        if self.death is not None:
            raise BotFault(self.death, self.death_detail)
        self._between_requests()
        first = not self._answered
        limit = (self.limits.startup_s if first else self.limits.decision_s) + self.allowance_s
        prompt = self._prompt(line)
        sent = time.perf_counter_ns()
        client = self.client
        if client.rtt_ns < NEAR_NS and client.wire.fast and not client.partial and not self._owed:
            answer = await self._exchange(line, prompt, sent, first)
            if answer is not None:
                return answer
        else:
            await client.send_now(prompt)
        deadline = trio.current_time() + limit
        while True:
            kind, rest, arrived = await self._next(deadline - trio.current_time(), "ask", timeout_ok=True)
            if kind == "":  # the deadline passed
                return self._late(first, limit)
            if kind == self.REPLY and self._owed:
                self._owed -= 1  # the answer to a request that timed out: dropped
                continue
            if kind == self.REPLY:
                return self._accept(line, rest, arrived - sent, first)
            if kind == "fault":
                raise self._client_fault(rest)
            self._misbehaved(f"answered a request with {kind!r}")
            raise BotFault(Verdict.PROTOCOL, self.death_detail)

    async def _exchange(self, line: bytes, prompt: bytes, sent: int, first: bool) -> bytes | None:
        """The fast path for a near client: the request written and, if the answer comes
        within :data:`NEAR_WAIT_NS`, read in the same C call, skipping two trips through
        trio's scheduler (as a local bot's fast path does).  None: not answered yet (the
        reader task gets what comes)."""
        client = self.client
        lock = client._send_lock
        if lock.locked():
            await client.send_now(prompt)
            return None
        result = client.wire.exchange(prompt, client.max_line + relay.OVERHEAD, NEAR_WAIT_NS)
        if isinstance(result, bytes):
            arrived = time.perf_counter_ns()
            try:
                kind, rest = client.parse(result)
            except relay.RelayError:
                kind, rest = "", b""
            if kind == self.REPLY:
                return self._accept(line, rest, arrived - sent, first)
            client.feed(result + b"\n")  # a fault, or worse: judged as on the slow path
            return None
        if isinstance(result, tuple):
            chunk = result[1]
            if not chunk:
                client.drop("the connection closed")
            else:
                client.feed(chunk)
            return None
        if result < 0:
            client.drop("the connection closed")
        elif result < len(prompt):
            await client.send_now(prompt[result:])
        return None

    def _accept(self, line: bytes, rest: bytes, rtt_ns: int, first: bool) -> bytes:
        """The reply in an answer to ``line``, its times counted; a malformed one is the
        ``protocol`` verdict (and the client is cut off)."""
        try:
            think_ns, text = self._answer(line, rest, rtt_ns)
        except relay.RelayError as exc:
            self._misbehaved(str(exc))
            raise BotFault(Verdict.PROTOCOL, self.death_detail) from None
        self._account(rtt_ns, think_ns, first)
        return text

    #: The kind of message that answers a request.
    REPLY = "reply"

    def _prompt(self, line: bytes) -> bytes:
        """What the client is sent for the request ``line``."""
        return b"ask " + line

    def _answer(self, line: bytes, rest: bytes, rtt_ns: int) -> tuple[int, bytes]:
        """(the bot's thinking time, its reply) from an answer to ``line``."""
        return relay.parse_reply(rest)

    async def tell(self, line: bytes, expects_reply: bool = False) -> None:
        if self.death is None:
            await self.client.send_now((b"tellr " if expects_reply else b"tell ") + line)

    def kill(self, verdict: Verdict, detail: str) -> None:
        self._die(verdict, detail)
        self.client.send(relay.message("stop"))

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        client = self.client
        if not self._started or not client.connected:
            return
        with trio.CancelScope(shield=True):
            if self.death is None or not self.death.kills:
                await client.send_now(relay.message("stop"))
            deadline = trio.current_time() + self.limits.exit_s + self.allowance_s + 1.0
            while client.connected:
                kind, rest, _ = await self._next(deadline - trio.current_time(), "stop", timeout_ok=True)
                if kind in ("", "stopped"):
                    if kind == "stopped":
                        with contextlib.suppress(relay.RelayError):
                            self._cpu_s, self._rss, self._notes, self._note_examples = relay.parse_stopped(
                                rest
                            )
                    break
                # late replies and faults of this life are over: skip them

    def usage(self) -> SeatUsage:
        return SeatUsage(
            cpu_s=self._cpu_s,
            peak_rss_bytes=self._rss,
            decisions=self._decisions,
            latency_ns_total=self._think_total,
            latency_ns_max=self._think_max,
            first_answer_ns=self._first_ns,
            answered=self._answered,
            **notes_usage(self._notes, self._note_examples),
        )

    # ------------------------------------------------------------------ inside

    async def _next(
        self, seconds: float, waiting_for: str, *, timeout_ok: bool = False
    ) -> tuple[str, bytes, int]:
        """The client's next message within ``seconds``; ``("", b"", 0)`` at the deadline
        when ``timeout_ok``.  A connection that ends is the ``crash`` verdict."""
        with trio.move_on_after(max(0.0, seconds) if math.isfinite(seconds) else 1e9):
            try:
                return await self.client.inbox.receive()
            except (trio.EndOfChannel, trio.ClosedResourceError):
                if self.client.misbehaved:
                    self._die(Verdict.PROTOCOL, self.client.misbehaved)
                    raise BotFault(Verdict.PROTOCOL, self.death_detail) from None
                self._die(Verdict.CRASH, f"disconnected ({self.client.gone or 'the connection closed'})")
                raise BotFault(Verdict.CRASH, self.death_detail) from None
        if timeout_ok:
            return "", b"", 0
        verdict = Verdict.STARTUP
        self._die(verdict, f"no answer to '{waiting_for}' within {seconds:g} s")
        raise BotFault(verdict, self.death_detail)

    def _between_requests(self) -> None:
        """What the client sent since the last answer: a late answer is dropped, a fault
        of its bot (during an information line) is raised, anything else was not asked
        for — the ``protocol`` verdict a local bot gets for an extra line."""
        while True:
            try:
                kind, rest, _ = self.client.inbox.receive_nowait()
            except trio.WouldBlock:
                return
            except (trio.EndOfChannel, trio.ClosedResourceError):
                return  # the request's wait reports the disconnection
            if kind == self.REPLY and self._owed:
                self._owed -= 1
            elif kind == "fault":
                raise self._client_fault(rest)
            else:
                self._misbehaved(f"sent {kind!r} when nothing was asked")
                raise BotFault(Verdict.PROTOCOL, self.death_detail)

    def _late(self, first: bool, limit: float) -> bytes:
        if first:
            detail = f"no first answer within the startup allowance ({limit:g} s with the network's)"
            self.kill(Verdict.STARTUP, detail)
            raise BotFault(Verdict.STARTUP, detail)
        detail = f"no answer within {limit:g} s (the limit {self.limits.decision_s:g} s + the network's {self.allowance_s:g} s)"
        if self._owed:
            self.kill(
                Verdict.TIMEOUT, f"{detail}; still no answer to the previous request, so it was stopped"
            )
        else:
            self._owed += 1
        raise BotFault(Verdict.TIMEOUT, detail)

    def _client_fault(self, rest: bytes) -> BotFault:
        name, detail = relay.parse_fault(rest)
        try:
            verdict = Verdict(name)
        except ValueError:
            verdict = Verdict.CRASH
        detail = f"on the player's machine: {detail}" if detail else "on the player's machine"
        if verdict.kills or verdict is Verdict.STARTUP:
            self._die(verdict, detail)
        return BotFault(verdict, detail)

    def _misbehaved(self, why: str) -> None:
        self._die(Verdict.PROTOCOL, f"the relay {why}")
        self.client.drop(self.death_detail, misbehaved=True)

    def _die(self, verdict: Verdict, detail: str) -> None:
        if self.death is None:
            self.death = verdict
            self.death_detail = detail

    def _account(self, rtt_ns: int, think_ns: int, first: bool) -> None:
        think_ns = min(max(think_ns, 0), rtt_ns)
        client = self.client
        client.rtt_ns = (3 * client.rtt_ns + rtt_ns - think_ns) // 4
        network = self.client.network_ns
        network[0] += rtt_ns - think_ns
        network[1] += 1
        network[2] = max(network[2], rtt_ns - think_ns)
        self._decisions += 1
        if first:
            self._first_ns = think_ns
        else:
            self._think_total += think_ns
            self._think_max = max(self._think_max, think_ns)
        self._answered = True
