"""The ladder: which bots play next, and the matches played through the executors.

Policy (docs/arena.md, "The ladder"), decided each time a slot comes free:

1. a match ``queued`` in the store first — one a crash cut short, or one the TA asked to
   rerun — replayed from its start with its own seed;
2. then a bot with **placement** matches left (a new submission), oldest first, against
   opponents spread over the ladder: its k-th of P placement matches meets the bot at
   the k/(P−1) quantile of the ratings, top to bottom;
3. otherwise the bot whose rating is **least certain** (widest 95 % interval; no rating
   yet counts as infinitely wide; fewest games breaks ties) against the opponent whose
   difference from it is least certain: the smallest gap between their ratings relative
   to the sum of their intervals' widths, fewer meetings so far breaking ties — for a
   multi-seat game, the table's seats go to the nearest such opponents.

A bot plays one match at a time.  Every match has its own seed (from the arena's seed
and the match's id).  No bot can hold the ladder: every answer is bounded by the
limits, and a whole match by ``ladder.match_wall_s`` — a match past it is stopped,
recorded as failed and not rated, and charged to the bot whose answers took most of its
time (in practice the one still thinking): a ``match-wall`` forfeit on its page, a
lower priority in the schedule, and after ``ladder.bench_after`` such stops it is
benched (off the ladder until its author submits again).  A match is committed whole at
its end (games, record, forfeits, game counts), so a crash either counts it once or
replays it.

Matches are played through a :class:`Slot`, which bounds each by the wall limit where it
is played: a local worker process per slot (:class:`LocalSlot`, the tournament's
:class:`~referee.tournament.executors.local.MatchExecutor`), or Dask tasks on a cluster
(:mod:`referee.arena.cluster`, ``--cluster``).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from pathlib import Path
from typing import Protocol

import msgspec
import trio

from referee.arena.context import Arena
from referee.arena.store import inserted
from referee.core.botspec import BotSpec, BotSpecError, resolve
from referee.core.records import BotFigures, GameRecord, MatchRecord
from referee.match.spec import MatchConfig, MatchSpec
from referee.tournament import wire
from referee.tournament.executors import Handler
from referee.tournament.executors.local import MatchExecutor
from referee.tournament.workers import WorkerLost

_encode = msgspec.json.encode


def match_seed(seed: int, match_id: int) -> int:
    digest = hashlib.sha256(f"{seed}/arena-match/{match_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def table_size(arena: Arena) -> int:
    seats = arena.game_cls.seats
    want = arena.config.ladder.table_size or getattr(seats, "default", None) or seats.low
    return max(seats.low, min(seats.high, want))


# --------------------------------------------------------------------------- choosing


def _candidates(arena: Arena, busy: set[int]) -> list[dict]:
    rows = arena.store.all(
        "SELECT b.id, b.placement_left, b.games, r.rating, r.low, r.high, b.created, b.wall_stops FROM bots b "
        "LEFT JOIN students s ON s.id = b.student_id LEFT JOIN ratings r ON r.bot_id = b.id "
        "WHERE b.active = 1 AND b.benched IS NULL AND (b.student_id IS NULL OR s.disqualified IS NULL)"
    )
    out = []
    for bid, left, games, rating, low, high, created, stops in rows:
        if bid in busy:
            continue
        rated = rating is not None
        out.append({
            "id": bid, "left": left, "games": games, "created": created,
            "rating": rating if rated else 0.0,
            "width": (high - low) if rated else math.inf, "stops": stops,
        })  # fmt: skip
    return out


def _met(arena: Arena, a: int) -> dict[int, int]:
    rows = arena.store.all(
        "SELECT o.bot_id, count(*) FROM match_bots m JOIN match_bots o ON o.match_id = m.match_id "
        "AND o.bot_id != m.bot_id WHERE m.bot_id = ? GROUP BY o.bot_id",
        a,
    )
    return dict(rows)


def choose(arena: Arena, busy: set[int]) -> tuple[str, list[int]] | None:
    """The next lineup (kind, bot ids), or None when no match can start now."""
    seats = table_size(arena)
    pool = _candidates(arena, busy)
    if len(pool) < seats:
        return None
    # A bot charged with wall stops comes after the others (docs/arena.md, "Slow bots").
    placing = sorted((c for c in pool if c["left"] > 0), key=lambda c: (c["stops"], c["created"], c["id"]))
    if placing:
        a = placing[0]
        others = sorted((c for c in pool if c["id"] != a["id"]), key=lambda c: -c["rating"])
        done = arena.config.ladder.placement_matches - a["left"]
        span = max(1, arena.config.ladder.placement_matches - 1)
        at = round(done * (len(others) - 1) / span) % len(others)
        picked = [others[(at + k) % len(others)]["id"] for k in range(seats - 1)]
        return "placement", [a["id"], *picked]
    a = max(pool, key=lambda c: (-c["stops"], c["width"], -c["games"], -c["id"]))
    met = _met(arena, a["id"])

    def doubt(c: dict) -> tuple:
        spread = a["width"] + c["width"]
        gap = abs(a["rating"] - c["rating"])
        closeness = 0.0 if math.isinf(spread) else gap / max(spread, 1e-9)
        return (c["stops"], closeness, met.get(c["id"], 0), c["games"], c["id"])

    others = sorted((c for c in pool if c["id"] != a["id"]), key=doubt)
    return "ladder", [a["id"], *(c["id"] for c in others[: seats - 1])]


def next_match(arena: Arena, busy: set[int]) -> int | None:
    """Mark the next match ``running`` (a queued one, or a new lineup) and return its id."""
    store = arena.store
    for mid, bots in store.all("SELECT id, bots FROM matches WHERE state = 'queued' ORDER BY id"):
        if not busy.intersection(json.loads(bots)):
            with store.tx() as conn:
                conn.execute(
                    "UPDATE matches SET state = 'running', started = ?, attempts = attempts + 1 WHERE id = ?",
                    (time.time(), mid),
                )
            return mid
    if store.paused:
        return None
    chosen = choose(arena, busy)
    if chosen is None:
        return None
    kind, bots = chosen
    now = time.time()
    with store.tx() as conn:
        mid = inserted(
            conn.execute(
                "INSERT INTO matches (kind, state, bots, seed, games, created, started, attempts) "
                "VALUES (?, 'running', ?, 0, ?, ?, ?, 1)",
                (kind, json.dumps(bots), arena.config.ladder.games, now, now),
            )
        )
        conn.execute("UPDATE matches SET seed = ? WHERE id = ?", (match_seed(arena.seed, mid), mid))
        conn.executemany(
            "INSERT INTO match_bots (match_id, bot_id, position) VALUES (?, ?, ?)",
            [(mid, b, k) for k, b in enumerate(bots)],
        )
        if kind == "placement":
            conn.execute("UPDATE bots SET placement_left = placement_left - 1 WHERE id = ?", (bots[0],))
    return int(mid)


# --------------------------------------------------------------------------- playing


def spec_of(arena: Arena, mid: int) -> MatchSpec:
    bots_json, seed, games = arena.store.row("SELECT bots, seed, games FROM matches WHERE id = ?", mid)
    specs: list[BotSpec] = []
    unstartable: dict[str, str] = {}
    for bid in json.loads(bots_json):
        path = arena.store.row("SELECT path FROM bots WHERE id = ?", bid)[0]
        name = f"b{bid}"
        try:
            spec = msgspec.structs.replace(resolve(path), name=name)
        except BotSpecError as exc:
            spec = BotSpec(name=name, argv=["/bin/false"], home="/")
            unstartable[name] = str(exc)
        specs.append(spec)
    config = MatchConfig(
        game=arena.game,
        games=games,
        seed=seed,
        pin=True,
        sandbox=arena.layer.value,
        allow_root_bots=arena.allow_root,
        limits=arena.config.limits,
        keep_going=True,
        log_path=str(arena.folder / "logs" / f"m{mid}.jsonl"),
        stderr_dir=str(arena.folder / "stderr" / f"m{mid}"),
        unstartable=unstartable,
    )
    return MatchSpec(bots=specs, config=config)


def store_result(arena: Arena, mid: int, record: MatchRecord, games: list[GameRecord]) -> None:
    """The match's end, whole, in one transaction."""
    ids = {p.name: int(p.name[1:]) for p in record.players}
    with arena.store.tx() as conn:
        state = conn.execute("SELECT state FROM matches WHERE id = ?", (mid,)).fetchone()[0]
        if state != "running":  # stored already (cannot happen twice: one writer); never count twice
            return
        conn.executemany(
            "INSERT INTO games (match_id, game, scores, ranks) VALUES (?, ?, ?, ?)",
            [(mid, g.game, json.dumps(g.scores), json.dumps(g.ranks)) for g in games],
        )
        for player in record.players:
            bid = ids[player.name]
            conn.executemany(
                "INSERT INTO forfeits (match_id, bot_id, n, game, verdict, detail) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (mid, bid, n, f.game, str(f.verdict), f.detail)
                    for n, f in enumerate(player.forfeit_details[:50])
                ],
            )
            conn.execute(
                "UPDATE bots SET games = games + ?, matches = matches + 1 WHERE id = ?", (player.games, bid)
            )
        conn.execute(
            "UPDATE matches SET state = 'done', finished = ?, record = ?, error = NULL WHERE id = ?",
            (time.time(), _encode(record).decode(), mid),
        )


