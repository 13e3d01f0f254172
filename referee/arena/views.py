"""What the API and the pages show, and to whom (docs/arena.md, "API").

Every function takes the viewer — ``(student id, role)`` — and returns plain data, or
raises :class:`NotFound` for what the viewer may not see (another student's submission
is "not found", not "forbidden": its existence is not told either).  A student sees
their own code's outcome, build log, check report and stderr tails; of other students
only the leaderboard, bots' games and verdicts (without the details, which may quote
stderr), under their name or alias as ``names`` in arena.toml says.  The TA sees all.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from pathlib import Path

from referee.arena.context import Arena
from referee.seats.process.stderr import stderr_tail

Viewer = tuple[int, str]


class NotFound(Exception):
    pass


def is_admin(viewer: Viewer) -> bool:
    return viewer[1] == "admin"


def _names(arena: Arena, viewer: Viewer) -> dict[int, str]:
    """How each student is shown to ``viewer``."""
    shown = arena.config.names == "shown" or is_admin(viewer)
    rows = arena.store.all("SELECT id, name, alias FROM students WHERE role = 'student'")
    return {sid: (name if shown or sid == viewer[0] else alias) for sid, name, alias in rows}


def _bot_owner(arena: Arena, bot_id: int) -> tuple[int | None, str] | None:
    row = arena.store.one("SELECT student_id, label FROM bots WHERE id = ?", bot_id)
    return None if row is None else (row[0], row[1])


def _bot_name(arena: Arena, viewer: Viewer, names: dict[int, str], bot_id: int) -> str:
    owner = _bot_owner(arena, bot_id)
    if owner is None:
        return f"bot {bot_id}"
    student, label = owner
    if student is None:
        return label
    return f"{names.get(student, '?')} (bot {bot_id})"


def _mine(viewer: Viewer, student: int | None) -> bool:
    return is_admin(viewer) or (student is not None and student == viewer[0])


def me(arena: Arena, viewer: Viewer) -> dict:
    name, alias, disq = arena.store.row(
        "SELECT name, alias, disqualified FROM students WHERE id = ?", viewer[0]
    )
    active = arena.store.one("SELECT id FROM bots WHERE student_id = ? AND active = 1", viewer[0])
    subs = arena.store.all(
        "SELECT id, created, filename, state, outcome, summary FROM submissions WHERE student_id = ? "
        "ORDER BY id DESC LIMIT 50",
        viewer[0],
    )
    return {
        "student": name,
        "alias": alias,
        "role": viewer[1],
        "disqualified": disq,
        "active_bot": active[0] if active else None,
        "submissions": [
            {"id": s, "created": c, "filename": f, "state": st, "outcome": o, "summary": sm}
            for s, c, f, st, o, sm in subs
        ],
    }


# --------------------------------------------------------------------------- leaderboard


def rank_ranges(intervals: dict[int, tuple[float, float]]) -> dict[int, list[int]]:
    """Each bot's rank range among ``intervals`` (bot → (low, high) of its 95 % interval):
    best = 1 + the number of bots whose interval lies wholly above its own, worst = the
    number whose interval reaches up to its own (itself included).  The leaderboard ranks
    the active student bots only: replaced versions are evidence for the fit, not
    competitors, and house bots are shown apart (docs/arena.md, "Ratings")."""
    lows = sorted(low for low, _ in intervals.values())
    highs = sorted(high for _, high in intervals.values())
    n = len(lows)
    return {
        bid: [1 + n - bisect_right(lows, high), n - bisect_left(highs, low)]
        for bid, (low, high) in intervals.items()
    }


def _ranked_intervals(arena: Arena) -> dict[int, tuple[float, float]]:
    """The rated bots the leaderboard ranks: active, not benched, their author not disqualified."""
    return {
        bid: (low, high)
        for bid, low, high in arena.store.all(
            "SELECT b.id, r.low, r.high FROM bots b JOIN ratings r ON r.bot_id = b.id "
            "JOIN students s ON s.id = b.student_id "
            "WHERE b.active = 1 AND b.benched IS NULL AND s.disqualified IS NULL"
        )
    }


def leaderboard(arena: Arena, viewer: Viewer) -> dict:
    names = _names(arena, viewer)
    store = arena.store
    bots = {
        row[0]: row
        for row in store.all(
            "SELECT b.student_id, b.id, b.games, b.matches, b.placement_left, r.rating, r.low, r.high, "
            "b.benched, b.wall_stops FROM bots b LEFT JOIN ratings r ON r.bot_id = b.id "
            "WHERE b.active = 1 AND b.student_id IS NOT NULL"
        )
    }
    last = {
        row[0]: row
        for row in store.all(
            "SELECT s.student_id, s.id, s.state, s.outcome, s.step, s.summary, s.created FROM submissions s "
            "JOIN (SELECT student_id, max(id) AS id FROM submissions GROUP BY student_id) m ON m.id = s.id"
        )
    }
    students = store.all("SELECT id, disqualified FROM students WHERE role = 'student'")
    rated, placing, others = [], [], []
    for sid, disq in students:
        entry: dict = {"student": names[sid], "you": sid == viewer[0]}
        sub = last.get(sid)
        if sub is not None:
            entry["last_submission"] = {
                "id": sub[1], "state": sub[2], "outcome": sub[3], "step": sub[4], "cause": sub[5],
                "created": sub[6],
            }  # fmt: skip
        bot = bots.get(sid)
        if disq:
            entry.update(status="disqualified", reason=disq)
            others.append(entry)
        elif bot is None:
            entry["status"] = "no-bot"
            others.append(entry)
        else:
            _, bid, games, matches, left, rating, low, high, benched, stops = bot
            entry.update(bot=bid, games=games, matches=matches, placement_left=left, wall_stops=stops)
            if benched:
                entry.update(status="benched", reason=benched, rating=rating, low=low, high=high)
                others.append(entry)
            elif rating is None:
                entry.update(status="placing", rating=None)
                placing.append(entry)
            else:
                entry.update(
                    status="playing", rating=rating, low=low, high=high, plus_minus=round((high - low) / 2, 2)
                )  # fmt: skip
                rated.append(entry)
    rated.sort(key=lambda e: -e["rating"])
    ranges = rank_ranges({e["bot"]: (e["low"], e["high"]) for e in rated})
    for rank, entry in enumerate(rated, 1):
        entry["rank"] = rank
        entry["rank_range"] = ranges[entry["bot"]]
    # Benched and disqualified first among the rest (they have a bot), then no bot.
    others.sort(key=lambda e: {"benched": 0, "disqualified": 1}.get(e["status"], 2))
    house = [
        {"bot": bid, "name": label, "games": games, "rating": rating, "low": low, "high": high}
        for bid, label, games, rating, low, high in store.all(
            "SELECT b.id, b.label, b.games, r.rating, r.low, r.high FROM bots b "
            "LEFT JOIN ratings r ON r.bot_id = b.id WHERE b.student_id IS NULL AND b.active = 1 ORDER BY b.id"
        )
    ]
    counts = store.row("SELECT count(*), coalesce(sum(games), 0) FROM matches WHERE state = 'done'")
    return {
        "game": arena.game,
        "method": store.meta("ratings_method", None),
        "confidence": 0.95,
        "paused": store.paused,
        "matches": counts[0],
        "games": counts[1],
        "students": rated + placing + others,
        "house": house,
    }


# --------------------------------------------------------------------------- submissions


def submission(arena: Arena, viewer: Viewer, sid: int) -> dict:
    row = arena.store.one(
        "SELECT student_id, created, filename, size, sha256, state, outcome, summary, step, steps, updated, "
        "finished, bot_id FROM submissions WHERE id = ?",
        sid,
    )
    if row is None or not _mine(viewer, row[0]):
        raise NotFound
    student, created, filename, size, sha, state, outcome, summary, step, steps, updated, finished, bot = row
    return {
        "id": sid, "student": _names(arena, viewer).get(student), "created": created, "filename": filename,
        "size": size, "sha256": sha, "state": state, "outcome": outcome, "summary": summary, "step": step,
        "steps": json.loads(steps), "updated": updated, "finished": finished, "bot": bot,
        "done": state == "done",
    }  # fmt: skip


# --------------------------------------------------------------------------- bots and games


def _tail(arena: Arena, mid: int, bot_id: int) -> str | None:
    path = arena.folder / "stderr" / f"m{mid}" / f"b{bot_id}.stderr"
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - 8192))
            return stderr_tail(f.read().decode("utf-8", "replace"))
    except OSError:
        return None


def bot(arena: Arena, viewer: Viewer, bot_id: int) -> dict:
    row = arena.store.one(
        "SELECT b.student_id, b.active, b.games, b.matches, b.placement_left, b.created, b.submission_id, "
        "r.rating, r.low, r.high, b.benched, b.wall_stops FROM bots b LEFT JOIN ratings r ON r.bot_id = b.id "
        "WHERE b.id = ?",
        bot_id,
    )
    if row is None:
        raise NotFound
    student, active, games, matches, left, created, sub, rating, low, high, benched, stops = row
    ranked = _ranked_intervals(arena)
    rank_range = rank_ranges(ranked).get(bot_id) if bot_id in ranked else None
    names = _names(arena, viewer)
    mine = _mine(viewer, student)
    recent = []
    for (mid,) in arena.store.all(
        "SELECT match_id FROM match_bots WHERE bot_id = ? ORDER BY match_id DESC LIMIT 20", bot_id
    ):
        recent.append(game(arena, viewer, mid, names=names, brief=True))
    forfeits = [
        {"match": m, "game": g, "verdict": v, **({"detail": d} if mine else {})}
        for m, g, v, d in arena.store.all(
            "SELECT match_id, game, verdict, detail FROM forfeits WHERE bot_id = ? ORDER BY match_id DESC, n "
            "LIMIT 50",
            bot_id,
        )
    ]
    out = {
        "id": bot_id, "name": _bot_name(arena, viewer, names, bot_id), "house": student is None,
        "yours": student is not None and student == viewer[0], "active": bool(active), "games": games,
        "matches": matches, "placement_left": left, "created": created,
        "rating": rating, "low": low, "high": high,
        "rank_range": rank_range, "benched": benched, "wall_stops": stops,
        "recent": recent, "forfeits": forfeits,
    }  # fmt: skip
    if mine:
        out["submission"] = sub
    return out


def game(arena: Arena, viewer: Viewer, mid: int, *, names: dict | None = None, brief: bool = False) -> dict:
    row = arena.store.one(
        "SELECT kind, state, bots, seed, games, created, started, finished, attempts, record, error "
        "FROM matches WHERE id = ?",
        mid,
    )
    if row is None:
        raise NotFound
    kind, state, bots_json, seed, games, created, started, finished, attempts, record, error = row
    names = names if names is not None else _names(arena, viewer)
    bots = json.loads(bots_json)
    figures = {}
    if record:
        for p in json.loads(record)["players"]:
            figures[int(p["name"][1:])] = p
    players = []
    for bid in bots:
        owner = _bot_owner(arena, bid)
        entry: dict = {"bot": bid, "name": _bot_name(arena, viewer, names, bid)}
        fig = figures.get(bid)
        if fig is not None:
            entry.update(
                games=fig["games"], wins=fig["wins"], losses=fig["losses"], draws=fig["draws"],
                mean_score=fig["mean_score"], forfeits=sum(fig["forfeits"].values()),
            )  # fmt: skip
        if not brief and owner is not None and owner[0] is not None and _mine(viewer, owner[0]):
            entry["stderr_tail"] = _tail(arena, mid, bid)
        players.append(entry)
    has_log = Path(arena.folder / "logs" / f"m{mid}.jsonl").is_file() and state == "done"
    return {
        "id": mid, "kind": kind, "state": state, "seed": seed, "games": games, "created": created,
        "started": started, "finished": finished, "attempts": attempts, "error": error, "players": players,
        "replay": f"/games/{mid}/replay" if has_log else None,
    }  # fmt: skip


# --------------------------------------------------------------------------- the TA


def admin_students(arena: Arena) -> list[dict]:
    out = []
    for sid, name, alias, disq in arena.store.all(
        "SELECT id, name, alias, disqualified FROM students WHERE role = 'student' ORDER BY name"
    ):
        subs = arena.store.all(
            "SELECT id, state, outcome, summary FROM submissions WHERE student_id = ? ORDER BY id DESC", sid
        )
        active = arena.store.one("SELECT id FROM bots WHERE student_id = ? AND active = 1", sid)
        out.append({
            "id": sid, "name": name, "alias": alias, "disqualified": disq,
            "active_bot": active[0] if active else None,
            "submissions": [{"id": s, "state": st, "outcome": o, "summary": sm} for s, st, o, sm in subs],
        })  # fmt: skip
    return out


def admin_matches(arena: Arena, limit: int = 100) -> list[dict]:
    return [
        {"id": m, "kind": k, "state": s, "bots": json.loads(b), "error": e, "attempts": a}
        for m, k, s, b, e, a in arena.store.all(
            "SELECT id, kind, state, bots, error, attempts FROM matches ORDER BY id DESC LIMIT ?", limit
        )
    ]
