"""Bytes in and out of a relay connection, cheaply.

A remote decision crosses the connection twice, and trio's stream methods take a
scheduling checkpoint on every call (a trip through the run loop, tens of µs).  On a
plain TCP connection :class:`Wire` reads and writes the socket's descriptor directly
and waits only when the kernel has nothing to give or no room to take, as the local
bots' pipes do (referee/seats/process/bot.py); every :data:`YIELD_EVERY` calls that
did not wait it yields anyway, so a peer that floods cannot starve the other tasks.
A TLS connection goes through the stream's own methods.
"""

from __future__ import annotations

import os

import trio

#: Calls that found data (or room) at once, after which a checkpoint is taken anyway.
YIELD_EVERY = 32
_READ = 65536


class Wire:
    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self._fd = stream.socket.fileno() if isinstance(stream, trio.SocketStream) else -1
        self._calls = 0

    async def receive(self) -> bytes:
        """Some bytes, ``b""`` at the end of the stream (or when it broke)."""
        if self._fd < 0:
            try:
                return await self.stream.receive_some(_READ)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                return b""
        while True:
            try:
                data = os.read(self._fd, _READ)
            except BlockingIOError:
                try:
                    await trio.lowlevel.wait_readable(self._fd)
                except trio.ClosedResourceError:
                    return b""
                self._calls = 0
                continue
            except OSError:
                return b""
            await self._now_and_then()
            return data

    async def send(self, data: bytes) -> None:
        """Send all of ``data``; raises :class:`trio.BrokenResourceError` if the peer is gone."""
        if self._fd < 0:
            try:
                await self.stream.send_all(data)
            except (trio.ClosedResourceError, OSError) as exc:
                raise trio.BrokenResourceError(str(exc)) from None
            return
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._fd, view) :]
            except BlockingIOError:
                try:
                    await trio.lowlevel.wait_writable(self._fd)
                except trio.ClosedResourceError:
                    raise trio.BrokenResourceError("the connection is closed") from None
                self._calls = 0
            except OSError as exc:
                raise trio.BrokenResourceError(exc.strerror or str(exc)) from None
        await self._now_and_then()

    async def _now_and_then(self) -> None:
        self._calls += 1
        if self._calls >= YIELD_EVERY:
            self._calls = 0
            await trio.lowlevel.checkpoint()
