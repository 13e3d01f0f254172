"""Liar's Dice's clock against seed 001 (issue 25, item 5).

Seed 001: "Bots are given limited time (50 ms) to make each of their decisions. A slow
bot will be interrupted and lose a die whenever it takes longer than the allotted
time"; "Bot objects will persist from game to game in the tournament."  The 2013 engine
(Ty-Guy5/LiarsDice, ``LiarsDiceGame.getDecisionTimed``) runs each decision in a thread
of its own and charges a ``TIMEOUT`` (one die) for each decision not back in time, the
first included; the slow thread is left behind and the same bot object answers the next
decision.  So here:

* every decision is held to the limit, the first too: the startup allowance lasts only
  until the bot has read its first request (``Limits.first_answer_in_startup`` False);
* one slow decision costs one die: its late answer is awaited (``Limits.late_s``) and
  dropped before the bot's next request, and the bot keeps running, with its memory;
* only a bot that does not answer within ``late_s`` is stopped as hung;
* a crash found while telling a bot an information line penalises no decision: the
  game's ``forfeits`` and the bot's figures agree.

The probe bot prints ``started`` once per process and ``decision N`` after each answer
to stderr: one ``started`` and an unbroken count prove it was never restarted.
Generous margins (a 0.2 s limit, 1 s of sleep) keep the tests right on a loaded machine.
"""

from __future__ import annotations

import collections
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest
import trio
from conftest import BOT_PYTHON

from referee.core.botspec import BotSpec
from referee.core.limits import Limits, LimitsOverride
from referee.core.verdict import BotFault, Verdict
from referee.games.liars_dice import LiarsDice
from referee.match import Match, MatchConfig
from referee.seats.process import bot as process
from referee.seats.process import sandbox
from referee.seats.process.bot import BotProcess

pytestmark = pytest.mark.slow

#: A Liar's Dice bot: ``probe.py STARTUP_S SLOW DELAY_S [MODE]``.  It sleeps STARTUP_S
#: before it reads anything, then answers every ``turn`` at once with a legal move,
#: except its decisions SLOW (``1,3``: the first and third of this process; ``all``;
#: ``-``: none), which take DELAY_S first.  MODE ``vanish``: on a slow decision it closes
#: its input, sleeps DELAY_S and exits without answering.
PROBE = """\
import os, sys, time
startup, slow, delay = float(sys.argv[1]), sys.argv[2], float(sys.argv[3])
mode = sys.argv[4] if len(sys.argv) > 4 else ""
time.sleep(startup)
print("started", file=sys.stderr, flush=True)
n = 0
while True:
    line = sys.stdin.buffer.readline().decode()
    if not line:
        break
    if not line.startswith("turn "):
        continue
    n += 1
    if slow == "all" or str(n) in slow.split(","):
        if mode == "vanish":
            os.close(0)
            time.sleep(delay)
            sys.exit(3)
        time.sleep(delay)
    head, _, bids = line.partition(" bids")
    total = sum(int(c) for c in head.split(" counts ")[1].split(" dice ")[0].split())
    bids = bids.split()
    if not bids:
        answer = "bid 1 2"
    else:
        q, f = map(int, bids[-1].split(":")[1:])
        q, f = (q, f + 1) if f < 6 else (q + 1, 2)
        answer = "challenge" if q > total // 2 else f"bid {q} {f}"
    print(answer, flush=True)
    print(f"decision {n}", file=sys.stderr, flush=True)
"""

LIMIT_S = 0.2  # the decision limit in these tests (the game's is 50 ms)
SLOW_S = 1.0  # a slow decision: 5x the limit


@pytest.fixture
def probe(tmp_path: Path):
    path = tmp_path / "probe.py"
    path.write_text(PROBE)

    def make(
        name: str, startup: float = 0.0, slow: str = "-", delay: float = SLOW_S, mode: str = ""
    ) -> BotSpec:
        argv = [BOT_PYTHON, str(path), str(startup), slow, str(delay)] + ([mode] if mode else [])
        return BotSpec(name=name, argv=argv, home=str(tmp_path))

    return make


def test_the_game_holds_every_decision_to_the_seed_limit():
    limits = LiarsDice.limits
    assert limits.decision_s == 0.05 and not limits.first_answer_in_startup
    assert limits.late_s >= 10 * limits.decision_s  # the probe took 1 s: awaited


# ----------------------------------------------------------------- one process


@pytest.fixture(params=["c-fast-path", "python-path"])
def io_path(request, monkeypatch):
    """The process cases run on both request paths: the C fast path and pure Python."""
    if request.param == "python-path":
        monkeypatch.setattr(process, "exchange", None)
    return request.param


STRICT = Limits(startup_s=5.0, decision_s=LIMIT_S, first_answer_in_startup=False, late_s=5.0, exit_s=2.0)
TURN = b"turn 0 counts 5 5 dice 12345 bids\n"
LATER = b"turn 0 counts 5 5 dice 12345 bids 1:2:3\n"


