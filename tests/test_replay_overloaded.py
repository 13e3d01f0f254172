"""Issue 28: a game whose forfeit the machine caused is played again (``--replay-overloaded``).

The engine's part is tested with in-process seats whose faults say they were the
machine's (:attr:`BotFault.overload`, which a process seat sets by
:func:`referee.core.overload.machine_caused`); the seat's part with real processes: a
bot starved by busy loops pinned beside it on its core is not penalised, a bot that
computes past its limit is.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from conftest import BOT_PYTHON

from protocol import yahtzee as wire
from referee import games
from referee.core import overload
from referee.core.botspec import BotSpec
from referee.core.limits import LimitsOverride
from referee.core.verdict import BotFault, Verdict
from referee.match import Match, MatchConfig, engine
from referee.seats.inprocess import InProcessSeat
from referee.sinks.collect import Collector

pytestmark = pytest.mark.e2e

BOTS = Path(__file__).parent / "bots" / "check"
HOG = "import time\nend = time.monotonic() + 120\nwhile time.monotonic() < end: pass"


def _random_player(seed: int):
    rng = random.Random(seed)

    def decide(line: str) -> str:
        pos = wire.parse_position(line.encode())
        return (
            wire.encode_action(rng.choice(wire.legal_actions(pos.own, pos.dice, pos.roll))).decode().strip()
        )

    return decide


def _starved_in(starts: set[int], machine: bool = True):
    """A random player whose first decision of a game times out at each game start in
    ``starts`` (0: the first game it starts, a replay counting as a start); the
    machine's fault when ``machine``."""
    inner = _random_player(7)
    started = [-1]

    def decide(line: str) -> str:
        pos = wire.parse_position(line.encode())
        if pos.roll == 1 and all(box == wire.OPEN for box in pos.own[:13]):  # a game's first decision
            started[0] += 1
            if started[0] in starts:
                fault = BotFault(Verdict.TIMEOUT, "no answer within the limit (limit 0.1 s)")
                if machine:
                    fault.overload = (
                        "it used 0.001 s of CPU in 0.1 s (limit 0.1 s) and waited 0.09 s for a CPU"
                    )
                raise fault
        return inner(line)

    return decide


def _match(players: dict, replay: int, games_: int = 4) -> tuple[Match, Collector]:
    collector = Collector()
    specs = [BotSpec(name=name, argv=["(in process)"], home=".") for name in players]
    config = MatchConfig(game="yahtzee", games=games_, seed=5, pin=False, replay_overloaded=replay)
    match = Match(
        games.get("yahtzee")(), specs, config, seat_factory=InProcessSeat.factory(players), sinks=[collector]
    )
    return match, collector


@pytest.fixture(autouse=True)
def _no_pause(monkeypatch):
    monkeypatch.setattr(engine, "REPLAY_PAUSE_S", 0.0)


def test_a_game_with_a_machine_caused_forfeit_is_replayed_and_counts_once():
    match, collector = _match({"starved": _starved_in({1}), "other": _random_player(3)}, replay=2)
    record = trio.run(match.run)
    assert record.games_played == 4 and len(collector.games) == 4
    starved = record.player("starved")
    assert starved.forfeits == {} and not collector.forfeits  # the set-aside play counts nothing
    assert starved.replayed_games == 1 and "timeout" in starved.replayed_details[0]
    assert record.player("other").replayed_games == 0
    game1 = collector.games[1]
    assert [f.player for f in game1.replayed] == ["starved"] and game1.replayed[0].overload
    assert not game1.forfeits
    assert any(n.startswith("replayed game 1 (1 of at most 2): starved's timeout") for n in collector.notices)
    # The games are the schedule's: the same deals as a match that never faulted.
    clean, _ = _match({"starved": _starved_in(set()), "other": _random_player(3)}, replay=2)
    trio.run(clean.run)
    assert [g.seed for g in collector.games] == [g.seed for g in _games(clean)]


def _games(match: Match) -> list:
    return next(sink for sink in match.sinks if isinstance(sink, Collector)).games


def test_replays_are_bounded_then_the_forfeit_stands():
    match, collector = _match({"starved": _starved_in({0, 1, 2}), "other": _random_player(3)}, replay=2)
    record = trio.run(match.run)
    starved = record.player("starved")
    assert starved.replayed_games == 2
    assert starved.forfeits == {"timeout": 1}  # the third play stands
    assert len(collector.games[0].replayed) == 2 and collector.games[0].forfeits[0].overload


