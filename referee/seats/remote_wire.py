"""Bytes in and out of a relay connection, cheaply.

A remote decision crosses the connection twice, and trio's stream methods take a
scheduling checkpoint on every call (a trip through the run loop, tens of µs).  On a
plain TCP connection :class:`Wire` reads and writes the socket's descriptor directly
and waits only when the kernel has nothing to give or no room to take, as the local
bots' pipes do (referee/seats/process/lines.py); every :data:`YIELD_EVERY` calls that
did not wait it yields anyway, so a peer that floods cannot starve the other tasks.
A TLS connection goes through the stream's own methods.
"""

from __future__ import annotations

import os

import trio

from referee.seats.process.fastpath import exchange

#: Calls that found data (or room) at once, after which a checkpoint is taken anyway.
YIELD_EVERY = 32
_READ = 65536


class Wire:
    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self._fd = stream.socket.fileno() if isinstance(stream, trio.SocketStream) else -1
        self._calls = 0
        #: Whether :meth:`exchange` may be used (a plain socket, and the C fast path
        #: built): read on every remote decision, so set once.
        self.fast = self._fd >= 0 and exchange is not None

    async def receive(self) -> bytes:
        """Some bytes, ``b""`` at the end of the stream (or when it broke)."""
        if self._fd < 0:
            try:
                # bytes as they are (no copy); a TLS stream's bytearray as bytes
                return bytes(await self.stream.receive_some(_READ))
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                return b""
        # The yield comes first: what is read is returned at once, with no await between
        # (a seat's fast path may read the same socket while this task sleeps).
        await self._now_and_then()
        while True:
            try:
                return os.read(self._fd, _READ)
            except BlockingIOError:
                try:
                    await trio.lowlevel.wait_readable(self._fd)
                except trio.ClosedResourceError:
                    return b""
                self._calls = 0
            except OSError:
                return b""

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

    def exchange(self, data: bytes, max_line: int, wait_ns: int) -> bytes | int | tuple[int, bytes]:
        """Write ``data`` and read the peer's answer if it comes within ``wait_ns``, in one
        C call that holds the trio loop at most that long (the local bots' fast path,
        :func:`referee.seats.process.fastpath.exchange`, which gives the results): bytes,
        one whole line; an int, what was written (nothing read); (written, chunk),
        whatever else was read."""
        assert exchange is not None
        return exchange(self._fd, self._fd, data, max_line, None, wait_ns)

    async def _now_and_then(self) -> None:
        self._calls += 1
        if self._calls >= YIELD_EVERY:
            self._calls = 0
            await trio.lowlevel.checkpoint()
