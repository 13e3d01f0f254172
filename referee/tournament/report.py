"""The standings as files and on a terminal (:mod:`referee.tournament.standings` computes them).

Files (:func:`write_all`, each replaced atomically: a new file beside it, fsync, rename,
so a reader never sees half of one):

``standings.json``
    The :class:`~referee.tournament.standings.Standings` struct as JSON (indented, keys in
    field order).

``standings.md``
    A Markdown report, in this order: a header list (game, format, seed, stage, matches
    done/running/pending, games stored, what ranks bots and the formula, when created,
    the referee's version, the field and qualifier); **Standings** — the ranked table;
    **Qualification** — each entrant against the qualifier, then who did not qualify;
    **Seeds** (double elimination, Swiss); **Crosstable**; **Faults** — per bot, its
    forfeits by verdict over every stage and the first ones in full; **Bracket** (the
    double elimination's text bracket in a code block), **Swiss rounds** or **Tables
    balance**.  Text that comes from bots (names, replies, details) is made printable
    and its Markdown characters escaped.

``crosstable.csv``
    One header row (``bot`` then every ranked bot, in rank order) and one row per ranked
    bot.  A cell is the row bot's result against the column bot over their main-stage
    matches:

    * two-seat games: ``W-D-L (±net)`` — games won, drawn and lost, and the net score
      (the row bot's total minus the column bot's) with one decimal: ``3-1-2 (+45.0)``;
    * multi-seat games: ``A/L/B`` — how many of the games where both sat the row bot
      placed ahead of, level with, behind the column bot: ``12/3/5``.

    The diagonal and pairs that never met are empty.

``bracket.json``
    Double elimination only: ``DoubleElimination.describe`` — every match with its
    sources, bots, status, winner and loser, the byes, the champion and the places.

:func:`print_standings` prints the ranked table (``top`` rows), the qualification and
the bracket text with rich; :func:`top_rows` gives a few compact rows as plain strings
for the live view.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from protocol.notes import by_count
from referee.core.limits import NEAR_LIMIT, MiB
from referee.core.verdict import printable, split_cpu_note
from referee.sinks.files import write_atomically
from referee.tournament.ratings import Ratings
from referee.tournament.standings import BotNotes, BotRow, Cell, CloseCall, QualificationRow, Standings

STANDINGS_JSON = "standings.json"
STANDINGS_MD = "standings.md"
CROSSTABLE_CSV = "crosstable.csv"
BRACKET_JSON = "bracket.json"

#: A column of the ranked table: its header and how a row shows in it.
Column = tuple[str, Callable[[BotRow], str]]


# ---------------------------------------------------------------------- cells


def number(value: float) -> str:
    """A figure as it reads best: whole numbers without decimals, others with one."""
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def _signed(value: float) -> str:
    return f"{value:+.1f}"


def _forfeits(counts: dict[str, int]) -> str:
    return ", ".join(f"{verdict} {n}" for verdict, n in counts.items()) or "-"


def _games(row: BotRow) -> str:
    """Games, starred when some are of running matches (provisional)."""
    return f"{row.games}*" if row.provisional_games else str(row.games)


def crosstable_cell(cell: Cell | None, kind: str, standing: str = "wins") -> str:
    """One crosstable cell (module docstring: the format); empty for no meeting."""
    if cell is None:
        return ""
    if kind == "two-seat":
        text = f"{cell.wins}-{cell.draws}-{cell.losses} ({_signed(cell.net_score)})"
        if standing == "wins" and cell.rate is not None and cell.rate_low is not None:
            # Its interval as its ends: near 0 % or 100 % it is not symmetric (Wilson's).
            text += f" {cell.rate:.0%} [{cell.rate_low:.0%}, {cell.rate_high or 0.0:.0%}]"
    else:
        text = f"{cell.ahead}/{cell.level}/{cell.behind}"
    if (standing == "score" or kind != "two-seat") and cell.mean_score_low is not None:
        text += f" {cell.mean_score:+.2f}±{_half(cell.mean_score_low, cell.mean_score_high):.2f}"
    return text


def _half(low: float | None, high: float | None) -> float:
    return 0.0 if low is None or high is None else (high - low) / 2


def rating_text(row: BotRow, digits: int = 0) -> str:
    """``+52 [+31, +74]``: the rating and its interval; empty without one."""
    if row.rating is None:
        return ""
    low, high = row.rating_low or 0.0, row.rating_high or 0.0
    return f"{row.rating:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"


def _rating_columns(standings: Standings, compact: bool) -> list[Column]:
    """The rating (Elo, or score per game for games ranked by score) and its rank range."""
    ratings = standings.ratings
    if ratings is None:
        return []
    chips = ratings.scale != "Elo"
    name, digits = ("score/game", 2) if chips else ("Elo", 0)
    if compact:  # without its interval: a narrow terminal
        shown: Column = (name, lambda r: "" if r.rating is None else f"{r.rating:+.{digits}f}")
    else:
        shown = (f"{name} [95%]", lambda r: rating_text(r, digits))
    return [shown, ("ranks", rank_range)]


def rank_range(row: BotRow) -> str:
    """``2–4``: the ranks the rating's replicates give the bot; empty without one."""
    return "" if row.rank_low is None or row.rank_high is None else _ranks(row.rank_low, row.rank_high)


