"""What grading records about each student, step by step, and about the class.

Every step of ``referee grade`` ends in a :class:`Step` (or a subclass with the step's
own figures), saved per student as ``OUT/students/<id>/<step>.json`` the moment it
ends, so a crashed grading run resumes where it stopped and a report can always be
re-made from what is on disk.  A step's ``outcome`` is ``"ok"`` or a named failure
(``compile-error``, ``build-timeout``, ``check-failed``, ``not-qualified``, …: the
full list is in docs/grading.md); ``summary`` is one line, for the gradebook and the
feedback page.  A step that did not run because an earlier one failed is absent.

Everything here is plain data (msgspec structs): the reports (:mod:`.report`) are
pure functions of a :class:`ClassResult`.
"""

from __future__ import annotations

import msgspec

#: The steps, in order; also the names of their files.
STEPS = ("unpack", "build", "check", "qualify", "compete")

OK = "ok"
#: Issue 28: a step not graded because the grading machine was overloaded in every
#: replay of it (a grader fault: ``referee grade --resume`` runs it again).
OVERLOADED = "machine-overloaded"
#: A step skipped by configuration (``check.enabled = false``, no qualification).
SKIPPED = "skipped"


class Step(msgspec.Struct, kw_only=True, omit_defaults=True):
    outcome: str
    summary: str
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.outcome in (OK, SKIPPED)


class UnpackStep(Step, kw_only=True, omit_defaults=True):
    source: str = ""
    files: int = 0
    bytes: int = 0
    #: hex SHA-256 of the unpacked tree (referee.grade.unpack's docstring says of what).
    content_hash: str | None = None
    skipped: list[str] = []


class BuildStep(Step, kw_only=True, omit_defaults=True):
    #: What detection found ("manifest", "makefile", "c", "python", …), None when nothing.
    kind: str | None = None
    #: The build command as typed, and the command that runs the bot.
    command: str | None = None
    run: str | None = None
    #: Why detection chose this (or why it could not choose): one line.
    why: str = ""
    #: The build's output, stdout and stderr interleaved: its first and last lines.
    log_head: str = ""
    log_tail: str = ""
    log_bytes: int = 0
    exit_status: int | None = None
    #: The isolation the build ran in (the layer and its parts).
    sandbox: str = ""
    cpu_s: float = 0.0
    peak_rss_bytes: int = 0
    #: The content hash of the built tree (before its bot.toml): what a stored
    #: tournament is checked against, so a bot built anew starts its tournament anew.
    bot_hash: str | None = None
    #: Issue 28: earlier builds set aside as the machine's fault (a build timeout while
    #: it was starved of CPU), why.
    replayed: list[str] = []