def test_without_the_flag_or_when_the_bot_is_at_fault_nothing_is_replayed():
    for players, replay in (
        ({"starved": _starved_in({0}), "other": _random_player(3)}, 0),
        ({"starved": _starved_in({0}, machine=False), "other": _random_player(3)}, 2),
    ):
        match, collector = _match(players, replay)
        record = trio.run(match.run)
        assert record.player("starved").forfeits == {"timeout": 1}
        assert record.player("starved").replayed_games == 0 and not collector.games[0].replayed
        assert len(collector.forfeits) == 1


# ---------------------------------------------------------------------------- real processes

needs_schedstat = pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="needs schedstat")


def _process_match(burn_ms: int, decision_s: float, replay: int, on_notice=None) -> tuple[Match, Collector]:
    collector = Collector()
    if on_notice is not None:
        collector.notice = lambda line: (collector.notices.append(line), on_notice(line))  # type: ignore[method-assign]
    specs = [
        BotSpec(name="burn", argv=[*BOT_PYTHON.split(), str(BOTS / "burn.py"), str(burn_ms)], home=str(BOTS)),
        BotSpec(name="quick", argv=[*BOT_PYTHON.split(), str(BOTS / "burn.py"), "0"], home=str(BOTS)),
    ]
    config = MatchConfig(
        game="yahtzee", games=2, seed=3, pin=False, sandbox="none", allow_root_bots=True,
        limits=LimitsOverride(startup_s=30.0, decision_s=decision_s), replay_overloaded=replay,
    )  # fmt: skip
    return Match(games.get("yahtzee")(), specs, config, sinks=[collector]), collector


@needs_schedstat
@pytest.mark.slow
@pytest.mark.drill
def test_a_bot_starved_by_busy_loops_on_its_core_is_not_penalised(monkeypatch):
    before = os.sched_getaffinity(0)
    core = max(before)
    hogs: list[subprocess.Popen] = []

    def load_passes(line: str) -> None:
        if line.startswith(overload.REPLAY_NOTICE):
            for hog in hogs:
                hog.kill()

    # 40 ms of CPU an answer, limit 150 ms: late only when it cannot get the CPU.
    monkeypatch.setattr(engine, "REPLAY_PAUSE_S", 0.3)
    match, collector = _process_match(40, 0.15, 4, load_passes)
    os.sched_setaffinity(0, {core})  # the bots inherit it
    try:
        hogs += [
            # Each in a session of its own: the bot runs in its own (setsid), and with
            # autogroup scheduling the CPU is shared between sessions first.
            subprocess.Popen(
                [sys.executable, "-c", HOG],
                preexec_fn=lambda: os.sched_setaffinity(0, {core}),
                start_new_session=True,
            )
            for _ in range(6)
        ]
        record = trio.run(match.run)
    finally:
        os.sched_setaffinity(0, before)
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()
    burn = record.player("burn")
    assert burn.replayed_games >= 1, (burn, collector.notices)  # the load did bite, and was seen
    assert "waited" in burn.replayed_details[0]
    assert record.games_played == 2
    # It cost the bot nothing: no forfeit stands — or, where the shared machine stayed
    # busy through every replay (other jobs on a CI machine), those that stand are said
    # to be the machine's (grading then grades nothing: machine-overloaded).
    standing = [f for g in collector.games for f in g.forfeits if f.player == "burn"]
    assert all(f.overload for f in standing), standing
    assert burn.overloaded_forfeits == len(standing), burn


@needs_schedstat
@pytest.mark.slow
def test_a_bot_computing_past_its_limit_still_forfeits():
    # 2 s of CPU an answer, limit 0.2 s: it uses all the CPU it waits for.
    match, _collector = _process_match(2000, 0.2, 2)
    record = trio.run(match.run)
    burn = record.player("burn")
    assert burn.forfeits.get("timeout", 0) >= 1, burn
    # It used the CPU it waited for: its timeouts are its own.  (A busy CI machine may
    # starve it too: then it is replayed, at most twice a game, and they stand all the same.)
    assert burn.replayed_games <= 2 * record.games_played
    assert burn.overloaded_forfeits < burn.forfeits["timeout"] or burn.replayed_games, burn


