"""``referee connect``: play a local bot on a server's tables.

The bot runs here, as ``referee match`` runs it: sandboxed, under the limits the
server announces (its ``welcome``), with its stderr kept here.  This module only
relays: each ``ask`` from the server becomes a request to the bot, its reply goes back
with the time the bot took; ``start``/``stop`` begin and end a life of the bot (a new
match, or a restart after a crash); a fault of the bot (a crash, a local timeout, CPU
or memory) goes back as its verdict.  See :mod:`protocol.relay` for the lines.
"""

from __future__ import annotations

import contextlib
import ssl
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import trio

from protocol import relay
from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.core.verdict import BotFault
from referee.seats.process.bot import BotProcess
from referee.seats.process.sandbox import Layer
from referee.seats.remote_wire import Wire

#: How long a client waits, holding its loop, for the server's next line right after an
#: answer: on a near server it comes within this, and skips trio's scheduler.
NEXT_WAIT_NS = 1_000_000
#: Seconds to connect and to be welcomed.
CONNECT_S = 15.0


class ConnectError(Exception):
    """The client cannot play on; the message says why in one line."""


class LineReader:
    """Lines from a stream, each at most ``limit`` bytes."""

    def __init__(self, stream: trio.abc.Stream, limit: int = 1 << 20) -> None:
        self.wire = Wire(stream)
        self.limit = limit
        self._buf = b""

    async def answer(self, data: bytes) -> bytes | None:
        """Send ``data`` (an answer) and return the server's next line if it comes at once
        (within :data:`NEXT_WAIT_NS`, in one C call: the local bots' fast path), else
        None: :meth:`line` gets it."""
        if self._buf or not self.wire.fast:
            await self.wire.send(data)
            return None
        result = self.wire.exchange(data, self.limit, NEXT_WAIT_NS)
        if isinstance(result, bytes):
            return result
        if isinstance(result, tuple):
            self._buf += result[1]  # b"" at the end of the stream: line() finds it again
        elif result < 0:
            raise trio.BrokenResourceError("the connection is closed")
        elif result < len(data):
            await self.wire.send(data[result:])
        return None

    async def line(self) -> bytes | None:
        """The next line without its newline; ``None`` at the end of the stream."""
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line, self._buf = self._buf[:nl], self._buf[nl + 1 :]
                return line
            if len(self._buf) > self.limit:
                raise ConnectError(f"the server sent a line longer than {self.limit} bytes")
            chunk = await self.wire.receive()
            if not chunk:
                return None
            self._buf += chunk


async def open_stream(host: str, port: int, tls: ssl.SSLContext | None) -> trio.abc.Stream:
    """A connected stream to the server, TLS-wrapped when ``tls`` is given."""
    try:
        with trio.fail_after(CONNECT_S):
            stream: trio.abc.Stream = await trio.open_tcp_stream(host, port)
            if tls is not None:
                stream = trio.SSLStream(stream, tls, server_hostname=host)
                await stream.do_handshake()
    except trio.TooSlowError:
        raise ConnectError(f"{host}:{port}: no connection within {CONNECT_S:g} s") from None
    except (OSError, trio.BrokenResourceError) as exc:
        cause = exc.__cause__ or exc  # a TLS failure comes as BrokenResourceError from SSLError
        why = getattr(cause, "strerror", None) or str(cause) or type(cause).__name__
        raise ConnectError(f"{host}:{port}: cannot connect: {why}") from None
    return stream


