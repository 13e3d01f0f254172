"""``run_match(spec)``: a whole match from pure data, in a trio run of its own — the
unit a process pool or a cluster worker receives."""

from __future__ import annotations

import shutil
from collections.abc import Sequence

import trio

from referee.core.records import MatchRecord
from referee.games import get as get_game
from referee.match.engine import Match
from referee.match.spec import MatchSpec
from referee.seats import SeatFactory
from referee.sinks._abc import Sink


def run_match(
    spec: MatchSpec, *, sinks: Sequence[Sink] = (), seat_factory: SeatFactory | None = None
) -> MatchRecord:
    """Play the match ``spec`` describes, start to end.

    The same spec with deterministic bots gives the same games: the same ``--log``
    lines, byte for byte (the record's CPU and latency figures are measurements).
    ``sinks`` receive the records besides the files the spec names (a
    :class:`~referee.sinks.collect.Collector` keeps every game).  Raises
    :class:`~referee.match.MatchError` if the match cannot be played.
    """
    game = get_game(spec.config.game)(**spec.config.options)
    match = Match(game, spec.bots, spec.config, sinks=sinks, seat_factory=seat_factory)
    try:
        return trio.run(match.run)
    finally:
        if spec.config.stderr_dir is None:  # the default one is temporary
            shutil.rmtree(match.stderr_dir, ignore_errors=True)
