"""Standings from a results store (``referee.tournament.standings``), their files and
printout (``referee.tournament.report``) and ``referee standings DIR``.

Every store here is built directly with the Store API from synthetic games whose
answers are worked out by hand in each test: no bot runs, so the module takes about
a second.  A match's figures are made from its games by the match's own scoreboard
(``tally_game``), as a real match makes them.
"""

from __future__ import annotations

import argparse
import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

import msgspec
import pytest
from rich.console import Console

from referee import games as game_registry
from referee.cli import standings as cli_standings
from referee.core.botspec import BotSpec
from referee.core.records import GameForfeit, GameRecord, MatchRecord
from referee.match import MatchConfig, MatchSpec
from referee.match.scoreboard import PlayerStats, tally_game
from referee.tournament import report
from referee.tournament.config import TournamentConfig
from referee.tournament.formats import DoubleElimination, MatchOutcome, Swiss, outcome
from referee.tournament.plan import Plan
from referee.tournament.standings import FAULT_DETAILS, Cache, Standings, StandingsError, compute
from referee.tournament.store import Store

# ---------------------------------------------------------------- building stores


def _game(
    i: int, lineup: Sequence[str], scores: Mapping[str, float], forfeits: Sequence[GameForfeit] = ()
) -> GameRecord:
    """Game ``i`` of a match: seats rotate one place per game; ranks follow the scores
    (higher is better, equal scores share a place)."""
    n = len(lineup)
    seats = [lineup[(s + i) % n] for s in range(n)]
    by_seat = [float(scores[b]) for b in seats]
    ranks = [1 + sum(other > mine for other in by_seat) for mine in by_seat]
    return GameRecord(
        game=i,
        deal=i,
        rotation=i % n,
        seed=i,
        seats=seats,
        scores=by_seat,
        ranks=ranks,
        forfeits=list(forfeits),
    )


def _record(
    game: str, lineup: Sequence[str], played: Sequence[GameRecord], cpu: float, restarts: Mapping[str, int]
) -> MatchRecord:
    """The match's record as the match would make it: the scoreboard over its games."""
    stats = {name: PlayerStats(name) for name in lineup}
    for record in played:
        tally_game(record, stats)
        for f in record.forfeits:
            counts = stats[f.player].forfeits
            counts[f.verdict] = counts.get(f.verdict, 0) + 1
    for name, s in stats.items():
        s.cpu_seconds = cpu
        s.peak_rss_bytes = 10 << 20
        s.restarts = restarts.get(name, 0)
    return MatchRecord(
        game=game,
        seed=0,
        games_requested=len(played),
        games_played=len(played),
        completed=True,
        referee_version="test",
        sandbox="test",
        players=[s.figures() for s in stats.values()],
    )


def _spec(game: str, lineup: Sequence[str]) -> MatchSpec:
    """A spec to store with the match (the standings never read it; a replay must give
    an equal one)."""
    bots = [BotSpec(name=name, argv=["bot"], home="/nonexistent") for name in lineup]
    return MatchSpec(bots=bots, config=MatchConfig(game=game))


def _play(
    store: Store,
    key: str,
    lineup: Sequence[str],
    results: Sequence[Mapping[str, float]],
    *,
    game: str = "yahtzee",
    forfeits: Mapping[int, Sequence[GameForfeit]] | None = None,
    cpu: float = 0.5,
    restarts: Mapping[str, int] | None = None,
    finish: bool = True,
) -> list[GameRecord]:
    """Play match ``key`` into the store: one game per entry of ``results`` (scores by
    bot), done (``finish``) or left running with its games committed."""
    forfeits = forfeits or {}
    played = [_game(i, lineup, scores, forfeits.get(i, ())) for i, scores in enumerate(results)]
    store.start_match(key, _spec(game, lineup))
    if finish:
        store.finish_match(key, _record(game, lineup, played, cpu, restarts or {}), played)
    else:
        store.add_games(key, played)
    return played


def _two(a: str, b: str, *pairs: tuple[float, float]) -> list[dict[str, float]]:
    """Games of ``a`` against ``b`` as (a's score, b's score) pairs."""
    return [{a: x, b: y} for x, y in pairs]


def _open(directory: Path, config: TournamentConfig) -> Store:
    return Store.open(directory, config, seed=config.seed)