@contextlib.asynccontextmanager
async def running(spec: BotSpec, limits: Limits = STRICT) -> AsyncIterator[BotProcess]:
    sandbox.become_subreaper()
    async with trio.open_nursery() as nursery:
        bot = BotProcess(spec, limits, layer=sandbox.Layer.RLIMITS)
        await bot.start(nursery)
        try:
            yield bot
        finally:
            await bot.close()
            nursery.cancel_scope.cancel()  # the limits monitor's task


async def test_startup_before_the_first_read_is_not_the_decision_s(probe, io_path):
    """1 s of startup (5x the limit) before the bot reads anything: covered by the
    startup allowance; its first decision, answered at once, is in time."""
    async with running(probe("starts-slowly", startup=SLOW_S)) as bot:
        assert await bot.request(TURN) == b"bid 1 2"
        assert await bot.request(LATER) == b"bid 2 4"
        assert bot.alive


async def test_a_slow_first_decision_is_a_timeout_and_the_bot_plays_on(probe, io_path):
    """Read at once, answered after 1 s: a ``timeout`` (not ``startup``), the bot keeps
    running, and its late answer is dropped before the next request, which is answered
    in time and matched to that request."""
    async with running(probe("first-slow", slow="1")) as bot:
        with pytest.raises(BotFault) as first:
            await bot.request(TURN)
        assert first.value.verdict is Verdict.TIMEOUT and bot.alive
        began = time.monotonic()
        assert await bot.request(LATER) == b"bid 2 4"
        assert time.monotonic() - began < SLOW_S + 2.0  # the late answer was awaited
        assert bot.alive and bot.decisions == 1


async def test_the_first_decision_keeps_its_startup_allowance_where_the_game_says(probe, io_path):
    """Other games (``first_answer_in_startup`` True, the default): the first answer may
    take what is left of the startup allowance."""
    limits = Limits(startup_s=5.0, decision_s=LIMIT_S, exit_s=2.0)
    async with running(probe("first-slow", slow="1"), limits) as bot:
        assert await bot.request(TURN) == b"bid 1 2"


async def test_a_seat_first_asked_after_the_allowance_still_gets_its_turn(probe, io_path):
    """Started, then first asked 1 s later, after its 0.5 s allowance: it still has one
    decision's time to read the request and answer (Liar's Dice: a seat may be first
    asked late in the first game, after the others' rounds)."""
    limits = msgspec.structs.replace(STRICT, startup_s=0.5)
    async with running(probe("asked-late"), limits) as bot:
        await trio.sleep(1.0)
        assert await bot.request(TURN) == b"bid 1 2"


async def test_a_bot_that_never_reads_its_first_request_is_a_startup_fault(probe, io_path):
    limits = msgspec.structs.replace(STRICT, startup_s=0.5)
    async with running(probe("never-reads", startup=30.0), limits) as bot:
        began = time.monotonic()
        with pytest.raises(BotFault) as info:
            await bot.request(TURN)
        assert info.value.verdict is Verdict.STARTUP and "did not read its first request" in info.value.detail
        assert time.monotonic() - began < 3.0
        assert not bot.alive


async def test_a_bot_that_never_gives_its_late_answer_is_stopped_as_hung(probe, io_path):
    """Awaited up to ``late_s`` after the timeout, then stopped: that request is a
    ``timeout`` too."""
    limits = msgspec.structs.replace(STRICT, late_s=0.5)
    async with running(probe("hangs", slow="2", delay=60.0), limits) as bot:
        assert await bot.request(TURN) == b"bid 1 2"
        with pytest.raises(BotFault) as first:
            await bot.request(LATER)
        assert first.value.verdict is Verdict.TIMEOUT and bot.alive
        began = time.monotonic()
        with pytest.raises(BotFault) as second:
            await bot.request(TURN)
        assert time.monotonic() - began < 3.0
        assert second.value.verdict is Verdict.TIMEOUT
        assert bot.death is Verdict.TIMEOUT and "still no answer to the previous request" in bot.death_detail


# ----------------------------------------------------------------- whole matches


def _play(specs: list[BotSpec], tmp_path: Path, games: int, seed: int = 3) -> tuple[dict, list[dict]]:
    log = tmp_path / "games.jsonl"
    config = MatchConfig(
        game="liars-dice",
        games=games,
        seed=seed,
        pin=False,
        sandbox="rlimits",
        log_path=str(log),
        stderr_dir=str(tmp_path / "stderr"),
        limits=LimitsOverride(decision_s=LIMIT_S),
    )
    result = trio.run(Match(LiarsDice(), specs, config).run)
    assert result.completed and result.games_played == games
    players = {p.name: msgspec.to_builtins(p) for p in result.players}
    return players, [json.loads(line) for line in log.read_text().splitlines()]


