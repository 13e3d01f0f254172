"""Matches end to end with real bot processes, on Yahtzee (seed 004).

Penalties under test come from the seed: "A player attempting to play an illegal move
will forfeit the current game, though not the match"; "If your program crashes during a
match the remaining unplayed games in that match will be considered lost"; "Your
programs will only be restarted between matches" (``--recover`` is our exception).
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
import trio
from conftest import BOT_PYTHON

from referee import games
from referee.core.botspec import resolve, unique_names
from referee.core.limits import LimitsOverride
from referee.match import Match, MatchConfig, MatchError

pytestmark = pytest.mark.slow

MISBEHAVE = Path(__file__).parent / "bots" / "misbehave.py"


def play(bots: list[str], tmp_path, **config) -> tuple[dict, list[dict]]:
    specs = unique_names(resolve(b) for b in bots)
    log = tmp_path / "games.jsonl"
    cfg = MatchConfig(
        game="yahtzee", pin=False, log_path=str(log), stderr_dir=str(tmp_path / "stderr"), **config
    )
    result = trio.run(Match(games.get("yahtzee")(), specs, cfg).run)
    players = {p.name: msgspec.to_builtins(p) for p in result.players}
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    return players, lines


def test_competent_beats_random_and_everything_is_counted(built_samples, tmp_path):
    competent = str(built_samples / "yahtzee/bin/competent")
    rand = f"{BOT_PYTHON} {built_samples}/yahtzee/random_player.py"
    players, lines = play([competent, rand], tmp_path, games=20, seed=3)
    c, r = players["competent"], players["random_player"]
    assert c["wins"] + c["draws"] + c["losses"] == 20 == len(lines)
    assert c["wins"] >= 18 and c["mean_score"] > r["mean_score"] + 100
    assert c["forfeits"] == {} and r["forfeits"] == {}
    # 13 placements per game per player, plus its rerolls
    assert c["decisions"] >= 13 * 20 and r["decisions"] >= 13 * 20
    assert c["max_decision_us"] >= c["mean_decision_us"] > 0
    assert c["peak_rss_bytes"] > 0
    # the first player alternates game by game
    assert [line["seats"][0] for line in lines[:4]] == ["competent", "random_player"] * 2
    # every logged game replays: the scores in the log are the scorecards' totals
    for line in lines:
        assert line["scores"] == [float(t) for t in line["summary"]["totals"]]


def test_same_seed_same_log(built_samples, tmp_path):
    competent = str(built_samples / "yahtzee/bin/competent")
    rand = f"{BOT_PYTHON} {built_samples}/yahtzee/random_player.py"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    play([competent, rand], tmp_path / "a", games=5, seed=11)
    play([competent, rand], tmp_path / "b", games=5, seed=11)
    assert (tmp_path / "a/games.jsonl").read_bytes() == (tmp_path / "b/games.jsonl").read_bytes()


def test_illegal_move_forfeits_only_that_game(built_samples, script_bot, tmp_path):
    # Always "place in ones": legal once per game, then the row is full.
    stubborn = script_bot("import sys\nfor line in sys.stdin:\n    print(0, flush=True)\n", "stubborn")
    competent = str(built_samples / "yahtzee/bin/competent")
    players, lines = play([stubborn, competent], tmp_path, games=4, seed=1)
    s = players["stubborn"]
    assert s["forfeits"] == {"illegal": 4} and s["losses"] == 4 and players["competent"]["wins"] == 4
    detail = s["forfeit_details"][0]
    assert detail["detail"] == "This row is already full" and detail["reply"] == "0"
    assert detail["position"].count(" ") == 33  # the 34-integer position it answered
    assert all(line["forfeits"][0]["verdict"] == "illegal" for line in lines)


def test_unparseable_reply_is_a_protocol_forfeit(built_samples, script_bot, tmp_path):
    chatty = script_bot("import sys\nfor line in sys.stdin:\n    print('hold 3', flush=True)\n", "chatty")
    players, _ = play([chatty, str(built_samples / "yahtzee/bin/competent")], tmp_path, games=3, seed=1)
    assert players["chatty"]["forfeits"] == {"protocol": 3}


def test_extra_output_is_a_protocol_forfeit(built_samples, script_bot, tmp_path):
    double = script_bot("import sys\nfor line in sys.stdin:\n    print('1\\n1', flush=True)\n", "double")
    players, _ = play([double, str(built_samples / "yahtzee/bin/competent")], tmp_path, games=2, seed=1)
    assert players["double"]["forfeits"] == {"protocol": 2}
    assert "more than one line" in players["double"]["forfeit_details"][0]["detail"]


def test_the_extra_line_verdict_shows_the_stray_line(built_samples, script_bot, tmp_path):
    """Issue 9: a bot printed "thinking about …" and then its answer; the verdict named
    only the answer.  The stray first line must be in the detail, with the hint."""
    chatty = script_bot(
        "import sys\nfor line in sys.stdin:\n    print('thinking about it\\n1', flush=True)\n", "thinker"
    )
    players, _ = play([chatty, str(built_samples / "yahtzee/bin/competent")], tmp_path, games=1, seed=1)
    detail = players["thinker"]["forfeit_details"][0]["detail"]
    assert "thinking about it" in detail and detail.index("thinking") < detail.index("'1")
    assert "stderr" in detail


def test_crash_loses_every_remaining_game(built_samples, tmp_path):
    crasher = f"{BOT_PYTHON} {MISBEHAVE} segv 1"  # one legal placement, then SIGSEGV
    players, lines = play([crasher, str(built_samples / "yahtzee/bin/competent")], tmp_path, games=5, seed=1)
    m = players["misbehave"]
    assert m["forfeits"] == {"crash": 5} and m["losses"] == 5 and m["restarts"] == 0
    first, later = m["forfeit_details"][0], m["forfeit_details"][1]
    assert "SIGSEGV" in first["detail"] and first["game"] == 0 and first["decision"] >= 0
    assert later["game"] == 1 and "not running since game 0" in later["detail"]
    assert len(lines) == 5


def test_recover_restarts_a_crashed_bot(built_samples, tmp_path):
    crasher = f"{BOT_PYTHON} {MISBEHAVE} segv 1"
    players, _ = play(
        [crasher, str(built_samples / "yahtzee/bin/competent")], tmp_path, games=4, seed=1, recover=True
    )
    m = players["misbehave"]
    assert m["restarts"] == 3 and m["forfeits"] == {"crash": 4}
    assert all("SIGSEGV" in f["detail"] for f in m["forfeit_details"])


def test_timeout_forfeits_the_game(built_samples, tmp_path):
    sleeper = f"{BOT_PYTHON} {MISBEHAVE} sleep 1"
    players, _ = play(
        [sleeper, str(built_samples / "yahtzee/bin/competent")],
        tmp_path,
        games=3,
        seed=1,
        limits=LimitsOverride(decision_s=0.3),
    )
    m = players["misbehave"]
    # A timeout forfeits game 0; the bot still owes that reply, times out again in
    # game 1 and is stopped as hung; game 2 is lost without it.
    assert m["losses"] == 3 and m["forfeits"] == {"timeout": 3}


def test_cpu_budget_loses_the_rest_of_the_match(tmp_path, built_samples):
    burner = f"{BOT_PYTHON} {MISBEHAVE} cpu 1"
    players, _ = play(
        [burner, str(built_samples / "yahtzee/bin/competent")],
        tmp_path,
        games=3,
        seed=1,
        recover=True,  # even so: the budget is for the whole match
        limits=LimitsOverride(cpu_s=0.5, decision_s=5.0),
    )
    m = players["misbehave"]
    assert m["forfeits"] == {"cpu": 3} and m["restarts"] == 0
    assert m["cpu_seconds"] >= 0.5


def test_a_bot_that_cannot_start_stops_the_match(tmp_path):
    broken = tmp_path / "broken"
    broken.write_text("#!/nonexistent/interpreter\n")
    broken.chmod(0o755)
    specs = [resolve(str(broken)), resolve(str(broken))]
    with pytest.raises(MatchError, match="cannot start"):
        trio.run(
            Match(games.get("yahtzee")(), unique_names(specs), MatchConfig(game="yahtzee", pin=False)).run
        )


def test_wrong_number_of_bots(tmp_path, built_samples):
    competent = resolve(str(built_samples / "yahtzee/bin/competent"))
    with pytest.raises(MatchError, match="exactly 2 bots"):
        Match(games.get("yahtzee")(), [competent] * 3, MatchConfig(game="yahtzee"))


def test_a_bot_stopped_for_hanging_loses_one_die_per_turn_in_liars_dice(built_samples, script_bot, tmp_path):
    """Seed 001: "Bots will lose a round (and therefore a die) automatically in three
    circumstances: Timeouts, Exceptions, and Invalid Decisions."

    The bot answers once, then hangs: its first timeout costs a die; at its next turn,
    still owing that reply ``late_s`` after it timed out, it is stopped and that turn
    costs a die; it is restarted at its next turn (every request carries the whole
    state), and so on: five dice, five ``timeout`` penalties of one die each, never all
    its dice at once nor a ``crash``.
    """
    hang = script_bot(
        "import sys, time\n"
        "line = sys.stdin.readline()\n"
        "while line and not line.startswith('turn '):  # information (players): no answer\n"
        "    line = sys.stdin.readline()\n"
        "print('challenge' if line.split('bids')[1].strip() else 'bid 1 2', flush=True)\n"
        "time.sleep(3600)\n",
        "hang",
    )
    prob = f"python3 {built_samples}/liars_dice/probabilistic.py"
    specs = unique_names(resolve(b) for b in [hang, prob, prob])
    log = tmp_path / "games.jsonl"
    cfg = MatchConfig(
        game="liars-dice",
        games=1,
        seed=4,
        pin=False,
        sandbox="rlimits",
        stderr_dir=str(tmp_path),
        log_path=str(log),
        limits=LimitsOverride(decision_s=0.2, late_s=1.0),
    )
    result = trio.run(Match(games.get("liars-dice")(), specs, cfg).run)
    hung = msgspec.to_builtins(result.player("hang"))
    assert hung["forfeits"] == {"timeout": 5}, hung["forfeit_details"]
    assert hung["restarts"] >= 2
    record = json.loads(log.read_text())
    seat = record["seats"].index("hang")
    other = (seat + 1) % 3  # a seat whose bot is alive to be told every penalty
    penalties = [
        s["line"] for s in record["transcript"] if s["seat"] == other and s["line"].startswith("penalty")
    ]
    mine = [p for p in penalties if p.startswith(f"penalty {seat} ")]
    assert [p.split()[2:4] for p in mine] == [["timeout", "1"]] * 5, mine


def test_the_game_warms_up_while_its_bots_start(built_samples, tmp_path, monkeypatch):
    """Match.start runs the game's once-a-process work (Game.warm_up: Yahtzee's tables),
    then the caller's (Match.while_starting: the CLI's table printer), after every bot's
    start has begun and before the first game, once."""
    from referee.games import yahtzee
    from referee.seats.process import sandbox

    events: list[str] = []
    real_warm_up, real_start = yahtzee.Yahtzee.warm_up, sandbox.spawn.start

    def warm_up(self) -> None:
        events.append("warm up")
        real_warm_up(self)

    async def start(*args, **kwargs):
        events.append("spawn")
        return await real_start(*args, **kwargs)

    def new_state(self, seats, rng):
        events.append("game")
        return yahtzee.YahtzeeState(rng)

    real_init = Match.__init__

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        self.while_starting.append(lambda: events.append("caller's"))

    monkeypatch.setattr(yahtzee.Yahtzee, "warm_up", warm_up)
    monkeypatch.setattr(yahtzee.Yahtzee, "new_state", new_state)
    monkeypatch.setattr(sandbox.spawn, "start", start)
    monkeypatch.setattr(Match, "__init__", init)
    competent = str(built_samples / "yahtzee/bin/competent")
    players, _ = play([competent, competent], tmp_path, games=2, seed=1)
    assert events == ["spawn", "spawn", "warm up", "caller's", "game", "game"], events
    assert all(not p["forfeits"] for p in players.values())
