"""A match's evidence (per-deal sufficient statistics) and its sequential test.

Matches run on in-process seats (``referee.seats.inprocess``): hundreds of dice-poker
deals in a fraction of a second.  Dice poker (seed 000): "0" folds, "1" raises or calls.
"""

from __future__ import annotations

import random

import pytest
import trio

from protocol import dice_poker as wire
from referee import games
from referee.core.botspec import BotSpec
from referee.core.records import GameRecord
from referee.match import Match, MatchConfig, MatchError
from referee.match.evidence import EvidenceTally, evidence_of, score_rate
from referee.seats.inprocess import InProcessSeat
from referee.sinks.collect import Collector
from referee.stats.intervals import Moments
from referee.stats.sprt import parse_sprt


def _folder(p: float, seed: int):
    """Folds with probability ``p``, else raises or calls."""
    rng = random.Random(seed)
    return lambda line: "0" if rng.random() < p else "1"


def _match(players: dict, games_count: int, **config) -> tuple[Match, list[GameRecord]]:
    collector = Collector()
    match = Match(
        games.get("dice-poker")(),
        [BotSpec(name=name, argv=["(in process)"], home=".") for name in players],
        MatchConfig(game="dice-poker", games=games_count, seed=11, pin=False, **config),
        seat_factory=InProcessSeat.factory(players),
        sinks=[collector],
    )
    trio.run(match.run)
    return match, collector.games


def _moments(values: list[float]) -> Moments:
    m = Moments()
    for v in values:
        m.push(v)
    return m


def test_two_seat_evidence_is_the_per_game_figures_when_each_deal_is_one_game():
    match, records = _match({"a": _folder(0.1, 1), "b": _folder(0.3, 2)}, 300)
    ev = match.result().evidence
    assert ev is not None and ev.games_per_unit == 1 and ev.units == 300
    for position, name in enumerate(("a", "b")):
        mine = [r.scores[r.seats.index(name)] for r in records]
        expected = _moments(mine)
        got = ev.scores[position]
        assert got.n == expected.n
        assert got.total == pytest.approx(expected.total)
        assert got.total_sq == pytest.approx(expected.total_sq)
    # The edge: half a's score minus b's, per deal.
    edges = [(r.scores[r.seats.index("a")] - r.scores[r.seats.index("b")]) / 2 for r in records]
    assert ev.edge is not None and ev.edge.n == 300
    assert ev.edge.total == pytest.approx(sum(edges))
    assert ev.edge.total_sq == pytest.approx(sum(e * e for e in edges))
    # points[k]: deals in which a scored k half-points — 2 a win, 1 a draw, 0 a loss.
    a = match.result().player("a")
    assert ev.points == [a.losses, a.draws, a.wins]
    assert score_rate(ev).mean == pytest.approx((a.wins + a.draws / 2) / 300)


def test_duplicate_units_are_deals_of_two_games():
    match, records = _match({"a": _folder(0.1, 1), "b": _folder(0.3, 2)}, 300, duplicate=True)
    ev = match.result().evidence
    assert ev is not None and ev.games_per_unit == 2 and ev.units == 150
    assert sum(ev.points) == 150 and len(ev.points) == 5
    # A unit's value is the bot's mean score per game over the deal's two games.
    by_deal: dict[int, list[float]] = {}
    for r in records:
        by_deal.setdefault(r.deal, []).append(r.scores[r.seats.index("a")])
    expected = _moments([sum(v) / len(v) for v in by_deal.values()])
    assert ev.scores[0].total == pytest.approx(expected.total)
    assert ev.scores[0].total_sq == pytest.approx(expected.total_sq)
    # Dice poker is zero-sum: both bots' unit means mirror each other, and the edge is a's own.
    assert ev.scores[1].total == pytest.approx(-ev.scores[0].total)
    assert ev.edge is not None and ev.edge.total == pytest.approx(ev.scores[0].total)


def test_rebuilding_from_stored_games_gives_the_same_evidence():
    """What standings do for a record written before matches kept evidence."""
    match, records = _match({"a": _folder(0.2, 3), "b": _folder(0.2, 4)}, 101, duplicate=True)
    assert evidence_of(records, 2, 2) == match.result().evidence


