"""Issue 12, through the command line: ratings with intervals in the standings, the
sequential test in gauntlets and matches, and ``referee plan``.

The statistics themselves are checked on simulated fields in ``test_ratings_stats.py``,
``test_sprt.py`` and ``test_intervals.py``; here, that a tournament's results reach them
and come back in ``standings.json``, ``standings.md``, ``crosstable.csv`` and on the
terminal, the same on every reading.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from conftest import SAMPLES
from test_tournament import READER, py, referee, refused, standings, tournament

pytestmark = [pytest.mark.usefixtures("built_samples"), pytest.mark.slow, pytest.mark.e2e]

YAHTZEE = SAMPLES / "yahtzee"
DICE_POKER = SAMPLES / "dice_poker"
LIARS_DICE = SAMPLES / "liars_dice"
COMPETENT = str(YAHTZEE / "bin/competent")
EQUILIBRIUM = str(DICE_POKER / "bin/equilibrium")


def _check_rows(rows: list[dict]) -> None:
    for row in rows:
        assert row["rating_low"] <= row["rating"] <= row["rating_high"], row
        assert 1 <= row["rank_low"] <= row["rank_high"] <= len(rows), row
        assert row["mean_score_low"] <= row["mean_score"] <= row["mean_score_high"], row


def test_a_round_robin_reports_ratings_intervals_and_rank_ranges(tmp_path):
    """The issue: "`referee standings DIR` shows rating ± interval and the rank ranges
    they imply; `DIR/standings.json` carries them; the crosstable shows per-pair results
    with intervals."  Two copies of one bot and a random one: the copies' rank ranges
    overlap, the random bot is last for sure."""
    out = tmp_path / "rr"
    rand = py(YAHTZEE / "random_player.py")
    tournament(out, COMPETENT, COMPETENT, rand, "--game", "yahtzee", "--games", "30", "--seed", "4")
    data = standings(out)
    ratings = data["ratings"]
    assert ratings["method"] == "bradley-terry" and ratings["matches"] == 3 and ratings["units"] == 90
    assert ratings["replicates"] == 1000 and ratings["confidence"] == 0.95
    rows = {r["bot"]: r for r in data["rows"]}
    _check_rows(data["rows"])
    assert rows["random_player"]["rank_low"] == rows["random_player"]["rank_high"] == 3
    assert rows["random_player"]["rating_high"] < min(
        rows["competent-1"]["rating_low"], rows["competent-2"]["rating_low"]
    )
    assert rows["competent-1"]["rank_low"] == 1 and rows["competent-1"]["rank_high"] == 2
    # Ratings are in rating order, each but the last with its LOS over the next.
    elos = [b["rating"] for b in ratings["bots"]]
    assert elos == sorted(elos, reverse=True)
    assert (
        all(0 <= b["los_next"] <= 1 for b in ratings["bots"][:-1]) and ratings["bots"][-1]["los_next"] is None
    )
    assert abs(sum(elos)) < 1.0  # centred on the field's mean
    # The crosstable: score rates with intervals; two cells of a pair mirror each other.
    cell = data["crosstable"]["cells"]["competent-1"]["random_player"]
    back = data["crosstable"]["cells"]["random_player"]["competent-1"]
    assert cell["rate_low"] <= cell["rate"] <= cell["rate_high"] and cell["units"] == 30
    assert cell["rate"] + back["rate"] == pytest.approx(1.0)
    assert cell["rate_low"] == pytest.approx(1 - back["rate_high"], abs=1e-6)
    csv_text = (out / "crosstable.csv").read_text()
    assert "% [" in csv_text  # score rates with their intervals
    md = (out / "standings.md").read_text()
    assert "## Ratings" in md and "Bradley–Terry" in md and "LOS over next" in md
    shown = referee("standings", str(out))
    assert shown.returncode == 0 and "Elo" in shown.stdout and "ranks" in shown.stdout
    # The bootstrap is seeded from the tournament's seed: every reading agrees.
    again = json.loads(referee("standings", str(out), "--json").stdout)
    assert again["ratings"] == ratings and again["rows"] == data["rows"]


def test_tables_of_a_multi_seat_game_are_rated_by_plackett_luce(tmp_path):
    """The issue: "multi-seat games (Liar's Dice, Hold'em tables): a Plackett–Luce fit
    over placements, with intervals"."""
    out = tmp_path / "tables"
    prob = py(LIARS_DICE / "probabilistic.py")
    rand = py(LIARS_DICE / "random_legal.py")
    tournament(
        out, READER, prob, rand, READER, prob, "--game", "liars-dice", "--format", "tables",
        "--table-size", "4", "--games", "12", "--seed", "5",
    )  # fmt: skip
    data = standings(out)
    assert data["ratings"]["method"] == "plackett-luce"
    _check_rows(data["rows"])
    rows = {r["bot"]: r for r in data["rows"]}
    # random_legal never wins a Liar's Dice table against these: it is rated last.
    assert data["ratings"]["bots"][-1]["bot"] == "random_legal"
    assert rows["random_legal"]["rating_high"] < rows["reader-1"]["rating_low"]
    cell = data["crosstable"]["cells"]["reader-1"]["random_legal"]
    assert cell["mean_score_low"] <= cell["mean_score"] <= cell["mean_score_high"]