def fail(arena: Arena, mid: int, error: str) -> None:
    with arena.store.tx() as conn:
        conn.execute(
            "UPDATE matches SET state = 'failed', finished = ?, error = ? WHERE id = ? AND state = 'running'",
            (time.time(), error, mid),
        )


WALL_VERDICT = "match-wall"


def think_seconds(figures: BotFigures) -> float:
    """The wall time a bot's answers took in a (partial) match record."""
    return figures.decisions * figures.mean_decision_us / 1e6 + figures.first_answer_ms / 1e3


def slowest_bot(record: MatchRecord | None) -> tuple[int, float, BotFigures] | None:
    """The bot whose answers took most of a stopped match's time: (bot id, seconds, figures)."""
    if record is None or not record.players:
        return None
    figures = max(record.players, key=lambda p: (think_seconds(p), p.slow_answers, p.decisions))
    if think_seconds(figures) <= 0:
        return None
    return int(figures.name[1:]), think_seconds(figures), figures


def charge_wall(arena: Arena, mid: int, record: MatchRecord | None) -> int | None:
    """A match stopped at ``ladder.match_wall_s``: failed, not rated, and charged to its
    slowest bot — a ``match-wall`` forfeit, one more wall stop, benched at
    ``ladder.bench_after``.  The bot charged, if one could be named."""
    wall = arena.config.ladder.match_wall_s
    slow = slowest_bot(record)
    now = time.time()
    with arena.store.tx() as conn:
        if conn.execute("SELECT state FROM matches WHERE id = ?", (mid,)).fetchone()[0] != "running":
            return None
        if slow is None:
            error = f"stopped: the match did not finish within {wall:g} s (ladder.match_wall_s)"
            conn.execute(
                "UPDATE matches SET state = 'failed', finished = ?, error = ? WHERE id = ?", (now, error, mid)
            )
            return None
        bid, seconds, figures = slow
        played = record.games_played if record is not None else 0
        detail = (
            f"the match was stopped at its wall limit of {wall:g} s after {played} game(s): this bot's answers "
            f"took {seconds:.1f} s of it ({figures.decisions} decisions, {figures.mean_decision_us / 1000:.0f} ms "
            f"each on average, {figures.slow_answers} near the limit); answer faster, the ladder does not wait"
        )
        error = f"stopped at the wall limit ({wall:g} s ladder.match_wall_s), charged to bot {bid}: {detail}"
        conn.execute(
            "UPDATE matches SET state = 'failed', finished = ?, error = ? WHERE id = ?", (now, error, mid)
        )
        conn.execute(
            "INSERT OR REPLACE INTO forfeits (match_id, bot_id, n, game, verdict, detail) VALUES (?, ?, 0, ?, ?, ?)",
            (mid, bid, played, WALL_VERDICT, detail),
        )
        stops = conn.execute(
            "UPDATE bots SET wall_stops = wall_stops + 1 WHERE id = ? RETURNING wall_stops", (bid,)
        ).fetchone()[0]
        bench_after = arena.config.ladder.bench_after
        if stops >= bench_after:
            conn.execute(
                "UPDATE bots SET benched = ? WHERE id = ? AND benched IS NULL AND student_id IS NOT NULL",
                (
                    f"benched: {stops} of its matches stopped at the wall limit ({wall:g} s) with this bot "
                    "the slowest; submit a faster version",
                    bid,
                ),
            )
    return bid


