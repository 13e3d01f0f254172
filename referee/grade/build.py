"""Step 2 of ``referee grade``, the doing half: build a submission inside the sandbox.

A build is the first time a student's code runs, and it runs with the same isolation
as play (:mod:`referee.seats.process.job`): under the layer grading chose, as a uid of
its own when the referee is root, with no network, everything but its working
directory read-only, and caps on CPU, wall time, memory, processes and the size of its
working directory.  Nothing it does reaches the grader's files — not even its own
submission folder, which it sees read-only.

How a build goes
----------------
One shell runs in the job, in its private working directory:

1. copy the submission (its folder, visible read-only as ``$REFEREE_BOT_DIR``) into
   the working directory;
2. run the build command there (:mod:`.detect` chose it), stdin closed, stdout sent to
   stderr with the build's own stderr: together they are the **build log**;
3. if the build exited 0, write the working directory as a tar stream to stdout.

The referee reads that stream (bounded by the disk cap) and unpacks it with the same
hostile-archive rules as a submission (:mod:`.unpack`: no link out, no special file, no
path out, caps), into ``OUT/bots/<id>/``, the tree the bot then runs from.  The build
never writes to the grader's disk itself; what it made comes back through a channel
that is checked like anything else a student hands in.  Into that tree the referee
writes a ``bot.toml`` naming the run command, so the folder is a bot ``referee match``
and ``referee tournament`` take as they are (a student's own manifest keeps its
``[limits]``, which can only lower the game's).

A submission with nothing to build (Python, JavaScript) goes through the same steps,
without 2: its tree is then exactly what was handed in, plus the manifest.

Outcomes
--------
``ok``; ``compile-error`` (the build exited non-zero: its status and log say why);
``build-timeout`` (still running at the wall limit); ``build-cpu``, ``build-memory``
(over the CPU or memory cap; its files count as memory: they live in a tmpfs);
``build-too-large`` (its tree is over the disk cap); ``build-output`` (its tree could
not be taken back safely: a link out of it, a special file, a name with a control
character — escaped in the summary; the unpack's reason);
``build-error`` (the sandbox could not start it: the grader's problem, said as such).
Every outcome keeps the log's head and tail (:data:`LOG_HEAD_LINES`,
:data:`LOG_TAIL_LINES`) for the student.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

import msgspec

from referee.core import overload, toml_values
from referee.core.botspec import MANIFEST, BotSpec
from referee.core.limits import Limits, LimitsOverride, MiB
from referee.core.verdict import Verdict
from referee.grade import steps, unpack
from referee.grade.detect import Detected
from referee.grade.model import OK, OVERLOADED, BuildStep
from referee.seats.process import sandbox
from referee.seats.process.job import JobResult, run_job

#: Lines of the build log kept from its start and from its end.
LOG_HEAD_LINES = 40
LOG_TAIL_LINES = 60
#: Characters per kept line (a compiler can print one line of a megabyte).
_LINE_MAX = 400

OUTCOMES = (
    OK,
    "compile-error",
    "build-timeout",
    "build-cpu",
    "build-memory",
    "build-too-large",
    "build-output",
    "build-error",
    OVERLOADED,
)


@dataclass(frozen=True)
class BuildLimits:
    """What one build may use (``[build]`` in grading.toml)."""

    wall_s: float = 300.0
    cpu_s: float = 300.0
    memory_mib: int = 2048
    #: The size of its working directory: the submission, the build's files, the result.
    disk_mib: int = 512
    processes: int = 256

    def limits(self) -> Limits:
        return Limits(
            startup_s=min(self.wall_s, 30.0),
            cpu_s=self.cpu_s,
            memory_bytes=self.memory_mib * MiB,
            disk_bytes=self.disk_mib * MiB,
            file_size_bytes=self.disk_mib * MiB,
            processes=self.processes,
            open_files=1024,
            stderr_bytes=1 * MiB,
        )


def script(build: list[str] | None) -> str:
    """The shell program a build job runs (the module's three steps)."""
    lines = [
        'cp -R "$REFEREE_BOT_DIR/." . >&2 || { echo "referee: could not copy the submission" >&2; exit 125; }',
    ]
    if build:
        command = build[2] if build[:2] == ["sh", "-c"] and len(build) == 3 else shlex.join(build)
        # A subshell: the build's `exit` or `cd` cannot skip the tar step's checks.
        lines.append(f"( {command}\n) </dev/null >&2")
        lines.append('status=$?; [ "$status" -eq 0 ] || exit "$status"')
    lines.append("exec tar -cf - .")
    return "\n".join(lines)


def log_lines(text: str) -> tuple[str, str]:
    """The log's head and tail (the tail empty when the head holds it all)."""
    lines = [line if len(line) <= _LINE_MAX else line[:_LINE_MAX] + " …" for line in text.splitlines()]
    if len(lines) <= LOG_HEAD_LINES + LOG_TAIL_LINES:
        return "\n".join(lines), ""
    return "\n".join(lines[:LOG_HEAD_LINES]), "\n".join(lines[-LOG_TAIL_LINES:])


def _manifest_text(name: str, run: list[str], source: Path) -> str:
    """The ``bot.toml`` written into a built tree: its name, its run command and, from
    the student's own manifest, its ``[limits]`` (they can only lower the game's; a
    table that is not valid limits is left out, as `referee check` already told them)."""
    # "-cp ." names the bot's folder, but a bot runs elsewhere: "./" is made absolute
    # by the manifest reader (it names a file or folder there), "." is not.
    words = ["./" if word == "." else word for word in run]
    out = [f"name = {toml_values.value(name)}", f"run = {toml_values.value(shlex.join(words))}"]
    own = source / MANIFEST
    if own.is_file():
        try:
            table = tomllib.loads(own.read_text(encoding="utf-8")).get("limits")
            limits = msgspec.convert(table, LimitsOverride) if isinstance(table, dict) else None
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, msgspec.ValidationError):
            limits = None
        if limits is not None:
            out.append("[limits]")
            for field in limits.__struct_fields__:
                if (x := getattr(limits, field)) is not None:
                    out.append(f"{field} = {toml_values.value(x)}")
    return "\n".join(out) + "\n"


