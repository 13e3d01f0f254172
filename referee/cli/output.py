"""The results table a match prints at its end (the files it leaves are sinks:
:mod:`referee.sinks`)."""

from __future__ import annotations

import re
import sys

from protocol.notes import by_count
from referee.core.limits import NEAR_LIMIT, MiB
from referee.core.records import MatchRecord, slowest
from referee.core.results import signed_elo
from referee.core.verdict import Forfeit, cpu_note, printable, split_cpu_note
from referee.match import FORFEIT_DETAILS_KEPT
from referee.match.evidence import score_rate
from referee.stats.intervals import CONFIDENCE, elo_of_score, mean_interval, rate_interval, superiority

#: Forfeits the table details per bot; the rest are counted and left to ``--json``.
FORFEITS_SHOWN = 3


def load() -> None:
    """Import what :func:`print_table` draws with (rich: ~30 ms), ahead of the table —
    a match does it while its bots start (``Match.while_starting``)."""
    import rich.console
    import rich.table  # noqa: F401


def print_table(result: MatchRecord, elapsed: float, stderr_note: str | None = None) -> None:
    """The results on stdout: one row per bot, the first forfeits of each with their
    position, and the isolation each bot ran under."""
    from rich.console import Console
    from rich.table import Table

    console = Console() if sys.stdout.isatty() else Console(width=150)
    title = f"{result.game}: {result.games_played} games, seed {result.seed}, {elapsed:.1f} s, sandbox {result.sandbox}"
    if result.duplicate:
        title += f", each deal played {len(result.players)} times (--duplicate)"
    if result.stopped:
        title += f" — stopped: {result.stopped}"
    elif result.sprt is not None and result.sprt.decision is not None:
        title += f" — the SPRT accepted {result.sprt.decision}"
    table = Table(title=title)
    headers: tuple[str, ...] = (
        "bot",
        "W",
        "L",
        "D",
        "mean score",
        "forfeits",
        "CPU s",
        "peak MiB",
        "decisions",
        "µs/decision",
        "max ms",
    )
    tally_keys = sorted({key for p in result.players for key in p.tallies})
    headers += tuple(key.replace("_", " ") for key in tally_keys)
    for header in headers:
        table.add_column(header, justify="left" if header in ("bot", "forfeits") else "right", no_wrap=True)
    for p in result.players:
        forfeits = ", ".join(f"{k} {v}" for k, v in p.forfeits.items()) or "-"
        table.add_row(
            p.name,
            str(p.wins),
            str(p.losses),
            str(p.draws),
            f"{p.mean_score:.2f}",
            forfeits,
            f"{p.cpu_seconds:.2f}",
            f"{p.peak_rss_bytes / MiB:.1f}",
            str(p.decisions),
            f"{p.mean_decision_us:.1f}",
            f"{p.max_decision_us / 1e3:.1f}",
            *(f"{p.tallies.get(key, 0):g}" for key in tally_keys),
        )
    console.print(table)

    def say(line: str) -> None:
        # Much of it comes from bots (replies, positions, stderr): never raw on a terminal.
        console.print(printable(line), markup=False, highlight=False, emoji=False, soft_wrap=True)

    for p in result.players:
        # Forfeits with the same verdict and reason are shown once, with where they were.
        # Timeouts differ by their CPU figure: grouped apart as computing or not, which is
        # what the figure tells (docs/limits-and-verdicts.md).
        groups: dict[tuple[str, str, str], list[Forfeit]] = {}
        cpus_of: dict[int, float] = {}  # id(forfeit) -> its CPU figure, where it has one
        for f in p.forfeit_details:
            text, cpu_s = split_cpu_note(f.detail)
            if cpu_s is not None:
                cpus_of[id(f)] = cpu_s
            groups.setdefault((f.verdict.value, text, _computing(text, cpu_s)), []).append(f)
        shown = 0
        for (verdict, detail, computing), group in list(groups.items())[:FORFEITS_SHOWN]:
            places = [
                f"game {f.game}" + (f" decision {f.decision}" if f.decision >= 0 else "") for f in group
            ]
            where = ", ".join(places[:4]) + (f" and {len(places) - 4} more" if len(places) > 4 else "")
            times = f" ×{len(group)}" if len(group) > 1 else ""
            cpus = [cpus_of[id(f)] for f in group if id(f) in cpus_of]
            if cpus:  # timeouts: the CPU each used while it was waited for
                low, high = min(cpus), max(cpus)
                detail += cpu_note(low, high) + f" ({computing})"
            say(f"  {p.name}: {verdict}{times} at {where}: {detail}")
            first = group[0]
            if first.position is not None:
                say(f"      position: {first.position}")
            if first.reply is not None:
                say(f"      reply:    {first.reply}")
            shown += len(group)
        more = sum(p.forfeits.values()) - shown
        if more > 0:
            say(
                f"  {p.name}: {more} more forfeits, counted in the table (--json details the first "
                f"{FORFEIT_DETAILS_KEPT} of each bot)"
            )
    for line in note_lines(result) + slow_lines(result):
        say(line)
    # One line when every bot ran alike; otherwise one per kind, naming its bots.
    kinds: dict[str, list[str]] = {}
    for p in result.players:
        kinds.setdefault(re.sub(r"uid \d+", "uid of its own", p.sandbox) or "not started", []).append(p.name)
    for line, names in kinds.items():
        say(f"isolation: {line}" + (f" ({', '.join(names)})" if len(kinds) > 1 else ""))
    for line in evidence_lines(result):
        say(line)
    if stderr_note:
        say(stderr_note)


