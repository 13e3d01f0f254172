"""Judging: what the games showed, as the checklist (one item per entry of ITEMS)."""

from __future__ import annotations

import collections
import math
from dataclasses import dataclass, field

from referee.check.figures import counted, duration, mib, stderr_last_lines
from referee.check.observe import ITEM_OF_WAIT, CheckProcess, Overload, Stray
from referee.check.run import SEND_TO_CHECK, CheckRun, Fault
from referee.core.limits import Limits
from referee.core.verdict import Verdict, printable
from referee.seats.process.child import eof_grace_s

ITEMS = (
    ("startup", "startup"),
    ("answers", "answers"),
    ("output", "extra output"),
    ("legal", "legal moves"),
    ("time", "decision time"),
    ("memory", "memory"),
    ("eof", "exit on EOF"),
    ("coverage", "coverage"),
)


@dataclass
class Item:
    """One line of the checklist."""

    key: str
    title: str
    status: str  # "pass", "fail" or "skip"
    figure: str
    notes: list[str] = field(default_factory=list)
    #: The first failure: where, the line sent, the reply, why.
    failure: dict[str, str] | None = None
    hint: str | None = None


def _item_of(fault: Fault) -> str:
    """Which checklist item a verdict belongs to."""
    verdict, detail = fault.verdict, fault.detail
    if verdict is Verdict.STARTUP or (verdict is Verdict.CRASH and "before its first answer" in detail):
        return "startup"
    if verdict is Verdict.PROTOCOL:
        return "output" if detail.startswith("printed more than one line") else "answers"
    if verdict is Verdict.ILLEGAL:
        return "legal"
    if verdict in (Verdict.TIMEOUT, Verdict.CPU):
        return "time"
    if verdict is Verdict.MEMORY:
        return "memory"
    return "answers"  # a crash: the request got no answer


def _failure(fault: Fault) -> dict[str, str]:
    shown = {"at": fault.where}
    if fault.line is not None:
        shown["sent"] = fault.line
    if fault.reply is not None:
        shown["reply"] = printable(fault.reply)
    shown["why"] = f"{fault.verdict.value}: {fault.detail}"
    return shown


def _stderr_of(run: CheckRun) -> str:
    """The stderr tail of the first of the bot's processes that died or ended badly."""
    for process in run.processes:
        if process.death is not None or (process.eof is not None and not process.eof.clean):
            tail = stderr_last_lines(process.stderr_text())
            if tail:
                return tail
    return ""


@dataclass
class _Judging:
    """What every item's judge reads: the run, the bot's processes and limits, the faults
    sorted by item, and the items made so far."""

    run: CheckRun
    processes: list[CheckProcess]
    limits: Limits
    doc: str
    by_item: dict[str, list[Fault]]
    answered: int
    requests: int
    items: dict[str, Item] = field(default_factory=dict)

    @property
    def never_answered(self) -> bool:
        """Nothing got through (no answer, or every one faulty at once): the items that
        judge answers have nothing to judge."""
        return self.answered == 0

    @property
    def not_judged(self) -> str:
        return "not judged: no answer got through" if self.never_answered else ""

    def item(self, key: str, figure: str, failed: bool = False, skip: bool = False) -> Item:
        faults = self.by_item[key]
        status = "skip" if skip else "fail" if failed or faults else "pass"
        made = Item(key, dict(ITEMS)[key], status, figure)
        if status == "fail" and faults:
            made.failure = _failure(faults[0])
        self.items[key] = made
        return made


def _judging(run: CheckRun) -> _Judging:
    processes = run.processes
    by_item: dict[str, list[Fault]] = {key: [] for key, _ in ITEMS}
    for process in processes:
        if process.start_error is not None:
            by_item["startup"].append(
                Fault(Verdict.STARTUP, process.start_error.replace(SEND_TO_CHECK, ""), "start")
            )
    for fault in run.faults:
        by_item[_item_of(fault)].append(fault)
    return _Judging(
        run=run,
        processes=processes,
        limits=processes[0].limits if processes else run.game.limits,
        doc=f"docs/protocols/{run.game.name}.md",
        by_item=by_item,
        answered=sum(p.answers for p in processes),
        requests=sum(p.requests for p in processes),
    )


def _startup(j: _Judging) -> None:
    """1. startup: the first answer came within the startup allowance."""
    limits = j.limits
    firsts = [p for p in j.processes if p.first_answer_s is not None]
    allowance = f"allowance {limits.startup_s:g} s"
    if j.by_item["startup"]:
        first = j.by_item["startup"][0]
        if "no first answer" in first.detail:
            figure = f"no first answer within the startup allowance of {limits.startup_s:g} s"
        else:
            figure = first.detail.split(";")[0]
        startup = j.item("startup", figure)
        if "no first answer" in first.detail and "flush" not in first.detail:
            startup.hint = (
                "flush stdout after every answer (C: fflush(stdout); Python: print(..., flush=True)); "
                "read one line at a time and answer it: buffered input (mawk without -W interactive) or "
                "reading all of stdin before answering waits for ever"
            )
    elif firsts:
        slowest = max(firsts, key=lambda p: p.first_answer_s or 0.0)
        starts = f" (the slowest of {len(firsts)} starts)" if len(firsts) > 1 else ""
        j.item(
            "startup",
            f"first answer {duration(slowest.first_answer_s or 0.0)} after start{starts} ({allowance})",
        )
    elif j.requests:
        j.item("startup", "not judged: the check stopped before the first answer", skip=True)
    else:
        j.item("startup", "not judged: no request was posed", skip=True)


