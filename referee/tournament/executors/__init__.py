"""The executors: how a tournament's matches are played — on local worker processes or
a Dask cluster, whole matches or a session's rounds — behind one interface
(:class:`~._abc.Executor`), and :func:`choose`, which picks the one a run needs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from referee.core.botspec import BotSpec
from referee.match.spec import MatchConfig
from referee.tournament import wire
from referee.tournament.executors._abc import Executor, Handler


def choose(
    *,
    per_tournament: bool,
    cluster: str | None,
    bots: list[BotSpec],
    session_config: MatchConfig,
    concurrency: int,
    out: Path,
    hashes: Callable[[], dict[str, str]],
    ship_bots: bool = False,
) -> Executor:
    """The executor for a run: a session's (bots for the whole tournament) or whole
    matches', on local workers or on the ``cluster`` at that address.  ``hashes`` gives
    the bots' content hashes, which a cluster's workers check."""
    if per_tournament:
        opening = wire.OpenSession(
            bots=bots, config=session_config, stderr_dir=str(out / "stderr"), slots=concurrency
        )
        if cluster is not None:
            # The session, every bot in it, on one worker of the cluster for the tournament.
            from referee.tournament.cluster import LOG_NAME
            from referee.tournament.executors.cluster_session import ClusterSessionExecutor

            return ClusterSessionExecutor(cluster, opening, hashes(), skip=(str(out),), log=out / LOG_NAME)
        from referee.tournament.executors.session import SessionExecutor

        return SessionExecutor(opening, out / "workers")
    if cluster is not None:
        from referee.tournament.cluster import LOG_NAME
        from referee.tournament.executors.cluster import ClusterExecutor

        return ClusterExecutor(cluster, hashes(), skip=(str(out),), ship=ship_bots, log=out / LOG_NAME)
    from referee.tournament.executors.local import MatchExecutor

    return MatchExecutor(concurrency, out / "workers")


__all__ = ["Executor", "Handler", "choose"]