def test_a_gauntlet_stops_each_pairing_when_its_sprt_decides(tmp_path):
    """The issue: "SPRT for gauntlets and matches ... stop a pairing as soon as the test
    decides, on pentanomial statistics of paired games when games come in pairs ... The
    standings show H0/H1 accepted and the LLR with its bounds."  The candidate (the
    seed's equilibrium strategy) against a bot that always folds wins chips in almost
    every deal: H1 long before the 20,000 games allowed.  Dice poker ranks by chips, so
    the test is on the mean edge per game (issue 25, item 4)."""
    out = tmp_path / "g"
    fold = py(DICE_POKER / "always_fold.py")
    call = py(DICE_POKER / "always_call.py")
    tournament(
        out, EQUILIBRIUM, fold, call, "--game", "dice-poker", "--format", "gauntlet",
        "--candidates", "equilibrium", "--games", "20000", "--duplicate", "--seed", "9",
        "--sprt", "mean0=0 mean1=0.5 alpha=0.05 beta=0.05",
    )  # fmt: skip
    data = standings(out)
    cells = data["crosstable"]["cells"]["equilibrium"]
    test = cells["always_fold"]["sprt"]
    assert test["decision"] == "H1" and test["statistics"] == "normal"
    assert test["mean_low"] > 0 and test["elo"] is None
    assert test["llr"] >= test["upper"] == pytest.approx(2.944, abs=1e-3)
    assert test["games"] < 20_000 and test["games"] % 2 == 0
    assert cells["always_fold"]["games"] == test["games"]
    # The test is about the candidate: the field bot's row has none.
    assert "sprt" not in data["crosstable"]["cells"]["always_fold"]["equilibrium"]
    md = (out / "standings.md").read_text()
    assert "## Sequential tests" in md and "H1 accepted" in md and "LLR" in md and "mean1=0.5 per game" in md
    # Dice poker is ranked by chips: rated in score per game, in the table's order.
    ratings = data["ratings"]
    assert ratings["method"] == "chips" and ratings["scale"] == "score per game"
    by_points = [r["bot"] for r in data["rows"]]
    assert [b["bot"] for b in ratings["bots"]] == by_points
    # ...and, beside it, on deals won (Bradley–Terry Elo), in the report too.
    assert data["win_ratings"]["method"] == "bradley-terry" and data["win_ratings"]["scale"] == "Elo"
    assert "### Elo on deals won" in md
    shown = referee("standings", str(out))
    assert "SPRT equilibrium vs always_fold: H1 accepted" in shown.stdout


def test_records_without_evidence_are_rebuilt_from_the_stored_games(tmp_path):
    """Stores written before matches kept their evidence: the standings rebuild it from
    the games table, to the same ratings and intervals."""
    out = tmp_path / "old"
    rand = py(YAHTZEE / "random_player.py")
    tournament(
        out, COMPETENT, rand, COMPETENT, "--game", "yahtzee", "--games", "20", "--seed", "8", "--duplicate"
    )
    before = standings(out)
    with sqlite3.connect(out / "results.sqlite") as conn:
        conn.execute("UPDATE matches SET record = json_remove(record, '$.evidence')")
        assert conn.execute("SELECT count(*) FROM matches WHERE record LIKE '%evidence%'").fetchone() == (0,)
    after = json.loads(referee("standings", str(out), "--json").stdout)
    assert after["ratings"] == before["ratings"]
    assert after["crosstable"] == before["crosstable"]
    assert after["rows"] == before["rows"]