def _standings(directory: Path, cache: Cache | None = None) -> Standings:
    with Store.read(directory) as reader:
        return compute(reader, cache)


def _ranks(s: Standings) -> dict[str, int]:
    return {row.bot: row.rank for row in s.rows}


def _forfeit(
    player: str, verdict: str, detail: str = "no reply in 1 s", reply: str | None = None
) -> GameForfeit:
    return GameForfeit(player=player, verdict=verdict, decision=2, detail=detail, reply=reply)


# ---------------------------------------------------------------- a Yahtzee round robin

WIN, LOSS, DRAW = 200.0, 100.0, 150.0


def _yahtzee_round_robin(directory: Path) -> None:
    """Four bots, two games a pair.  By games: a W4 D1 L1 (4.5 points), b W3 L3 (3), c
    W3 L3 (3), d W1 D1 L4 (1.5).  Every win scores 200, loss 100, draw 150 — so b and c
    are level on score too (900 each): they share rank 2, and d is 4th."""
    config = TournamentConfig(
        game="yahtzee", format="round-robin", field=["a", "b", "c", "d"], games=2, seed=5
    )
    results = {
        ("a", "b"): _two("a", "b", (WIN, LOSS), (WIN, LOSS)),
        ("a", "c"): _two("a", "c", (WIN, LOSS), (LOSS, WIN)),
        ("a", "d"): _two("a", "d", (WIN, LOSS), (DRAW, DRAW)),
        ("b", "c"): _two("b", "c", (WIN, LOSS), (WIN, LOSS)),
        ("b", "d"): _two("b", "d", (WIN, LOSS), (LOSS, WIN)),
        ("c", "d"): _two("c", "d", (WIN, LOSS), (WIN, LOSS)),
    }
    forfeits = {
        ("a", "b"): {0: [_forfeit("b", "timeout")]},
        ("b", "d"): {
            0: [_forfeit("b", "timeout"), _forfeit("d", "illegal", "no such box | 13", "Z|Z")],
            1: [_forfeit("b", "timeout"), _forfeit("b", "crash", "exit status 1")],
        },
    }
    with _open(directory, config) as store:
        plan = Plan(config, game_registry.get("yahtzee"))
        for p in plan.next({}) or []:
            first, second = sorted(p.bots)
            pair = (first, second)
            restarts = {"d": 1} if pair == ("a", "d") else None
            _play(store, p.key, p.bots, results[pair], forfeits=forfeits.get(pair), restarts=restarts)
        # Yahtzee's bots live per match (a pool records no restart events for them); an
        # event here must not count: the matches' own figures are the restarts.
        store.add_event("restart", "its process ended (exit status 1)", bot="d")


def test_round_robin_points_shared_ranks_and_summed_forfeits(tmp_path):
    _yahtzee_round_robin(tmp_path)
    s = _standings(tmp_path)
    rows = {r.bot: r for r in s.rows}
    assert [(r.rank, r.bot, r.points) for r in s.rows] == [
        (1, "a", 4.5),
        (2, "b", 3.0),
        (2, "c", 3.0),
        (4, "d", 1.5),
    ]
    assert (rows["a"].wins, rows["a"].draws, rows["a"].losses, rows["a"].games) == (4, 1, 1, 6)
    assert rows["a"].score == 4 * WIN + DRAW + LOSS and rows["a"].mean_score == pytest.approx(175.0)
    assert rows["b"].score == rows["c"].score == 900.0
    assert rows["d"].mean_rank == pytest.approx(
        (1 * 1 + 1 * 1 + 4 * 2) / 6
    )  # a win and a shared first: rank 1
    assert rows["b"].forfeits == {"crash": 1, "timeout": 3}  # summed over its matches
    assert rows["d"].forfeits == {"illegal": 1}
    assert rows["a"].cpu_seconds == pytest.approx(1.5) and rows["a"].matches == 3
    assert rows["d"].restarts == 1  # per-match bots: the matches' figures count, not events
    assert (rows["a"].match_wins, rows["a"].match_draws) == (2, 1) and (
        rows["b"].match_wins,
        rows["b"].match_draws,
        rows["b"].match_losses,
    ) == (1, 1, 1)
    t = s.tournament
    assert (t.stage, t.standing, t.matches_done, t.matches_total, t.games_stored) == (
        "finished",
        "wins",
        6,
        6,
        12,
    )
    assert t.games_provisional == 0 and not any(r.provisional_games for r in s.rows)
    # The crosstable: the row bot's games won-drawn-lost and net score against the column bot.
    cells = s.crosstable.cells
    assert s.crosstable.kind == "two-seat" and s.crosstable.bots == ["a", "b", "c", "d"]
    a_d = cells["a"]["d"]
    assert (a_d.wins, a_d.draws, a_d.losses, a_d.net_score, a_d.matches) == (1, 1, 0, 100.0, 1)
    d_a = cells["d"]["a"]
    assert (d_a.wins, d_a.draws, d_a.losses, d_a.net_score) == (0, 1, 1, -100.0)
    assert "a" not in cells["a"]
    # Faults: every forfeit counted, the first in full, in match then game order.
    faults = {f.bot: f for f in s.faults}
    assert list(faults) == ["b", "d"]
    assert faults["b"].forfeits == {"crash": 1, "timeout": 3} and len(faults["b"].details) == 4
    first = faults["b"].details[0]
    assert (first.verdict, first.game, first.decision) == ("timeout", 0, 2)
    assert [d.verdict for d in faults["b"].details].count("crash") == 1
    assert faults["d"].details[0].reply == "Z|Z"


