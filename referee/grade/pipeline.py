"""``referee grade``: a class's submissions, from the folder an LMS exports to a gradebook.

The steps, each recorded per student the moment it ends (``OUT/students/<id>/<step>.json``):

1. **unpack** (:mod:`.unpack`) every entry of SUBMISSIONS_DIR into ``OUT/submissions/<id>``;
2. **build** (:mod:`.detect`, :mod:`.build`) inside the sandbox into ``OUT/bots/<id>``;
3. **check** (:mod:`.steps`): ``referee check`` against the game's reference player;
4. **qualify** (:mod:`.steps`): a match against a random legal player, judged by a rule;
5. **compete** (:mod:`.compete`): a ``referee tournament`` of the qualified bots;
6. **report** (:mod:`.report`): gradebook.csv, results.json and feedback pages per
   student, the class overview, and ``manifest.json``.

Steps 2–4 run per student, ``concurrency`` students at once; a student stops at their
first failed step (its outcome is their gradebook outcome).  Every bot plays from the
run's own snapshot, made at its start: the submissions as unpacked, the house bots and
the qualifying opponent copied into ``OUT/house/`` (referee.tournament.snapshot).
Resuming (``--resume``) plays those snapshots (SUBMISSIONS_DIR is not read again once
every submission was unpacked), keeps every recorded step, and resumes the tournament
from its store.
``--only ID`` grades one student's steps 1–4 again and their competition alone where the
format allows it (a gauntlet against the house); otherwise the competition is run
again for everyone, which the run says.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import os
import platform
import shlex
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import trio

from referee import __version__, games
from referee.core import botspec, interrupts
from referee.core.botspec import BotSpecError
from referee.games.base import Standing as GameStanding
from referee.grade import build as building
from referee.grade import compete as competing
from referee.grade import config as grading_config
from referee.grade import report, scheme, steps, unpack
from referee.grade.config import GradingConfig
from referee.grade.detect import NotDetected, detect
from referee.grade.model import (
    OK,
    SKIPPED,
    STEPS,
    BuildStep,
    CheckStep,
    ClassResult,
    CompeteStep,
    QualifyStep,
    Standing,
    StudentResult,
    UnpackStep,
)
from referee.seats.process import sandbox
from referee.tournament import snapshot
from referee.tournament.store import content_hash

_STEP_TYPES = {
    "unpack": UnpackStep,
    "build": BuildStep,
    "check": CheckStep,
    "qualify": QualifyStep,
    "compete": CompeteStep,
}
MANIFEST = "manifest.json"
#: The house bots' and the qualifying opponent's snapshots (``OUT/house/NAME/``), and
#: the command that runs each (``OUT/house/commands.json``).
HOUSE_DIR = "house"
HOUSE_COMMANDS = "commands.json"
#: The students whose submissions the run's start unpacked (all of them): a resume plays those.
UNPACKED = "unpacked.json"
#: Outcomes that are the grading machine's fault, not the student's: reported loudly,
#: and run again by --resume.
GRADER_FAULTS = ("grader-error", "build-error", steps.OVERLOADED)


def overload_notes(students: list[StudentResult]) -> list[str]:
    """The TA's overview lines on the grading machine's overload (issue 28): the check
    runs and the games replayed, and what could not be graded at all."""
    notes = []
    built = {s.student: s.build.replayed for s in students if s.build is not None and s.build.replayed}
    if built:
        notes.append(
            f"built {sum(len(runs) for runs in built.values())} submission(s) again: the grading machine was "
            f"overloaded ({', '.join(list(built)[:10])})"
        )
    replayed = {s.student: s.check.replayed for s in students if s.check is not None and s.check.replayed}
    if replayed:
        runs = sum(len(checks) for checks in replayed.values())
        notes.append(
            f"replayed {runs} check run(s) of {len(replayed)} student(s): the grading machine was overloaded "
            f"({', '.join(list(replayed)[:10])})"
        )
    for name in ("qualify", "compete"):
        games = {s.student: getattr(s, name).replayed for s in students if getattr(s, name) is not None}
        games = {student: n for student, n in games.items() if n}
        if games:
            what = "qualification" if name == "qualify" else "competition"
            notes.append(
                f"{steps.replayed_games_text(sum(games.values()))} ({what}: "
                f"{', '.join(f'{student} {n}' for student, n in list(games.items())[:10])})"
            )
    overloaded = [
        f"{s.student} ({name})"
        for s in students
        for name in ("build", "check", "qualify")
        if getattr(s, name) is not None and getattr(s, name).outcome == steps.OVERLOADED
    ]
    if overloaded:
        notes.append(
            f"{len(overloaded)} step(s) not graded, the machine overloaded in every replay: "
            f"{', '.join(overloaded[:10])}; referee grade --resume OUT on a quieter machine grades them"
        )
    return notes


class GradeError(Exception):
    """Grading cannot go on; the message says why in one line (not a student's fault)."""


class Stopped(Exception):
    """A stop signal ended the run; every step finished before it is recorded."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def write_json(path: Path, data: object) -> None:
    """Write JSON atomically: a crash leaves the old file or the new one, never half.
    An unchanged record is not rewritten (its time says when it was last decided)."""
    content = msgspec.json.format(msgspec.json.encode(data), indent=1) + b"\n"
    with contextlib.suppress(OSError):
        if path.read_bytes() == content:
            return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(content)
    os.replace(tmp, path)


@dataclass
class Grading:
    """One grading run: what it was told, and where it writes."""

    submissions: Path
    out: Path
    game: str
    config: GradingConfig
    base: Path
    seed: int
    layer: sandbox.Layer
    concurrency: int
    allow_root: bool = False
    only: str | None = None
    say: Callable[[str], None] = print
    notes: list[str] = field(default_factory=list)
    sandbox_detail: str = ""
    standings: list[Standing] = field(default_factory=list)
    guard: interrupts.Guard | None = None
    #: The layer named with --sandbox (None: chosen, the machine's strongest).
    sandbox_requested: str | None = None
    #: ``--resume`` (or ``--only``) of a run in ``out``: it plays the snapshots taken at its start.
    resumed: bool = False
    #: The house bots and the qualifying opponent as configured, each with the command
    #: that runs its snapshot in ``OUT/house/`` (:meth:`_take_house`).
    house_commands: dict[str, str] = field(default_factory=dict)

    # ------------------------------------------------------------------ places

    @property
    def students_dir(self) -> Path:
        return self.out / "students"

    def folder(self, student: str) -> Path:
        return self.students_dir / student

    def _save(self, student: str, name: str, step: object) -> None:
        write_json(self.folder(student) / f"{name}.json", step)

    def _load(self, student: str, name: str, retry: bool = True):
        """A step's record, or None when it must run (again): never recorded, or, with
        ``retry``, recorded as the grader's own failure (a resume retries those)."""
        path = self.folder(student) / f"{name}.json"
        try:
            step = msgspec.json.decode(path.read_bytes(), type=_STEP_TYPES[name])
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None
        return None if retry and step.outcome in GRADER_FAULTS else step

    def _forget(self, student: str, names: tuple[str, ...]) -> None:
        for name in names:
            (self.folder(student) / f"{name}.json").unlink(missing_ok=True)

    # ------------------------------------------------------------------ the run

    def run(self) -> ClassResult:
        started = time.monotonic()
        self.out.mkdir(parents=True, exist_ok=True)
        self._write_manifest(None, "running")
        self._take_house()
        results = self._unpack()
        self._trio(self._steps, results)
        self._report_partial(results)
        self._trio(self._compete, results)
        result = self._finish(results, time.monotonic() - started)
        return result

    def _trio(self, work: Callable, *args: object) -> None:
        """Run ``work(*args)`` under trio; a stop signal cancels it and raises Stopped."""
        _, signum = trio.run(interrupts.run_until_signalled, functools.partial(work, *args), self.guard)
        if signum is not None:
            raise Stopped(signum)

    # ------------------------------------------------------------------ snapshots

    def _take_house(self) -> None:
        """Snapshot the house bots and the qualifying opponent into ``OUT/house/NAME/``
        once, at the run's start (referee.tournament.snapshot: a bot.toml folder whole, a
        loose command the files it names); every step after, and every resume, plays those
        copies, checked against their recorded hashes.  ``OUT/house/commands.json`` holds
        the command that runs each, by the word configured."""
        words = list(self.config.compete.house) if self.config.compete.enabled else []
        if self.config.qualify.enabled:
            words.append(self.config.qualify.opponent)
        words = list(dict.fromkeys(words))
        record = self.out / HOUSE_DIR / HOUSE_COMMANDS
        try:
            stored = json.loads(record.read_text())
        except (OSError, ValueError):
            stored = None
        if isinstance(stored, dict) and all(w in stored for w in words):
            for word in words:
                try:
                    spec = botspec.resolve(stored[word]["command"], self.out)
                    same = content_hash(spec) == stored[word]["hash"]
                except (BotSpecError, KeyError, TypeError):
                    same = False
                if not same:
                    raise GradeError(
                        f"the snapshot of house bot {word!r} in {self.out / HOUSE_DIR} changed since the grading "
                        "started (or is gone): grade into a new --out"
                    )
            self.house_commands = {w: stored[w]["command"] for w in words}
            if self.resumed and words:
                self.say(
                    f"playing the house bots' snapshots in {self.out / HOUSE_DIR} (taken when the grading started)"
                )
            return
        try:
            specs = botspec.unique_names(
                botspec.resolve(grading_config.bot_command(w, self.game, self.base), self.base) for w in words
            )
            moved = snapshot.take({w: s for w, s in zip(words, specs, strict=True)}, self.out, HOUSE_DIR)
        except (BotSpecError, grading_config.GradingConfigError) as exc:
            raise GradeError(str(exc)) from None
        entries = {}
        for word, spec in moved.items():
            home = Path(spec.home)
            command = str(home) if (home / botspec.MANIFEST).is_file() else shlex.join(spec.argv)
            entries[word] = {"command": command, "hash": content_hash(spec)}
        write_json(record, entries)
        self.house_commands = {w: entries[w]["command"] for w in words}

    def _house(self, word: str) -> str:
        """The command that runs a configured house bot's (or opponent's) snapshot."""
        return self.house_commands.get(word) or grading_config.bot_command(word, self.game, self.base)

    def _unpack(self) -> dict[str, StudentResult]:
        """Step 1 for everyone (or for --only); earlier records kept when unchanged.
        A resume of a run whose submissions were all unpacked plays those copies
        (``OUT/submissions``): SUBMISSIONS_DIR is not read again (``--only ID`` grades a
        submission handed in again)."""
        if self.resumed and self.only is None:
            try:
                unpacked = json.loads((self.out / UNPACKED).read_text())["students"]
            except (OSError, ValueError, KeyError, TypeError):
                unpacked = None
            if isinstance(unpacked, list):
                results = {s: self._reload(s) for s in unpacked if (self.folder(s) / "unpack.json").is_file()}
                self.say(
                    f"playing the submissions as unpacked when the grading started, in {self.out / 'submissions'} "
                    f"({len(results)} students): {self.submissions} is not read again; a submission handed in "
                    "again since is graded with --only ID"
                )
                return dict(sorted(results.items()))
        results = self._unpack_entries()
        if self.only is None:
            write_json(self.out / UNPACKED, {"students": sorted(results)})
        return results

    def _unpack_entries(self) -> dict[str, StudentResult]:
        limits = self.config.unpack.limits()
        dest = self.out / "submissions"
        if self.only is None:
            unpacked = unpack.unpack_all(self.submissions, dest, limits)
        else:
            entries = [n for n in os.listdir(self.submissions) if unpack.student_id(n) == self.only]
            if not entries:
                raise GradeError(f"--only {self.only}: no submission with that id in {self.submissions}")
            if len(entries) > 1:
                unpacked = [
                    r for r in unpack.unpack_all(self.submissions, dest, limits) if r.student == self.only
                ]
            else:
                unpacked = [unpack.unpack_one(self.submissions / entries[0], dest, limits)]
        results: dict[str, StudentResult] = {}
        for item in unpacked:
            previous = self._load(item.student, "unpack")
            if isinstance(item, unpack.Refused):
                step = UnpackStep(outcome=item.outcome, summary=item.reason, source=item.source)
                if item.student in results:  # a duplicate id: one record (its reason names every source)
                    continue
            else:
                step = UnpackStep(
                    outcome=OK,
                    summary=f"{item.files} files, {item.bytes} bytes",
                    source=item.source,
                    files=item.files,
                    bytes=item.bytes,
                    content_hash=item.content_hash,
                    skipped=item.skipped,
                )
            fresh = (
                self.only is not None
                or previous is None
                or previous.content_hash != step.content_hash
                or step.content_hash is None
            )
            if fresh:
                self._forget(item.student, STEPS[1:])
            self._save(item.student, "unpack", step)
            results[item.student] = StudentResult(student=item.student, unpack=step)
        if self.only is None:
            self._add_missing(results)
            self._drop_departed(set(results))
        else:
            for student in self._recorded_students():
                if student not in results:
                    results[student] = self._reload(student)
        return dict(sorted(results.items()))

    def _add_missing(self, results: dict[str, StudentResult]) -> None:
        """Students on the roster who handed in nothing: graded "missing"."""
        if self.config.roster is None:
            return
        listed = grading_config.read_roster(self.base / self.config.roster)
        # Ids as unpacking makes them (a roster's "José" is the entry José.zip's id);
        # a hidden name (".x", "..") is no student's.
        roster = [student for name in listed if (student := unpack.student_id(name)) is not None]
        for student in roster:
            if student in results:
                continue
            step = UnpackStep(outcome="missing", summary="no submission was handed in")
            self._forget(student, STEPS[1:])
            self._save(student, "unpack", step)
            results[student] = StudentResult(student=student, unpack=step)
        strangers = sorted(set(results) - set(roster))
        if strangers:
            shown = ", ".join(strangers[:10]) + (
                f" and {len(strangers) - 10} more" if len(strangers) > 10 else ""
            )
            self.notes.append(
                f"{len(strangers)} submission(s) from ids not on the roster, graded anyway: {shown}"
            )
            self.say(self.notes[-1])

    def _recorded_students(self) -> list[str]:
        if not self.students_dir.is_dir():
            return []
        return sorted(p.name for p in self.students_dir.iterdir() if (p / "unpack.json").is_file())

    def _drop_departed(self, present: set[str]) -> None:
        """A student whose entry is gone from SUBMISSIONS_DIR has no record any more."""
        for student in self._recorded_students():
            if student not in present:
                shutil.rmtree(self.folder(student), ignore_errors=True)
                shutil.rmtree(self.out / "bots" / student, ignore_errors=True)

    def _reload(self, student: str) -> StudentResult:
        result = StudentResult(student=student)
        for name in STEPS:
            setattr(result, name, self._load(student, name, retry=False))
        return result

    async def _steps(self, results: dict[str, StudentResult]) -> None:
        """Steps 2–4, ``concurrency`` students at once."""
        limiter = trio.CapacityLimiter(self.concurrency)
        mine = [r for r in results.values() if self.only in (None, r.student)]
        todo = [r for r in mine if r.unpack is not None and r.unpack.ok]
        # Every student is counted: one whose submission did not unpack (empty, unsafe)
        # is done already, and said first.
        total = len(mine)
        done = 0
        for result in mine:
            if result.unpack is None or not result.unpack.ok:
                done += 1
                self.say(f"[{done}/{total}] {result.student}: {self._line(result)}")

        async def one(result: StudentResult) -> None:
            nonlocal done
            async with limiter:
                ran = await self._student(result)
            done += 1
            how = "" if ran else " (recorded earlier)"
            self.say(f"[{done}/{total}] {result.student}: {self._line(result)}{how}")

        async with trio.open_nursery() as nursery:
            for result in todo:
                nursery.start_soon(one, result)

    @staticmethod
    def _line(result: StudentResult) -> str:
        ran = [getattr(result, name) for name in STEPS[1:4] if getattr(result, name) is not None]
        last = ran[-1] if ran else result.unpack
        name = result.last_step or "unpack"
        return f"{name} {last.outcome}: {last.summary}" if last else "nothing ran"

    async def _student(self, result: StudentResult) -> bool:
        """Steps 2–4 of one student; whether any of them ran (rather than being read back)."""
        student = result.student
        ran = False
        folder = self.folder(student)
        bot = self.out / "bots" / student
        source = self.out / "submissions" / student
        build = self._load(student, "build")
        if build is None or (build.ok and not (bot / "bot.toml").is_file()):
            self._forget(student, STEPS[2:])
            ran = True
            found = detect(source)
            if isinstance(found, NotDetected):
                build = BuildStep(outcome=found.outcome, summary=found.reason, why=found.reason)
            else:
                build = await building.build(
                    student, source, found, self.out / "bots", self.layer,
                    self.config.build.limits(), allow_root=self.allow_root,
                )  # fmt: skip
            (folder / "build.log").write_text(
                "\n".join(part for part in (build.log_head, build.log_tail) if part) + "\n"
            )
            self._save(student, "build", build)
        result.build = build
        if build.sandbox:
            self.sandbox_detail = self.sandbox_detail or build.sandbox
        if not build.ok:
            return ran
        limits = self.config.limits
        check = self._load(student, "check")
        if check is None:
            ran = True
            if self.config.check.enabled:
                check = await steps.check(
                    student, bot, self.game, games=self.config.check.games,
                    seed=steps.step_seed(self.seed, "check", student), sandbox=self.layer.value,
                    limits=limits, allow_root=self.allow_root, folder=folder, wall_s=self.config.check.wall_s,
                )  # fmt: skip
            else:
                check = CheckStep(outcome=SKIPPED, summary="not part of this grading")
            self._save(student, "check", check)
        result.check = check
        if not check.ok:
            return ran
        qualify = self._load(student, "qualify")
        if qualify is None:
            ran = True
            q = self.config.qualify
            if q.enabled:
                game_cls = games.get(self.game)
                opponent = self._house(q.opponent)
                qualify = await steps.qualify(
                    student, bot, opponent, self.game, game_cls.standing, games=q.games,
                    seed=steps.step_seed(self.seed, "qualify", student), rule=q.rule,
                    confidence=q.confidence, sandbox=self.layer.value, limits=limits,
                    allow_root=self.allow_root, folder=folder, wall_s=q.wall_s,
                )  # fmt: skip
            else:
                qualify = QualifyStep(outcome=SKIPPED, summary="not part of this grading")
            self._save(student, "qualify", qualify)
        result.qualify = qualify
        return ran

    # ------------------------------------------------------------------ step 5

    def _qualified(self, results: dict[str, StudentResult]) -> dict[str, Path]:
        return {
            s: self.out / "bots" / s
            for s, r in results.items()
            if all(getattr(r, name) is not None and getattr(r, name).ok for name in STEPS[:4])
        }

    async def _compete(self, results: dict[str, StudentResult]) -> None:
        c = self.config.compete
        if not c.enabled:
            return
        qualified = self._qualified(results)
        hashes = {s: build.bot_hash for s in qualified if (build := results[s].build) is not None}
        house = [self._house(h) for h in c.house]
        arena = competing.Arena(
            config=self.config, game=self.game, house=house, folder=self.out / "compete",
            students_folder=self.students_dir, seed=steps.step_seed(self.seed, "compete", ""),
            sandbox=self.layer.value, allow_root=self.allow_root, show_stderr=self.config.feedback.stderr,
        )  # fmt: skip
        if c.format == competing.GAUNTLET:
            todo = {s: p for s, p in qualified.items() if self.only in (None, s)}
            todo = {s: p for s, p in todo.items() if self._load(s, "compete") is None}
            self.say(f"competition: {len(todo)} gauntlets against {len(house)} house bots")
            done = await arena.gauntlets(todo, hashes, self.concurrency)
            for student, step in done.items():
                self._save(student, "compete", step)
            for student in results:
                if student not in qualified:
                    self._forget(student, ("compete",))
                results[student].compete = (
                    self._load(student, "compete", retry=False) if student in qualified else None
                )
            steps_by = {s: r.compete for s, r in results.items() if r.compete is not None}
            by_score = games.get(self.game).standing is GameStanding.SCORE
            self.standings = competing.rank_gauntlets(steps_by, by_score)
            for student, step in steps_by.items():
                self._save(student, "compete", step)
            return
        if self.only is not None:
            self.notes.append(
                f"--only {self.only}: the {c.format} format pairs students with each other, so the "
                "competition was run again for everyone"
            )
            self.say(self.notes[-1])
        if not qualified or len(qualified) + len(house) < 2:
            self.notes.append(
                f"no competition: {len(qualified)} student bot(s) qualified and {len(house)} house bot(s); "
                "a tournament needs two bots, one of them a student's"
            )
            self.say(self.notes[-1])
            for student in results:
                self._forget(student, ("compete",))
                results[student].compete = None
            self.standings = []
            for student in qualified:  # the one qualified bot: first of one, not unplaced
                alone = CompeteStep(
                    outcome=OK, summary="the only bot that qualified: first, with no one to play", rank=1
                )
                results[student].compete = alone
                self._save(student, "compete", alone)
            return
        self.say(f"competition: {c.format} of {len(qualified)} students' bots and {len(house)} house bots")
        done, self.standings = await arena.everyone(qualified, hashes, self.concurrency)
        for student, result in results.items():
            result.compete = done.get(student)
            if result.compete is None:
                self._forget(student, ("compete",))
            else:
                self._save(student, "compete", result.compete)

    # ------------------------------------------------------------------ step 6

    def _class_result(self, results: dict[str, StudentResult], seconds: float) -> ClassResult:
        enabled = {
            "check": self.config.check.enabled,
            "qualify": self.config.qualify.enabled,
            "compete": self.config.compete.enabled,
        }
        students = list(results.values())
        scheme.apply(students, self.config.points, enabled)
        notes = list(self.notes)
        notes += overload_notes(students)
        return ClassResult(
            game=self.game,
            referee_version=__version__,
            seed=self.seed,
            sandbox=self.layer.value,
            sandbox_detail=self.sandbox_detail,
            created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            config=grading_config.as_dict(self.config),
            students=students,
            standings=self.standings,
            format=self.config.compete.format,
            notes=notes,
            feedback=self.config.feedback,
            seconds=round(seconds, 1),
        )

    def _report_partial(self, results: dict[str, StudentResult]) -> None:
        """The gradebook as it stands before the competition: steps 1–4 are never lost
        to a competition that is stopped."""
        report.write_gradebook(self._class_result(results, 0.0), self.out / "gradebook.csv")

    def _finish(self, results: dict[str, StudentResult], seconds: float) -> ClassResult:
        result = self._class_result(results, seconds)
        report.write_gradebook(result, self.out / "gradebook.csv")
        report.write_gradescope(result, self.students_dir)
        report.write_feedback(result, self.students_dir)
        report.write_overview(result, self.out)
        self._write_manifest({s.student: s for s in result.students}, "complete")
        return result

    def _write_manifest(self, students: dict[str, StudentResult] | None, status: str) -> None:
        """What makes this grading reproducible: the referee, the game, the configuration,
        the seed, the sandbox, and the content hash of every submission (``None``: the
        students of the previous manifest, while this run has not graded them yet)."""
        previous: dict = {}
        if students is None and (self.out / MANIFEST).exists():
            with contextlib.suppress(GradeError):
                previous = read_manifest(self.out).get("students", {})
        manifest = {
            "status": status,
            "referee_version": __version__,
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "written": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "game": self.game,
            "seed": self.seed,
            "submissions": str(self.submissions),
            "config_base": str(self.base),
            "config": grading_config.as_dict(self.config),
            "sandbox": self.layer.value,
            "sandbox_requested": self.sandbox_requested,
            "sandbox_detail": self.sandbox_detail,
            "concurrency": self.concurrency,
            "allow_root_bots": self.allow_root,
            "students": previous
            if students is None
            else {
                s: {
                    "source": r.unpack.source if r.unpack else "",
                    "content_hash": r.unpack.content_hash if r.unpack else None,
                    "outcome": r.outcome,
                    "total": r.total,
                }
                for s, r in students.items()
            },
            "rerun": "referee grade --resume OUT continues this run; the same SUBMISSIONS_DIR, "
            "configuration and seed give the same gradebook for deterministic bots",
        }
        write_json(self.out / MANIFEST, manifest)


def read_manifest(out: Path) -> dict:
    try:
        return json.loads((out / MANIFEST).read_text())
    except OSError as exc:
        raise GradeError(f"--resume {out}: no {MANIFEST} there ({exc.strerror})") from None
    except ValueError as exc:
        raise GradeError(f"--resume {out}: {MANIFEST} is damaged: {exc}") from None