def _outcome(result: JobResult, wall_s: float) -> tuple[str, str]:
    """The outcome and its one-line summary, for a job that did not end well."""
    if result.stopped is Verdict.TIMEOUT:
        return (
            "build-timeout",
            f"the build was still running at its wall-time limit of {wall_s:g} s and was stopped",
        )
    if result.stopped is Verdict.CPU:
        return "build-cpu", f"the build was stopped: {result.detail}"
    if result.stopped is Verdict.MEMORY:
        if result.output_cut:
            return "build-too-large", f"the built folder is over the disk cap: {result.detail}"
        return "build-memory", f"the build was stopped: {result.detail}"
    if result.stopped is Verdict.STARTUP:
        return "build-error", f"the grader could not start the build: {result.detail}"
    code = result.exit_code
    if code == 125:
        return "build-error", "the grader could not copy the submission into the build folder"
    how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with status {code}"
    return "compile-error", f"the build {how}"


def machine_caused(result: JobResult, wall_s: float) -> str | None:
    """Why a build's timeout was the grading machine's fault, or None: it used less than
    half its wall limit in CPU while its processes were runnable without a CPU a quarter
    of the time (or the referee half of it) — :mod:`referee.core.overload`'s rule.  A build
    that sleeps (``sleep 100000``) waits for nothing: its timeout is its own."""
    if result.stopped is not Verdict.TIMEOUT:
        return None
    cpu, wall = result.cpu_s, result.seconds
    if not overload.machine_caused(cpu, wall_s, wall, result.run_delay_s, result.referee_delay_s):
        return None
    return overload.describe(cpu, wall, wall_s, result.run_delay_s, result.referee_delay_s)


async def build(
    student: str,
    source: Path,
    detected: Detected,
    bots: Path,
    layer: sandbox.Layer,
    limits: BuildLimits = BuildLimits(),
    *,
    allow_root: bool = False,
) -> BuildStep:
    """Build the submission in ``source`` as ``detected`` says, into ``bots/<student>/``.

    On success ``bots/<student>/`` is the built tree with its ``bot.toml``; on any
    failure it does not exist.  Never raises for anything the submission does.  A build
    timeout the machine caused (:func:`machine_caused`) is run again, at most
    :data:`~referee.grade.steps.MAX_REPLAYS` times (:func:`~referee.grade.steps.replaying`);
    after that the step is ``machine-overloaded``, the grader's to run again
    (``--resume``), never the student's ``build-timeout``.
    """
    return await steps.replaying(
        lambda: _build_once(student, source, detected, bots, layer, limits, allow_root=allow_root),
        "builds",
        "built again",
        note="build timeout: the grading machine was overloaded: ",
    )


async def _build_once(
    student: str,
    source: Path,
    detected: Detected,
    bots: Path,
    layer: sandbox.Layer,
    limits: BuildLimits,
    *,
    allow_root: bool,
) -> tuple[BuildStep, str | None]:
    """One build: the step, and why its timeout was the machine's (None: it was not)."""
    final = bots / student
    unpack._discard(final)
    spec = BotSpec(name="build", argv=["/bin/sh", "-c", script(detected.build)], home=str(source))
    cap = limits.disk_mib * MiB
    # The tree comes back as a tar streamed to disk (up to the disk cap, never held in
    # memory), then unpacked by the hostile-archive rules.
    staging = bots / f".build-{student}"
    unpack._discard(staging)
    staging.mkdir(parents=True)
    try:
        archive = staging / "bot.tar"
        with open(archive, "wb") as sink:
            result = await run_job(
                spec, limits.limits(), layer, wall_s=limits.wall_s, output_limit=cap,
                allow_root=allow_root, sink=sink,
            )  # fmt: skip
        head, tail = log_lines(result.stderr)
        step = BuildStep(
            outcome=OK,
            summary="",
            seconds=round(result.seconds, 3),
            kind=detected.kind,
            command=shlex.join(detected.build) if detected.build else None,
            run=shlex.join(detected.run),
            why=detected.why,
            log_head=head,
            log_tail=tail,
            log_bytes=len(result.stderr.encode()),
            exit_status=result.exit_code,
            sandbox=result.sandbox,
            cpu_s=round(result.cpu_s, 3),
            peak_rss_bytes=result.peak_rss_bytes,
        )
        if result.stopped is not None or result.exit_code != 0:
            step.outcome, step.summary = _outcome(result, limits.wall_s)
            return step, machine_caused(result, limits.wall_s)
        tree_limits = unpack.UnpackLimits(max_bytes=cap, max_file_bytes=cap, printable_names=True)
        taken = unpack.unpack_one(archive, staging, tree_limits)
        if isinstance(taken, unpack.Refused):
            step.outcome = (
                "build-too-large" if taken.outcome in ("too-large", "too-many-files") else "build-output"
            )
            step.summary = f"the built folder could not be taken back: {taken.reason}"
            return step, None
        (taken.path / MANIFEST).write_text(_manifest_text(student, detected.run, source), encoding="utf-8")
        os.replace(taken.path, final)
        step.bot_hash = taken.content_hash
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    what = "built" if detected.build else "nothing to build"
    step.summary = f"{what} ({detected.kind}) in {result.seconds:.1f} s"
    return step, None