def test_ties_on_points_are_broken_by_score_then_share_no_rank(tmp_path):
    # Two bots each win one game; b's win is bigger: level on points, b ahead on score.
    config = TournamentConfig(game="yahtzee", format="round-robin", field=["a", "b"], games=2, seed=1)
    with _open(tmp_path, config) as store:
        (p,) = Plan(config, game_registry.get("yahtzee")).next({}) or []
        _play(store, p.key, p.bots, _two("a", "b", (200, 100), (100, 300)))
    s = _standings(tmp_path)
    assert [(r.rank, r.bot, r.points) for r in s.rows] == [(1, "b", 1.0), (2, "a", 1.0)]


def test_files_and_printout(tmp_path):
    _yahtzee_round_robin(tmp_path)
    s = _standings(tmp_path)
    written = report.write_all(s, tmp_path)
    assert sorted(p.name for p in written) == ["crosstable.csv", "standings.json", "standings.md"]
    assert msgspec.json.decode((tmp_path / "standings.json").read_bytes(), type=Standings) == s
    table = list(csv.reader(io.StringIO((tmp_path / "crosstable.csv").read_text())))
    assert table[0] == ["bot", "a", "b", "c", "d"]
    # W-D-L (net score), then the score rate with its 95 % interval over the deals.
    assert table[1][:2] == ["a", ""]
    assert table[1][2].startswith("2-0-0 (+200.0) 100% [")
    assert table[1][3].startswith("1-0-1 (+0.0) 50% [") and table[1][4].startswith("1-1-0 (+100.0) 75% [")
    assert table[4][1] == "0-1-1 (-100.0) 25% [0%, 100%]"  # two deals: the interval says little
    md = (tmp_path / "standings.md").read_text()
    assert "| 2 | b | 3 |" in md and "| 2 | c | 3 |" in md and "| 4 | d | 1.5 |" in md
    assert "## Crosstable" in md and "## Faults" in md and "crash 1, timeout 3" in md
    assert "no such box \\| 13" in md  # a bot's text cannot break the table
    assert not list(tmp_path.glob(".*.tmp"))  # atomic: no temporary left behind
    out = io.StringIO()
    report.print_standings(s, Console(file=out, width=200), top=2)
    printed = out.getvalue()
    assert "│ a " in printed and "│ b " in printed and "│ c " not in printed  # the top 2 only
    rows, header = report.top_rows(s, 3)
    assert header[:3] == ("rank", "bot", "points") and [r[:3] for r in rows] == [
        ("1", "a", "4.5"),
        ("2", "b", "3"),
        ("2", "c", "3"),
    ]


# ---------------------------------------------------------------- dice poker: ranked by chips