def _answers(j: _Judging) -> None:
    """2. answers: every request answered with a line that parses."""
    bad = j.by_item["answers"]
    if j.never_answered and not bad:
        j.item("answers", j.not_judged, skip=True)
        return
    answers = j.item(
        "answers",
        f"{len(bad)} of {j.requests} requests not answered in form"
        if bad
        else f"{j.answered} requests answered, every reply parses",
    )
    if bad and bad[0].verdict is Verdict.CRASH:
        answers.hint = (
            "it crashed (the end of its stderr is quoted above); the check restarted it and went on"
        )
    elif bad:
        answers.hint = f"answer each request with exactly one line, in the form {j.doc} gives"


def _stray_failure(stray: Stray) -> dict[str, str]:
    """Where and what the first stray output was, as an item's failure."""
    failure = {"at": "after this answer" if stray.data is None else "after its last answer"}
    if stray.after_line is not None:
        failure["sent"] = stray.after_line.decode("ascii", "replace").rstrip("\n")
    if stray.after_reply is not None:
        failure["reply"] = printable(stray.after_reply.decode("utf-8", "backslashreplace"))
    failure["why"] = (
        f"then {stray.waiting} more bytes were waiting before the next request"
        if stray.data is None
        else f"it left '{printable(stray.data[:80].decode('utf-8', 'backslashreplace'))}' after its "
        "last answer (before exiting at end of input)"
    )
    return failure


def _output(j: _Judging) -> None:
    """3. extra output: nothing on stdout but the answers."""
    strays = [stray for p in j.processes for stray in p.strays]
    extra = j.by_item["output"]
    if j.never_answered and not extra:
        j.item("output", j.not_judged, skip=True)
        return
    count = len(extra) + len(strays)
    output = j.item(
        "output",
        f"{counted(count, 'time')} it printed more than its answers"
        if count
        else "nothing on stdout but the answers",
        failed=bool(strays),
    )
    if not extra and strays:
        output.failure = _stray_failure(strays[0])
    if count:
        output.hint = (
            "write debugging output to stderr (C: fprintf(stderr, ...); Python: print(..., "
            f"file=sys.stderr)), and answer only the lines that ask for an answer ({j.doc}); a stray line "
            "is read as the answer to the next request, so later faults may follow from it"
        )


def _legal(j: _Judging) -> None:
    """4. legal moves: the rules allowed every move that parsed."""
    illegal = j.by_item["legal"]
    unparsed = sum(1 for f in j.by_item["answers"] if f.verdict is Verdict.PROTOCOL)
    moves = max(j.answered - unparsed, 0)  # the rest parsed
    if j.never_answered:
        j.item("legal", j.not_judged, skip=True)
        return
    legal = j.item(
        "legal", f"{len(illegal)} illegal of {moves} moves" if illegal else f"{moves} moves, all legal"
    )
    if illegal:
        legal.hint = f"the rules are in {j.doc}; 'why' is the referee's reason"


def _time(j: _Judging) -> None:
    """5. decision time.  A late answer counts at the time it was waited for (at least the
    limit): the maximum and the percentile are of every request, the late ones included."""
    late_waits = [ns for p in j.processes for ns in p.late_ns]
    latencies = sorted([*(ns for p in j.processes for ns in p.latencies_ns), *late_waits])
    limit = j.limits.decision_s
    late = j.by_item["time"]
    if j.never_answered:
        j.item("time", j.not_judged, skip=True)
        return
    if not latencies and not late:
        j.item("time", f"no answer after the first to time (limit {limit:g} s)")
        return
    figure = f"limit {limit:g} s"
    p99 = 0.0
    if latencies:
        p99 = latencies[max(0, math.ceil(0.99 * len(latencies)) - 1)] / 1e9
        at_least = "over " if late_waits and latencies[-1] == max(late_waits) else ""
        figure = (
            f"max {at_least}{duration(latencies[-1] / 1e9)}, 99th percentile {duration(p99)} "
            f"of {counted(len(latencies), 'request' if late_waits else 'answer')} ({figure})"
        )
    timing = j.item("time", f"{len(late)} late; {figure}" if late else figure)
    if p99 > limit / 2:
        timing.notes.append("the 99th percentile is over half the limit: a slower machine may time it out")
    if late:
        timing.hint = (
            "answer every request within the limit: flush after each answer, and bound any search "
            "by time; 'did not read its input' means it stopped reading stdin"
        )


