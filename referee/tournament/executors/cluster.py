"""The executor of whole matches on a Dask cluster (``--cluster``, docs/cluster.md):
each match a task that checks its bots' hashes and plays it with the tournament
worker's own loop; the results taken in schedule order, each worker's figures tallied."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import trio

from referee.tournament import cluster as dask_side
from referee.tournament import wire
from referee.tournament.cluster import (
    BotMismatch,
    ClusterError,
    Pinning,
    one_line,
)
from referee.tournament.executors._abc import Handler
from referee.tournament.executors.health import WorkerHealth


class ClusterExecutor:
    """Plays whole matches as Dask tasks (:mod:`referee.tournament.cluster`)."""

    def __init__(
        self,
        address: str,
        hashes: dict[str, str],
        skip: tuple[str, ...] = (),
        ship: bool = False,
        log: Path | None = None,
    ) -> None:
        self.hashes = hashes
        self.skip = skip
        self.client = dask_side.connect(address, log)
        self.ship = ship
        #: --ship-bots: each bot's files, sent to every worker once (Dask's broadcast).
        self.shipped: dict[str, Any] = {}
        self._health: dict[str, WorkerHealth] = {}
        try:
            self.concurrency = max(1, sum(self.client.nthreads().values()))
        except Exception as exc:  # the scheduler lost since connect() reached it
            dask_side.close_client(self.client)
            raise ClusterError(f"--cluster {address}: cannot reach the scheduler: {one_line(exc)}") from None

    async def play(self, batch: Sequence[wire.RoundMatch], handle: Handler) -> None:
        """Play every match; their messages reach ``handle`` in the order given."""
        matches = [(m.key, m.spec) for m in batch]
        if self.ship:
            for _, spec in matches:
                for bot in spec.bots:
                    if bot.name not in self.shipped:
                        packed = dask_side.pack_bot(bot, self.skip)
                        try:
                            self.shipped[bot.name] = self.client.scatter(packed, broadcast=True)
                        except Exception as exc:  # the scheduler lost, or no worker to take it
                            raise ClusterError(
                                f"bot {bot.name} could not be sent to the workers: {one_line(exc)}"
                            ) from None
        futures = [
            self.client.submit(
                dask_side.play_match_task,
                key,
                msgspec.msgpack.encode(spec),
                {b.name: self.hashes[b.name] for b in spec.bots if b.name in self.hashes},
                self.skip,
                {b.name: self.shipped[b.name] for b in spec.bots if b.name in self.shipped} or None,
                key=f"referee-match-{key}",
                pure=False,
            )
            for key, spec in matches
        ]
        try:
            for future in futures:
                try:
                    address, pinning, encoded = await trio.to_thread.run_sync(
                        future.result, abandon_on_cancel=True
                    )
                except BotMismatch:
                    raise
                except Exception as exc:  # the task's own error, re-raised by Dask; or a lost scheduler
                    raise ClusterError(f"a match failed on the cluster: {one_line(exc)}") from None
                messages = msgspec.msgpack.decode(encoded, type=list[wire.ToParent])
                for message in messages:
                    handle(message)
                self._tally(address, pinning, messages)
        finally:
            pending = [f for f in futures if not f.done()]
            if pending:
                self.client.cancel(pending)

    def _tally(self, address: str, pinning: Pinning, messages: list[wire.ToParent]) -> None:
        health = self._health.setdefault(address, WorkerHealth())
        health.core, health.unpinned = pinning.core, pinning.why
        for message in messages:
            if isinstance(message, wire.Closed):
                health.matches += 1
                for bot in message.record.players:
                    health.decisions += bot.decisions
                    for verdict, count in bot.forfeits.items():
                        health.forfeits[verdict] = health.forfeits.get(verdict, 0) + count

    async def close(self, handle: Handler | None = None) -> None:
        await trio.to_thread.run_sync(dask_side.close_client, self.client)

    def health(self) -> dict[str, WorkerHealth]:
        return self._health