def test_chip_game_is_ranked_by_total_score(tmp_path):
    """x wins most deals but small pots: x W6 -11 chips, y W2 +15, z W4 -4.  Ranked by
    chips: y, z, x (by deals won it would be x first)."""
    config = TournamentConfig(game="dice-poker", format="round-robin", field=["x", "y", "z"], games=4, seed=2)
    results = {
        ("x", "y"): _two("x", "y", (1, -1), (1, -1), (1, -1), (-18, 18)),
        ("x", "z"): _two("x", "z", (2, -2), (2, -2), (2, -2), (-2, 2)),
        ("y", "z"): _two("y", "z", (3, -3), (-1, 1), (-1, 1), (-1, 1)),
    }
    with _open(tmp_path, config) as store:
        for p in Plan(config, game_registry.get("dice-poker")).next({}) or []:
            _play(store, p.key, p.bots, results[tuple(sorted(p.bots))], game="dice-poker")  # type: ignore[index]
    s = _standings(tmp_path)
    assert s.tournament.standing == "score"
    assert [(r.rank, r.bot, r.points, r.wins) for r in s.rows] == [
        (1, "y", 15.0, 2),
        (2, "z", -4.0, 4),
        (3, "x", -11.0, 6),
    ]
    assert s.crosstable.cells["y"]["x"].net_score == 30.0  # +15 against -15
    # A chip game's cell: W-D-L (net), then the row bot's edge per game ± its interval.
    assert report.crosstable_csv(s).splitlines()[:2] == [
        "bot,y,z,x",
        "y,,1-0-3 (+0.0) +0.00±3.18,1-0-3 (+30.0) +3.75±15.12",
    ]


# ---------------------------------------------------------------- tables of three


def test_multi_seat_crosstable_counts_placings_where_both_sat(tmp_path):
    """A round robin of tables of 3 from 4 bots (every 3-combination: abc, bda, acd,
    cdb), 3 games each.  Scores by strength a 3, b 2, c 1, d 0, except the first game at
    abc where b and c tie at 1.5."""
    config = TournamentConfig(
        game="liars-dice", format="round-robin", field=["a", "b", "c", "d"], games=3, table_size=3, seed=3
    )
    strength = {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.0}
    with _open(tmp_path, config) as store:
        planned = Plan(config, game_registry.get("liars-dice")).next({}) or []
        assert [set(p.bots) for p in planned] == [
            {"a", "b", "c"},
            {"a", "b", "d"},
            {"a", "c", "d"},
            {"b", "c", "d"},
        ]
        for k, p in enumerate(planned):
            results = [{b: strength[b] for b in p.bots} for _ in range(3)]
            if k == 0:
                results[0].update(b=1.5, c=1.5)
            _play(store, p.key, p.bots, results, game="liars-dice")
    s = _standings(tmp_path)
    assert [(r.rank, r.bot, r.points) for r in s.rows] == [
        (1, "a", 9.0),
        (2, "b", 3.0),
        (3, "c", 0.0),
        (4, "d", 0.0),
    ]
    assert {r.bot: r.score for r in s.rows}["c"] == 9.5  # c and d level on points; c ahead on score
    cells, kind = s.crosstable.cells, s.crosstable.kind
    assert kind == "multi-seat"
    a_b, b_c, c_b, d_a = cells["a"]["b"], cells["b"]["c"], cells["c"]["b"], cells["d"]["a"]
    assert (a_b.games, a_b.ahead, a_b.level, a_b.behind, a_b.mean_score) == (6, 6, 0, 0, 3.0)
    assert (b_c.games, b_c.ahead, b_c.level, b_c.behind) == (6, 5, 1, 0)
    assert b_c.mean_score == pytest.approx(11.5 / 6)
    assert (c_b.ahead, c_b.level, c_b.behind) == (0, 1, 5) and c_b.mean_score == pytest.approx(6.5 / 6)
    assert (d_a.ahead, d_a.behind, d_a.mean_score) == (0, 6, 0.0)
    assert report.crosstable_cell(b_c, kind) == "5/1/0 +1.92±0.21"  # ahead/level/behind, mean score ± CI
    # The same answer read again through a cache (a live view's second call).
    cache = Cache()
    assert compute_twice(tmp_path, cache) == s


def compute_twice(directory: Path, cache: Cache) -> Standings:
    _standings(directory, cache)
    return _standings(directory, cache)