class Slot(Protocol):
    """What a ladder slot plays a match through: :class:`LocalSlot` (a worker process of
    its own) or :class:`referee.arena.cluster.Cluster` (shared by every slot).  Either
    bounds the match by ``wall_s`` itself, where it is played."""

    async def play_one(self, key: str, spec: MatchSpec, wall_s: float, handle: Handler) -> bool:
        """Play one match, its messages to ``handle``; whether it was stopped at
        ``wall_s`` (its partial record handed over).  WorkerLost when it could not be
        played; the slot is usable again either way."""
        ...

    async def close(self, handle: Handler | None = None) -> None: ...


class LocalSlot:
    """A slot's own worker process: the tournament's
    :class:`~referee.tournament.executors.local.MatchExecutor`, a match bounded here — at
    ``wall_s`` it is stopped as the tournament stops one (the worker's input closed, its
    partial record with each bot's answer times handed over, the worker ended), and the
    slot takes a fresh worker, as after a lost one."""

    def __init__(self, workers: Path) -> None:
        self._workers = workers
        self._executor = MatchExecutor(1, workers)

    async def play_one(self, key: str, spec: MatchSpec, wall_s: float, handle: Handler) -> bool:
        try:
            with trio.move_on_after(wall_s) as scope:
                await self._executor.play([wire.RoundMatch(key, spec)], handle)
        except WorkerLost:
            await self._renew()
            raise
        if scope.cancelled_caught:
            await self._renew(handle)
        return scope.cancelled_caught

    async def _renew(self, handle: Handler | None = None) -> None:
        await self._executor.close(handle)
        self._executor = MatchExecutor(1, self._workers)

    async def close(self, handle: Handler | None = None) -> None:
        await self._executor.close(handle)