def test_sprt_options_are_checked_in_one_line(tmp_path):
    fold = py(DICE_POKER / "always_fold.py")
    refused(referee("match", EQUILIBRIUM, fold, "--game", "dice-poker", "--sprt", "elo0=5 elo1=0"), "elo0")
    refused(referee("match", EQUILIBRIUM, fold, "--game", "dice-poker", "--sprt", "elo1=5 gamma=1"), "gamma")
    refused(
        referee("tournament", EQUILIBRIUM, fold, fold, "--game", "dice-poker", "--format", "swiss",
                "--sprt", "elo0=0 elo1=5", "--out", str(tmp_path / "s")),
        "--sprt", "gauntlet",
    )  # fmt: skip
    # Dice poker ranks by chips: hypotheses in Elo (on deals won) are refused, saying what to give.
    refused(
        referee("match", EQUILIBRIUM, fold, "--game", "dice-poker", "--sprt", "elo0=0 elo1=5"),
        "mean0=0 mean1=0.1",
    )
    refused(
        referee("tournament", EQUILIBRIUM, fold, fold, "--game", "dice-poker", "--format", "gauntlet",
                "--candidates", "equilibrium", "--sprt", "elo0=0 elo1=5", "--out", str(tmp_path / "g")),
        "ranks bots by score",
    )  # fmt: skip