class Relay:
    """One connection's play: the bot's lives, one at a time."""

    def __init__(
        self,
        spec: BotSpec,
        *,
        layer: Layer,
        allow_root: bool = False,
        stderr_dir: Path | None = None,
        say: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.spec = spec
        self.layer = layer
        self.allow_root = allow_root
        self.stderr_dir = stderr_dir
        self.say = say
        self.limits: Limits | None = None
        self.lives = 0
        self.decisions = 0
        self.faults = 0

    async def run(self, stream: trio.abc.Stream, name: str, token: str | None) -> str:
        """Play until the server says ``bye`` (its reason is returned) or hangs up
        (:class:`ConnectError`)."""
        reader = LineReader(stream)
        self._wire = reader.wire
        await self._send(stream, relay.hello(name, token))
        with trio.move_on_after(CONNECT_S) as scope:
            first = await reader.line()
        if scope.cancelled_caught or first is None:
            raise ConnectError("the server did not welcome this client")
        kind, rest = relay.split(first)
        if kind == "refused":
            raise ConnectError(f"refused by the server: {rest.decode('utf-8', 'replace')}")
        if kind != "welcome":
            raise ConnectError(f"the server answered {kind!r}, not welcome")
        name, game, limits = relay.parse_welcome(rest)
        self.limits = msgspec.convert(limits, Limits)
        self.say(f"connected as {name}, game {game}; waiting to be seated")
        try:
            return await self._play(stream, reader)
        except BaseExceptionGroup as group:
            # The nursery's (the bot's tasks are in it): one ConnectError is the reason.
            lone = group.split(ConnectError)[0]
            if lone is not None and len(lone.exceptions) == 1 and not group.split(ConnectError)[1]:
                raise lone.exceptions[0] from None
            raise

    async def _play(self, stream: trio.abc.Stream, reader: LineReader) -> str:
        bot: BotProcess | None = None
        try:
            async with trio.open_nursery() as nursery:
                line: bytes | None = None
                while True:
                    if line is None:
                        line = await reader.line()
                    if line is None:
                        raise ConnectError("the server closed the connection")
                    kind, rest = relay.split(line)
                    line = None
                    if kind == "ask":
                        try:
                            line = await reader.answer(await self._ask(bot, rest))
                        except trio.BrokenResourceError:
                            raise ConnectError("the server closed the connection") from None
                    elif kind in ("tell", "tellr"):
                        if bot is not None and bot.death is None:
                            # A fault here shows at the next ask, which reports it.
                            with contextlib.suppress(BotFault):
                                await bot.tell(rest + b"\n", expects_reply=kind == "tellr")
                    elif kind == "start":
                        if bot is not None:
                            await bot.close()
                        bot = await self._start(nursery)
                        reply = (
                            relay.message("started")
                            if bot.death is None
                            else relay.fault("startup", bot.death_detail)
                        )
                        await self._send(stream, reply)
                    elif kind == "stop":
                        stopped = relay.stopped(0.0, 0)
                        if bot is not None:
                            await bot.close()
                            used = bot.usage()
                            # Within the server's line limit, less the line's own words.
                            room = bot.limits.max_line_bytes + relay.OVERHEAD - 48
                            stopped = relay.stopped(
                                used.cpu_s, used.peak_rss_bytes, used.notes, used.note_examples, room
                            )
                            bot = None
                        await self._send(stream, stopped)
                    elif kind == "bye":
                        nursery.cancel_scope.cancel()  # the bots' monitor runs until cancelled
                        return rest.decode("utf-8", "replace")
                    else:
                        raise ConnectError(f"the server sent an unknown message {kind[:20]!r}")
        finally:
            if bot is not None:
                with trio.CancelScope(shield=True):
                    await bot.close()

    async def _start(self, nursery: trio.Nursery) -> BotProcess:
        assert self.limits is not None
        self.lives += 1
        stderr = self.stderr_dir / f"{self.spec.name}.stderr" if self.stderr_dir else None
        bot = BotProcess(
            self.spec,
            self.limits,
            stderr_path=stderr,
            cpu_budget_s=self.limits.cpu_s,
            layer=self.layer,
            allow_root=self.allow_root,
        )
        try:
            await bot.start(nursery)
        except BotFault as fault:
            self.say(f"the bot could not start: {fault.detail}")
        return bot

    async def _ask(self, bot: BotProcess | None, line: bytes) -> bytes:
        if bot is None:
            return relay.fault("crash", "the server asked before starting the bot")
        started = time.perf_counter_ns()
        try:
            reply = await bot.request(line + b"\n")
        except BotFault as fault:
            self.faults += 1
            self.say(f"{fault.verdict}: {fault.detail}")
            return relay.fault(str(fault.verdict), fault.detail)
        self.decisions += 1
        return relay.reply(time.perf_counter_ns() - started, reply)

    async def _send(self, stream: trio.abc.Stream, line: bytes) -> None:
        try:
            await self._wire.send(line)
        except trio.BrokenResourceError:
            raise ConnectError("the server closed the connection") from None
