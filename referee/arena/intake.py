"""A submission's way in: the upload stored atomically, then unpack, build and check.

:func:`accept` stores an upload: its bytes go to a hidden temporary folder under
``DIR/uploads``, are flushed to disk, and the folder is renamed into place before the
submission's row is committed — a crash leaves no half upload and no row without its
file (a renamed folder without a row is swept at the next start).  It refuses (with an
HTTP status) past the upload size, past ``upload.per_hour`` uploads in the last hour, or
with ``upload.pending`` submissions still being checked.

:func:`run` checks queued submissions, ``upload.concurrency`` at once, with the grading
pieces, exactly as ``referee grade`` does: :func:`referee.grade.unpack.unpack_one` (the
hostile-archive rules), :func:`referee.grade.detect.detect`, the sandboxed
:func:`referee.grade.build.build`, and :func:`referee.grade.steps.check` (``referee
check`` as a child).  Each stage is committed as it starts (``state``) and each step's
record as it ends (``steps``), so the page shows it live.  A submission that passes
becomes its author's active bot, replacing the last one, with its placement matches
to play.  One cut short by a crash is checked again from the start.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
import uuid
from pathlib import Path
from typing import BinaryIO

import msgspec
import trio

from referee.arena.context import Arena
from referee.arena.store import inserted
from referee.grade import build as building
from referee.grade import steps, unpack
from referee.grade.detect import NotDetected, detect
from referee.grade.model import OK
from referee.sinks.files import fsync_path

_CHUNK = 1 << 16
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


class Refused(Exception):
    """An upload not taken: the HTTP status and one line."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def safe_filename(name: str | None) -> str:
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = _SAFE.sub("_", base).lstrip(".")[:100]
    return base or "upload"


def check_allowed(arena: Arena, student: int) -> None:
    """Refused when the student may not upload now (disqualified, too many, too often)."""
    store, limits = arena.store, arena.config.upload
    row = store.one("SELECT disqualified FROM students WHERE id = ?", student)
    if row is None:
        raise Refused(403, "unknown student")
    if row[0]:
        raise Refused(403, f"disqualified: {row[0]}")
    recent = store.row(
        "SELECT count(*) FROM submissions WHERE student_id = ? AND created > ?", student, time.time() - 3600
    )[0]
    if recent >= limits.per_hour:
        raise Refused(429, f"{recent} uploads in the last hour: the limit is {limits.per_hour} an hour")
    pending = store.row("SELECT count(*) FROM submissions WHERE student_id = ? AND state != 'done'", student)[
        0
    ]
    if pending >= limits.pending:
        raise Refused(429, f"{pending} submissions are still being checked: wait for them")


def accept(arena: Arena, student: int, filename: str | None, data: BinaryIO) -> int:
    """Store an upload and queue its submission; its id."""
    check_allowed(arena, student)
    cap = int(arena.config.upload.max_mib * 1024 * 1024)
    name = safe_filename(filename)
    suffix = unpack.archive_suffix(name)
    uploads = arena.folder / "uploads"
    key = uuid.uuid4().hex
    tmp = uploads / f".tmp-{key}"
    tmp.mkdir(parents=True)
    try:
        if suffix is not None:
            relative = f"upload{suffix}"
            target = tmp / relative
        else:
            relative = "upload"
            (tmp / "upload").mkdir()
            target = tmp / "upload" / name
        digest = hashlib.sha256()
        size = 0
        with open(target, "wb") as out:
            while chunk := data.read(_CHUNK):
                size += len(chunk)
                if size > cap:
                    raise Refused(413, f"the upload is over {arena.config.upload.max_mib:g} MiB")
                digest.update(chunk)
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if size == 0:
            raise Refused(400, "the upload is empty")
        if suffix is None and name.endswith((".sh", ".py", ".js")):
            os.chmod(target, 0o755)
        os.rename(tmp, uploads / key)
        fsync_path(uploads)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    now = time.time()
    with arena.store.tx() as conn:
        sid = inserted(
            conn.execute(
                "INSERT INTO submissions (student_id, created, filename, size, sha256, path, state, updated) "
                "VALUES (?, ?, ?, ?, ?, ?, 'queued', ?)",
                (student, now, name, size, digest.hexdigest(), f"{key}/{relative}", now),
            )
        )
    arena.wake_intake()
    return int(sid)


def sweep(arena: Arena) -> int:
    """At start: remove temporary upload folders and folders no submission names."""
    uploads = arena.folder / "uploads"
    named = {row[0].split("/", 1)[0] for row in arena.store.all("SELECT path FROM submissions")}
    removed = 0
    for entry in os.listdir(uploads):
        if entry.startswith(".tmp-") or entry not in named:
            shutil.rmtree(uploads / entry, ignore_errors=True)
            removed += 1
    return removed


# --------------------------------------------------------------------------- checking