def test_a_match_prints_its_intervals_and_sprt(tmp_path):
    fold = py(DICE_POKER / "always_fold.py")
    done = referee(
        "match", EQUILIBRIUM, fold, "--game", "dice-poker", "--games", "4000", "--duplicate", "--seed", "2",
        "--sprt", "mean0=0 mean1=0.1", "--json", str(tmp_path / "m.json"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "95% intervals over" in done.stdout and "LOS" in done.stdout
    assert "SPRT (normal, mean0=0 mean1=0.1 per game" in done.stdout and "H1 accepted after" in done.stdout
    assert "edge +" in done.stdout
    record = json.loads((tmp_path / "m.json").read_text())
    assert record["sprt"]["decision"] == "H1" and record["sprt_bot"] == "equilibrium"
    assert record["games_played"] < 4000 and record["completed"] is True
    assert record["evidence"]["games_per_unit"] == 2


def test_plan_prints_games_needed_with_and_without_duplicate():
    """The issue: "`referee plan --game G BOT BOT [--diff X] [--confidence 0.95]
    [--power 0.8]` plays a short pilot, estimates the variance (with and without
    duplicate), and prints how many games or deals the question needs and how long that
    takes"."""
    thresh = py(DICE_POKER / "threshold.py")
    done = referee(
        "plan", "--game", "dice-poker", EQUILIBRIUM, thresh, "--diff", "0.1", "--pilot", "400", "--seed", "1"
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "independent deals" in out and "duplicate deals (x2)" in out
    lines = [line for line in out.splitlines() if "deals =" in line]
    assert len(lines) == 2 and all("games, ~" in line and "games/s" in line for line in lines)
    assert "variance per game ÷" in out
    refused(referee("plan", "--game", "dice-poker", EQUILIBRIUM, thresh, "--diff", "0"), "--diff")
    refused(referee("plan", "--game", "dice-poker", EQUILIBRIUM, thresh, "--elo", "10"), "--elo")
    refused(referee("plan", "--game", "yahtzee", COMPETENT, COMPETENT, "--power", "1.5"), "--power")
    refused(referee("plan", "--game", "yahtzee", COMPETENT, COMPETENT, COMPETENT), "two bots")
    # A bot that crashes at once: no plan (exit 3), said in the last line.
    crash = referee(
        "plan", "--game", "dice-poker", EQUILIBRIUM, py("-c", "'import sys; sys.exit(1)'"), "--pilot", "100"
    )
    assert crash.returncode == 3 and "nothing to plan" in crash.stderr.splitlines()[-1], crash.stderr


def test_ratings_count_the_seeding_round_robin_and_rate_only_bots_that_played(tmp_path):
    """A double elimination's bracket alone says little: its seeding round robin counts
    for the ratings too (not for the table's figures, which are the main stage's)."""
    out = tmp_path / "de"
    rand = py(YAHTZEE / "random_player.py")
    tournament(
        out, COMPETENT, rand, COMPETENT, rand, "--game", "yahtzee", "--format", "double-elimination",
        "--seeding", "round-robin", "--seeding-games", "3", "--games", "3", "--seed", "3",
    )  # fmt: skip
    data = standings(out)
    with sqlite3.connect(out / "results.sqlite") as conn:
        (seeding,) = conn.execute("SELECT count(*) FROM matches WHERE key LIKE 'seed-%'").fetchone()
        (total,) = conn.execute("SELECT count(*) FROM matches WHERE status = 'done'").fetchone()
    assert seeding == 6
    assert data["ratings"]["matches"] == total  # seeding and bracket
    assert sum(r["matches"] for r in data["rows"]) == 2 * (total - seeding)  # the table: the bracket's


def test_a_bot_without_games_is_not_rated():
    from referee.core.records import MatchEvidence
    from referee.stats.intervals import Moments
    from referee.tournament.ratings import Played, rate

    evidence = MatchEvidence(
        games_per_unit=1, units=10, scores=[Moments(10, 6.0, 6.0), Moments(10, 4.0, 4.0)], points=[4, 0, 6]
    )
    ratings = rate(["a", "b", "idle"], [Played(("a", "b"), evidence)], seed=1)
    assert ratings is not None and [r.bot for r in ratings.bots] == ["a", "b"]
    assert ratings.bots[0].rating == pytest.approx(-ratings.bots[1].rating)


def test_a_store_of_the_previous_version_resumes(tmp_path):
    """Found in review: match specs gained ``sprt`` and ``sprt_bot`` (null when unused),
    and a store whose specs lack them refused to resume ("the schedule changed").  A
    setting added since, null on one side and absent on the other, is no change."""
    out = tmp_path / "old"
    tournament(out, COMPETENT, COMPETENT, "--game", "yahtzee", "--games", "6", "--rounds", "2", "--seed", "3")
    with sqlite3.connect(out / "results.sqlite") as conn:
        conn.execute("UPDATE matches SET spec = json_remove(spec, '$.config.sprt', '$.config.sprt_bot')")
        conn.execute("UPDATE tournament SET config = json_remove(config, '$.sprt')")
        # The last match as a crash leaves it: to be replayed on resume.
        (last,) = conn.execute("SELECT max(id) FROM matches").fetchone()
        conn.execute("UPDATE matches SET status = 'running', record = NULL WHERE id = ?", (last,))
        conn.execute("DELETE FROM figures WHERE match_id = ?", (last,))
    done = referee("tournament", "--resume", str(out))
    assert done.returncode == 0, done.stderr
    assert standings(out)["tournament"]["matches_done"] == 2


def test_short_swiss_matches_get_parametric_intervals(tmp_path):
    """Found in review: a Swiss of one-game matches gave intervals of width 0 and LOS
    100 % (resampling one deal varies nothing).  With pairs of fewer than 30 deals the
    replicates are drawn from the fitted model instead, and the standings say so."""
    out = tmp_path / "swiss"
    rand = py(YAHTZEE / "random_player.py")
    tournament(
        out, COMPETENT, rand, COMPETENT, rand, "--game", "yahtzee", "--format", "swiss",
        "--games", "1", "--rounds", "3", "--seed", "5",
    )  # fmt: skip
    ratings = standings(out)["ratings"]
    assert ratings["intervals"].startswith("games drawn from the fitted model")
    assert all(b["high"] - b["low"] > 50 for b in ratings["bots"])  # 3 games a bot: wide
    assert "games drawn from the fitted model" in (out / "standings.md").read_text()


def test_a_whitewash_gets_an_interval_not_a_certainty():
    """Found trying it: a pair whose 200 deals all went one way was rated +471 [+471, +471]
    — resampling identical deals varies nothing.  Such a pair makes the replicates come
    from the fitted model: a wide interval, still clear of the other bot's."""
    from referee.core.records import MatchEvidence
    from referee.stats.intervals import Moments
    from referee.tournament.ratings import PARAMETRIC, Played, rate

    evidence = MatchEvidence(
        games_per_unit=1,
        units=200,
        scores=[Moments(200, 200.0, 200.0), Moments(200, 0.0, 0.0)],
        points=[0, 0, 200],
    )
    ratings = rate(["a", "b"], [Played(("a", "b"), evidence)], seed=1)
    assert ratings is not None and ratings.intervals == PARAMETRIC
    a, b = ratings.bots
    assert a.high - a.low > 20 and a.low > b.high


def test_a_game_ranked_by_wins_keeps_the_elo_test(tmp_path):
    """Yahtzee ranks by games won: ``--sprt`` there tests Elo on the games (pentanomial
    with --duplicate), and mean0/mean1 are refused."""
    rand = py(YAHTZEE / "random_player.py")
    done = referee(
        "match", COMPETENT, rand, "--game", "yahtzee", "--games", "400", "--duplicate", "--seed", "3",
        "--sprt", "elo0=0 elo1=100", "--json", str(tmp_path / "y.json"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "y.json").read_text())
    assert record["sprt"]["statistics"] == "pentanomial" and record["sprt"]["decision"] == "H1"
    assert "SPRT (pentanomial, normalized elo0=0 elo1=100" in done.stdout
    refused(
        referee("match", COMPETENT, rand, "--game", "yahtzee", "--sprt", "mean0=0 mean1=1"), "elo0=0 elo1=5"
    )