def test_tables_carry_their_balance(tmp_path):
    config = TournamentConfig(
        game="liars-dice", format="tables", field=["a", "b", "c", "d", "e"], games=1, table_size=3, seed=4
    )
    plan = Plan(config, game_registry.get("liars-dice"))
    fmt = plan.main_format({})
    with _open(tmp_path, config) as store:
        for p in plan.next({}) or []:
            _play(store, p.key, p.bots, [{b: float(ord(b)) for b in p.bots}], game="liars-dice")
    s = _standings(tmp_path)
    assert s.balance == fmt.balance().as_dict()  # type: ignore[union-attr]
    assert s.tournament.stage == "finished" and s.rows[0].bot == "e"  # the highest score wins every table
    assert "## Tables balance" in report.markdown(s)


# ---------------------------------------------------------------- double elimination and Swiss


def _play_out(store: Store, config: TournamentConfig, winner_of) -> dict[str, MatchOutcome]:
    """Play the tournament's plan to its end, each match 2-1 to ``winner_of(key, bots)``;
    the outcomes as the formats see them, made with ``formats.outcome`` (not the store)."""
    plan = Plan(config, game_registry.get(config.game))
    outcomes: dict[str, MatchOutcome] = {}
    while (batch := plan.next(outcomes)) is not None:
        for p in batch:
            a, b = p.bots
            w = winner_of(p.key, p.bots)
            lo = b if w == a else a
            _play(store, p.key, p.bots, [{w: WIN, lo: LOSS}, {w: LOSS, lo: WIN}, {w: WIN, lo: LOSS}])
            outcomes[p.key] = outcome(p.key, {w: (2, 0, 1, 2 * WIN + LOSS), lo: (1, 0, 2, 2 * LOSS + WIN)})
    return outcomes


def test_double_elimination_ranks_by_the_bracket(tmp_path):
    """Five bots, seeds 1–5, the better seed winning — except the first grand final,
    which the losers' bracket winner takes: a bracket reset."""
    field = ["s1", "s2", "s3", "s4", "s5"]
    config = TournamentConfig(game="yahtzee", format="double-elimination", field=field, games=3, seed=6)

    def winner_of(key: str, bots: tuple[str, str]) -> str:
        if key == "GF1":
            return bots[1]
        return min(bots, key=field.index)

    with _open(tmp_path, config) as store:
        outcomes = _play_out(store, config, winner_of)
    assert "GF2" in outcomes  # the reset was played
    fmt = DoubleElimination(field)
    results = list(outcomes.values())
    expected = {
        b: 1 + sum(len(p) for p in fmt.standings(results)[:i])
        for i, place in enumerate(fmt.standings(results))
        for b in place
    }
    s = _standings(tmp_path)
    assert _ranks(s) == expected
    assert [r.bot for r in s.rows][:2] == ["s1", "s2"]
    status = {r.bot: r.bracket for r in s.rows}
    assert status["s1"] == "champion" and status["s2"] == "runner-up" and status["s5"].startswith("out in L")
    assert s.bracket_text == fmt.render(results) and s.bracket == fmt.describe(results)
    assert s.seeds == field and s.tournament.stage == "finished"
    written = report.write_all(s, tmp_path)
    assert tmp_path / "bracket.json" in written
    assert msgspec.json.decode((tmp_path / "bracket.json").read_bytes())["champion"] == "s1"
    assert "Grand final, bracket reset" in (tmp_path / "standings.md").read_text()


@pytest.mark.slow
def test_swiss_ranks_by_match_points_then_buchholz(tmp_path):
    """The better seed wins, except c beats b in round 2.  Round 1: a–c, b–d; round 2
    (seats before scores): d–a, c–b.  Match points a 2, b 1, c 1, d 0; Buchholz a 1
    (c + d), b 1 (d + c), c 3 (a + b), d 3 (b + a): c is 2nd ahead of b on Buchholz."""
    field = ["a", "b", "c", "d"]
    config = TournamentConfig(game="yahtzee", format="swiss", field=field, games=3, rounds=2, seed=8)

    def winner_of(key: str, bots: tuple[str, str]) -> str:
        return "c" if key == "s2-2" else min(bots, key=field.index)

    with _open(tmp_path, config) as store:
        outcomes = _play_out(store, config, winner_of)
    assert set(outcomes) == {"s1-1", "s1-2", "s2-1", "s2-2"} and set(outcomes["s2-2"].tallies) == {"b", "c"}
    assert Swiss(field, rounds=2).standings(list(outcomes.values())) == [["a"], ["c"], ["b"], ["d"]]
    s = _standings(tmp_path)
    assert [(r.rank, r.bot, r.match_points, r.buchholz) for r in s.rows] == [
        (1, "a", 2.0, 1.0),
        (2, "c", 1.0, 3.0),
        (3, "b", 1.0, 1.0),
        (4, "d", 0.0, 3.0),
    ]
    assert s.swiss is not None and s.swiss["complete"] and s.seeds == field
    assert "## Swiss rounds" in report.markdown(s)


