"""``referee arena serve --cluster ADDRESS``: ladder matches as Dask tasks.

The same cluster as ``referee tournament --cluster`` (docs/cluster.md):
:func:`referee.tournament.cluster.connect` reaches the scheduler (``tcp://HOST:PORT``)
or starts a LocalCluster (``local`` or ``local:N``), and registers the plugin that pins
each worker process to a core of its own.  Each ladder match is one task,
:func:`play_task`: the match as pure data, played on the worker by the tournament
worker's own match loop, bounded there by ``ladder.match_wall_s`` — at the limit the
match is stopped as a tournament stops one, and its partial record comes back, so the
arena can charge the slow bot and the worker is free again at once.

Workers must see the arena's folder at the same path (a shared filesystem, or one
machine): they run the bots from ``DIR/bots`` and write the replays and stderr files
into ``DIR/logs`` and ``DIR/stderr``.  A worker checks each bot's files against the
content hash the arena took (:class:`~referee.tournament.cluster.BotMismatch` if they
differ: a stale copy).  Dask's own log lines go to ``DIR/cluster.log``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import trio

from referee.match.spec import MatchSpec
from referee.tournament import wire
from referee.tournament.cluster import BotMismatch, ClusterError, close_client, connect, one_line
from referee.tournament.executors import Handler

#: Bots this worker process has checked: (home, hash).
_checked: set[tuple[str, str]] = set()


def play_task(key: str, spec_bytes: bytes, hashes: dict[str, str], wall_s: float) -> tuple[str, bool, bytes]:
    """On a Dask worker: play one match, stopped at ``wall_s``; (the worker's address,
    whether it was stopped at the wall limit, its messages encoded)."""
    from distributed import get_worker

    from referee.seats.process import sandbox
    from referee.tournament.store import content_hash
    from referee.tournament.worker import _play_match

    try:
        address = get_worker().address
    except ValueError:  # not on a worker (called directly)
        address = "local"
    spec = msgspec.msgpack.decode(spec_bytes, type=MatchSpec)
    for bot in spec.bots:
        expected = hashes.get(bot.name)
        if expected is None or (bot.home, expected) in _checked:
            continue
        if content_hash(bot) != expected:
            raise BotMismatch(f"worker {address}: bot {bot.name} at {bot.home} differs from the arena's")
        _checked.add((bot.home, expected))
    sandbox.become_subreaper()
    messages: list[wire.ToParent] = []
    timed_out = False

    async def bounded() -> None:
        nonlocal timed_out
        stopping = trio.Event()
        async with trio.open_nursery() as nursery:

            async def timer() -> None:
                nonlocal timed_out
                await trio.sleep(wall_s)
                timed_out = True
                stopping.set()

            nursery.start_soon(timer)
            await _play_match(wire.PlayMatch(key, spec), messages.append, stopping)
            nursery.cancel_scope.cancel()

    trio.run(bounded)
    return address, timed_out, msgspec.msgpack.encode(messages)


#: How long past the wall limit the arena waits for a task to come back (the match is
#: stopped on the worker at the limit: this only covers a lost scheduler or worker).
RETURN_S = 120.0


class Cluster:
    """The arena's executor on a Dask cluster, shared by every ladder slot
    (a :class:`referee.arena.ladder.Slot`): the task bounds the match itself
    (:func:`play_task`)."""

    def __init__(self, address: str, log: Path | None = None) -> None:
        self.address = address
        self.client: Any = connect(address, log)
        self.hashes: dict[str, str] = {}
        try:
            self.concurrency = max(1, sum(self.client.nthreads().values()))
        except Exception as exc:  # the scheduler lost since connect() reached it
            close_client(self.client)
            raise ClusterError(f"--cluster {address}: cannot reach the scheduler: {one_line(exc)}") from None
        self.matches: dict[str, int] = {}

    def _hashes(self, spec: MatchSpec) -> dict[str, str]:
        from referee.tournament.store import content_hash

        out = {}
        for bot in spec.bots:
            if bot.argv[:1] == ["/bin/false"]:  # an unstartable stand-in: nothing to check
                continue
            ident = f"{bot.name}@{bot.home}"
            if ident not in self.hashes:
                self.hashes[ident] = content_hash(bot)
            out[bot.name] = self.hashes[ident]
        return out

    async def play_one(self, key: str, spec: MatchSpec, wall_s: float, handle: Handler) -> bool:
        """Play one match on the cluster; whether it was stopped at ``wall_s``.  Its
        messages reach ``handle`` when it is over; ClusterError (a WorkerLost) when it
        failed there or did not come back within ``wall_s`` + :data:`RETURN_S`."""
        hashes = await trio.to_thread.run_sync(self._hashes, spec, abandon_on_cancel=True)
        future = self.client.submit(
            play_task,
            key,
            msgspec.msgpack.encode(spec),
            hashes,
            wall_s,
            key=f"referee-arena-{key}",
            pure=False,
        )
        try:
            with trio.move_on_after(wall_s + RETURN_S) as scope:
                result = await trio.to_thread.run_sync(future.result, abandon_on_cancel=True)
        except BotMismatch as exc:
            raise ClusterError(str(exc)) from None
        except Exception as exc:  # the task's own error, or a lost scheduler
            raise ClusterError(f"the match failed on the cluster: {one_line(exc)}") from None
        finally:
            if not future.done():
                self.client.cancel([future])
        if scope.cancelled_caught:
            raise ClusterError(f"the cluster did not return the match within {wall_s + RETURN_S:g} s")
        address, stopped, encoded = result
        self.matches[address] = self.matches.get(address, 0) + 1
        for message in msgspec.msgpack.decode(encoded, type=list[wire.ToParent]):
            handle(message)
        return bool(stopped)

    async def close(self, handle: Handler | None = None) -> None:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(close_client, self.client)
