"""The executor interface: what the tournament's runner (and `referee arena`) plays
matches through, in the style of trio's ``_abc.py`` — one protocol, implemented by

* :class:`~.local.MatchExecutor` — local worker processes, one whole match at a time each;
* :class:`~.session.SessionExecutor` — one local worker holding every bot for the whole
  tournament, playing rounds;
* :class:`~.cluster.ClusterExecutor` — whole matches as Dask tasks;
* :class:`~.cluster_session.ClusterSessionExecutor` — the session on one Dask worker.

A batch is a list of :class:`~referee.tournament.wire.RoundMatch`: a match's key and
spec, its games per slice (``None``: the whole match; only a session interleaves) and
the games a resumed match already holds (only a session goes on after them).  Every
message of a match reaches ``handle`` (the runner's :meth:`~..runner.Runner.handle`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from referee.tournament import wire
from referee.tournament.executors.health import WorkerHealth

Handler = Callable[[wire.ToParent], None]


class Executor(Protocol):
    """Plays batches of matches; closed once, at the end of the run."""

    #: How many matches it plays at once.
    concurrency: int

    async def play(self, batch: Sequence[wire.RoundMatch], handle: Handler) -> None:
        """Play every match of ``batch``, handing each of their messages to ``handle``;
        WorkerLost when it cannot go on."""
        ...

    async def close(self, handle: Handler | None = None) -> None:
        """Stop: the matches in progress end cleanly (their last messages to ``handle``),
        the workers are reaped."""
        ...

    def health(self) -> Mapping[str, WorkerHealth]:
        """Per worker (by address), what it played and its forfeits: the store's
        ``worker`` events (docs/cluster.md); empty for local workers."""
        ...
