"""The seat seam (issue 10): the match drives any :class:`~referee.seats.Seat`.

An in-process seat (a Python callable) and the process seat (a sandboxed program) must
be interchangeable: the same deterministic player gives the same game log either way,
and faults become the same verdicts.
"""

from __future__ import annotations

import importlib.util
import json
import time

import msgspec
import pytest
import trio
from conftest import BOT_PYTHON, SAMPLES

from protocol import yahtzee as wire
from referee import games
from referee.core.botspec import BotSpec, resolve, unique_names
from referee.core.limits import LimitsOverride
from referee.match import Match, MatchConfig
from referee.seats import Seat
from referee.seats.inprocess import InProcessSeat
from referee.sinks._abc import Sink


def _greedy():
    """The sample greedy player's decision function, imported from its file."""
    spec = importlib.util.spec_from_file_location("greedy_player", SAMPLES / "yahtzee/greedy_player.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return lambda line: str(module.choose(wire.parse_position(line)))


def _specs(*names: str) -> list[BotSpec]:
    return [BotSpec(name=name, argv=["(in process)"], home=".") for name in names]


def _play(specs, factory, tmp_path, games_count=6, **config) -> tuple[dict, list[dict]]:
    log = tmp_path / "games.jsonl"
    cfg = MatchConfig(game="yahtzee", games=games_count, seed=7, pin=False, log_path=str(log), **config)
    result = trio.run(Match(games.get("yahtzee")(), specs, cfg, seat_factory=factory).run)
    return {p.name: msgspec.to_builtins(p) for p in result.players}, [
        json.loads(x) for x in log.read_text().splitlines()
    ]


@pytest.mark.slow
def test_in_process_and_process_seats_play_the_same_games(built_samples, tmp_path):
    """Same seed, same deterministic player: the logs' moves are identical whether the
    greedy player runs as a program or as a callable."""
    greedy = _greedy()
    in_process = InProcessSeat.factory({"a": greedy, "b": greedy})
    players, lines = _play(_specs("a", "b"), in_process, tmp_path)
    assert players["a"]["sandbox"] == "in-process (no isolation)"
    assert players["a"]["decisions"] > 6 * 13 and players["a"]["cpu_seconds"] > 0

    command = f"{BOT_PYTHON} {SAMPLES}/yahtzee/greedy_player.py"
    specs = [s for s in unique_names([resolve(command), resolve(command)])]
    process_log = tmp_path / "process"
    process_log.mkdir()
    _, process_lines = _play(specs, None, process_log, sandbox="rlimits")
    assert [line["transcript"] for line in lines] == [line["transcript"] for line in process_lines]
    assert [line["scores"] for line in lines] == [line["scores"] for line in process_lines]


def test_an_exception_is_a_crash_and_a_wrong_reply_a_protocol_fault(tmp_path):
    """Yahtzee's seed: a crash loses the rest of the match; a bad reply the game."""
    greedy = _greedy()
    calls = {"n": 0}

    def flaky(line: str) -> str:
        calls["n"] += 1
        if calls["n"] == 5:
            raise ValueError("boom")
        return greedy(line)

    players, _ = _play(
        _specs("flaky", "greedy"),
        InProcessSeat.factory({"flaky": flaky, "greedy": greedy}),
        tmp_path,
        games_count=3,
    )
    assert players["flaky"]["forfeits"] == {"crash": 3}  # the game it crashed in, then two more
    assert "raised ValueError: boom" in players["flaky"]["forfeit_details"][0]["detail"]
    players, _ = _play(
        _specs("chatty", "greedy"),
        InProcessSeat.factory({"chatty": lambda line: "1\n2", "greedy": greedy}),
        tmp_path,
        games_count=2,
    )
    assert players["chatty"]["forfeits"] == {"protocol": 2}


@pytest.mark.slow
def test_a_late_answer_is_a_timeout(tmp_path):
    greedy = _greedy()
    seen: list[str] = []

    def slow_second(line: str) -> str:
        seen.append(line)
        if len(seen) == 2:
            time.sleep(0.3)
        return greedy(line)

    limits = LimitsOverride(decision_s=0.1, startup_s=0.5)
    factory = InProcessSeat.factory({"slow": slow_second, "greedy": greedy})
    players, _ = _play(_specs("slow", "greedy"), factory, tmp_path, games_count=1, limits=limits)
    assert players["slow"]["forfeit_details"][0]["verdict"] == "timeout"

    async def patient(line: str) -> str:
        await trio.sleep(10)
        return "0"

    started = time.monotonic()
    factory = InProcessSeat.factory({"patient": patient, "greedy": greedy})
    players, _ = _play(_specs("patient", "greedy"), factory, tmp_path, games_count=1, limits=limits)
    assert players["patient"]["forfeit_details"][0]["verdict"] == "startup"
    assert time.monotonic() - started < 5  # a coroutine is cancelled at the limit


def test_the_monitor_knows_no_bot_process():
    """The limits monitor is the process seat's business: it imports no BotProcess."""
    import referee.seats.process.monitor

    assert "BotProcess" not in vars(referee.seats.process.monitor)
    assert issubclass(InProcessSeat, Seat)


@pytest.mark.slow
def test_run_match_takes_a_picklable_spec_and_repeats_itself(built_samples, tmp_path):
    """A MatchSpec is pure data (pickles, encodes to JSON); run twice, it gives the
    same game log byte for byte."""
    import pickle

    import msgspec

    from referee.match import MatchSpec, run_match

    competent = resolve(str(built_samples / "yahtzee/bin/competent"))
    greedy = resolve(f"{BOT_PYTHON} {SAMPLES}/yahtzee/greedy_player.py")
    logs = []
    for attempt in range(2):
        log = tmp_path / f"games-{attempt}.jsonl"
        config = MatchConfig(game="yahtzee", games=5, seed=3, pin=False, log_path=str(log))
        spec = pickle.loads(pickle.dumps(MatchSpec(bots=[competent, greedy], config=config)))
        assert msgspec.json.decode(msgspec.json.encode(spec), type=MatchSpec) == spec
        result = run_match(spec)
        assert result.games_played == 5 and result.completed
        logs.append(log.read_bytes())
    assert logs[0] == logs[1]


def test_the_summary_is_right_mid_match(tmp_path):
    """Match.result() during the match counts the live seats' decisions and CPU (it
    used to show 0 until a bot was retired at the end)."""
    greedy = _greedy()
    seen = []
    config = MatchConfig(game="yahtzee", games=3, seed=5, pin=False)
    match = Match(
        games.get("yahtzee")(),
        _specs("a", "b"),
        config,
        seat_factory=InProcessSeat.factory({"a": greedy, "b": greedy}),
    )

    class Watch(Sink):
        def game(self, record, standing) -> None:
            seen.append({p.name: p.decisions for p in standing().players})

    match.sinks.append(Watch())
    final = trio.run(match.run)
    assert seen[0]["a"] >= 13 and seen[1]["a"] > seen[0]["a"]
    assert {p.name: p.decisions for p in final.players} == seen[-1]


def test_in_process_replies_are_held_to_the_line_rules(tmp_path):
    greedy = _greedy()
    for reply, detail in (
        ("1\n\n", "more than one line"),
        ("7" * 5000, "longer than 4096"),
        ("\ud800", "UTF-8"),
    ):
        players, _ = _play(
            _specs("odd", "greedy"),
            InProcessSeat.factory({"odd": lambda line, r=reply: r, "greedy": greedy}),
            tmp_path,
            games_count=1,
        )
        assert players["odd"]["forfeits"] == {"protocol": 1}
        assert detail in players["odd"]["forfeit_details"][0]["detail"]


async def test_each_nursery_has_its_own_monitor():
    """A bot started in one nursery is still sampled after another nursery, whose
    bot was started first, has ended (the monitor lives as long as its nursery)."""
    import shutil

    from referee.core.limits import Limits
    from referee.seats.process import sandbox
    from referee.seats.process.bot import BotProcess

    cat = shutil.which("cat")
    spec = BotSpec(name="cat", argv=[cat], home="/")
    async with trio.open_nursery() as outer:
        late = BotProcess(spec, Limits(), layer=sandbox.Layer.RLIMITS)
        async with trio.open_nursery() as first:
            early = BotProcess(spec, Limits(), layer=sandbox.Layer.RLIMITS)
            await early.start(first)
            await late.start(outer)  # while the first nursery's monitor runs
            await early.close()
            first.cancel_scope.cancel()
        await trio.sleep(0.05)
        assert late._monitor is not early._monitor and late._monitor.running
        await late.close()
        outer.cancel_scope.cancel()
