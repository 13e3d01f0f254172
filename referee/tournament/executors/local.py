"""The executor of games whose bots are started per match (Yahtzee, Bidding Wars,
Hold'em): ``concurrency`` worker processes, worker *i* pinned to usable core *i mod
cores* (its matches' bots with it: a wake-up across cores costs ~55 µs, on one core
~2 µs), each playing one whole match at a time.  Matches are handed out in schedule
order as workers come free."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import trio

from referee.tournament import wire
from referee.tournament.executors._abc import Handler
from referee.tournament.executors.health import WorkerHealth
from referee.tournament.workers import Worker, usable_cores


class MatchExecutor:
    """``concurrency`` workers, each playing one whole match at a time (module docstring)."""

    def __init__(self, concurrency: int, log_dir: Path) -> None:
        cores = usable_cores()
        self.concurrency = concurrency
        self._workers = [
            Worker(i, cores[i % len(cores)], log_dir / f"worker-{i + 1}.log") for i in range(concurrency)
        ]

    async def play(self, batch: Sequence[wire.RoundMatch], handle: Handler) -> None:
        """Play every match, ``concurrency`` at a time, in the order given.

        Each worker is given its next match as soon as it starts the current one, so it
        goes from one match to the next without waiting for the parent to store the last
        (the worker plays them one after the other; the order and the results are the same).
        """
        queue = [(m.key, m.spec) for m in reversed(batch)]

        async def serve(worker: Worker) -> None:
            given: list[str] = []
            while queue or given:
                if not given:
                    key, spec = queue.pop()
                    if not worker.running:
                        worker.spawn()
                    await worker.send(wire.PlayMatch(key, spec))
                    given.append(key)
                message = await worker.receive()
                handle(message)
                if isinstance(message, wire.Opened) and message.key == given[-1] and queue:
                    key, spec = queue.pop()
                    await worker.send(wire.PlayMatch(key, spec))
                    given.append(key)
                elif isinstance(message, wire.Closed) and message.key in given:
                    given.remove(message.key)

        async with trio.open_nursery() as nursery:
            for worker in self._workers[: max(1, min(self.concurrency, len(batch)))]:
                nursery.start_soon(serve, worker)

    async def close(self, handle: Handler | None = None) -> None:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for worker in self._workers:
                    if worker.proc is not None:
                        nursery.start_soon(worker.stop, handle)

    def health(self) -> dict[str, WorkerHealth]:
        return {}  # local workers: the store's events say what they played