# ---------------------------------------------------------------- qualification


def test_qualification_lists_those_that_did_not_beat_the_qualifier_apart(tmp_path):
    """a beats rnd 2–0; b loses 0–2 (and crashes once); c wins 1–1 on games and 1 point
    more in total: it qualifies.  Then a and c play the round robin."""
    config = TournamentConfig(
        game="yahtzee", format="round-robin", field=["a", "b", "c"], games=2, qualifier="rnd", seed=9
    )
    plan = Plan(config, game_registry.get("yahtzee"))
    with _open(tmp_path, config) as store:
        _play(store, "q-a", ("a", "rnd"), _two("a", "rnd", (WIN, LOSS), (WIN, LOSS)))
        _play(
            store,
            "q-b",
            ("b", "rnd"),
            _two("b", "rnd", (LOSS, WIN), (LOSS, WIN)),
            forfeits={1: [_forfeit("b", "crash")]},
        )
        _play(store, "q-c", ("c", "rnd"), _two("c", "rnd", (WIN, LOSS))[:1], finish=False)
        during = _standings(tmp_path)
        store.discard_unfinished("q-c")
        _play(store, "q-c", ("c", "rnd"), _two("c", "rnd", (WIN, LOSS), (LOSS + 1, WIN)))
        outcomes = {key: _outcome_from_store(store, key) for key in ("q-a", "q-b", "q-c")}
        (main,) = plan.next(outcomes) or []
        assert set(main.bots) == {"a", "c"}
        _play(store, main.key, main.bots, _two(main.bots[0], main.bots[1], (WIN, LOSS), (WIN, LOSS)))
    q = {row.bot: row for row in during.qualification or []}
    assert during.tournament.stage == "qualification"
    assert q["c"].status == "running" and q["c"].qualified is None and q["c"].games == 1  # provisional
    assert q["a"].qualified is True and q["b"].qualified is False and during.not_qualified == ["b"]
    s = _standings(tmp_path)
    q = {row.bot: row for row in s.qualification or []}
    assert (q["c"].won, q["c"].qualifier_won, q["c"].score, q["c"].qualifier_score) == (
        1,
        1,
        WIN + LOSS + 1,
        LOSS + WIN,
    )
    assert q["c"].qualified is True and s.not_qualified == ["b"]
    assert [r.bot for r in s.rows] == list(main.bots)  # the first seat won the main match 2-0
    assert {r.bot for r in s.rows} == {"a", "c"} and "b" not in s.crosstable.bots
    assert {r.bot: r.games for r in s.rows} == {"a": 2, "c": 2}  # qualification games are not ranked
    assert [f.bot for f in s.faults] == ["b"] and s.faults[0].forfeits == {
        "crash": 1
    }  # but their faults show
    assert s.tournament.stage == "finished"
    md = report.markdown(s)
    assert "## Qualification" in md and "Not qualified (not ranked): b." in md


def _outcome_from_store(store: Store, key: str) -> MatchOutcome:
    from referee.tournament.plan import outcome_of

    return outcome_of(key, store.match_records()[key])


# ---------------------------------------------------------------- while the tournament runs


