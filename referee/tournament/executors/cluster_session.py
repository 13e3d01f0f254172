"""The executor of games whose bots live for the whole tournament, on a Dask cluster:
the session, every bot in it, on one worker for the tournament (an actor), playing each
round there."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

import msgspec
import trio

from referee.tournament import cluster as dask_side
from referee.tournament import wire
from referee.tournament.cluster import (
    BotMismatch,
    ClusterError,
    one_line,
)
from referee.tournament.executors._abc import Handler
from referee.tournament.executors.health import WorkerHealth


class ClusterSessionExecutor:
    """The session on one Dask worker (an actor: :class:`~referee.tournament.cluster.SessionActor`)."""

    def __init__(
        self,
        address: str,
        opening: wire.OpenSession,
        hashes: dict[str, str],
        skip: tuple[str, ...] = (),
        log: Path | None = None,
    ) -> None:
        self.client = dask_side.connect(address, log)
        self.concurrency = opening.slots
        future = self.client.submit(
            dask_side.SessionActor, wire.encode(opening), hashes, skip, actor=True, pure=False
        )
        try:
            self.actor = future.result()
        except Exception as exc:
            dask_side.close_client(self.client)  # no executor to close it
            if isinstance(exc, BotMismatch):
                raise
            raise ClusterError(f"the session could not start on the cluster: {one_line(exc)}") from None

    async def play(self, batch: Sequence[wire.RoundMatch], handle: Handler) -> None:
        frame = wire.encode(wire.PlayRound(list(batch)))
        try:
            encoded = await trio.to_thread.run_sync(
                lambda: self.actor.play_round(frame).result(), abandon_on_cancel=True
            )
        except ClusterError:
            raise
        except Exception as exc:
            raise ClusterError(f"a round failed on the cluster: {one_line(exc)}") from None
        messages = msgspec.msgpack.decode(encoded, type=list[wire.ToParent])
        for message in messages:
            handle(message)

    async def close(self, handle: Handler | None = None) -> None:
        def end() -> None:
            with contextlib.suppress(Exception):
                self.actor.close().result()
            dask_side.close_client(self.client)

        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(end)

    def health(self) -> dict[str, WorkerHealth]:
        return {}  # one worker, the session's: its figures are the tournament's
