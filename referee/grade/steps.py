"""Steps 3 and 4 of ``referee grade``: check a built bot, and qualify it.

Both run the referee's own commands in a child process — ``referee check BOT --json``
and ``referee match BOT OPPONENT --json`` — exactly as a student runs them at home, so
the checklist and the qualification match a student sees in their feedback are the
ones they can reproduce with the command printed there.  A child process also keeps
one student's trouble (a bot that wedges its match) apart from the grading run: the
child is bounded in wall time and killed with its bots if it overstays.  A check whose
failure the grading machine caused is run again (issue 28: :func:`replaying`, the rule
builds share).

The qualification's verdict is a rule on the match's evidence
(:class:`~referee.core.records.MatchEvidence`), as ``referee match`` prints it:

``more-wins``
    the Yahtzee seed's gate taken literally: more games won than lost (for games ranked
    by score — dice poker, Hold'em — a positive mean score per game: chips won);
``significant``
    beating the opponent must not be luck: the one-sided lower confidence bound (at
    ``confidence``) of the bot's score rate is above ½ — or, for games ranked by score,
    of its mean edge per game above 0.  Units are deals, as everywhere in the referee
    (:mod:`referee.stats.intervals`): a Student-t bound, Wilson's at a perfect record.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shlex
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import msgspec
import trio

from referee.core.limits import LimitsOverride, MiB
from referee.core.records import MatchEvidence
from referee.games.base import SAMPLE_PLAYERS, Standing
from referee.grade.model import OK, OVERLOADED, BuildStep, CheckItem, CheckStep, Forfeit, QualifyStep
from referee.match.evidence import score_rate
from referee.seats.process import sandbox
from referee.stats.intervals import Moments, mean_interval, rate_interval

#: Seconds a stopped child has to end after SIGTERM before SIGKILL.
_TERM_GRACE_S = 10.0

#: CLI flags of the limits ``referee match`` takes; ``referee check`` takes the first
#: three, finite (a check must end; its games are few, so a CPU budget does not apply).
_LIMIT_FLAGS = {
    "startup_s": "--startup-timeout",
    "decision_s": "--decision-timeout",
    "memory_bytes": "--memory-limit",
    "cpu_s": "--cpu-limit",
    "address_space_bytes": "--address-space-limit",
}
_CHECK_LIMITS = ("startup_s", "decision_s", "memory_bytes")


def step_seed(seed: int, step: str, student: str) -> int:
    """The seed of one student's step: from the grading seed, the step and the id alone,
    so that a student's games do not depend on who else is in the class."""
    digest = hashlib.sha256(f"{seed}/{step}/{student}".encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def limit_flags(limits: LimitsOverride | None, check: bool = False) -> list[str]:
    """The command-line flags of ``limits`` that `referee match` (or, with ``check``,
    `referee check`) takes; the rest of ``[limits]`` applies to the competition."""
    if limits is None:
        return []
    out: list[str] = []
    for field, flag in _LIMIT_FLAGS.items():
        value = getattr(limits, field)
        if value is None or (check and (field not in _CHECK_LIMITS or math.isinf(value))):
            continue
        if math.isinf(value):
            out += [flag, "none"]
        elif field.endswith("_bytes"):
            out += [flag, str(max(1, int(value) // MiB))]
        else:
            out += [flag, f"{value:g}"]
    return out


def referee_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "referee", *args]


def shown(argv: list[str], bot: Path, *drop: str) -> str:
    """A command as a student types it at home: ``referee …`` rather than the grader's
    interpreter, ``BOT`` for their bot, and without the grader's own files (the flags
    in ``drop`` and their values)."""
    words = ["referee", *argv[3:]] if argv[:3] == [sys.executable, "-m", "referee"] else list(argv)
    out: list[str] = []
    skip = False
    samples = f"{SAMPLE_PLAYERS}/"
    for word in words:
        if skip:
            skip = False
        elif word in drop:
            skip = True
        elif word == str(bot):
            out.append("BOT")
        else:
            # An opponent from the source tree, as it is named from the tree's top.
            out.append(
                word.replace(shlex.quote(sys.executable), "python3").replace(samples, "sample_players/")
            )
    return shlex.join(out)


async def run_child(argv: list[str], wall_s: float, log: Path) -> tuple[int | None, str]:
    """Run a referee command, its output to ``log``; its exit status (None: it was
    stopped at ``wall_s``) and its last output line.

    The child is marked as ours to reap (:func:`sandbox.owned`): grading is a child
    subreaper while it builds, and the build's sweep of orphaned zombies must not reap
    this child before trio does — its exit status would be lost (read as 0).  Stopped
    (the wall limit, Ctrl-C), it gets SIGTERM, so a tournament stores what it played,
    then SIGKILL after :data:`_TERM_GRACE_S`.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as out:
        proc = await trio.lowlevel.open_process(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            env={**os.environ, "NO_COLOR": "1", "COLUMNS": "120"},
        )
        with sandbox.owned(proc.pid):
            try:
                with trio.move_on_after(wall_s) as scope:
                    await proc.wait()
            finally:
                if proc.returncode is None:
                    with trio.CancelScope(shield=True):
                        proc.terminate()
                        with trio.move_on_after(_TERM_GRACE_S):
                            await proc.wait()
                        if proc.returncode is None:
                            proc.kill()
                            await proc.wait()
    if scope.cancelled_caught:
        return None, f"did not finish within {wall_s:.0f} s"
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    return proc.returncode, lines[-1] if lines else ""


#: Issue 28: how often a build or a check whose failure the machine caused is run
#: again (:func:`replaying`); a step still overloaded after that is the grader's fault
#: (``machine-overloaded``, retried by ``--resume``), never the student's.
MAX_REPLAYS = 2
#: Seconds between a replay and the run before it: a burst of load may pass.
REPLAY_PAUSE_S = 5.0
#: How often a game of the qualification (or the competition) whose forfeit the
#: machine caused is played again (``referee match --replay-overloaded``).
GAME_REPLAYS = 2


def replayed_games_text(n: int) -> str:
    """How a step says it replayed games (issue 28)."""
    return f"replayed {n} game{'s' if n != 1 else ''}: the grading machine was overloaded"


#: A step :func:`replaying` runs again: a build or a check.
ReplayedStep = TypeVar("ReplayedStep", BuildStep, CheckStep)


async def replaying(
    once: Callable[[], Awaitable[tuple[ReplayedStep, str | None]]], runs: str, again: str, note: str = ""
) -> ReplayedStep:
    """Issue 28's replay rule for a build or a check: ``once`` runs it (bounded by its own
    wall limit) and says why the machine caused its failure, or None.  A run the machine
    failed is set aside and run again after :data:`REPLAY_PAUSE_S`, at most
    :data:`MAX_REPLAYS` times; still failed by the machine after that, the step is
    ``machine-overloaded``.  ``runs`` names the runs in that summary ("builds"), ``again``
    how the step says it was run again ("built again"), ``note`` what begins each
    set-aside run's reason in ``step.replayed``."""
    replayed: list[str] = []
    while True:
        step, why = await once()
        if why is None:
            break
        if len(replayed) == MAX_REPLAYS:
            step.outcome = OVERLOADED
            step.summary = (
                f"not graded: the grading machine was overloaded in {len(replayed) + 1} {runs} ({why}); "
                "the grader runs it again"
            )
            break
        replayed.append(note + why)
        await trio.sleep(REPLAY_PAUSE_S)
    if replayed:
        step.replayed = replayed
        times = "once" if len(replayed) == 1 else f"{len(replayed)} times"
        step.summary += f" ({again} {times}: the grading machine was overloaded)"
    return step


async def check(
    student: str,
    bot: Path,
    game: str,
    **kwargs,
) -> CheckStep:
    """``referee check`` on the built bot; the checklist as a step.  A run whose failing
    timing items (startup, decision time, exit on EOF) the grading machine caused — the
    bot starved of CPU, ``referee check``'s ``machine_caused`` — is replayed
    (:func:`replaying`), and the step says so."""

    async def once() -> tuple[CheckStep, str | None]:
        step, caused = await _check_once(student, bot, game, **kwargs)
        return step, (f"{', '.join(caused)}: the grading machine was overloaded" if caused else None)

    return await replaying(once, "runs of the check", "replayed")


async def _check_once(
    student: str,
    bot: Path,
    game: str,
    *,
    games: int,
    seed: int,
    sandbox: str,
    limits: LimitsOverride | None,
    allow_root: bool,
    folder: Path,
    wall_s: float = 900.0,
) -> tuple[CheckStep, list[str]]:
    """One run of ``referee check``: the step, and the failing items the machine caused."""
    report = folder / "check-report.json"
    report.unlink(missing_ok=True)
    argv = referee_command(
        "check", str(bot), "--game", game, "--games", str(games), "--seed", str(seed),
        "--json", str(report), "--sandbox", sandbox, *limit_flags(limits, check=True),
        *(["--allow-root-bots"] if allow_root else []),
    )  # fmt: skip
    started = trio.current_time()
    code, last = await run_child(argv, wall_s, folder / "check.log")
    seconds = round(trio.current_time() - started, 3)
    if code is None:
        return CheckStep(
            outcome="check-too-slow",
            summary=f"the check did not finish within {wall_s:g} s: the bot takes too long over its "
            f"{games} games (each answer may be within the limit, all of them are not)",
            seconds=seconds,
            command=shown(argv, bot, "--json"),
        ), []
    try:
        data = json.loads(report.read_text())
    except (OSError, ValueError):
        why = last or "no report"
        return CheckStep(
            outcome="grader-error", summary=f"referee check did not report: {why}", seconds=seconds
        ), []
    items = msgspec.convert(data.get("items", []), list[CheckItem])
    failed = [item.title for item in items if item.status == "fail"]
    step = CheckStep(
        outcome=OK, summary="", seconds=seconds, items=items,
        opponent=data.get("opponent", ""), games=data.get("games", 0), seed=seed,
        command=shown(argv, bot, "--json"),
    )  # fmt: skip
    if data.get("cannot_start"):
        step.outcome = "cannot-start"
        step.summary = f"the bot could not be started: {data['cannot_start']}"
    elif code == 0:
        step.summary = f"every item passed ({len(items)} items)"
    else:
        step.outcome = "check-failed"
        step.summary = f"failed: {', '.join(failed) or 'stopped'}"
    titles = {item.key: item.title for item in items}
    caused = [titles.get(key, key) for key in data.get("machine_caused", [])] if step.outcome != OK else []
    return step, caused


async def qualify(
    student: str,
    bot: Path,
    opponent: str,
    game: str,
    standing: Standing,
    *,
    games: int,
    seed: int,
    rule: str,
    confidence: float,
    sandbox: str,
    limits: LimitsOverride | None,
    allow_root: bool,
    folder: Path,
    wall_s: float = 3600.0,
) -> QualifyStep:
    """A qualification match against ``opponent`` and the rule's verdict on it."""
    summary_path = folder / "qualify-match.json"
    summary_path.unlink(missing_ok=True)
    argv = referee_command(
        "match", str(bot), opponent, "--game", game, "--games", str(games), "--seed", str(seed),
        "--json", str(summary_path), "--log", str(folder / "qualify-games.jsonl"),
        "--stderr-dir", str(folder / "qualify-stderr"), "--sandbox", sandbox, "--quiet",
        "--no-keep-going", "--replay-overloaded", str(GAME_REPLAYS), *limit_flags(limits),
        *(["--allow-root-bots"] if allow_root else []),
    )  # fmt: skip
    started = trio.current_time()
    code, last = await run_child(argv, wall_s, folder / "qualify.log")
    seconds = round(trio.current_time() - started, 3)
    step = QualifyStep(
        outcome=OK, summary="", seconds=seconds, opponent=opponent, games=games, seed=seed,
        command=shown(argv, bot, "--json", "--log", "--stderr-dir"),
    )  # fmt: skip
    if code is None:
        # Stopped at the wall limit: the games it finished are not a whole qualification.
        step.outcome = "qualify-too-slow"
        step.summary = f"the qualification match did not finish within {wall_s:g} s: the bot is too slow"
        return step
    try:
        data = json.loads(summary_path.read_text())
    except (OSError, ValueError):
        if code == 3:
            step.outcome, step.summary = "cannot-start", f"the qualification match could not start: {last}"
        else:
            step.outcome, step.summary = "grader-error", f"the qualification match did not report: {last}"
        return step
    me, them = data["players"][0], data["players"][1]
    step.opponent = them["name"]
    step.games = data.get("games_played", 0)
    step.wins, step.losses, step.draws = me["wins"], me["losses"], me["draws"]
    step.mean_score, step.opponent_mean_score = me["mean_score"], them["mean_score"]
    step.forfeits = [
        Forfeit(
            verdict=f["verdict"], detail=f["detail"], match="qualification", game=f.get("game"),
            position=f.get("position"), reply=f.get("reply"),
        )
        for f in me.get("forfeit_details", [])[:20]
    ]  # fmt: skip
    step.notes, step.note_examples = me.get("notes") or {}, me.get("note_examples") or {}
    step.replayed, step.replayed_details = me.get("replayed_games", 0), me.get("replayed_details") or []
    if me.get("overloaded_forfeits"):
        # The machine caused forfeits in every play of a game: not the student's to lose.
        step.outcome = OVERLOADED
        step.summary = (
            f"not graded: the grading machine was overloaded in every play of a game "
            f"({me['overloaded_forfeits']} forfeit(s) it caused stood after {GAME_REPLAYS} replays); "
            "the grader runs it again"
        )
        return step
    evidence = msgspec.convert(data["evidence"], MatchEvidence) if data.get("evidence") else None
    passed = _judge(step, evidence, standing, rule, confidence)
    if passed:
        step.summary = f"qualified: {step.finding} ({_record(step)})"
    else:
        step.outcome = "not-qualified"
        step.summary = f"did not qualify: {step.finding} ({_record(step)})"
        step.hint = (
            f"your bot must beat {step.opponent} clearly to enter the competition: play it at home "
            "(the command below) and look at the games it loses; forfeits cost whole games"
        )
    if step.replayed:
        step.summary += f" ({replayed_games_text(step.replayed)})"
    return step


def _record(step: QualifyStep) -> str:
    text = f"W {step.wins}, L {step.losses}, D {step.draws}"
    if step.estimate is not None and step.interval is not None:
        low, high = step.interval
        text += f"; {step.measure} {step.estimate:.3f} [{low:.3f}, {high:.3f}]"
    return text


def _judge(
    step: QualifyStep, evidence: MatchEvidence | None, standing: Standing, rule: str, confidence: float
) -> bool:
    """Apply the rule (module docstring); fills the step's measure, estimate, interval, rule."""
    by_score = standing is Standing.SCORE
    # A one-sided bound at `confidence` is an end of the two-sided interval at 2c − 1.
    two_sided = 2 * confidence - 1
    if by_score:
        sample = evidence.edge if evidence is not None and evidence.edge is not None else Moments()
        iv = mean_interval(sample, two_sided)
        step.measure = "score per game"
        threshold = 0.0
    else:
        sample = score_rate(evidence) if evidence is not None else Moments()
        iv = rate_interval(sample, evidence.games_per_unit if evidence else 1, two_sided)
        step.measure = "score rate"
        threshold = 0.5
    if iv.n:
        step.estimate = round(iv.mean, 6)
    if iv.low is not None and iv.high is not None:
        step.interval = [round(iv.low, 6), round(iv.high, 6)]
    if rule == "more-wins":
        if by_score:
            step.rule = "its mean score per game against the opponent must be above 0"
            passed = iv.n > 0 and iv.mean > 0
            step.finding = f"its mean score per game, {iv.mean:.3f}, is {'' if passed else 'not '}above 0"
            return passed
        step.rule = "it must win more games than it loses"
        passed = step.wins > step.losses
        step.finding = f"it won {step.wins} games and lost {step.losses}"
        return passed
    side = f"{confidence:.0%} one-sided"
    step.rule = f"the {side} lower confidence bound of its {step.measure} must be above {threshold:g}"
    passed = iv.low is not None and iv.low > threshold
    bound = "unknown" if iv.low is None else f"{iv.low:.3f}"
    step.finding = f"the {side} lower bound of its {step.measure}, {bound}, is {'' if passed else 'not '}above {threshold:g}"
    return passed