def _ranks(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}–{high}"


def mean_score_text(row: BotRow) -> str:
    """The mean score per game, ``± half-width`` of its interval when known."""
    if row.mean_score_low is None or row.mean_score_high is None:
        return f"{row.mean_score:.2f}"
    return f"{row.mean_score:.2f} ± {_half(row.mean_score_low, row.mean_score_high):.2f}"


def columns(standings: Standings, *, compact: bool = False) -> list[Column]:
    """The ranked table's columns for this tournament: the common ones, then the
    format's (Swiss match points and Buchholz, the bracket, matches won–drawn–lost).
    ``compact``: the few the live view has room for."""
    two_seat = standings.crosstable.kind == "two-seat"
    swiss = standings.swiss is not None
    bracket = standings.bracket is not None
    cols: list[Column] = [
        ("rank", lambda r: "-" if r.never_started else str(r.rank)),
        ("bot", lambda r: f"{r.bot} (never started)" if r.never_started else r.bot),
    ]
    if swiss:
        cols.append(("match pts", lambda r: number(r.match_points or 0.0)))
        if not compact:
            cols.append(("Buchholz", lambda r: number(r.buchholz or 0.0)))
    if bracket:
        cols.append(("bracket", lambda r: r.bracket or ""))
    cols.append(("points", lambda r: number(r.points)))
    rated = standings.ratings is not None
    cols += _rating_columns(standings, compact)
    if compact:
        if not rated:  # the live view: room for the games' record
            cols.append(("W-D-L", lambda r: f"{r.wins}-{r.draws}-{r.losses}"))
        cols += [
            ("games", _games),
            ("mean score", lambda r: f"{r.mean_score:.2f}"),
            ("forfeits", lambda r: str(sum(r.forfeits.values()))),
        ]
        return cols
    cols += [
        ("W", lambda r: str(r.wins)),
        ("D", lambda r: str(r.draws)),
        ("L", lambda r: str(r.losses)),
        ("games", _games),
        ("mean score", mean_score_text),
        ("mean rank", lambda r: f"{r.mean_rank:.2f}"),
        ("forfeits", lambda r: _forfeits(r.forfeits)),
        ("CPU s", lambda r: f"{r.cpu_seconds:.1f}"),
        ("peak MiB", lambda r: f"{r.peak_rss_bytes / MiB:.1f}"),
        ("restarts", lambda r: str(r.restarts)),
        ("matches", lambda r: str(r.matches)),
    ]
    if two_seat and bracket:
        cols.append(("matches W-L", lambda r: f"{r.match_wins or 0}-{r.match_losses or 0}"))
    elif two_seat:
        cols.append(
            ("matches W-D-L", lambda r: f"{r.match_wins or 0}-{r.match_draws or 0}-{r.match_losses or 0}")
        )
    return cols