def provide_protocol(tree: Path) -> bool:
    """A Python bot that imports the referee's wire library (``protocol``, standard
    library only, as the sample players do) without shipping it gets a copy: the
    interpreter it runs under in the sandbox has no referee installed.  Whether one was added."""
    if (tree / "protocol").exists():
        return False
    sources = [p for p in tree.rglob("*.py") if p.is_file() and not p.is_symlink()]
    if not any(
        re.search(rb"^\s*(from|import)\s+protocol\b", p.read_bytes()[:200_000], re.M) for p in sources
    ):
        return False
    import protocol

    shutil.copytree(
        Path(protocol.__file__).parent,
        tree / "protocol",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    return True


def _builtins(step: object) -> dict:
    return msgspec.to_builtins(step)


async def process(arena: Arena, sid: int) -> str:
    """Unpack, build and check submission ``sid``; its outcome."""
    store = arena.store
    row = store.row("SELECT student_id, path FROM submissions WHERE id = ?", sid)
    student, relative = row
    tag = f"s{sid}"
    work = arena.folder / "work" / tag
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    recorded: dict[str, dict] = {}

    def finish(step: str, outcome: str, summary: str, bot_id: int | None = None) -> str:
        store.set_submission(
            sid, state="done", outcome=outcome, summary=summary, step=step, steps=recorded,
            finished=time.time(), bot_id=bot_id,
        )  # fmt: skip
        return outcome

    store.set_submission(sid, state="unpacking", steps=recorded)
    entry = arena.folder / "uploads" / relative
    limits = arena.config.unpack.limits()
    unpacked = await trio.to_thread.run_sync(unpack.unpack_one, entry, work, limits, abandon_on_cancel=True)
    if isinstance(unpacked, unpack.Refused):
        recorded["unpack"] = {"outcome": unpacked.outcome, "summary": unpacked.reason}
        return finish("unpack", unpacked.outcome, unpacked.reason)
    recorded["unpack"] = {
        "outcome": OK, "summary": f"{unpacked.files} files, {unpacked.bytes} bytes",
        "content_hash": unpacked.content_hash, "skipped": unpacked.skipped,
    }  # fmt: skip
    if provide_protocol(unpacked.path):
        recorded["unpack"]["summary"] += "; the referee's protocol package added (the bot imports it)"
    store.set_submission(sid, state="building", steps=recorded)
    found = detect(unpacked.path)
    if isinstance(found, NotDetected):
        recorded["build"] = {"outcome": found.outcome, "summary": found.reason}
        return finish("build", found.outcome, found.reason)
    built = await building.build(
        tag, unpacked.path, found, arena.folder / "bots", arena.layer, arena.config.build.limits(),
        allow_root=arena.allow_root,
    )  # fmt: skip
    recorded["build"] = _builtins(built)
    if not built.ok:
        return finish("build", built.outcome, built.summary)
    store.set_submission(sid, state="checking", steps=recorded)
    bot = arena.folder / "bots" / tag
    checked = await steps.check(
        tag, bot, arena.game, games=arena.config.check.games,
        seed=steps.step_seed(arena.seed, "check", tag), sandbox=arena.layer.value,
        limits=arena.config.limits, allow_root=arena.allow_root, folder=work,
        wall_s=arena.config.check.wall_s,
    )  # fmt: skip
    recorded["check"] = _builtins(checked)
    if not checked.ok:
        failed = next((i for i in checked.items if i.status == "fail" and i.figure), None)
        why = f" — {failed.title}: {failed.figure}" if failed is not None else ""
        return finish("check", checked.outcome, checked.summary + why)
    now = time.time()
    with store.tx() as conn:
        name = conn.execute("SELECT name FROM students WHERE id = ?", (student,)).fetchone()[0]
        conn.execute("UPDATE bots SET active = 0 WHERE student_id = ? AND active = 1", (student,))
        bot_id = inserted(
            conn.execute(
                "INSERT INTO bots (student_id, submission_id, label, path, created, active, placement_left) "
                "VALUES (?, ?, ?, ?, ?, 1, ?)",
                (student, sid, f"{name}#{sid}", str(bot), now, arena.config.ladder.placement_matches),
            )
        )
        conn.execute(
            "UPDATE submissions SET state = 'done', outcome = ?, summary = ?, step = 'check', steps = ?, "
            "finished = ?, updated = ?, bot_id = ? WHERE id = ?",
            (OK, f"checked: {checked.summary}; on the ladder", json.dumps(recorded), now, now, bot_id, sid),
        )
    arena.wake_ladder()
    return OK


async def run(arena: Arena) -> None:
    """Check queued submissions, ``upload.concurrency`` at once, oldest first, forever."""
    busy: set[int] = set()
    limiter = trio.Semaphore(arena.config.upload.concurrency)

    async def one(sid: int) -> None:
        try:
            await process(arena, sid)
        except Exception as exc:  # the grader's own failure: said, and the submission closed
            arena.store.set_submission(
                sid, state="done", outcome="grader-error", summary=f"the arena could not check it: {exc}",
                step="check", finished=time.time(),
            )  # fmt: skip
        finally:
            busy.discard(sid)
            limiter.release()
            arena.wake_intake()

    async with trio.open_nursery() as nursery:
        while True:
            wake = arena.intake_wake
            queued = [
                r[0]
                for r in arena.store.all("SELECT id FROM submissions WHERE state = 'queued' ORDER BY id")
                if r[0] not in busy
            ]
            for sid in queued:
                await limiter.acquire()
                busy.add(sid)
                nursery.start_soon(one, sid)
            with trio.move_on_after(5.0):
                await wake.wait()