def test_running_matches_count_their_committed_games_as_provisional(tmp_path):
    config = TournamentConfig(game="yahtzee", format="round-robin", field=["a", "b", "c"], games=4, seed=10)
    planned = Plan(config, game_registry.get("yahtzee")).next({}) or []
    wins_for_first = [(WIN, LOSS)] * 4
    with _open(tmp_path, config) as store:
        for p in planned[:2]:
            _play(store, p.key, p.bots, _two(p.bots[0], p.bots[1], *wins_for_first))
        last = planned[2]
        first, second = last.bots
        cache = Cache()
        before = _standings(tmp_path, cache)
        _play(
            store,
            last.key,
            last.bots,
            _two(first, second, (WIN, LOSS), (WIN, LOSS), (LOSS, WIN)),
            finish=False,
            forfeits={2: [_forfeit(first, "timeout")]},
        )
        s = _standings(tmp_path, cache)
        rows = {r.bot: r for r in s.rows}
        assert s.tournament.matches_running == 1 and s.tournament.games_provisional == 3
        assert s.tournament.games_stored == 11 and s.tournament.stage == "main"
        assert rows[first].provisional_games == 3 and rows[second].provisional_games == 3
        assert rows[first].games == before.rows[[r.bot for r in before.rows].index(first)].games + 3
        assert rows[first].forfeits.get("timeout") == 1
        assert s.crosstable.cells[first][second].wins == 2 and s.crosstable.cells[first][second].matches == 0
        # More games committed: the cache reads only them, and agrees with a fresh read.
        store.add_games(last.key, [_game(3, last.bots, {first: WIN, second: LOSS})])
        assert _standings(tmp_path, cache) == _standings(tmp_path)
        assert {r.bot: r.provisional_games for r in _standings(tmp_path, cache).rows}[first] == 4
        # Replayed from its start after a "crash": counted afresh, not on top.
        store.discard_unfinished(last.key)
        _play(store, last.key, last.bots, _two(first, second, (LOSS, WIN)), finish=False)
        replayed = _standings(tmp_path, cache)
        assert replayed == _standings(tmp_path)
        assert {r.bot: r.provisional_games for r in replayed.rows}[first] == 1
        assert replayed.tournament.games_provisional == 1
        # Done: counted from its figures, nothing provisional.
        store.discard_unfinished(last.key)
        _play(store, last.key, last.bots, _two(first, second, *wins_for_first))
        done = _standings(tmp_path, cache)
        assert done == _standings(tmp_path)
        assert done.tournament.games_provisional == 0 and done.tournament.stage == "finished"
        assert not cache.games  # nothing left to keep for a two-seat tournament


def test_fault_details_are_bounded(tmp_path):
    config = TournamentConfig(game="yahtzee", format="round-robin", field=["a", "b"], games=30, seed=11)
    (p,) = Plan(config, game_registry.get("yahtzee")).next({}) or []
    with _open(tmp_path, config) as store:
        results = _two(p.bots[0], p.bots[1], *[(WIN, LOSS)] * 30)
        _play(store, p.key, p.bots, results, forfeits={i: [_forfeit("b", "timeout")] for i in range(30)})
    (fault,) = _standings(tmp_path).faults
    assert fault.forfeits == {"timeout": 30} and len(fault.details) == FAULT_DETAILS
    assert [d.game for d in fault.details] == list(range(FAULT_DETAILS))
    assert "… 10 more" in report.markdown(_standings(tmp_path))


# ---------------------------------------------------------------- referee standings DIR


def _cli(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    cli_standings.add_parser(parser.add_subparsers(dest="command"))
    return cli_standings.main(parser.parse_args(["standings", *argv]))


def test_the_standings_command(tmp_path, capsys):
    _yahtzee_round_robin(tmp_path)
    assert _cli(str(tmp_path), "--top", "2") == 0
    printed = capsys.readouterr().out
    assert "│ a " in printed and "│ b " in printed and "│ c " not in printed
    assert _cli(str(tmp_path), "--json") == 0
    decoded = msgspec.json.decode(capsys.readouterr().out, type=Standings)
    assert [r.bot for r in decoded.rows] == ["a", "b", "c", "d"]
    # Errors: one line on stderr, exit status 2.
    assert _cli(str(tmp_path / "missing")) == 2
    err = capsys.readouterr().err
    assert "no such directory" in err and err.count("\n") == 1
    (tmp_path / "empty").mkdir()
    assert _cli(str(tmp_path / "empty")) == 2
    assert "no tournament here" in capsys.readouterr().err
    other = tmp_path / "other"
    Store.open(other, {"game": "yahtzee"}, seed=1).close()  # a store, but not a tournament's
    assert _cli(str(other)) == 2
    err = capsys.readouterr().err
    assert "not a tournament's configuration" in err and err.count("\n") == 1


def test_an_unreadable_configuration_is_a_standings_error(tmp_path):
    Store.open(tmp_path, {"game": "yahtzee"}, seed=1).close()
    with Store.read(tmp_path) as reader, pytest.raises(StandingsError, match="not a tournament"):
        compute(reader)