def _memory(j: _Judging) -> None:
    """6. memory: the peak resident memory stayed under the cap."""
    peak = max((p.peak_rss for p in j.processes), default=0)
    cap = j.limits.memory_bytes
    limit_text = f"cap {mib(cap)}" if cap else "no cap"
    if peak or j.by_item["memory"]:
        memory = j.item("memory", f"peak {mib(peak)} ({limit_text})")
    else:
        memory = j.item("memory", f"not measured: no sample was taken ({limit_text})", skip=True)
    if j.by_item["memory"]:
        memory.hint = "the cap counts the resident memory of the bot's whole process tree"


def _eof(j: _Judging) -> None:
    """7. exit on EOF: once its input closed, it exited by itself with status 0."""
    ends = [p.eof for p in j.processes if p.eof is not None]
    exit_s = eof_grace_s(j.limits)
    if not ends:
        j.item("eof", "not judged: the bot was not running when the games ended", skip=True)
        return
    worst = next((e for e in ends if not e.exited), None) or next((e for e in ends if not e.clean), None)
    if worst is None:
        longest = max(ends, key=lambda e: e.seconds)
        j.item("eof", f"exited with code 0, {duration(longest.seconds)} after its input closed "
               f"(allowance {exit_s:g} s)")  # fmt: skip
        return
    if worst.exited:
        figure = f"{worst.status}, {duration(worst.seconds)} after its input closed"
    else:
        figure = f"still running {exit_s:g} s after its input closed: killed"
    eof = j.item("eof", figure, failed=True)
    eof.hint = (
        "read until end of file (fgets returns NULL; Python's readline returns ''; input() raises "
        "EOFError), then exit with status 0: the referee closes stdin after the last game"
    )


def _coverage(j: _Judging) -> None:
    """8. coverage: every kind of line the game has was posed at least once."""
    run, game = j.run, j.run.game
    wanted = game.line_kinds()
    posed = run.recorder.kinds if run.recorder else collections.Counter()
    missing = [kind for kind in wanted if not posed[kind]]
    if not wanted:
        j.item("coverage", f"{game.name} names no kinds of line", skip=True)
    elif missing and (run.stopped or run.cannot_start):
        j.item("coverage", f"not judged: the check stopped before posing {', '.join(missing)}", skip=True)
    elif missing and (j.never_answered or any(made.status == "fail" for made in j.items.values())):
        # Games end at a fault (a Yahtzee forfeit): fix those first.
        j.item("coverage", f"not judged: the faults above ended games before {', '.join(missing)}", skip=True)
    elif missing:
        coverage = j.item("coverage", f"never posed: {', '.join(missing)}", failed=True)
        coverage.hint = "the games played did not reach them: play more with --games N"
    else:
        coverage = j.item("coverage", f"all {len(wanted)} kinds of line posed")
        coverage.notes.append(", ".join(f"{kind} ×{posed[kind]}" for kind in wanted))


def _overload_notes(j: _Judging) -> None:
    """Issue 28: late waits the machine caused, said where they count."""
    overloads: dict[str, list[Overload]] = {key: [] for key in ITEM_OF_WAIT.values()}
    for process in j.processes:
        for overload in process.overloads:
            overloads[overload.item].append(overload)
    for key, found in overloads.items():
        caused = [o for o in found if o.machine_caused]
        if caused and j.items[key].status != "skip":
            excused = " (given its exit limit: it was starved, not stuck)" if key == "eof" else ""
            j.items[key].notes.append(
                f"the grading machine was overloaded{excused}: " + "; ".join(o.describe() for o in caused[:3])
            )


def _stderr_notes(j: _Judging) -> None:
    """A crash's own words, where the verdict does not already quote them."""
    tail = _stderr_of(j.run)
    bad = j.by_item["answers"]
    crashed = bool(bad) and bad[0].verdict is Verdict.CRASH
    for key in ("startup", "eof", *(("answers",) if crashed else ())):
        made = j.items[key]
        if made.status == "fail" and tail and "stderr:" not in (made.failure or {}).get("why", ""):
            made.notes.append("its stderr ends with:\n" + tail)


#: The checklist's steps in order: one per item, then the notes added across items.
STEPS = (_startup, _answers, _output, _legal, _time, _memory, _eof, _coverage, _overload_notes, _stderr_notes)


def judge(run: CheckRun) -> list[Item]:
    """The checklist, one :class:`Item` per entry of :data:`ITEMS`."""
    judging = _judging(run)
    for step in STEPS:
        step(judging)
    return [judging.items[key] for key, _ in ITEMS]


def note_unbuilt(items: list[Item], build: str) -> None:
    """A bot that could not start has a build command that was not run: its program is
    most likely what the build makes."""
    startup = next(item for item in items if item.key == "startup")
    startup.hint = (
        f"its bot.toml has a build command ({build}) that was not run: build it first, or pass "
        "--build to let the check run it (only for bots you trust)"
    )