class CheckItem(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One line of `referee check`'s checklist (its --json "items")."""

    key: str
    title: str
    status: str  #: "pass", "fail" or "skip"
    figure: str = ""
    notes: list[str] = []
    failure: dict[str, str] | None = None
    hint: str | None = None


class CheckStep(Step, kw_only=True, omit_defaults=True):
    items: list[CheckItem] = []
    opponent: str = ""
    games: int = 0
    seed: int = 0
    #: The command that reproduces this check, with ``BOT`` for the student's bot.
    command: str = ""
    #: Issue 28: earlier runs of this check set aside because the grading machine caused
    #: their timing faults (a late answer or exit while the bot was starved of CPU), why.
    replayed: list[str] = []


class Forfeit(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One penalised decision of the student's bot, with what it takes to see why."""

    verdict: str
    detail: str
    #: Where: the match (its key or opponent) and the game number in it.
    match: str = ""
    game: int | None = None
    #: The line the bot was sent and what it replied, when there was a reply.
    position: str | None = None
    reply: str | None = None
    stderr_tail: str = ""


class QualifyStep(Step, kw_only=True, omit_defaults=True):
    opponent: str = ""
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    #: The bot's mean score per game, and the opponent's.
    mean_score: float = 0.0
    opponent_mean_score: float = 0.0
    #: What was measured ("score rate" or "chips per game"), its estimate and its
    #: two-sided interval at the rule's confidence.
    measure: str = ""
    estimate: float | None = None
    interval: list[float] | None = None
    #: The rule applied, in words ("it must win more games than it loses", "the 95 %
    #: one-sided lower confidence bound of its score rate must be above 0.5"), and what
    #: this match showed of it ("… 0.412, is not above 0.5").
    rule: str = ""
    finding: str = ""
    seed: int = 0
    forfeits: list[Forfeit] = []
    #: The notes the bot wrote about its own play (``referee-note:`` lines on its stderr,
    #: docs/records.md "Notes"; an adapter's corrections), by name, and each name's first text.
    notes: dict[str, int] = {}
    note_examples: dict[str, str] = {}
    #: The command that reproduces this match, with ``BOT`` for the student's bot.
    command: str = ""
    #: What to do about a failed qualification, one line.
    hint: str = ""
    #: Issue 28: games played again because the bot's timeout or slow start in them was
    #: the grading machine's fault (the bot starved of CPU), and the first reasons.
    replayed: int = 0
    replayed_details: list[str] = []


class Replay(msgspec.Struct, kw_only=True):
    """A game worth watching (a loss, a forfeit): where its record is."""

    label: str
    path: str  #: relative to the student's folder in OUT


class CompeteStep(Step, kw_only=True, omit_defaults=True):
    format: str = ""
    #: Issue 28: its games played again as the grading machine's fault (as for qualifying).
    replayed: int = 0
    rank: int | None = None
    rank_range: list[int] | None = None
    #: Its rating and 95 % interval, in ``rating_unit`` ("Elo", "points per game").
    rating: float | None = None
    rating_interval: list[float] | None = None
    rating_unit: str = ""
    matches: int = 0
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    mean_score: float | None = None
    forfeits: list[Forfeit] = []
    #: Its notes over the competition, as in :class:`QualifyStep`.
    notes: dict[str, int] = {}
    note_examples: dict[str, str] = {}
    #: Decision time over the competition: mean and max, in milliseconds; peak memory.
    decision_ms_mean: float | None = None
    decision_ms_max: float | None = None
    peak_rss_bytes: int = 0
    replays: list[Replay] = []


class PointItem(msgspec.Struct, kw_only=True):
    """One line of the grading scheme as applied to a student."""

    name: str
    points: float
    max_points: float
    #: Gradescope's: "visible", "hidden", "after_due_date" or "after_published".
    visibility: str = "visible"
    #: Why this many points, one line.
    why: str = ""


class StudentResult(msgspec.Struct, kw_only=True, omit_defaults=True):
    student: str
    unpack: UnpackStep | None = None
    build: BuildStep | None = None
    check: CheckStep | None = None
    qualify: QualifyStep | None = None
    compete: CompeteStep | None = None
    points: list[PointItem] = []
    total: float = 0.0
    max_total: float = 0.0

    @property
    def outcome(self) -> str:
        """The first failing step's outcome, or "ok": the gradebook's one-word status."""
        for name in STEPS:
            step = getattr(self, name)
            if step is not None and not step.ok:
                return step.outcome
        return OK

    @property
    def last_step(self) -> str | None:
        """The last step that ran."""
        ran = [name for name in STEPS if getattr(self, name) is not None]
        return ran[-1] if ran else None


class Standing(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One row of the competition's standings (students and fixed opponents alike)."""

    rank: int
    name: str
    student: bool
    points: float | None = None
    rating: float | None = None
    rating_interval: list[float] | None = None
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    mean_score: float | None = None
    forfeits: int = 0


class Feedback(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """What students see on their feedback page and in results.json."""

    build_log: bool = True
    check: bool = True
    qualify: bool = True
    compete: bool = True
    #: The standings of the whole class (names included) on each page.
    standings: bool = False
    #: Their own bot's stderr tail in forfeits.
    stderr: bool = True
    #: Gradescope visibility of the whole result and of stdout.
    visibility: str = "visible"


class ClassResult(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A whole grading run: what the reports are made from."""

    game: str
    referee_version: str
    seed: int
    #: The isolation layer everything ran under, as chosen and as described.
    sandbox: str
    sandbox_detail: str = ""
    created: str = ""
    #: The configuration in force, as a plain dict (what grading.toml said, defaults filled).
    config: dict = {}
    students: list[StudentResult] = []
    standings: list[Standing] = []
    #: The competition's format and what a re-grade of one student takes.
    format: str = ""
    notes: list[str] = []
    feedback: Feedback = Feedback()
    #: Wall seconds of the whole run.
    seconds: float = 0.0