def test_the_rule():
    # Starved: little CPU, long run delay; computing: CPU near the limit; hung: no run delay.
    assert overload.machine_caused(0.02, 0.15, 0.15, 0.12, 0.0)
    assert not overload.machine_caused(0.14, 0.15, 0.15, 0.01, 0.0)
    assert not overload.machine_caused(0.0, 0.15, 0.15, 0.0, 0.0)
    assert overload.machine_caused(0.0, 0.15, 0.15, 0.0, 0.1)  # the referee itself starved
    assert not overload.machine_caused(-1, 0.15, 0.15, 0.12, 0.0)  # not measured


# ---------------------------------------------------------------------------- a bot that exits


#: Closes its output, then stays runnable for 1 s of CPU and exits with status 0 — as a
#: bot that exits at once is seen on a machine too busy to schedule the rest of its exit
#: (or its supervisor's report of it) sooner: runnable, not asleep.
SLOW_EXIT = (
    "import os, time\nos.close(1)\nend = time.process_time() + 1.0\n"
    "while time.process_time() < end: pass\nraise SystemExit(0)"
)
#: Closes its output and sleeps: it kept running.
KEEPS_RUNNING = "import os, time\nos.close(1)\ntime.sleep(60)"


def _first_forfeits(tmp_path, code: str) -> tuple[list[str], float]:
    import time

    collector = Collector()
    specs = [
        BotSpec(name="quits", argv=[sys.executable, "-c", code], home=str(tmp_path)),
        BotSpec(name="quick", argv=[*BOT_PYTHON.split(), str(BOTS / "burn.py"), "0"], home=str(BOTS)),
    ]
    config = MatchConfig(game="yahtzee", games=1, seed=3, pin=False, sandbox="none", allow_root_bots=True)
    started = time.monotonic()
    record = trio.run(Match(games.get("yahtzee")(), specs, config, sinks=[collector]).run)
    return [f.detail for f in record.player("quits").forfeit_details], time.monotonic() - started


@pytest.mark.slow
def test_a_bot_that_exits_with_status_0_late_is_said_to_have_exited_not_kept_running(tmp_path):
    details, _ = _first_forfeits(tmp_path, SLOW_EXIT)
    assert details and "exited with code 0 before its first answer" in details[0], details
    assert not any("kept running" in d for d in details), details


@pytest.mark.slow
def test_a_bot_that_closes_its_output_and_sleeps_kept_running(tmp_path):
    details, seconds = _first_forfeits(tmp_path, KEEPS_RUNNING)
    assert details and details[0].startswith("closed its output but kept running"), details
    assert seconds < 30, seconds  # not held for the 60 s it sleeps


# ---------------------------------------------------------------------------- tournaments


@needs_schedstat
@pytest.mark.slow
@pytest.mark.drill
def test_a_tournament_with_the_flag_replays_starved_games_and_its_standings_say_so(tmp_path):
    import json

    cores = sorted(os.sched_getaffinity(0))
    hogs: list[subprocess.Popen] = []
    out = tmp_path / "t"
    burn = f"{BOT_PYTHON} {BOTS / 'burn.py'} 40"
    quick = f"{BOT_PYTHON} {BOTS / 'burn.py'} 0"
    try:
        # Six busy loops per core, each in a session of its own (autogroup shares the CPU
        # between sessions first): the tournament's whole session is starved.
        hogs += [
            subprocess.Popen(
                [sys.executable, "-c", HOG],
                preexec_fn=lambda c=c: os.sched_setaffinity(0, {c}),
                start_new_session=True,
            )
            for c in cores
            for _ in range(6)
        ]
        done = subprocess.run(
            [sys.executable, "-m", "referee", "tournament", burn, quick, "--game", "yahtzee", "--games", "2",
             "--seed", "3", "--sandbox", "none", "--decision-timeout", "0.15", "--replay-overloaded", "1",
             "--quiet", "--out", str(out)],
            capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()
    assert done.returncode == 0, done.stderr[-3000:]
    standings = json.loads((out / "standings.json").read_text())
    assert standings["replayed_games"] >= 1, standings
    assert "replayed" in standings["replayed"][0] and "waited" in standings["replayed"][0]
    markdown = (out / "standings.md").read_text()
    assert "## Replayed games" in markdown and "the machine was overloaded" in markdown
