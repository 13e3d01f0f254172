"""Disk: what replaced bots leave behind, removed in bounded passes (docs/arena.md, "Disk").

A term of uploads leaves per submission a work folder (``DIR/work/sN``: the unpacked
tree, the check's files) and per match a replay (``DIR/logs/mN.jsonl``) and stderr files
(``DIR/stderr/mN/``).  Once a bot is replaced they are only history, so each pass:

* a **replaced** bot's work folder keeps only ``upload/`` — the tree ``referee arena
  freeze`` takes for a deadline before its replacement (freeze-safe); its check report
  and build log stay in the store;
* a **failed** submission's work folder, when it is not its author's last submission, is
  removed (a recheck unpacks the upload again; its report is in the store);
* a match's replay and stderr files are removed when no **active** student bot played in
  it and it is not among the last ``ladder.keep_replays`` matches of any of its bots: a
  replaced bot's page keeps its recent replays, an active bot's matches all of theirs.

Uploads (``DIR/uploads``), built bots (``DIR/bots``) and every row of the store stay.
Each pass removes at most :data:`PER_PASS` folders or files and runs in a thread, so a
backlog never holds the server.
"""

from __future__ import annotations

import os
import shutil
import sqlite3

import trio

from referee.arena.context import Arena
from referee.arena.store import DB

#: Folders or files removed per pass, at most.
PER_PASS = 500
#: Seconds between two passes.
EVERY_S = 600.0


def _remove(path: str) -> bool:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
        return True
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


def clean(arena: Arena, limit: int = PER_PASS) -> dict[str, int]:
    """One pass; how many of each were removed."""
    folder = str(arena.folder)
    keep = arena.config.ladder.keep_replays
    done = {"work": 0, "replays": 0}
    budget = limit
    conn = sqlite3.connect(arena.folder / DB, timeout=30.0)
    try:
        replaced = conn.execute(
            "SELECT b.submission_id FROM bots b WHERE b.student_id IS NOT NULL AND b.active = 0 "
            "AND b.submission_id IS NOT NULL"
        ).fetchall()
        failed = conn.execute(
            "SELECT s.id FROM submissions s WHERE s.state = 'done' AND s.outcome != 'ok' "
            "AND s.id < (SELECT max(id) FROM submissions t WHERE t.student_id = s.student_id)"
        ).fetchall()
        old = conn.execute(
            "SELECT m.id FROM matches m WHERE m.state IN ('done', 'failed') AND NOT EXISTS ("
            " SELECT 1 FROM match_bots mb JOIN bots b ON b.id = mb.bot_id"
            " WHERE mb.match_id = m.id AND b.active = 1 AND b.student_id IS NOT NULL) "
            "AND m.id NOT IN (SELECT match_id FROM (SELECT match_id, row_number() OVER "
            " (PARTITION BY bot_id ORDER BY match_id DESC) AS k FROM match_bots) WHERE k <= ?) ORDER BY m.id",
            (keep,),
        ).fetchall()
    finally:
        conn.close()
    for (sid,) in replaced:
        work = os.path.join(folder, "work", f"s{sid}")
        try:
            entries = os.listdir(work)
        except OSError:
            continue
        for entry in entries:
            if entry != "upload" and budget > 0 and _remove(os.path.join(work, entry)):
                budget -= 1
                done["work"] += 1
    for (sid,) in failed:
        if budget > 0 and os.path.isdir(os.path.join(folder, "work", f"s{sid}")):
            _remove(os.path.join(folder, "work", f"s{sid}"))
            budget -= 1
            done["work"] += 1
    for (mid,) in old:
        if budget <= 0:
            break
        removed = _remove(os.path.join(folder, "logs", f"m{mid}.jsonl"))
        removed = _remove(os.path.join(folder, "stderr", f"m{mid}")) or removed
        if removed:
            budget -= 1
            done["replays"] += 1
    return done


async def run(arena: Arena) -> None:
    """A pass at start and every :data:`EVERY_S`; a failed pass is said and retried later."""
    while True:
        try:
            removed = await trio.to_thread.run_sync(clean, arena, abandon_on_cancel=True)
        except Exception as exc:  # the disk or the store: the server goes on
            print(f"arena: the clean-up pass failed: {exc}", flush=True)
        else:
            if any(removed.values()):
                print(
                    f"arena: cleaned up {removed['work']} work folder(s) and {removed['replays']} old "
                    "replay(s) of replaced bots",
                    flush=True,
                )
        await trio.sleep(EVERY_S)
