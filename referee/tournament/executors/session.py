"""The executor of games whose bots live for the whole tournament (dice poker, Liar's
Dice): one worker holds every bot and plays each round with up to ``concurrency``
matches at once (:mod:`referee.tournament.session`); it is pinned to one core when it
plays one match at a time."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import trio

from referee.tournament import wire
from referee.tournament.executors._abc import Handler
from referee.tournament.executors.health import WorkerHealth
from referee.tournament.workers import Worker, WorkerLost, usable_cores


class SessionExecutor:
    """One worker holding every bot for the whole tournament (module docstring), opened
    with ``opening`` (its bots, configuration and slots: matches at once)."""

    def __init__(self, opening: wire.OpenSession, log_dir: Path) -> None:
        self.concurrency = opening.slots
        core = usable_cores()[0] if self.concurrency == 1 else None
        self._worker = Worker(0, core, log_dir / "worker-session.log")
        self._opening = opening

    async def play(self, batch: Sequence[wire.RoundMatch], handle: Handler) -> None:
        """Play one round of matches (each with its games per slice, or None, and the
        games a resumed match already holds)."""
        worker = self._worker
        if not worker.running:
            if worker.proc is not None:
                raise WorkerLost(f"the session's worker ended ({worker.exit_note()})")
            worker.spawn()
            await worker.send(self._opening)
        await worker.send(wire.PlayRound(list(batch)))
        while True:
            message = await worker.receive()
            if isinstance(message, wire.RoundDone):
                return
            handle(message)

    async def close(self, handle: Handler | None = None) -> None:
        with trio.CancelScope(shield=True):
            if self._worker.proc is not None:
                await self._worker.stop(handle)

    def health(self) -> dict[str, WorkerHealth]:
        return {}  # local workers: the store's events say what they played