#: Note names the table shows per bot, most frequent first; --json has them all.
NOTES_SHOWN = 6


def note_lines(result: MatchRecord) -> list[str]:
    """The notes each bot wrote about its own play (protocol.notes): counts by name, and
    the first text of each."""
    lines: list[str] = []
    for p in result.players:
        if not p.notes:
            continue
        ranked = by_count(p.notes)
        lines.append(f"  {p.name}: notes (its own word about its play): {sum(p.notes.values())}")
        for name, count in ranked[:NOTES_SHOWN]:
            example = p.note_examples.get(name)
            lines.append(f"      {name} ×{count}" + (f", first: {example}" if example else ""))
        if len(ranked) > NOTES_SHOWN:
            lines.append(f"      and {len(ranked) - NOTES_SHOWN} more names (--json has them all)")
    return lines


def slow_lines(result: MatchRecord) -> list[str]:
    """Answers close to the decision limit (or past it), with the CPU each used: the one
    outcome another machine might change (docs/limits-and-verdicts.md)."""
    lines = []
    for p in result.players:
        if not p.slow_answers:
            continue
        # The timeouts are in the forfeit lines above, with their CPU: the answers here.
        answered = slowest(a for a in p.slow_answer_details if not a.timeout)
        line = (
            f"  {p.name}: {p.slow_answers} answers took {NEAR_LIMIT:.0%} of the decision limit or more "
            "(timeouts included)"
        )
        if answered:
            line += "; the slowest answered: " + ", ".join(a.describe() for a in answered)
        lines.append(line)
    return lines


def _computing(detail: str, cpu_s: float | None) -> str:
    """ "computing" when a timeout's CPU was at least half its limit, else "not computing"
    (starved on a busy core, or waiting on something of its own); "" for other forfeits."""
    if cpu_s is None:
        return ""
    found = re.search(r"\(limit ([0-9.]+) s\)", detail)
    if found is None:
        return ""
    return "computing" if cpu_s >= 0.5 * float(found[1]) else "not computing"


def evidence_lines(result: MatchRecord) -> list[str]:
    """What the match tells with its uncertainty: each bot's mean score per game with a
    95 % interval over deals; for two bots the first's score rate, the Elo difference it
    implies and the likelihood of superiority; the SPRT's state when one ran."""
    evidence = result.evidence
    lines: list[str] = []
    if evidence is None or evidence.units < 2:
        return lines
    unit = "deals" if evidence.games_per_unit == 1 else f"deals of {evidence.games_per_unit} games"
    lines.append(f"{CONFIDENCE:.0%} intervals over {evidence.units} {unit}:")
    for player, moments in zip(result.players, evidence.scores, strict=True):
        iv = mean_interval(moments)
        lines.append(f"  {player.name}: mean score {iv.mean:+.3f} ± {iv.half_width or 0.0:.3f} per game")
    if len(result.players) == 2:
        iv = rate_interval(score_rate(evidence), evidence.games_per_unit)
        first, second = (p.name for p in result.players)
        low, high = iv.low if iv.low is not None else iv.mean, iv.high if iv.high is not None else iv.mean
        los = superiority(iv, 0.5)
        lines.append(
            f"  {first} vs {second}: score {iv.mean:.1%} [{low:.1%}, {high:.1%}], Elo "
            f"{signed_elo(elo_of_score(iv.mean))} [{signed_elo(elo_of_score(low))}, {signed_elo(elo_of_score(high))}]"
            + (f", LOS {los:.1%}" if los is not None else "")
        )
    sprt = result.sprt
    if sprt is not None:
        state = f"{sprt.decision} accepted" if sprt.decision else "undecided"
        lines.append(
            f"SPRT ({sprt.describe()}): LLR {sprt.llr:.2f} (bounds {sprt.lower:.2f}, "
            f"{sprt.upper:.2f}), {state} after {sprt.games} games; {sprt.estimate()}"
        )
    return lines
