"""``referee arena freeze DIR --out GRADES [--deadline T] [--config grading.toml]``.

The deadline's hand-over to ``referee grade``: every student's last submission made by
the deadline that passed the arena's check (or, when none passed, their last submission,
so that the gradebook says why — a compile error, a crash at start — rather than
"missing") is copied, as uploaded, into
``GRADES/submissions/<student>/`` (the tree the arena unpacked and checked), a roster of every student is written beside it
(those with no checked submission are graded ``missing``), and the grading pipeline
(:class:`referee.grade.pipeline.Grading`) grades them from scratch with the arena's game
and seed — unpack, build, check, qualify, the final tournament, ``gradebook.csv``,
feedback pages and Gradescope ``results.json`` — into ``GRADES/grading/``.  The
arena's own ladder is not the grade: the final tournament is, under grading.toml's
rules, reproducible from the folder it writes.
"""

from __future__ import annotations

import csv
import datetime
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from referee import games
from referee.arena.config import CONFIG, load
from referee.arena.store import Store
from referee.grade import config as grading_config
from referee.grade import unpack
from referee.seats.process import sandbox


class FreezeError(ValueError):
    """The freeze cannot go on; one line."""


def parse_deadline(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise FreezeError(f"--deadline {text!r}: not an ISO date and time (2026-05-01T23:59+02:00)") from None
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return moment.timestamp()


def collect(folder: Path, out: Path, deadline: float | None) -> dict[str, dict]:
    """Copy each student's last checked submission by the deadline into ``out/submissions``;
    what was taken, by student id (None: nothing)."""
    store = Store(folder)
    try:
        students = store.all("SELECT id, name FROM students WHERE role = 'student' ORDER BY name")
        subs_dir = out / "submissions"
        if subs_dir.exists():
            shutil.rmtree(subs_dir)
        subs_dir.mkdir(parents=True)
        taken: dict[str, dict] = {}
        for sid, name in students:
            ident = unpack.student_id(name) or f"student-{sid}"
            row = store.one(
                "SELECT id, path, filename, created, sha256 FROM submissions WHERE student_id = ? AND outcome = 'ok' "
                "AND created <= ? ORDER BY id DESC LIMIT 1",
                sid,
                deadline if deadline is not None else float("inf"),
            )
            checked = row is not None
            if row is None:  # nothing passed: their last upload, graded as it fails (not "missing")
                row = store.one(
                    "SELECT id, path, filename, created, sha256 FROM submissions WHERE student_id = ? "
                    "AND state = 'done' AND created <= ? ORDER BY id DESC LIMIT 1",
                    sid,
                    deadline if deadline is not None else float("inf"),
                )
            if row is None:
                taken[ident] = {"student": name, "submission": None}
                continue
            sub_id, relative, filename, created, sha = row
            # The tree the arena checked (the upload as unpacked, with the protocol package
            # it was given): grading unpacks it again under the same rules.
            tree = folder / "work" / f"s{sub_id}" / "upload"
            if tree.is_dir():
                shutil.copytree(tree, subs_dir / ident)
            else:
                source = folder / "uploads" / relative
                suffix = unpack.archive_suffix(source.name)
                if suffix is not None:
                    shutil.copyfile(source, subs_dir / f"{ident}{suffix}")
                else:
                    shutil.copytree(source, subs_dir / ident)
            taken[ident] = {"student": name, "submission": sub_id, "filename": filename, "created": created,
                            "sha256": sha, "checked": checked}  # fmt: skip
    finally:
        store.close()
    with open(out / "roster.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student"])
        writer.writerows([ident] for ident in taken)
    (out / "frozen.json").write_text(json.dumps({"deadline": deadline, "students": taken}, indent=1) + "\n")
    return taken


def freeze(
    folder: Path,
    out: Path,
    *,
    deadline: str | None = None,
    config_path: Path | None = None,
    concurrency: int | None = None,
    sandbox_name: str | None = None,
    allow_root: bool = False,
    say: Callable[[str], None] = print,
):
    """Collect, then grade; the grading's :class:`~referee.grade.model.ClassResult`."""
    from referee.grade.pipeline import Grading

    folder = folder.resolve()
    out = out.resolve()
    when = parse_deadline(deadline)
    store = Store(folder)
    game, seed, arena_base = store.game, int(store.meta("seed") or 0), store.meta("base")
    store.close()
    arena_config = load(folder / CONFIG)
    if config_path is None and arena_config.grading is not None:
        config_path = Path(arena_base or folder) / arena_config.grading
    config, base = grading_config.load(config_path)
    if config.game is not None and config.game != game:
        raise FreezeError(f"{config_path} is for {config.game}, the arena plays {game}")
    if (out / "grading" / "manifest.json").exists():
        raise FreezeError(f"{out} holds a grading already: referee grade --resume {out}/grading continues it")
    out.mkdir(parents=True, exist_ok=True)
    taken = collect(folder, out, when)
    say(
        f"froze {sum(1 for t in taken.values() if t.get('checked'))} of {len(taken)} students' last checked "
        f"submissions{'' if deadline is None else ' by ' + deadline} into {out}/submissions, and the last upload of "
        f"{sum(1 for t in taken.values() if t['submission'] and not t.get('checked'))} with none that passed "
        f"(graded as they fail); {sum(1 for t in taken.values() if not t['submission'])} handed in nothing"
    )
    import msgspec

    config = msgspec.structs.replace(config, roster=str(out / "roster.csv"), game=game)
    game_cls = games.get(game)
    if config.qualify.enabled and 2 not in game_cls().seats:
        config = msgspec.structs.replace(
            config, qualify=msgspec.structs.replace(config.qualify, enabled=False)
        )
    layer = sandbox.choose(sandbox_name or config.sandbox or arena_config.sandbox or "auto")
    grading = Grading(
        submissions=out / "submissions",
        out=out / "grading",
        game=game,
        config=config,
        base=base,
        seed=seed,
        layer=layer,
        concurrency=concurrency or config.concurrency or max(1, len(os.sched_getaffinity(0))),
        allow_root=allow_root,
        say=say,
    )
    return grading.run()