def _penalties(records: list[dict], name: str) -> list[dict]:
    """The penalised rounds of bot ``name``, from the games' summaries."""
    out = []
    for record in records:
        seat = record["seats"].index(name)
        out += [r["penalty"] for r in record["summary"]["rounds"] if r.get("penalty", {}).get("seat") == seat]
    return out


def _never_restarted(tmp_path: Path, name: str, decisions: int) -> None:
    """One process answered every decision: one ``started``, the count unbroken.  (The
    match's very last decision may be cut short by its end, when it was a late one.)"""
    lines = (tmp_path / "stderr" / f"{name}.stderr").read_text().split("\n")
    assert lines.count("started") == 1, lines
    counted = [int(line.split()[1]) for line in lines if line.startswith("decision ")]
    assert counted == list(range(1, len(counted) + 1)) and len(counted) >= decisions, counted


@pytest.mark.slow
def test_a_bot_slow_on_its_first_decision_loses_exactly_one_die(probe, tmp_path):
    """The 2013 engine charges a first decision over the limit like any other; the
    bot's startup (1 s here, before it reads) costs nothing."""
    specs = [probe("first-slow", startup=SLOW_S, slow="1"), probe("fast")]
    players, records = _play(specs, tmp_path, games=2)
    slow = players["first-slow"]
    assert slow["forfeits"] == {"timeout": 1}, slow["forfeit_details"]
    assert slow["forfeit_details"][0]["game"] == 0
    assert _penalties(records, "first-slow") == [{"seat": 0, "verdict": "timeout", "dice_lost": 1}]
    assert slow["restarts"] == 0
    _never_restarted(tmp_path, "first-slow", slow["decisions"] + 1)  # the late answer too


@pytest.mark.slow
def test_one_slow_decision_costs_one_die_and_the_bot_keeps_its_memory(probe, tmp_path):
    """Decisions 2 and 4 take 1 s: two dice, no restart, the count unbroken.  (Before:
    the next request went out while the bot was still computing, timed out too, and
    the bot was stopped as hung: two dice and its memory per slow decision.)"""
    specs = [probe("slow-twice", slow="2,4"), probe("fast"), probe("fast-2")]
    players, records = _play(specs, tmp_path, games=2)
    slow = players["slow-twice"]
    assert slow["forfeits"] == {"timeout": 2}, slow["forfeit_details"]
    assert slow["restarts"] == 0
    assert [p["verdict"] for p in _penalties(records, "slow-twice")] == ["timeout", "timeout"]
    _never_restarted(tmp_path, "slow-twice", slow["decisions"] + 2)


@pytest.mark.slow
def test_an_always_late_bot_loses_a_die_per_decision_without_restarts(probe, tmp_path):
    """Every decision takes 0.5 s (2.5x the limit): each costs one die, as in 2013 —
    five decisions and five dice a game, no bot stopped, no restart."""
    specs = [probe("always-late", slow="all", delay=0.5), probe("fast")]
    players, records = _play(specs, tmp_path, games=2)
    late = players["always-late"]
    assert late["forfeits"] == {"timeout": 10}, late["forfeit_details"]
    assert late["restarts"] == 0 and late["decisions"] == 0
    for record in records:
        seat = record["seats"].index("always-late")
        asked = [s for s in record["transcript"] if s["kind"] == "ask" and s["seat"] == seat]
        assert len(asked) == 5 and all(s.get("verdict") == "timeout" for s in asked)
        assert record["ranks"][seat] >= record["ranks"][1 - seat]  # (a tie when the other never decided)
    _never_restarted(tmp_path, "always-late", 9)


@pytest.mark.slow
def test_a_crash_found_while_telling_is_in_neither_the_forfeits_nor_the_figures(probe, tmp_path):
    """On its second decision the bot closes its input and goes quiet: a ``timeout``
    (one die); writing it the ``penalty`` line then finds it gone, which penalises no
    decision — it is restarted at its next turn.  The game's ``forfeits`` list exactly
    what its figures count (before: the crash too, which the figures did not count)."""
    specs = [probe("vanishes", slow="2", mode="vanish"), probe("fast")]
    players, records = _play(specs, tmp_path, games=1)
    gone = players["vanishes"]
    listed = collections.Counter(
        f["verdict"] for record in records for f in record["forfeits"] if f["player"] == "vanishes"
    )
    assert dict(listed) == gone["forfeits"], gone["forfeit_details"]
    assert set(listed) == {"timeout"} and gone["restarts"] >= 1
    seat = records[0]["seats"].index("vanishes")
    told = [
        s for s in records[0]["transcript"] if s["kind"] == "tell" and s["seat"] == seat and "verdict" in s
    ]
    assert told and all(s["verdict"] == "crash" and s["line"].startswith("penalty ") for s in told)