async def play(arena: Arena, slot: Slot, mid: int) -> None:
    """Play match ``mid`` through ``slot``, and store how it ended: whole, failed, or
    stopped at ``ladder.match_wall_s`` and charged (:func:`charge_wall`)."""
    spec = spec_of(arena, mid)
    attempt = arena.store.row("SELECT attempts FROM matches WHERE id = ?", mid)[0]
    key = f"{mid}.{attempt}"
    games: list[GameRecord] = []
    closed: list[wire.Closed] = []

    def handle(message: wire.ToParent) -> None:
        if isinstance(message, wire.Games) and message.key == key:
            games.extend(message.records)
        elif isinstance(message, wire.Closed) and message.key == key:
            closed.append(message)

    try:
        stopped = await slot.play_one(key, spec, arena.config.ladder.match_wall_s, handle)
    except WorkerLost as exc:
        fail(arena, mid, f"the match's worker was lost: {exc}")
        return
    if stopped:
        charge_wall(arena, mid, closed[-1].record if closed else None)
        return
    if not closed:
        fail(arena, mid, "the match ended without a record")
        return
    end = closed[-1]
    if end.error is not None or end.record.evidence is None or not end.record.completed:
        fail(arena, mid, end.error or end.record.stopped or "the match recorded no evidence")
        return
    games.sort(key=lambda g: g.game)
    store_result(arena, mid, end.record, games)


async def run(arena: Arena, concurrency: int, cluster: Slot | None = None) -> None:
    """``concurrency`` slots, each playing one match after another, forever: each with a
    local worker of its own (:class:`LocalSlot`), or all through ``cluster``
    (:class:`referee.arena.cluster.Cluster`)."""
    busy: set[int] = set()
    workers = arena.folder / "workers"
    workers.mkdir(exist_ok=True)

    async def slot(index: int) -> None:
        player = cluster if cluster is not None else LocalSlot(workers)
        try:
            while True:
                wake = arena.ladder_wake
                mid = next_match(arena, busy)
                if mid is None:
                    with trio.move_on_after(2.0):
                        await wake.wait()
                    continue
                bots = set(json.loads(arena.store.row("SELECT bots FROM matches WHERE id = ?", mid)[0]))
                busy.update(bots)
                try:
                    await play(arena, player, mid)
                finally:
                    busy.difference_update(bots)
                arena.wake_ladder()
        finally:
            if cluster is None:
                await player.close()

    async with trio.open_nursery() as nursery:
        for index in range(concurrency):
            nursery.start_soon(slot, index)
