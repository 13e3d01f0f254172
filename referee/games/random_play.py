"""A random player for every game, and a plain loop that plays a game to its end.

Both use only the :class:`~referee.games.base.GameState` interface — the rules' calls
and the enumeration (``legal_actions``, ``encode``) — so every game in
:mod:`referee.games` has them without a line of its own.  They are not on the match
path: the conformance tests (tests/test_game_conformance.py), the PettingZoo
environments (:mod:`referee.envs`) and anyone who wants random games in-process use them.

:class:`RandomPlayer` is not a bot: it reads the legal actions off the state rather than
off a request line.  It knows nothing a seat's bot is not told (which actions are legal
depends only on what the seat sees), and it answers in the game's wire format: its
reply is the line a bot would send, which goes through ``decode`` like a bot's.  The
per-game random *bots* that ``referee check`` plays against (``Game.check_opponent``)
remain separate programs that read the protocol themselves.

:func:`play_out` drives a state as :mod:`referee.match.engine` does, without processes:
information lines drained, one seat asked at a time, a simultaneous step asked of all
its seats against the same state and played with ``apply_joint``, every reply decoded
and judged, a faulty one penalised.  :func:`play_step` is its last part, one step's
outcomes played (the PettingZoo environments play their steps with it too).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.core.verdict import ProtocolError, Verdict
from referee.games.base import GameState

#: A player: given the state and a seat to act, the reply line (with or without its
#: newline), or a :class:`Verdict` to be penalised for instead (a timeout, a crash...).
Chooser = Callable[[GameState, int], bytes | Verdict]


class RandomPlayer:
    """Uniformly random legal play, from its own :class:`random.Random`."""

    def __init__(self, rng: random.Random | int | None = None) -> None:
        self.rng = rng if isinstance(rng, random.Random) else random.Random(rng)

    def action(self, state: GameState, seat: int) -> Any:
        """A legal action of ``seat``, uniformly among ``state.legal_actions(seat)``."""
        legal = state.legal_actions(seat)
        if not legal:
            raise ValueError(f"seat {seat} has no decision to make")
        return legal[self.rng.randrange(len(legal))]

    def reply(self, state: GameState, seat: int) -> bytes:
        """The reply line (with its newline) for a random legal action."""
        return state.encode(seat, self.action(state, seat))

    __call__ = reply


@dataclass
class Played:
    """What :func:`play_out` saw: decisions asked, and every line in order."""

    decisions: int = 0
    #: ``(seat, kind, line)``: kind ``"tell"`` (an information line), ``"ask"`` (a
    #: request), ``"reply"``, or ``"fault"`` (the verdict's name as the line).
    lines: list[tuple[int, str, bytes]] = field(default_factory=list)
    #: ``(seat, verdict)`` of every penalty, in order.
    penalties: list[tuple[int, Verdict]] = field(default_factory=list)


def _judge(state: GameState, seat: int, answer: bytes | Verdict, played: Played) -> Any | Verdict:
    """A legal action, or the verdict the answer earns."""
    if isinstance(answer, Verdict):
        played.lines.append((seat, "fault", answer.value.encode()))
        return answer
    played.lines.append((seat, "reply", answer))
    try:
        action = state.decode(seat, answer.removesuffix(b"\n"))
    except ProtocolError:
        return Verdict.PROTOCOL
    if state.illegal(seat, action) is not None:
        return Verdict.ILLEGAL
    return action


def play_step(state: GameState, outcomes: dict[int, Any]) -> None:
    """Play one step: ``outcomes`` maps every seat of ``to_act()`` to its legal action, or
    to the :class:`Verdict` it is penalised for instead — ``apply`` or ``penalize`` for
    one seat, ``apply_joint`` for a simultaneous step."""
    if len(outcomes) == 1:
        ((seat, outcome),) = outcomes.items()
        if isinstance(outcome, Verdict):
            state.penalize(seat, outcome)
        else:
            state.apply(seat, outcome)
        return
    actions = {seat: a for seat, a in outcomes.items() if not isinstance(a, Verdict)}
    penalties = {seat: v for seat, v in outcomes.items() if isinstance(v, Verdict)}
    state.apply_joint(actions, penalties)


def play_out(
    state: GameState,
    players: Chooser | list[Chooser] | None = None,
    *,
    max_decisions: int = 1_000_000,
) -> Played:
    """Play ``state`` to its end: each seat's decisions by ``players[seat]`` (one chooser
    for every seat, or a :class:`RandomPlayer` seeded 0 when None).

    Raises :class:`RuntimeError` after ``max_decisions`` decisions (a simultaneous step
    counts once) if the game has not ended.
    """
    if players is None:
        players = RandomPlayer(0)
    choosers = players if isinstance(players, list) else None
    played = Played()
    while True:
        played.lines.extend((event.seat, "tell", event.line) for event in state.drain_events())
        if state.is_terminal():
            return played
        if played.decisions >= max_decisions:
            raise RuntimeError(f"the game did not end within {max_decisions} decisions")
        actors = list(state.to_act())
        if not actors:
            raise RuntimeError("a game that is not over has nobody to act")
        played.decisions += 1
        lines = {seat: state.request(seat) for seat in actors}
        outcomes: dict[int, Any] = {}
        for seat in actors:  # all asked against the same state: nothing is applied yet
            played.lines.append((seat, "ask", lines[seat]))
            choose = choosers[seat] if choosers is not None else players
            assert callable(choose)
            outcomes[seat] = _judge(state, seat, choose(state, seat), played)
        played.penalties.extend((seat, v) for seat, v in outcomes.items() if isinstance(v, Verdict))
        play_step(state, outcomes)