def top_rows(standings: Standings, top: int | None = None) -> tuple[list[tuple[str, ...]], tuple[str, ...]]:
    """The first ``top`` rows of the ranked table as plain strings, compact, and the
    header: what the live view shows."""
    cols = columns(standings, compact=True)
    rows = standings.rows if top is None else standings.rows[:top]
    return [tuple(show(row) for _, show in cols) for row in rows], tuple(name for name, _ in cols)


def ranked_by(standings: Standings) -> str:
    """What ranks bots, with the formula, in one line."""
    order = {
        "double-elimination": "the bracket (elimination order: bots out in the same round share a place), then ",
        "swiss": "match points, then Buchholz, then ",
    }.get(standings.tournament.format, "")
    if standings.tournament.standing == "wins":
        return order + "points = wins + ½ draws (games won; ties: total score)"
    return order + "points = total score (ties: wins + ½ draws)"


# ---------------------------------------------------------------------- files


def write_all(standings: Standings, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write ``standings.json``, ``standings.md``, ``crosstable.csv`` and, for a double
    elimination, ``bracket.json`` into ``out_dir``, each atomically; the paths written."""
    out = Path(out_dir)
    files = {
        STANDINGS_JSON: to_json(standings),
        STANDINGS_MD: markdown(standings).encode(),
        CROSSTABLE_CSV: crosstable_csv(standings).encode(),
    }
    if standings.bracket is not None:
        files[BRACKET_JSON] = msgspec.json.format(msgspec.json.encode(standings.bracket), indent=2) + b"\n"
    written = []
    for name, data in files.items():
        write_atomically(str(out / name), data)
        written.append(out / name)
    return written


def to_json(standings: Standings) -> bytes:
    """``standings.json``: the struct, indented."""
    return msgspec.json.format(msgspec.json.encode(standings), indent=2) + b"\n"


def crosstable_csv(standings: Standings) -> str:
    """``crosstable.csv`` (module docstring: the cell format)."""
    table = standings.crosstable
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["bot", *table.bots])
    standing = standings.tournament.standing
    for row in table.bots:
        cells = table.cells.get(row, {})
        writer.writerow([row, *(crosstable_cell(cells.get(col), table.kind, standing) for col in table.bots)])
    return buffer.getvalue()


def _md(text: object) -> str:
    """Text from bots or the store, safe in a Markdown table cell or line."""
    escaped = printable(str(text))
    for ch in "\\`*_|<>[]#":
        escaped = escaped.replace(ch, "\\" + ch)
    return escaped


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(_md(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
    return lines


def markdown(standings: Standings) -> str:
    """``standings.md`` (module docstring: the layout)."""
    t = standings.tournament
    lines = [
        f"# Standings: {_md(t.game)}, {_md(t.format)}",
        "",
        f"- **stage**: {t.stage}",
        f"- **seed**: {t.seed} · **games per match**: {t.games_per_match} · **rounds**: {t.rounds} · "
        f"**seats**: {t.seats}",
        f"- **matches**: {t.matches_done} done, {t.matches_running} running, {t.matches_pending} pending "
        f"({t.matches_total} known)",
        f"- **games stored**: {t.games_stored}"
        + (f" ({t.games_provisional} of running matches: provisional)" if t.games_provisional else ""),
        f"- **ranked by**: {_md(ranked_by(standings))}",
        f"- **field**: {len(t.field)} bots" + (f"; qualifier {_md(t.qualifier)}" if t.qualifier else ""),
        f"- **created**: {t.created} · **referee**: {_md(t.referee_version)}",
        "",
        "## Standings",
        "",
    ]
    cols = columns(standings)
    lines += _md_table([h for h, _ in cols], [[show(r) for _, show in cols] for r in standings.rows])
    if any(r.provisional_games for r in standings.rows):
        lines += ["", "\\* includes games of running matches (provisional)."]
    lines += _md_ratings(standings)
    lines += _md_qualification(standings)
    if standings.seeds:
        lines += ["", "## Seeds", ""] + [f"{i}. {_md(b)}" for i, b in enumerate(standings.seeds, 1)]
    lines += _md_never_started(standings)
    lines += _md_replayed(standings)
    lines += _md_crosstable(standings)
    lines += _md_faults(standings)
    lines += _md_notes(standings)
    lines += _md_close_calls(standings)
    if standings.bracket_text:
        lines += ["", "## Bracket", "", "```text", standings.bracket_text.replace("```", "'''"), "```"]
    if standings.swiss:
        lines += ["", "## Swiss rounds", ""]
        for number_, pairings in enumerate(standings.swiss.get("pairings", []), 1):
            shown = ", ".join(
                " v ".join(p["bots"]) if len(p["bots"]) == 2 else f"{p['bots'][0]} (bye)" for p in pairings
            )
            lines.append(f"- round {number_}: {_md(shown)}")
    if standings.workers:
        lines += ["", "## Cluster workers", ""]
        rows = []
        for worker in standings.workers:
            faults = ", ".join(f"{v} {n}" for v, n in sorted(worker.forfeits.items())) or "none"
            if worker.out_of_line:
                faults += " — **timeouts out of line with the others'**"
            # A worker without a core of its own may have shared one: its timeouts say less.
            core = (
                str(worker.core) if worker.core is not None else f"unpinned: {worker.unpinned or 'unknown'}"
            )
            rows.append([worker.address, core, str(worker.matches), str(worker.decisions), faults])
        lines += _md_table(["worker", "core", "matches", "decisions", "forfeits"], rows)
    if standings.balance:
        lines += ["", "## Tables balance", ""]
        # Balance counts tables (a table plays --games games): say so.
        names = {"games": "tables per bot", "games_best_spread": "tables per bot, best spread"}
        lines += [
            f"- {_md(names.get(key, key.replace('_', ' ')))}: {_md(_plain(value))}"
            for key, value in standings.balance.items()
        ]
    return "\n".join(lines) + "\n"


#: The qualification table's columns, in the Markdown report and on the terminal.
QUALIFICATION_COLUMNS = (
    "bot",
    "status",
    "games",
    "won",
    "drawn",
    "lost",
    "score",
    "qualifier won",
    "qualifier score",
    "qualified",
)


def _qualification_cells(q: QualificationRow) -> list[str]:
    """One entrant's row of :data:`QUALIFICATION_COLUMNS`."""
    verdict = "-" if q.qualified is None else "yes" if q.qualified else "no"
    return [
        q.bot,
        q.status,
        str(q.games),
        str(q.won),
        str(q.drawn),
        str(q.lost),
        number(q.score),
        str(q.qualifier_won),
        number(q.qualifier_score),
        verdict,
    ]


def _md_qualification(standings: Standings) -> list[str]:
    if standings.qualification is None:
        return []
    header = list(QUALIFICATION_COLUMNS)
    rows = [_qualification_cells(q) for q in standings.qualification]
    lines = ["", "## Qualification", "", *_md_table(header, rows)]
    if standings.not_qualified:
        lines += [
            "",
            "Not qualified (not ranked): " + ", ".join(_md(b) for b in standings.not_qualified) + ".",
        ]
    return lines


def _md_ratings(standings: Standings) -> list[str]:
    """The ratings section: each bot's rating with its interval, its rank range and the
    likelihood that it is stronger than the next; a chip game's Elo on deals won; then
    the sequential tests."""
    lines: list[str] = []
    if standings.ratings_problem:
        lines += ["", "## Ratings", "", _md(standings.ratings_problem)]
    if standings.ratings is not None:
        lines += ["", "## Ratings", "", *_md_rating_table(standings.ratings)]
    if standings.win_ratings is not None:
        lines += [
            "",
            "### Elo on deals won",
            "",
            "Who wins more deals (a deal won 1, drawn ½), beside the chips that rank the table: a bot "
            "may win fewer deals and more chips.",
            "",
            *_md_rating_table(standings.win_ratings),
        ]
    tests = sprt_lines(standings)
    if tests:
        lines += ["", "## Sequential tests", ""] + [f"- {_md(t)}" for t in tests]
    return lines


def _md_rating_table(ratings: Ratings) -> list[str]:
    model = {
        "bradley-terry": "Bradley–Terry",
        "plackett-luce": "Plackett–Luce",
        "chips": "Chip-strength (score per game, additive)",
    }.get(ratings.method, ratings.method)
    lines = [
        f"{model} fit on every done match between ranked bots at once ({ratings.matches} matches, "
        f"{ratings.units} deals; the main stage, and a seeding round robin if any); {ratings.scale} centred "
        f"on the field's mean, {ratings.confidence:.0%} intervals and rank ranges from {ratings.replicates} "
        f"bootstrap replicates ({ratings.intervals}); LOS: the likelihood of being stronger than the next bot.",
        "",
    ]
    digits = 1 if ratings.scale == "Elo" else 3
    rows = [
        [
            b.bot,
            f"{b.rating:+.{digits}f}",
            f"[{b.low:+.{digits}f}, {b.high:+.{digits}f}]",
            _ranks(b.rank_low, b.rank_high),
            "" if b.los_next is None else f"{b.los_next:.1%}",
        ]
        for b in ratings.bots
    ]
    return lines + _md_table(["bot", ratings.scale, "interval", "ranks", "LOS over next"], rows)


def sprt_lines(standings: Standings) -> list[str]:
    """One line per pair whose match ran a sequential test (``--sprt``)."""
    out = []
    table = standings.crosstable
    for row in table.bots:
        for col, cell in table.cells.get(row, {}).items():
            t = cell.sprt
            if t is None:
                continue
            state = f"{t.decision} accepted" if t.decision else "undecided"
            out.append(
                f"{row} vs {col}: {state} — LLR {t.llr:.2f} (bounds {t.lower:.2f}, {t.upper:.2f}) after "
                f"{t.games} games ({t.describe()}; {t.estimate()})"
            )
    return out


def _md_crosstable(standings: Standings) -> list[str]:
    table = standings.crosstable
    if not table.bots:
        return []
    standing = standings.tournament.standing
    if table.kind == "two-seat":
        how = "Row bot against column bot over their main-stage matches: games won-drawn-lost (net score)"
        how += (
            ", then the row bot's edge per game (half its score minus the column bot's: its own "
            "chips in a zero-sum game) ± the half-width of its 95% interval over deals."
            if standing == "score"
            else ", then its score rate (win 1, draw ½) with its 95% interval over deals."
        )
    else:
        how = (
            "Row bot against column bot over the games where both sat: placed ahead/level/behind, then "
            "the row bot's mean score per game in those games ± the half-width of its 95% interval."
        )
    rows = [
        [
            row,
            *(crosstable_cell(table.cells.get(row, {}).get(col), table.kind, standing) for col in table.bots),
        ]
        for row in table.bots
    ]
    return ["", "## Crosstable", "", how, "", *_md_table(["bot", *table.bots], rows)]


def never_started_lines(standings: Standings) -> list[str]:
    """One line per bot that never started: its name and why."""
    return [f"{r.bot} never started: {r.never_started}" for r in standings.rows if r.never_started]


def _md_never_started(standings: Standings) -> list[str]:
    silent = [r for r in standings.rows if r.never_started]
    if not silent:
        return []
    lines = [
        "",
        "## Never started",
        "",
        "These bots answered no request in any of their matches: listed last, apart, whatever "
        "their points (deals that no seat played count for nobody).",
    ]
    for r in silent:
        lines += ["", f"- **{_md(r.bot)}**: {_md(r.never_started or '')}"]
        if r.stderr_tail:
            tail = r.stderr_tail.replace("`" * 3, "'" * 3).split("\n")
            lines += ["", "  ```text", *("  " + x for x in tail), "  ```"]
    return lines


def replayed_line(standings: Standings) -> str:
    """One line on the games played again as the machine's fault ("" when none)."""
    n = standings.replayed_games
    if not n:
        return ""
    return (
        f"replayed {n} game{'s' if n != 1 else ''}: the machine was overloaded (a timeout or slow start "
        "while the bot used far less CPU than its limit and waited for one; --replay-overloaded)"
    )


def _md_replayed(standings: Standings) -> list[str]:
    line = replayed_line(standings)
    if not line:
        return []
    lines = ["", "## Replayed games", "", _md(line[0].upper() + line[1:]) + "."]
    lines += [""] + [f"- {_md(why)}" for why in standings.replayed]
    if standings.replayed_games > len(standings.replayed):
        lines.append(f"- … and {standings.replayed_games - len(standings.replayed)} more")
    return lines


def _md_faults(standings: Standings) -> list[str]:
    if not standings.faults:
        return []
    lines = ["", "## Faults", "", "Forfeits over every stage (qualification and seeding included)."]
    for fault in standings.faults:
        lines += ["", f"### {_md(fault.bot)}: {_md(_forfeits(fault.forfeits))}", ""]
        if fault.unstartable:
            lines.append(f"- cannot start: {_md(fault.unstartable)}")
        # Forfeits that say the same thing (a bot that never started: every game alike)
        # are one line with where they happened, not twenty copies.
        said: dict[tuple[str, str, str | None], list[str]] = {}
        for d in fault.details:
            where = f"{_md(d.match)} game {d.game}" + (f" decision {d.decision}" if d.decision >= 0 else "")
            said.setdefault((d.verdict, _same_detail(d.detail), d.reply), []).append(where)
        for (verdict, detail, reply), places in said.items():
            where = places[0] if len(places) == 1 else f"{places[0]} and {len(places) - 1} more like it"
            text = f"- {where}: **{_md(verdict)}** — {_md(detail)}"
            if reply is not None:
                text += f"; reply {_md(repr(reply))}"
            lines.append(text)
        shown = sum(fault.forfeits.values())
        if shown > len(fault.details):
            lines.append(f"- … {shown - len(fault.details)} more")
    return lines


#: Close calls listed in standings.md; standings.json has them all.
CLOSE_CALLS_SHOWN = 30


def _md_close_calls(standings: Standings) -> list[str]:
    calls = standings.close_calls
    if not calls:
        return []
    lines = [
        "",
        "## Close to the time limit",
        "",
        f"{_matches(calls)} in which a bot took {NEAR_LIMIT:.0%} of the decision limit or more to "
        "answer, or timed out: the one result a slower or busier machine could change. CPU near the wall "
        "time: the bot was computing; far below it: it was not (starved on a busy machine, or waiting on "
        "something of its own). `referee tournament --resume DIR --rerun-close` plays them again.",
        "",
    ]
    lines += [f"- {_md(c.match)}, {_md(c.bot)}: {_md(c.detail)}" for c in calls[:CLOSE_CALLS_SHOWN]]
    if len(calls) > CLOSE_CALLS_SHOWN:
        lines.append(f"- … {len(calls) - CLOSE_CALLS_SHOWN} more (standings.json)")
    return lines


def _matches(calls: Sequence[CloseCall]) -> str:
    """``1 match`` / ``3 matches``: how many matches the close calls are in."""
    count = len({c.match for c in calls})
    return f"{count} match{'es' * (count != 1)}"


def _md_notes(standings: Standings) -> list[str]:
    return notes_markdown(standings.notes)


def notes_markdown(entries: Sequence[BotNotes]) -> list[str]:
    """The "Notes" section of a standings page (nothing when no bot wrote any)."""
    if not entries:
        return []
    lines = [
        "",
        "## Notes",
        "",
        "What bots said about their own play (`referee-note:` lines on stderr: an adapter's "
        "corrections, for one), over every stage: their own word, counted by name.",
    ]
    for entry in entries:
        total = sum(entry.notes.values())
        lines += ["", f"### {_md(entry.bot)}: {total} in {entry.matches} matches", ""]
        for name, count in by_count(entry.notes):
            example = entry.examples.get(name)
            lines.append(f"- {_md(name)} ×{count}" + (f" — first: {_md(example)}" if example else ""))
    return lines


def _plain(value: object) -> str:
    """A figure as text: a (least, most) pair as ``least–most``."""
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return f"{value[0]}–{value[1]}"
    return str(value)


def _same_detail(detail: str) -> str:
    """A forfeit's detail without the game number a bot that is down repeats in it, and
    without a timeout's CPU figure (each one's is its own)."""
    return re.sub(r"^not running since game \d+: ", "not running: ", split_cpu_note(detail)[0])


# ---------------------------------------------------------------------- the terminal


def print_standings(standings: Standings, console: Console, top: int | None = None) -> None:
    """The ranked table (the first ``top`` rows), the qualification and the bracket
    text, on ``console``.  Bot names and texts are shown as text, never as markup."""
    t = standings.tournament
    title = (
        f"{t.game} · {t.format} · seed {t.seed} · {t.stage}: {t.matches_done}/{t.matches_total} matches done"
        + (f", {t.matches_running} running" if t.matches_running else "")
        + f", {t.games_stored} games"
    )
    rows = standings.rows if top is None else standings.rows[:top]
    caption = "ranked by " + ranked_by(standings)
    table = _ranked_table(standings, rows, title, caption, compact=False)
    if Measurement.get(console, console.options.update_width(10_000), table).maximum > console.width:
        # A terminal too narrow for every column: the ones that rank bots, readable,
        # rather than all of them squeezed into ellipses.
        caption += "; some columns left out for this width: standings.md has them all"
        table = _ranked_table(standings, rows, title, caption, compact=True)
    console.print(table)
    if any(r.provisional_games for r in rows):
        console.print(Text("* includes games of running matches (provisional)"))
    if standings.qualification is not None:
        q_table = Table(title=Text(f"qualification against {t.qualifier}"))
        for name in QUALIFICATION_COLUMNS:
            q_table.add_column(name, justify="left" if name in ("bot", "status") else "right", no_wrap=True)
        for q in standings.qualification:
            q_table.add_row(*(Text(printable(cell)) for cell in _qualification_cells(q)))
        console.print(q_table)
    if standings.ratings_problem:
        console.print(Text(printable(standings.ratings_problem)))
    for line in sprt_lines(standings):
        console.print(Text(printable("SPRT " + line)))
    for row in standings.rows:
        if row.never_started:
            console.print(Text(printable(f"{row.bot} never started: {row.never_started}")))
            if row.stderr_tail:
                console.print(Text(printable_lines(row.stderr_tail)))
    if standings.bracket_text:
        console.print(Text(printable_lines(standings.bracket_text)))
    if standings.notes:
        said = ", ".join(f"{n.bot} {sum(n.notes.values())}" for n in standings.notes)
        console.print(
            Text(printable(f"notes the bots wrote about their own play: {said} (standings.md, Notes)"))
        )
    if standings.replayed_games:
        console.print(Text(printable(replayed_line(standings) + " (standings.md, Replayed games)")))
    if standings.close_calls:
        console.print(
            Text(
                f"{_matches(standings.close_calls)} close to the time limit (standings.md; "
                "--resume DIR --rerun-close plays them again)"
            )
        )


def _ranked_table(
    standings: Standings, rows: Sequence[BotRow], title: str, caption: str, *, compact: bool
) -> Table:
    table = Table(title=Text(title), caption=Text(caption))
    cols = columns(standings, compact=compact)
    for name, _ in cols:
        table.add_column(
            name, justify="left" if name in ("bot", "forfeits", "bracket") else "right", no_wrap=True
        )
    for row in rows:
        table.add_row(*(Text(printable(show(row))) for _, show in cols))
    return table


def printable_lines(text: str) -> str:
    """Multi-line text with each line made printable (newlines kept)."""
    return "\n".join(printable(line) for line in text.split("\n"))
