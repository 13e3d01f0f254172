"""The checklist as text (render) and as JSON (report), and the exit status."""

from __future__ import annotations

from typing import Any

from referee.check.figures import counted
from referee.check.judge import Item
from referee.check.run import CheckRun
from referee.core import interrupts

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_CANNOT_START = 3


def exit_status(run: CheckRun, items: list[Item]) -> int:
    """The command's exit status: a stop signal's, 3 when the bot could not start, 1 when
    an item failed, 0 otherwise."""
    if run.signal is not None:
        return interrupts.exit_status(run.signal)
    if run.cannot_start:
        return EXIT_CANNOT_START
    if any(item.status == "fail" for item in items):
        return EXIT_FAILED
    return EXIT_OK


def render(run: CheckRun, items: list[Item], color: bool) -> str:
    """The checklist as text: one line per item, details under failures."""
    marks = (
        {"pass": "\x1b[32m✓\x1b[0m", "fail": "\x1b[31m✗\x1b[0m", "skip": "\x1b[33m–\x1b[0m"}
        if color
        else {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}
    )
    indent = " " * (len(marks["pass"]) if not color else 1)
    width = max(len(item.title) for item in items)
    out = [
        f"referee check: {run.bot.name} against {run.opponent}, {run.game.name}, seed {run.seed}: "
        f"{counted(run.games, 'game')} and {counted(run.positions, 'position')}, sandbox {run.layer or '-'}"
    ]
    if run.cannot_start and not any(p.start_error for p in run.processes):
        out.append(run.cannot_start)  # otherwise the startup item says it
    if run.stopped:
        out.append(run.stopped)
    for item in items:
        out.append(f"{marks[item.status]} {item.title:<{width}}  {item.figure}")
        pad = f"{indent}   "
        for key, value in (item.failure or {}).items():
            out.append(f"{pad}{key:<6} {value}")
        for note in item.notes:
            first, *rest = note.split("\n")
            out.append(f"{pad}{first}")
            out.extend(f"{pad}  {line}" for line in rest)
        if item.hint:
            out.append(f"{pad}hint   {item.hint}")
    if run.opponent_faults:
        fault = run.opponent_faults[0]
        out.append(
            f"note: the reference player was penalised {len(run.opponent_faults)} times "
            f"(first: {fault.verdict.value}: {fault.detail}); the games went on"
        )
    failed = [item.title for item in items if item.status == "fail"]
    passed = sum(1 for item in items if item.status == "pass")
    verdict = (
        f"FAILED: {', '.join(failed)}" if failed else "INTERRUPTED" if run.signal is not None else "PASSED"
    )
    if color:
        verdict = f"\x1b[1;{31 if failed or run.signal is not None else 32}m{verdict}\x1b[0m"
    out.append(f"{verdict} ({passed} of {len(items)} items passed, {run.elapsed:.1f} s)")
    return "\n".join(out)


def machine_caused(run: CheckRun, items: list[Item]) -> list[str]:
    """The failing items (startup, decision time, exit on EOF) with a late wait the
    machine caused (:attr:`Overload.machine_caused`): what a replay may pass."""
    caused = {o.item for p in run.processes for o in p.overloads if o.machine_caused}
    return [item.key for item in items if item.status == "fail" and item.key in caused]


def report(run: CheckRun, items: list[Item], code: int) -> dict[str, Any]:
    """The checklist for ``--json``."""
    return {
        "bot": run.bot.name,
        "game": run.game.name,
        "opponent": run.opponent,
        "seed": run.seed,
        "sandbox": run.layer,
        "games": run.games,
        "positions": run.positions,
        "passed": code == EXIT_OK,
        "exit_code": code,
        "stopped": run.stopped,
        "cannot_start": run.cannot_start,
        "elapsed_s": round(run.elapsed, 3),
        "items": [
            {
                "key": item.key,
                "title": item.title,
                "status": item.status,
                "figure": item.figure,
                "notes": item.notes,
                "failure": item.failure,
                "hint": item.hint,
            }
            for item in items
        ],
        "coverage": dict(run.recorder.kinds) if run.recorder else {},
        # Issue 28: the failing timing items that the machine caused (a replay may pass).
        "machine_caused": machine_caused(run, items),
        "referee_wait_share": round(run.referee_wait / run.elapsed, 4) if run.elapsed else 0.0,
        "opponent_faults": [
            {"verdict": f.verdict.value, "detail": f.detail, "at": f.where} for f in run.opponent_faults
        ],
    }