def test_a_unit_cut_short_is_kept_apart():
    tally = EvidenceTally(2, 2)
    for game, (rotation, ranks) in enumerate([(0, [1, 2]), (1, [1, 2]), (0, [1, 1])]):
        tally.add(GameRecord(game, game // 2, rotation, 0, ["a", "b"], [1.0, -1.0], ranks))
    ev = tally.result()
    # Deal 0: a won then lost (seats swapped): 2 half-points; deal 1 cut short after a draw.
    assert ev.points == [0, 0, 1, 0, 0]
    assert ev.partial == [1, 1]
    assert ev.units == 2
    # result() does not close the unit: a later game completes it.
    tally.add(GameRecord(3, 1, 1, 0, ["b", "a"], [1.0, -1.0], [2, 1]))
    assert tally.result().points == [0, 0, 1, 1, 0] and tally.result().partial is None


def test_multi_seat_placements_are_finishing_orders_by_lineup_position():
    tally = EvidenceTally(3, 1)
    # Rotation 1: seat s is lineup bot (s + 1) % 3, so seats (0, 1, 2) are bots (1, 2, 0).
    tally.add(GameRecord(0, 0, 1, 0, ["b", "c", "a"], [0.0, 5.0, 5.0], [3, 1, 1]))
    tally.add(GameRecord(1, 1, 2, 0, ["c", "a", "b"], [1.0, 2.0, 3.0], [3, 2, 1]))
    tally.add(GameRecord(2, 2, 1, 0, ["b", "c", "a"], [0.0, 5.0, 5.0], [3, 1, 1]))
    ev = tally.result()
    assert ev.units == 3
    assert sorted(ev.placements) == sorted([([[[0, 2], [1]]], 2), ([[[1], [0], [2]]], 1)])
    assert ev.scores[0].n == 3 and ev.scores[0].total == pytest.approx(5 + 2 + 5)


def test_the_sprt_ends_a_match_as_soon_as_it_decides():
    """A bot that never folds against one that folds 90 % of the time wins chips in
    most deals: a test of mean0 = 0 against mean1 = 0.5 chips per game (dice poker
    ranks by chips) accepts H1 long before 20,000 games."""
    spec = parse_sprt("mean0=0 mean1=0.5 alpha=0.05 beta=0.05")
    match, records = _match({"a": _folder(0.0, 1), "b": _folder(0.9, 2)}, 20_000, duplicate=True, sprt=spec)
    result = match.result()
    assert result.completed and result.stopped is None
    assert result.sprt is not None and result.sprt.decision == "H1"
    assert result.sprt.statistics == "normal" and result.sprt_bot == "a"
    assert result.games_played < 2000 and result.games_played % 2 == 0  # whole pairs only
    assert result.sprt.llr >= result.sprt.upper
    assert len(records) == result.games_played == result.sprt.games
    # The test's estimate is the table's: a's mean chips per game.
    chips = sum(r.scores[r.seats.index("a")] for r in records) / len(records)
    assert result.sprt.mean == pytest.approx(chips)


def test_the_sprt_tests_the_named_bot():
    """The same two bots, the test about the weak one: H0 (it is not stronger)."""
    spec = parse_sprt("mean0=0 mean1=0.5")
    match, _ = _match({"a": _folder(0.0, 1), "b": _folder(0.9, 2)}, 20_000, sprt=spec, sprt_bot="b")
    result = match.result()
    assert result.sprt is not None and result.sprt.decision == "H0"
    assert result.sprt.statistics == "normal" and result.sprt_bot == "b"
    assert result.games_played < 2000


def _tight(line: str) -> str:
    """Plays (raises or calls) only with a 5 or a 6, folds otherwise: it loses the blind
    in two deals of three and wins big pots in the rest."""
    message = wire.parse_message(line)
    return "1" if message.is_request and message.d >= 5 else "0"


def test_the_sprt_agrees_with_the_chips_not_the_deals_won():
    """The issue: "--sprt on a chips game contradicts the table" — it counted deals won.
    The tight bot wins about a quarter of the deals against one that always plays, and
    about 0.7 chips a deal: the test accepts it as better, as the table ranks it."""
    spec = parse_sprt("mean0=0 mean1=0.1")
    match, _ = _match({"tight": _tight, "loose": _folder(0.0, 3)}, 40_000, duplicate=True, sprt=spec)
    result = match.result()
    tight = result.player("tight")
    assert tight.wins < tight.losses  # behind on deals won...
    assert tight.mean_score > 0  # ...ahead on chips
    assert result.sprt is not None and result.sprt.decision == "H1"
    assert result.games_played < 40_000


def test_an_elo_sprt_is_refused_for_a_game_ranked_by_chips():
    with pytest.raises(MatchError, match=r'ranks bots by score.*"mean0=0 mean1=0\.1"'):
        _match({"a": _folder(0.0, 1), "b": _folder(0.9, 2)}, 100, sprt=parse_sprt("elo0=0 elo1=5"))


def _crashes(line: str) -> str:
    raise RuntimeError("cannot import protocol")


def test_a_deal_in_which_no_seat_made_a_legal_decision_counts_for_nobody():
    """Issue 25, item 3: two bots that never answer won ~2,600 deals each from each
    other's forfeits.  A deal with no legal decision is a tie at zero: no wins, no chips —
    once nothing but failures is known of the seat not asked.  (In-process seats cannot
    tell that a bot ended unasked: in the first deal, the bot not asked had failed nothing
    yet, and takes that deal, and no other.  A process that has exited is known.)"""
    match, records = _match({"a": _crashes, "b": _crashes}, 200, keep_going=True)
    result = match.result()
    assert all(r.scores == [0.0, 0.0] and r.ranks == [1, 1] for r in records[1:])
    for p in result.players:
        assert p.wins + p.losses <= 1 and p.decisions == 0


def test_a_deal_counts_when_one_seat_decided():
    """Against a bot that never answers, a bot that plays wins every deal: those where it
    decided (it raised, the dead bot folded: +2) and those the dead bot had to open and
    failed before it was asked anything (+1).  Only a deal before the live bot's first
    answer (it had never answered, as far as the deal shows) is void."""
    match, _records = _match({"live": _folder(0.0, 1), "dead": _crashes}, 200, keep_going=True)
    live, dead = match.result().player("live"), match.result().player("dead")
    assert live.losses == 0 and live.draws <= 1 and live.wins == 200 - live.draws
    assert dead.wins == 0
