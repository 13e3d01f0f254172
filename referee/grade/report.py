"""The reports of ``referee grade``: the gradebook, Gradescope's results, each student's page, the TA's page.

Every function here is a pure function of a :class:`~referee.grade.model.ClassResult`
(the writers only write what the renderers return), so the reports can be re-made at
any time from what grading saved on disk.  :func:`write_all` writes, under one folder (the
layout of ``referee grade``'s OUT):

================================  ===========================================================
``gradebook.csv``                 one row per student, for a spreadsheet or a learning platform
``students/<id>/results.json``    the student's result in Gradescope's autograder format
``students/<id>/feedback.md``     the page the student reads, as Markdown (and as HTML, below)
``students/<id>/feedback.html``   one self-contained file: inline CSS, no script, nothing fetched
``overview.md``, ``.html``        the TA's page: counts, the distribution of totals, standings,
                                  identical submissions; each student links to their page
================================  ===========================================================

Every file is written whole or not at all (a temporary file beside it, then a rename).

Student text is hostile
-----------------------

A student chooses their id (the name of the file they hand in), their build's output,
their bot's stderr and replies: each can try to break the page it lands on.  So:

* **CSV**: a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
  return (after any spaces) and is not a plain number gets a leading ``'``: a spreadsheet
  would run it as a formula (``=HYPERLINK(…)``, ``-2+3+cmd|…``).  Quoting is the
  :mod:`csv` module's.
* **HTML**: every string is escaped, attributes included; the page carries a
  Content-Security-Policy that allows no script and no fetch at all, so a mistake here
  still could not run or load anything.  The only links are relative paths (replays,
  students' pages), each component percent-encoded: ``:`` cannot make a scheme, nor a
  leading ``/`` a host.
* **Markdown**: student text in running text has Markdown's characters backslash-escaped
  (``|`` too, for tables); logs and stderr go in fenced blocks whose fence is longer than
  any run of backticks inside, so nothing in them can close the block.
* **Control characters** (escape sequences, NUL, CR, bidi overrides) are shown escaped
  (``\\x1b``, ``\\u202e``), as :func:`referee.core.verdict.printable` does: a page must not
  lie about what the bot wrote.
* **Length**: a reply, a line sent to the bot or any checklist failure field is cut to
  300 characters, " … (N characters)" appended; a stderr tail keeps its last 300 characters
  (the end is where the error is), "… (N characters)" before them.  Logs keep their head
  and tail as grading saved them.

What a student sees
-------------------

:class:`~referee.grade.model.Feedback` decides: ``check``, ``qualify`` and ``compete``
hide those steps' details (the section then says only that it is not shown, the
headline only which step stopped the submission), ``build_log`` the build's output,
``stderr`` the bot's stderr in forfeits and checklist notes.

A point item whose visibility is not ``visible`` (``hidden``, ``after_due_date``,
``after_published``) is *withheld*: Gradescope shows that test only later (or never), and
while any test is not shown it does not show the total either.  So nothing shown now
may give it away: results.json's top-level ``output``, its leaderboard, the other tests'
outputs and the feedback page (a file, which cannot wait for a date) leave out the item,
the total, and the results of the item's step (its section says they are shown later; the
headline neither names it as the step that stopped the submission nor gives a rank).
The withheld test itself carries its step's detail, for Gradescope to show when its
visibility says.  A step that did not run because a withheld one failed is "not run",
without the why.

Other students' ids appear on a student's page and results.json only when
``feedback.standings`` is true.  Otherwise the only place they can come from, the
competition (a forfeit's match, a replay's label, the why of a competition point item),
has them replaced by "another student"; a replay whose path names one is listed without
its link.  The matching is on whole ids (not inside a longer word), so an id that is also
a common word can blank that word out in those few places: it never leaks the id.

Which step a point item is about
--------------------------------

:class:`~referee.grade.model.PointItem` does not name its step, so it is read from the
item's name: a step's name in it, or a word that means the step ("compile", "rank",
"rating", …, at the start of a word; :data:`_STEP_WORDS`).  The item's Gradescope output then carries that step's
detail: the failed checklist lines for a check item, the build log's tail for a build
item, the rank and rating for a competition item.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import msgspec

from protocol.notes import by_count
from referee.grade.model import (
    OK,
    SKIPPED,
    STEPS,
    BuildStep,
    CheckItem,
    CheckStep,
    ClassResult,
    CompeteStep,
    Feedback,
    Forfeit,
    PointItem,
    QualifyStep,
    StudentResult,
    UnpackStep,
)
from referee.sinks.files import write_atomically

__all__ = [
    "OUTPUT_FORMATS",
    "VISIBILITIES",
    "csv_safe",
    "feedback_html",
    "feedback_markdown",
    "gradebook_csv",
    "gradescope_results",
    "overview_html",
    "overview_markdown",
    "validate_gradescope",
    "write_all",
    "write_feedback",
    "write_gradebook",
    "write_gradescope",
    "write_overview",
]

MiB = 1 << 20

#: Gradescope's documented values (see :func:`validate_gradescope`).
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
OUTPUT_FORMATS = ("text", "html", "simple_format", "md", "ansi")

#: Words in a point item's name that say which step it is about, most specific step first
#: ("qualification check" is about qualify; "check" alone is the protocol check).
_STEP_WORDS: dict[str, tuple[str, ...]] = {
    "qualify": ("qualif",),
    "compete": ("compet", "rank", "rating", "elo", "tournament", "league", "ladder", "standing"),
    "build": ("build", "compil"),
    "unpack": ("unpack", "archive", "submission", "hand-in", "handin"),
    "check": ("check", "protocol", "conform"),
}
_TITLES = {
    "unpack": "Unpacking",
    "build": "Build",
    "check": "Protocol check",
    "qualify": "Qualification",
    "compete": "Competition",
}
#: Where write_all puts each student's files (as the pipeline does: OUT/students/<id>/).
_STUDENTS = "students"
_MAX_ROWS = 30  # forfeits and skipped members shown on a page; the rest are counted
_ANOTHER = "another student"
#: How a checklist note quoting the bot's stderr begins (referee.check.judge).
_STDERR_NOTE = "its stderr"


# ---------------------------------------------------------------------------- text


def _visible(text: str, *, lines: bool = False) -> str:
    """``text`` with control and format characters shown escaped (``\\x1b``); with
    ``lines``, newlines and tabs are kept (a log), CRLF read as a newline."""
    if lines:
        text = text.replace("\r\n", "\n")
    if text.isprintable():
        return text
    keep = "\n\t" if lines else ""
    return "".join(
        c if c.isprintable() or c in keep else c.encode("unicode_escape").decode("ascii") for c in text
    )


def _num(x: float | None, places: int = 2) -> str:
    """A number with up to ``places`` decimals and no trailing zeros ("7", "7.5", "7.25")."""
    if x is None or not math.isfinite(x):
        return ""
    text = f"{x:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _duration_ms(ms: float | None) -> str:
    """A decision time given in ms, in the unit that shows it: "12 µs", "3.4 ms", "1.2 s"."""
    if ms is None or not math.isfinite(ms):
        return "?"
    if ms < 1:
        return f"{_num(ms * 1000, 1)} µs"
    if ms < 1000:
        return f"{_num(ms, 1)} ms"
    return f"{_num(ms / 1000, 2)} s"


def _fixed(x: float | None, places: int = 1) -> str:
    """A number with exactly ``places`` decimals (ratings: "1520.0")."""
    if x is None or not math.isfinite(x):
        return ""
    text = f"{x:.{places}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < MiB:
        return f"{n / 1024:.1f} KiB"
    return f"{n / MiB:.1f} MiB"


def _plural(n: int, noun: str, nouns: str = "") -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {nouns or noun + 's'}"


def _wld(wins: int, losses: int, draws: int) -> str:
    return f"{_plural(wins, 'win')}, {_plural(losses, 'loss', 'losses')}, {_plural(draws, 'draw')}"


def _interval(low_high: Sequence[float] | None, places: int = 1) -> str:
    if not low_high or len(low_high) != 2:
        return ""
    return f"{_fixed(low_high[0], places)} to {_fixed(low_high[1], places)}"


def _significant(x: float | None, digits: int = 3, most: int = 6) -> str:
    """``x`` with ``digits`` significant digits (at most ``most`` decimals, none dropped
    from the integer part): "0.123", "-1.25", "12.3", "1235"."""
    if x is None or not math.isfinite(x):
        return ""
    if abs(x) < 0.5 * 10**-most:
        return "0"
    places = min(most, max(0, digits - 1 - math.floor(math.log10(abs(x)))))
    return _fixed(x, places)


def _is_elo(unit: str) -> bool:
    return unit.strip().lower() == "elo"


def _rating_value(x: float | None, unit: str) -> str:
    """A rating in its unit's precision: Elo with one decimal; anything else (chips or
    points per game, a score rate) with three significant digits, so a chip game's
    -0.0123 does not become "0.0"."""
    return _fixed(x, 1) if _is_elo(unit) else _significant(x)


def _rating_interval(low_high: Sequence[float] | None, unit: str) -> str:
    if not low_high or len(low_high) != 2:
        return ""
    return f"{_rating_value(low_high[0], unit)} to {_rating_value(low_high[1], unit)}"


#: The most characters of one student-produced line (a reply, a line sent) or stderr tail shown.
_CUT = 300


def _cut(text: str, limit: int = _CUT) -> str:
    """``text``'s first ``limit`` characters, " … (N characters)" after them when it is longer."""
    return text if len(text) <= limit else f"{text[:limit]} … ({len(text)} characters)"


def _cut_tail(text: str, limit: int = _CUT) -> str:
    """``text``'s last ``limit`` characters (a stderr tail: the error is at its end),
    "… (N characters)" before them when it is longer."""
    return text if len(text) <= limit else f"… ({len(text)} characters) {text[-limit:]}"


def _href(path: str) -> str | None:
    """``path`` as a link that stays on this machine, next to the page, or None.

    Absolute paths and ``..`` get no link; every component is percent-encoded, so a
    ``:`` cannot make a scheme (``javascript:``) and nothing can make a host (``//``)."""
    if not path or "\0" in path or path.startswith(("/", "\\")):
        return None
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(quote(part, safe="") for part in parts)


# ---------------------------------------------------------------------------- a tiny document model
#
# The student's page and the TA's exist as Markdown and as HTML; both are rendered from one
# list of blocks, so the two say the same thing and escaping lives in the two renderers only.


@dataclass(frozen=True)
class _Span:
    """Inline text shown as ``kind``: "code", "strong", "badge", "link", or "pre" (a
    multi-line block in a table cell: HTML puts it there, Markdown under the table)."""

    kind: str
    text: str
    href: str = ""


Inline = str | _Span
Line = list[Inline]


@dataclass
class _Heading:
    level: int
    text: str


@dataclass
class _Para:
    line: Line
    lead: bool = False


@dataclass
class _Facts:
    """Label: value pairs (a definition list)."""

    rows: list[tuple[str, Line]]


@dataclass
class _Table:
    header: list[str]
    rows: list[list[Line]]
    numeric: frozenset[int] = frozenset()


@dataclass
class _Pre:
    text: str
    caption: str = ""


@dataclass
class _Items:
    items: list[Line]


@dataclass
class _Bars:
    """A histogram: (label, count) per bin."""

    rows: list[tuple[str, int]]


Block = _Heading | _Para | _Facts | _Table | _Pre | _Items | _Bars


def _code(text: str) -> _Span:
    return _Span("code", text)


def _strong(text: str) -> _Span:
    return _Span("strong", text)


def _badge(text: str) -> _Span:
    return _Span("badge", text)


def _link(text: str, path: str) -> Inline:
    href = _href(path)
    return _Span("link", text, href) if href else text


def _student_link(name: str, students: str, page: str) -> Inline:
    """``name`` linked to ``<students>/<name>/<page>`` (the overview's link to a student's
    page), every component percent-encoded, the id as one component whatever it holds."""
    folder = [part for part in students.replace("\\", "/").split("/") if part not in ("", ".")]
    if students.startswith(("/", "\\")) or ".." in folder or name in ("", ".", "..") or "\0" in name:
        return name
    return _Span("link", name, "/".join(quote(part, safe="") for part in [*folder, name, page]))


#: A point item's badge on a page: all its points, some, or none.
PARTIAL = "partial"


def _badge_class(word: str) -> str:
    if word in (OK, "pass", "passed", "ranked"):
        return "pass"
    if word == PARTIAL:
        return "part"
    if word in (SKIPPED, "skip", "not run", "not shown", "shown later"):
        return "skip"
    return "fail"


# ---------------------------------------------------------------------------- Markdown

_MD_SPECIAL = re.compile(r"[\\`*_\[\]<>|~&]")
# What makes a block of a line's start: a heading, a list item, a setext underline or a rule.
_MD_LEADING = re.compile(r"^( *)(#{1,6}|[-+]|\d{1,9}[.)])(?=[ \t]|$)|^( *)([=-])(?=[=\- ]*$)")
_BADGE_MARKS = {"pass": "✔", "part": "◐", "fail": "✘", "skip": "–"}


def _md_text(text: str) -> str:
    """Student text made inert in Markdown: one line, its special characters escaped."""
    text = _MD_SPECIAL.sub(lambda m: "\\" + m.group(), _visible(text))
    # A "#", "-", "+", "=" or "1." that begins a block would make a heading or a list.
    match = _MD_LEADING.match(text)
    if match is None:
        return text
    spaces, mark = (match.group(1), match.group(2)) if match.group(2) else (match.group(3), match.group(4))
    cut = len(spaces) + len(mark) - 1
    return text[:cut] + "\\" + text[cut:]


def _longest_run(text: str, char: str = "`") -> int:
    return max((len(run) for run in re.findall(f"{re.escape(char)}+", text)), default=0)


def _md_code(text: str, table: bool) -> str:
    text = _visible(text)
    if not text:
        return "*(empty)*"
    if table:
        text = text.replace("|", "\\|")  # GitHub's tables split on "|" even inside code
    ticks = "`" * (_longest_run(text) + 1)
    # One space each side is stripped by the reader: it lets the text start with "`" or " ".
    pad = " " if text[:1] in "` " or text[-1:] in "` " else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _md_fence(text: str, caption: str = "") -> str:
    body = _visible(text, lines=True).rstrip("\n")
    fence = "`" * max(3, _longest_run(body) + 1)
    block = f"{fence}text\n{body}\n{fence}" if body else "*(empty)*"
    return f"{_md_text(caption)}\n\n{block}" if caption else block


def _md_line(line: Line, table: bool = False, notes: list[str] | None = None) -> str:
    out = []
    for part in line:
        if isinstance(part, str):
            out.append(_md_text(part))
        elif part.kind == "code":
            out.append(_md_code(part.text, table))
        elif part.kind == "strong":
            out.append(f"**{_md_text(part.text)}**" if part.text else "")
        elif part.kind == "badge":
            out.append(f"**{_BADGE_MARKS[_badge_class(part.text)]} {_md_text(part.text)}**")
        elif part.kind == "link":
            out.append(f"[{_md_text(part.text)}]({part.href})")
        elif part.kind == "pre":
            if notes is None:
                out.append(_md_code(part.text, table))
            else:
                notes.append(part.text)
                out.append(f"see ({len(notes)}) below")
    return "".join(out)


def _md_block(block: Block) -> str:
    if isinstance(block, _Heading):
        return f"{'#' * block.level} {_md_text(block.text)}"
    if isinstance(block, _Para):
        return _md_line(block.line)
    if isinstance(block, _Facts):
        return "\n".join(f"- **{_md_text(label)}:** {_md_line(value)}" for label, value in block.rows)
    if isinstance(block, _Items):
        return "\n".join(f"- {_md_line(item)}" for item in block.items)
    if isinstance(block, _Pre):
        return _md_fence(block.text, block.caption)
    if isinstance(block, _Table):
        notes: list[str] = []
        rows = [
            "| " + " | ".join(_md_text(h) for h in block.header) + " |",
            "| "
            + " | ".join("---:" if i in block.numeric else "---" for i in range(len(block.header)))
            + " |",
        ]
        for row in block.rows:
            rows.append(
                "| " + " | ".join(_md_line(cell, table=True, notes=notes) or " " for cell in row) + " |"
            )
        text = "\n".join(rows)
        for n, note in enumerate(notes, 1):
            text += "\n\n" + _md_fence(note, f"({n})")
        return text
    # _Bars: a text histogram
    width = max((len(label) for label, _ in block.rows), default=0)
    top = max((count for _, count in block.rows), default=0) or 1
    lines = [f"{label:>{width}} │{'█' * round(40 * count / top)} {count}" for label, count in block.rows]
    return _md_fence("\n".join(lines))


def _markdown(blocks: list[Block]) -> str:
    return "\n\n".join(_md_block(block) for block in blocks) + "\n"


# ---------------------------------------------------------------------------- HTML

_CSS = """
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --line: #d1d9e0;
  --soft: #f6f8fa; --pass: #1a7f37; --part: #0969da; --fail: #cf222e; --skip: #8a6100; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117;
  --line: #3d444d; --soft: #151b23; --pass: #2f9e4f; --part: #1f6feb; --fail: #da3633; --skip: #9e7700; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif; }
main { max-width: 62rem; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
h1 { font-size: 1.55rem; margin: 0 0 .5rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 2rem 0 .6rem; padding-bottom: .3rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
p { margin: .5rem 0; overflow-wrap: anywhere; }
p.lead { font-size: 1.1rem; padding: .75rem 1rem; background: var(--soft); border-left: 4px solid var(--line);
  border-radius: 4px; }
p.caption { color: var(--muted); font-size: .9rem; margin-bottom: .2rem; }
.scroll { overflow-x: auto; margin: .5rem 0 1rem; }
table { border-collapse: collapse; }
th, td { border: 1px solid var(--line); padding: .3rem .65rem; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1.25rem; margin: .5rem 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; }
code { background: var(--soft); border-radius: 4px; padding: .1em .35em; white-space: pre-wrap;
  overflow-wrap: anywhere; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: .7rem .9rem;
  margin: .3rem 0 1rem; overflow: auto; max-height: 32rem; white-space: pre; }
td pre { margin: 0; max-width: 32rem; max-height: 12rem; }
ul { padding-left: 1.4rem; }
.badge { display: inline-block; min-width: 3.2em; padding: 0 .55em; border-radius: 1em; color: #fff;
  font-size: .78rem; font-weight: 600; line-height: 1.6; text-align: center; white-space: nowrap; }
.badge.pass { background: var(--pass); }
.badge.part { background: var(--part); }
.badge.fail { background: var(--fail); }
.badge.skip { background: var(--skip); }
table.bars td { border: 0; padding: .1rem .5rem; }
table.bars td.bar { width: 28rem; }
div.bar { height: .95rem; background: var(--pass); border-radius: 2px; min-width: 1px; }
footer { margin-top: 2.5rem; color: var(--muted); font-size: .85rem; }
"""
# Nothing may run and nothing may be fetched, whatever got through: a second wall.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


_NUM = ' class="num"'


def _esc(text: str) -> str:
    return html.escape(_visible(text), quote=True)


def _html_line(line: Line) -> str:
    out = []
    for part in line:
        if isinstance(part, str):
            out.append(_esc(part))
        elif part.kind == "code":
            out.append(f"<code>{_esc(part.text)}</code>" if part.text else "<em>(empty)</em>")
        elif part.kind == "strong":
            out.append(f"<strong>{_esc(part.text)}</strong>")
        elif part.kind == "badge":
            out.append(f'<span class="badge {_badge_class(part.text)}">{_esc(part.text)}</span>')
        elif part.kind == "link":
            out.append(f'<a href="{html.escape(part.href, quote=True)}">{_esc(part.text)}</a>')
        elif part.kind == "pre":
            out.append(f"<pre>{html.escape(_visible(part.text, lines=True).rstrip())}</pre>")
    return "".join(out)


def _html_block(block: Block) -> str:
    if isinstance(block, _Heading):
        return f"<h{block.level}>{_esc(block.text)}</h{block.level}>"
    if isinstance(block, _Para):
        lead = ' class="lead"' if block.lead else ""
        return f"<p{lead}>{_html_line(block.line)}</p>"
    if isinstance(block, _Facts):
        rows = "".join(f"<dt>{_esc(label)}</dt><dd>{_html_line(value)}</dd>" for label, value in block.rows)
        return f'<dl class="facts">{rows}</dl>'
    if isinstance(block, _Items):
        return "<ul>" + "".join(f"<li>{_html_line(item)}</li>" for item in block.items) + "</ul>"
    if isinstance(block, _Pre):
        caption = f'<p class="caption">{_esc(block.caption)}</p>' if block.caption else ""
        body = _visible(block.text, lines=True).rstrip("\n")
        return caption + (f"<pre>{html.escape(body)}</pre>" if body else "<p><em>(empty)</em></p>")
    if isinstance(block, _Table):
        head = "".join(f"<th>{_esc(h)}</th>" for h in block.header)
        body = "".join(
            "<tr>"
            + "".join(
                f"<td{_NUM if i in block.numeric else ''}>{_html_line(cell)}</td>"
                for i, cell in enumerate(row)
            )
            + "</tr>"
            for row in block.rows
        )
        return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    top = max((count for _, count in block.rows), default=0) or 1
    rows = "".join(
        f'<tr><td class="num">{_esc(label)}</td><td class="bar">'
        f'<div class="bar" style="width: {100 * count / top:.1f}%"></div></td><td class="num">{count}</td></tr>'
        for label, count in block.rows
    )
    return f'<div class="scroll"><table class="bars">{rows}</table></div>'


def _html_page(title: str, blocks: list[Block], footer: str) -> str:
    body = "\n".join(_html_block(block) for block in blocks)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{_esc(title)}</title>\n<style>{_CSS}</style>\n</head>\n"
        f"<body>\n<main>\n{body}\n<footer>{_esc(footer)}</footer>\n</main>\n</body>\n</html>\n"
    )


# ---------------------------------------------------------------------------- what a student may see


def _redactor(student: StudentResult, result: ClassResult) -> Callable[[str], str]:
    """A function that replaces other students' ids by "another student", unless the
    standings are shown (module docstring)."""
    if result.feedback.standings:
        return lambda text: text
    others = {s.student for s in result.students} | {row.name for row in result.standings if row.student}
    others.discard(student.student)
    others.discard("")
    if not others:
        return lambda text: text
    alternatives = "|".join(re.escape(name) for name in sorted(others, key=len, reverse=True))
    pattern = re.compile(f"(?<!\\w)(?:{alternatives})(?!\\w)")
    return lambda text: pattern.sub(_ANOTHER, text) if text else text


def _relativizer(student: str) -> Callable[[str], str]:
    """A function that makes the grader's absolute paths of a student's files relative to
    their submission: ``/home/ta/class/out/bots/dave/bot.py`` is ``bot.py``, the folder
    itself ``.`` (the grading folder's ``bots/ID`` and ``submissions/ID``, the build's
    ``.build-ID`` staging).  Where the grader keeps its files is not the student's business."""
    name = re.escape(student)
    # Path components without blanks or quotes (a folder with a blank in its name leaves
    # the part before the blank: still nothing of the student's own tree).
    pattern = re.compile(
        rf"(?<![\w.-])(?:/[^\s/'\"`:]+)*/(?:bots|submissions)/(?:\.build-)?{name}(?:/|(?![\w.-]))"
    )
    return lambda text: pattern.sub(lambda m: "" if m.group(0).endswith("/") else ".", text) if text else text


def _relative_paths(student: StudentResult) -> StudentResult:
    """The student's result with every text's paths made relative (:func:`_relativizer`)."""
    relative = _relativizer(student.student)

    def walk(value: object) -> object:
        if isinstance(value, str):
            return relative(value)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return msgspec.convert(walk(msgspec.to_builtins(student)), StudentResult)


def _as_shown(student: StudentResult, result: ClassResult) -> StudentResult:
    """The student's result as they may see it: the grader's paths relative to their
    submission, competition text redacted (module docstring)."""
    student = _relative_paths(student)
    redact = _redactor(student, result)
    replace = msgspec.structs.replace
    points = [
        replace(item, why=redact(item.why)) if _step_of(item) == "compete" else item
        for item in student.points
    ]
    compete = student.compete
    if compete is not None:
        compete = replace(
            compete,
            summary=redact(compete.summary),
            forfeits=[_redact_forfeit(f, redact) for f in compete.forfeits],
            note_examples={name: redact(text) for name, text in compete.note_examples.items()},
            replays=[
                replace(r, label=redact(r.label), path=r.path if redact(r.path) == r.path else "")
                for r in compete.replays
            ],
        )
    return replace(student, points=points, compete=compete)


def _redact_forfeit(forfeit: Forfeit, redact: Callable[[str], str]) -> Forfeit:
    return msgspec.structs.replace(
        forfeit,
        verdict=redact(forfeit.verdict),
        detail=redact(forfeit.detail),
        match=redact(forfeit.match),
        position=None if forfeit.position is None else redact(forfeit.position),
        reply=None if forfeit.reply is None else redact(forfeit.reply),
        stderr_tail=redact(forfeit.stderr_tail),
    )


def _shown(step: str, feedback: Feedback) -> bool:
    """Whether the feedback settings show this step's details."""
    return {"check": feedback.check, "qualify": feedback.qualify, "compete": feedback.compete}.get(step, True)


def _step_of(item: PointItem) -> str | None:
    """The step a point item is about, read from its name (module docstring), or None."""
    name = item.name.lower()
    if name in STEPS:
        return name
    return next(
        (step for step, words in _STEP_WORDS.items() if any(re.search(rf"\b{w}", name) for w in words)), None
    )


@dataclass(frozen=True)
class _Shows:
    """What one student may see now: the feedback settings, and what their point items'
    visibility withholds (module docstring, "What a student sees")."""

    feedback: Feedback
    #: The steps some point item about which is not ``visible``: their results wait.
    withheld: frozenset[str] = frozenset()
    #: Whether the total (and the points of every item) may be shown.
    total: bool = True

    def step(self, name: str) -> bool:
        """Whether this step's results and details are shown."""
        return name not in self.withheld and _shown(name, self.feedback)


def _shows(student: StudentResult, result: ClassResult) -> _Shows:
    # Gradescope (https://gradescope-autograders.readthedocs.io/en/latest/specs/, "Controlling
    # Test Case Visibility"): "hidden: test case will never be shown to students",
    # "after_due_date" and "after_published" only later, and "If test cases are hidden,
    # students will not be able to see their total score.  Test cases with visibility set
    # to `hidden` don't affect this, since they should only be used for tests which don't
    # contribute points to the total."  Our items may well carry points when hidden, so any
    # item not "visible" withholds the total, and its step's results, wherever shown now.
    later = [item for item in student.points if item.visibility != "visible"]
    steps = frozenset(name for item in later if (name := _step_of(item)) is not None)
    return _Shows(result.feedback, steps, not later)


def _failed_step(student: StudentResult) -> str | None:
    return next((n for n in STEPS if (s := getattr(student, n)) is not None and not s.ok), None)


def _not_run(name: str, student: StudentResult, withheld: frozenset[str] = frozenset()) -> str:
    """Why a step is absent: "not run: build failed", or just "not run" (also when the step
    that failed is ``withheld``: saying so would give its result away)."""
    for earlier in STEPS[: STEPS.index(name)]:
        step = getattr(student, earlier)
        if step is not None and not step.ok:
            return "not run" if earlier in withheld else f"not run: {earlier} failed"
    return "not run"


def _n_ranked(result: ClassResult) -> int:
    if result.standings:
        return len(result.standings)
    return sum(1 for s in result.students if s.compete is not None and s.compete.rank is not None)


def _headline(student: StudentResult, result: ClassResult, shows: _Shows) -> Line:
    """The student's outcome in one sentence, with the total points when they are shown."""
    failed = _failed_step(student)
    compete = student.compete
    if failed is not None and failed not in shows.withheld:
        step = getattr(student, failed)
        said = f"Your submission stopped at the {failed} step ({step.outcome}"
        said += f": {step.summary})" if shows.step(failed) and step.summary else ")"
    elif shows.withheld:
        said = "Your submission was graded; some of its results are shown later"
    elif compete is not None and shows.step("compete") and compete.rank is not None:
        n = _n_ranked(result)
        said = f"Your bot passed every step and ranked {compete.rank}" + (f" of {n}" if n else "")
        said += " in the competition"
    elif student.last_step is not None:
        said = f"Your submission passed every step that ran (the last: {student.last_step})"
    else:
        said = "Nothing of your submission was graded"
    if not shows.total:
        return [said + "."]
    return [said + ": ", _strong(f"{_num(student.total)} of {_num(student.max_total)} points"), "."]


# ---------------------------------------------------------------------------- step sections


def _forfeit_blocks(forfeits: list[Forfeit], feedback: Feedback) -> list[Block]:
    if not forfeits:
        return []
    header = ["#", "verdict", "match", "game", "position", "reply", "why"]
    if feedback.stderr:
        header.append("stderr tail")
    rows: list[list[Line]] = []
    for n, f in enumerate(forfeits[:_MAX_ROWS], 1):
        row: list[Line] = [
            [str(n)],
            [_strong(f.verdict)],
            [f.match],
            ["" if f.game is None else str(f.game)],
            [_code(_cut(f.position))] if f.position is not None else ["—"],
            [_code(_cut(f.reply))] if f.reply is not None else ["no reply"],
            [_cut(f.detail)],
        ]
        if feedback.stderr:
            row.append([_Span("pre", _cut_tail(f.stderr_tail))] if f.stderr_tail.strip() else [""])
        rows.append(row)
    blocks: list[Block] = [
        _Para([f"Forfeits: {len(forfeits)} (each a decision of your bot that was penalised)."]),
        _Table(header, rows, frozenset({0, 3})),
    ]
    if len(forfeits) > _MAX_ROWS:
        blocks.append(_Para([f"… and {len(forfeits) - _MAX_ROWS} more."]))
    return blocks


def _note_blocks(step: QualifyStep | CompeteStep) -> list[Block]:
    """The notes the bot wrote about its own play: an adapter's corrections of the
    student's decisions, for one (docs/adapters.md)."""
    if not step.notes:
        return []
    ranked = by_count(step.notes)
    rows: list[list[Line]] = [
        [[_code(name)], [str(count)], [_cut(step.note_examples.get(name, ""))]]
        for name, count in ranked[:_MAX_ROWS]
    ]
    blocks: list[Block] = [
        _Para(
            [
                f"Notes: {sum(step.notes.values())} — what your bot (or the adapter it was built with) "
                "wrote about its own play on stderr as ",
                _code("referee-note:"),
                " lines. They change no result.",
            ]
        ),
        _Table(["note", "count", "first"], rows, frozenset({1})),
    ]
    if len(ranked) > _MAX_ROWS:
        blocks.append(_Para([f"… and {len(ranked) - _MAX_ROWS} more kinds."]))
    return blocks


def _unpack_facts(step: UnpackStep) -> _Facts:
    facts: list[tuple[str, Line]] = []
    if step.source:
        facts.append(("handed in", [_code(step.source)]))
    facts.append(("files", [f"{step.files} ({_size(step.bytes)})"]))
    if step.content_hash:
        facts.append(("content hash", [_code(step.content_hash)]))
    return _Facts(facts)


def _skipped(step: UnpackStep) -> list[Block]:
    if not step.skipped:
        return []
    items: list[Line] = [[_code(name)] for name in step.skipped[:_MAX_ROWS]]
    if len(step.skipped) > _MAX_ROWS:
        items.append([f"… and {len(step.skipped) - _MAX_ROWS} more"])
    return [_Para([f"Left out ({len(step.skipped)}):"]), _Items(items)]


def _build_facts(step: BuildStep) -> _Facts:
    facts: list[tuple[str, Line]] = [("detected", [step.kind or "nothing to run"])]
    if step.why:
        facts.append(("why", [step.why]))
    facts.append(("build command", [_code(step.command)] if step.command else ["none (nothing to build)"]))
    if step.run:
        facts.append(("run command", [_code(step.run)]))
    if step.exit_status is not None:
        facts.append(("exit status", [str(step.exit_status)]))
    if step.sandbox:
        facts.append(("sandbox", [step.sandbox]))
    usage = f"{_num(step.seconds, 1)} s"
    if step.cpu_s:
        usage += f", CPU {_num(step.cpu_s, 1)} s"
    if step.peak_rss_bytes:
        usage += f", peak memory {_num(step.peak_rss_bytes / MiB, 1)} MiB"
    facts.append(("time", [usage]))
    return _Facts(facts)


def _build_log(step: BuildStep, *, head: bool) -> list[Block]:
    """The build's output: its first lines (with ``head``) and its last lines."""
    if not (step.log_head or step.log_tail):
        return [_Para(["The build printed nothing."])] if step.command else []
    intro = f"The build's output: {_size(step.log_bytes)} in all"
    if not step.log_tail:  # it all fitted in the head
        return [_Pre(step.log_head, f"{intro}, complete:")]
    blocks: list[Block] = (
        [_Pre(step.log_head, f"{intro}; its first lines:")] if head and step.log_head else []
    )
    blocks.append(_Pre(step.log_tail, "Its last lines:" if blocks else f"{intro}; its last lines:"))
    return blocks


def _check_failures(step: CheckStep, feedback: Feedback) -> list[Block]:
    """The checklist items that have something to say: failures, notes, hints."""
    blocks: list[Block] = []
    for item in step.items:
        notes = [n for n in item.notes if feedback.stderr or not n.startswith(_STDERR_NOTE)]
        if not (item.failure or notes or item.hint):
            continue
        blocks.append(_Heading(3, f"{item.title}: {item.status}"))
        blocks.extend(_check_item_detail(item, notes))
    return blocks


def _check_item_detail(item: CheckItem, notes: list[str]) -> list[Block]:
    blocks: list[Block] = []
    if item.failure:
        facts: list[tuple[str, Line]] = []
        for key, value in item.failure.items():
            value = _cut(value)  # "sent" and "reply" are the bot's lines, the rest may quote them
            facts.append((key, [_code(value)] if key in ("sent", "reply") else [value]))
        blocks.append(_Facts(facts))
    for note in notes:
        first, _, rest = note.partition("\n")
        blocks.append(_Para([_cut(first)]))
        if rest:
            blocks.append(_Pre(_cut_tail(rest) if note.startswith(_STDERR_NOTE) else _cut(rest)))
    return blocks + _hint(item.hint)


def _hint(text: str | None) -> list[Block]:
    return [_Para([_strong("Hint:"), " ", text])] if text else []


#: What the BOT of a reproducing command stands for.
_BOT_NOTE = "BOT is your bot: a folder with bot.toml, an executable, or a quoted command."


def _reproduce(command: str) -> list[Block]:
    """The command that runs this step again, for the student to type."""
    return [_Pre(command, "Run it yourself:"), _Para([_BOT_NOTE])] if command else []


def _checklist(step: CheckStep) -> list[Block]:
    if not step.items:
        return []
    rows: list[list[Line]] = [[[_badge(i.status)], [i.title], [i.figure]] for i in step.items]
    return [_Table(["status", "item", "figure"], rows)]


def _qualify_facts(step: QualifyStep) -> _Facts:
    facts: list[tuple[str, Line]] = [
        ("result", [_badge("passed" if step.ok else "failed")]),
        ("opponent", [step.opponent or "—"]),
        ("games", [f"{step.games}: {_wld(step.wins, step.losses, step.draws)}"]),
        (
            "mean score",
            [f"{_num(step.mean_score)} per game (the opponent: {_num(step.opponent_mean_score)})"],
        ),
    ]
    if step.measure:
        shown = step.measure
        if step.estimate is not None:
            shown += f": {_num(step.estimate, 3)}"
        if step.interval:
            shown += f" (interval {_interval(step.interval, 3)})"
        facts.append(("measured", [shown]))
    if step.rule:
        facts.append(("rule", [step.rule]))
    if step.finding:
        facts.append(("found", [step.finding]))
    return _Facts(facts)


def _rating(step: CompeteStep) -> str:
    if step.rating is None:
        return ""
    value = _rating_value(step.rating, step.rating_unit)
    unit = f" {step.rating_unit}" if step.rating_unit else ""
    if step.rating_interval and len(step.rating_interval) == 2:
        low, high = step.rating_interval
        half = _rating_value((high - low) / 2, step.rating_unit)
        interval = _rating_interval([low, high], step.rating_unit)
        return f"{value} ± {half}{unit} (95 % interval {interval})"
    return f"{value}{unit}"


def _compete_facts(step: CompeteStep, result: ClassResult) -> _Facts:
    facts: list[tuple[str, Line]] = []
    if step.format:
        facts.append(("format", [step.format]))
    if step.rank is not None:
        rank = str(step.rank)
        n = _n_ranked(result)
        if n:
            rank += f" of {n}"
        if step.rank_range and len(step.rank_range) == 2 and step.rank_range[0] != step.rank_range[1]:
            rank += f" (could be {step.rank_range[0]} to {step.rank_range[1]})"
        facts.append(("rank", [_strong(rank)]))
    if step.rating is not None:
        facts.append(("rating", [_rating(step)]))
    facts.append(("games", [f"{step.games} in {_plural(step.matches, 'match', 'matches')}"]))
    facts.append(("results", [_wld(step.wins, step.losses, step.draws)]))
    if step.mean_score is not None:
        facts.append(("mean score", [f"{_num(step.mean_score)} per game"]))
    if step.decision_ms_mean is not None or step.decision_ms_max is not None:
        facts.append(
            (
                "decision time",
                [f"mean {_duration_ms(step.decision_ms_mean)}, max {_duration_ms(step.decision_ms_max)}"],
            )
        )
    if step.peak_rss_bytes:
        facts.append(("peak memory", [f"{_num(step.peak_rss_bytes / MiB, 1)} MiB"]))
    return _Facts(facts)


def _replays(step: CompeteStep) -> list[Block]:
    if not step.replays:
        return []
    items: list[Line] = []
    for replay in step.replays:
        if replay.path and _href(replay.path):
            items.append([_link(replay.label or replay.path, replay.path)])
        else:
            items.append([replay.label, " (no link: ask your TA)"])
    return [_Para(["Games worth watching:"]), _Items(items)]


def _step_blocks(name: str, student: StudentResult, result: ClassResult, shows: _Shows) -> list[Block]:
    """The section of the feedback page for one step."""
    feedback = result.feedback
    step = getattr(student, name)
    blocks: list[Block] = [_Heading(2, _TITLES[name])]
    if step is None:
        said = _not_run(name, student, shows.withheld).capitalize() + "."
        return [*blocks, _Para([_badge("not run"), " ", said])]
    if name in shows.withheld:
        return [*blocks, _Para([_badge("shown later"), " ", "The results of this step are shown later."])]
    if not _shown(name, feedback):
        return [*blocks, _Para([_badge("not shown"), " ", "The details of this step are not shown."])]
    blocks.append(_Para([_badge(step.outcome), " ", step.summary]))
    if isinstance(step, UnpackStep):
        blocks += [_unpack_facts(step), *_skipped(step)]
    elif isinstance(step, BuildStep):
        blocks.append(_build_facts(step))
        blocks += (
            _build_log(step, head=True)
            if feedback.build_log
            else [_Para(["The build's output is not shown."])]
        )
    elif isinstance(step, CheckStep):
        blocks.append(
            _Facts(
                [
                    ("opponent", [step.opponent or "—"]),
                    ("games", [str(step.games)]),
                    ("seed", [str(step.seed)]),
                ]
            )
        )
        blocks += _checklist(step) + _check_failures(step, feedback) + _reproduce(step.command)
    elif isinstance(step, QualifyStep):
        blocks.append(_qualify_facts(step))
        blocks += _hint(step.hint) + _forfeit_blocks(step.forfeits, feedback) + _note_blocks(step)
        blocks += _reproduce(step.command)
    elif isinstance(step, CompeteStep):
        blocks.append(_compete_facts(step, result))
        blocks += _forfeit_blocks(step.forfeits, feedback) + _note_blocks(step) + _replays(step)
    return blocks


def _rating_unit(result: ClassResult) -> str:
    """The competition's rating unit (every student's is the same), "" when unknown."""
    return next((s.compete.rating_unit for s in result.students if s.compete and s.compete.rating_unit), "")


def _standings_blocks(result: ClassResult, students: str | None = None, page: str = "") -> list[Block]:
    """The standings table; with ``students``, students' names link to ``<students>/<name>/<page>``."""
    if not result.standings:
        return []
    unit = _rating_unit(result)
    header = [
        "rank",
        "name",
        "points",
        "rating",
        "95 % interval",
        "games",
        "W",
        "L",
        "D",
        "mean score",
        "forfeits",
    ]
    rows: list[list[Line]] = []
    for row in result.standings:
        name: Line = [
            _student_link(row.name, students, page) if students is not None and row.student else row.name
        ]
        if not row.student:
            name.append(" (fixed opponent)")
        rows.append(
            [
                [str(row.rank)],
                name,
                [_num(row.points)],
                [_rating_value(row.rating, unit)],
                [_rating_interval(row.rating_interval, unit)],
                [str(row.games)],
                [str(row.wins)],
                [str(row.losses)],
                [str(row.draws)],
                [_num(row.mean_score)],
                [str(row.forfeits)],
            ]
        )
    return [_Table(header, rows, frozenset({0, 2, 3, 5, 6, 7, 8, 9, 10}))]


def _points_blocks(student: StudentResult) -> list[Block]:
    shown = [item for item in student.points if item.visibility == "visible"]
    if not shown:
        return []
    rows: list[list[Line]] = [
        [[item.name], [_num(item.points)], [_num(item.max_points)], [_badge(_points_badge(item))], [item.why]]
        for item in shown
    ]
    blocks: list[Block] = [
        _Heading(2, "Points"),
        _Table(["item", "points", "of", "", "why"], rows, frozenset({1, 2})),
    ]
    if len(shown) < len(student.points):
        blocks.append(_Para([f"{_plural(len(student.points) - len(shown), 'more item')} not shown."]))
    return blocks


def _points_badge(item: PointItem) -> str:
    """An item's badge on a page: all its points, some of them, or none."""
    if item.points >= item.max_points - 1e-9:
        return "passed"
    return PARTIAL if item.points > 1e-9 else "failed"


def _status(item: PointItem, student: StudentResult) -> str:
    """An item's Gradescope ``status``.

    Gradescope shows it as a green or a red mark beside the test: red says "this is
    broken".  A bot that ranked second of four did what the competition item asks, and a
    red mark would say otherwise; its points already say how well.  So an item whose step
    ended "ok" (the student's bot did what the step asks) is "passed", whatever its points,
    and one whose step failed or did not run is "failed".  An item no step is known for,
    or whose step was skipped by configuration, passes with all its points."""
    name = _step_of(item)
    step = getattr(student, name) if name is not None else None
    if name is not None and step is None:
        return "failed"
    if step is None or step.outcome == SKIPPED:
        return "passed" if item.points >= item.max_points - 1e-9 else "failed"
    return "passed" if step.outcome == OK else "failed"


def _student_blocks(student: StudentResult, result: ClassResult) -> list[Block]:
    shown = _as_shown(student, result)
    shows = _shows(student, result)
    blocks: list[Block] = [
        _Heading(1, f"{result.game}: grading of {student.student}"),
        _Para(_headline(shown, result, shows), lead=True),
    ]
    blocks += _points_blocks(shown)
    for name in STEPS:
        blocks += _step_blocks(name, shown, result, shows)
    if result.feedback.standings and result.standings and shows.step("compete"):
        blocks += [_Heading(2, "Standings"), *_standings_blocks(result)]
    return blocks


def _footer(result: ClassResult) -> str:
    made = f", {result.created}" if result.created else ""
    return f"referee {result.referee_version}, game {result.game}, seed {result.seed}{made}"


def feedback_markdown(student: StudentResult, result: ClassResult) -> str:
    """The student's feedback page as Markdown (module docstring: what it shows)."""
    return _markdown([*_student_blocks(student, result), _Para([_footer(result)])])


def feedback_html(student: StudentResult, result: ClassResult) -> str:
    """The student's feedback page as one self-contained HTML file."""
    title = f"{result.game}: grading of {student.student}"
    return _html_page(title, _student_blocks(student, result), _footer(result))


# ---------------------------------------------------------------------------- Gradescope


def _test_output(item: PointItem, student: StudentResult, result: ClassResult, shows: _Shows) -> str:
    """A point item's why, then what its step has to say (module docstring).

    A ``visible`` item does not tell the results of a withheld step; a withheld item
    does (Gradescope shows it when its visibility says, and the total with it)."""
    feedback = result.feedback
    if item.visibility != "visible":
        shows = _Shows(feedback)
    blocks: list[Block] = [_Para([item.why])] if item.why else []
    name = _step_of(item)
    step = getattr(student, name) if name else None
    if name is not None and step is None:
        blocks.append(_Para([_badge("not run"), " ", _not_run(name, student, shows.withheld)]))
    elif step is not None and name is not None and shows.step(name):
        blocks.append(_Para([_badge(step.outcome), " ", step.summary]))
        if isinstance(step, UnpackStep):
            blocks += _skipped(step)
        elif isinstance(step, BuildStep) and feedback.build_log:
            blocks += _build_log(step, head=False)
        elif isinstance(step, CheckStep):
            blocks += _check_failures(step, feedback) + _reproduce(step.command)
        elif isinstance(step, QualifyStep):
            blocks += [_qualify_facts(step), *_hint(step.hint), *_reproduce(step.command)]
        elif isinstance(step, CompeteStep):
            blocks.append(_compete_facts(step, result))
    return _markdown(blocks) if blocks else ""


def _step_badge(name: str, student: StudentResult, shows: _Shows) -> str:
    """A step's word in results.json's summary list."""
    step = getattr(student, name)
    if step is None:
        return "not run"
    if name in shows.withheld:
        return "shown later"
    return step.outcome if _shown(name, shows.feedback) else "not shown"


def gradescope_results(student: StudentResult, result: ClassResult) -> dict:
    """The student's result in Gradescope's results.json format (:func:`validate_gradescope`).

    ``score`` is the total; one test per point item, its output the item's why and its
    step's detail, its status :func:`_status`'s; a leaderboard of rank (ascending), rating
    and total.  While an item is withheld (module docstring), the top-level output and the
    leaderboard show neither the total nor its step's results."""
    feedback = result.feedback
    shown = _as_shown(student, result)
    shows = _shows(student, result)
    ran = [getattr(shown, name) for name in STEPS if getattr(shown, name) is not None]
    summary: list[Block] = [_Para(_headline(shown, result, shows))]
    summary.append(_Items([[f"{name}: ", _badge(_step_badge(name, shown, shows))] for name in STEPS]))
    if feedback.standings and result.standings and shows.step("compete"):
        summary += [_Para(["Standings:"]), *_standings_blocks(result)]
    tests = [
        {
            "name": item.name,
            "score": round(item.points, 2),
            "max_score": round(item.max_points, 2),
            "status": _status(item, shown),
            "output": _test_output(item, shown, result, shows),
            "output_format": "md",
            "visibility": item.visibility,
        }
        for item in shown.points
    ]
    # Gradescope shows the leaderboard to the class as soon as it has it: no withheld figure.
    leaderboard: list[dict] = []
    compete = shown.compete
    if compete is not None and shows.step("compete"):
        if compete.rank is not None:
            leaderboard.append({"name": "Rank", "value": compete.rank, "order": "asc"})
        if compete.rating is not None and math.isfinite(compete.rating):
            value = float(_rating_value(compete.rating, compete.rating_unit))
            leaderboard.append({"name": "Rating", "value": value})
    if shows.total:
        leaderboard.append({"name": "Total", "value": round(shown.total, 2)})
    doc = {
        "score": round(shown.total, 2),
        "execution_time": round(sum(step.seconds for step in ran)),
        "output": _markdown(summary),
        "output_format": "md",
        "visibility": feedback.visibility,
        "stdout_visibility": feedback.visibility,
        "tests": tests,
    }
    if leaderboard:
        doc["leaderboard"] = leaderboard
    return doc


_TOP_KEYS = {
    "score": "number",
    "execution_time": "number",
    "output": "string",
    "output_format": "format",
    "test_output_format": "format",
    "test_name_format": "format",
    "visibility": "visibility",
    "stdout_visibility": "visibility",
    "extra_data": "object",
    "tests": "tests",
    "leaderboard": "leaderboard",
}
_TEST_KEYS = {
    "score": "number",
    "max_score": "number",
    "status": "status",
    "name": "string",
    "name_format": "format",
    "number": "string",
    "output": "string",
    "output_format": "format",
    "tags": "tags",
    "visibility": "visibility",
    "extra_data": "object",
}


def _problem(where: str, kind: str, value: object) -> str | None:
    """What is wrong with ``value`` as a ``kind`` (a key of the tables above), or None."""
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{where}: not a number: {value!r}"
        return None if math.isfinite(value) else f"{where}: not finite: {value!r}"
    if kind == "string":
        return None if isinstance(value, str) else f"{where}: not a string: {value!r}"
    if kind == "object":
        return None if isinstance(value, dict) else f"{where}: not an object: {value!r}"
    if kind == "format":
        return (
            None if value in OUTPUT_FORMATS else f"{where}: not one of {', '.join(OUTPUT_FORMATS)}: {value!r}"
        )
    if kind == "visibility":
        return None if value in VISIBILITIES else f"{where}: not one of {', '.join(VISIBILITIES)}: {value!r}"
    if kind == "status":
        return None if value in ("passed", "failed") else f"{where}: not passed or failed: {value!r}"
    if kind == "tags":
        ok = isinstance(value, list) and all(isinstance(tag, str) for tag in value)
        return None if ok else f"{where}: not a list of strings: {value!r}"
    raise AssertionError(kind)


def validate_gradescope(doc: object) -> list[str]:
    """The ways ``doc`` breaks Gradescope's results.json format; empty when it is valid.

    The format is https://gradescope-autograders.readthedocs.io/en/latest/specs/ ("Output
    format", "Controlling Test Case Visibility", "Test case status", "Output String
    Formatting") and, for ``leaderboard``,
    https://gradescope-autograders.readthedocs.io/en/latest/leaderboards/.  Checked: only
    the documented keys, at the top and in each test, with their types; ``status``
    ``passed``/``failed``; visibilities and output formats from the documented lists;
    scores finite numbers; ``score`` at the top unless every test has one (the doc:
    "optional, but required if not on each test case"); leaderboard entries with a string
    ``name``, a ``value`` (a number or a string, as the doc's "Stars") and an optional
    ``order`` ``asc``/``desc``.  The document must also be JSON without NaN or infinity.
    """
    if not isinstance(doc, dict):
        return [f"not an object: {type(doc).__name__}"]
    problems: list[str] = []
    try:
        json.dumps(doc, allow_nan=False)
    except (TypeError, ValueError) as exc:
        problems.append(f"not JSON: {exc}")
    for key, value in doc.items():
        kind = _TOP_KEYS.get(key)
        if kind is None:
            problems.append(f"unknown key {key!r}")
        elif kind == "tests":
            problems += _test_problems(value)
        elif kind == "leaderboard":
            problems += _leaderboard_problems(value)
        elif (problem := _problem(key, kind, value)) is not None:
            problems.append(problem)
    if isinstance(doc.get("execution_time"), int | float) and doc["execution_time"] < 0:
        problems.append("execution_time: negative")
    if "score" not in doc:
        tests = doc.get("tests")
        if not isinstance(tests, list) or not tests:
            problems.append("no score: neither at the top nor in tests")
        elif not all(isinstance(t, dict) and "score" in t for t in tests):
            problems.append("no score at the top, and not every test has one")
    return problems


def _test_problems(tests: object) -> list[str]:
    if not isinstance(tests, list):
        return [f"tests: not a list: {tests!r}"]
    problems: list[str] = []
    for n, test in enumerate(tests):
        if not isinstance(test, dict):
            problems.append(f"tests[{n}]: not an object")
            continue
        for key, value in test.items():
            kind = _TEST_KEYS.get(key)
            if kind is None:
                problems.append(f"tests[{n}]: unknown key {key!r}")
            elif (problem := _problem(f"tests[{n}].{key}", kind, value)) is not None:
                problems.append(problem)
    return problems


def _leaderboard_problems(board: object) -> list[str]:
    if not isinstance(board, list):
        return [f"leaderboard: not a list: {board!r}"]
    problems: list[str] = []
    for n, entry in enumerate(board):
        where = f"leaderboard[{n}]"
        if not isinstance(entry, dict):
            problems.append(f"{where}: not an object")
            continue
        if extra := set(entry) - {"name", "value", "order"}:
            problems.append(f"{where}: unknown keys {sorted(extra)}")
        if not isinstance(entry.get("name"), str):
            problems.append(f"{where}: name missing or not a string")
        if "value" not in entry:
            problems.append(f"{where}: no value")
        elif not isinstance(entry["value"], str) and (problem := _problem(where, "number", entry["value"])):
            problems.append(problem)
        if "order" in entry and entry["order"] not in ("asc", "desc"):
            problems.append(f"{where}: order not asc or desc: {entry['order']!r}")
    return problems


# ---------------------------------------------------------------------------- gradebook


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def csv_safe(value: str) -> str:
    """``value`` safe in a spreadsheet: a ``'`` before a cell that would be read as a
    formula (it starts with ``= + - @``, a tab or a CR, after any spaces, and is not a
    number): student ids are file names, and ``=HYPERLINK(…)`` is a fine file name."""
    stripped = value.lstrip(" ")
    if stripped[:1] in _FORMULA_START and not _NUMBER.fullmatch(stripped):
        return "'" + value
    return value


def _scheme(result: ClassResult) -> list[str]:
    """The point items' names, in the scheme's order (as first met, student by student)."""
    names: dict[str, None] = {}
    for student in result.students:
        for item in student.points:
            names.setdefault(item.name, None)
    return list(names)


def gradebook_csv(result: ClassResult) -> str:
    """The gradebook as CSV text (:func:`write_gradebook`)."""
    scheme = _scheme(result)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            csv_safe(h)
            for h in [
                "student",
                "outcome",
                *STEPS,
                *(f"points: {name}" for name in scheme),
                "total",
                "max_total",
                "rank",
                "rating",
                "rating_low",
                "rating_high",
                "rating_unit",
                "content_hash",
            ]
        ]
    )
    for student in sorted(result.students, key=lambda s: s.student):
        points = {item.name: item.points for item in student.points}
        compete = student.compete
        interval = compete.rating_interval if compete and compete.rating_interval else [None, None]
        row = [
            student.student,
            student.outcome,
            *(step.outcome if (step := getattr(student, name)) is not None else "" for name in STEPS),
            *(_num(points.get(name)) for name in scheme),
            _num(student.total),
            _num(student.max_total),
            "" if compete is None or compete.rank is None else str(compete.rank),
            _rating_value(compete.rating, compete.rating_unit) if compete else "",
            _rating_value(interval[0], compete.rating_unit) if compete else "",
            _rating_value(interval[-1], compete.rating_unit) if compete else "",
            compete.rating_unit if compete else "",
            (student.unpack.content_hash or "") if student.unpack else "",
        ]
        writer.writerow([csv_safe(cell) for cell in row])
    return out.getvalue()


# ---------------------------------------------------------------------------- overview


def _histogram(totals: list[float], top: float) -> list[tuple[str, int]]:
    """Bins of a round width (1, 2, 2.5 or 5 times a power of ten) covering 0..``top``,
    the best possible total, in about ten; totals outside go to the end bins."""
    if not totals:
        return []
    if top <= 0:
        counts = Counter(_num(t) for t in totals)
        return sorted(counts.items(), key=lambda kv: float(kv[0]))
    rough = top / 10
    power = 10 ** math.floor(math.log10(rough))
    width = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= rough * (1 - 1e-9))
    bins = max(1, math.ceil(top / width - 1e-9))
    in_bin = [0] * bins
    for total in totals:
        in_bin[min(bins - 1, max(0, int(total / width + 1e-9)))] += 1  # 0.15 / 0.05 is 2.999…
    labels = [f"{_num(i * width)}–{_num((i + 1) * width)}" for i in range(bins)]
    return list(zip(labels, in_bin, strict=True))


def _identical(students: list[StudentResult]) -> list[tuple[str, list[str]]]:
    """Groups of two or more students whose submissions have the same content hash, as
    (hash, sorted ids), sorted by their first id."""
    by_hash: dict[str, list[str]] = {}
    for s in students:
        if s.unpack is not None and s.unpack.content_hash:
            by_hash.setdefault(s.unpack.content_hash, []).append(s.student)
    groups = [(digest, sorted(ids)) for digest, ids in by_hash.items() if len(ids) > 1]
    return sorted(groups, key=lambda group: group[1])


def _overview_blocks(result: ClassResult, page: str, folder: str) -> list[Block]:
    """The TA's page; each student's name links to ``<folder>/<id>/<page>``."""
    students = sorted(result.students, key=lambda s: s.student)
    facts: list[tuple[str, Line]] = [
        ("game", [result.game]),
        ("referee", [result.referee_version]),
        ("seed", [str(result.seed)]),
        ("sandbox", [result.sandbox + (f" ({result.sandbox_detail})" if result.sandbox_detail else "")]),
    ]
    if result.format:
        facts.append(("competition", [result.format]))
    if result.created:
        facts.append(("graded", [result.created]))
    facts += [("time", [f"{_num(result.seconds, 1)} s"]), ("students", [str(len(students))])]
    blocks: list[Block] = [_Heading(1, f"{result.game}: grading overview"), _Facts(facts)]

    outcomes = Counter(s.outcome for s in students)
    blocks += [
        _Heading(2, "Outcomes"),
        _Table(
            ["outcome", "students"],
            [[[_badge(o)], [str(n)]] for o, n in sorted(outcomes.items(), key=lambda kv: (-kv[1], kv[0]))],
            frozenset({1}),
        ),
    ]
    step_rows: list[list[Line]] = []
    for name in STEPS:
        counts = Counter(
            step.outcome if (step := getattr(s, name)) is not None else _not_run(name, s) for s in students
        )
        for outcome, n in sorted(counts.items(), key=lambda kv: (kv[0].startswith("not run"), -kv[1], kv[0])):
            step_rows.append(
                [[name], [_badge(outcome) if not outcome.startswith("not run") else outcome], [str(n)]]
            )
    blocks += [_Heading(2, "Steps"), _Table(["step", "outcome", "students"], step_rows, frozenset({2}))]

    totals = [s.total for s in students]
    if totals:
        top = max(s.max_total for s in students)
        blocks += [
            _Heading(2, "Totals"),
            _Para(
                [
                    f"mean {_num(statistics.fmean(totals))}, median {_num(statistics.median(totals))}, "
                    f"min {_num(min(totals))}, max {_num(max(totals))}, out of {_num(top)}"
                ]
            ),
            _Bars(_histogram(totals, top)),
        ]
    if result.standings:
        blocks += [_Heading(2, "Standings"), *_standings_blocks(result, folder, page)]
    rows: list[list[Line]] = []
    for s in students:
        rank = s.compete.rank if s.compete is not None else None
        rows.append(
            [
                [_student_link(s.student, folder, page)],
                [_badge(s.outcome)],
                [_num(s.total)],
                [_num(s.max_total)],
                ["" if rank is None else str(rank)],
            ]
        )
    blocks += [
        _Heading(2, "Students"),
        _Table(["student", "outcome", "total", "of", "rank"], rows, frozenset({2, 3, 4})),
    ]
    if groups := _identical(students):
        items: list[Line] = []
        for digest, ids in groups:
            line: Line = []
            for sid in ids:
                line += [", "] if line else []
                line.append(_student_link(sid, folder, page))
            items.append([*line, " (content hash ", _code(digest[:16]), "…)"])
        blocks += [
            _Heading(2, "Identical submissions"),
            _Para(["The same files, byte for byte: copied, or handed in more than once."]),
            _Items(items),
        ]
    if result.notes:
        blocks += [_Heading(2, "Notes"), _Items([[note] for note in result.notes])]
    return blocks


def overview_markdown(result: ClassResult, students: str = "students") -> str:
    """The TA's page as Markdown: the run, counts, totals, standings, every student (linked
    to ``<students>/<id>/feedback.md``, ``students`` relative to the page), identical
    submissions."""
    return _markdown([*_overview_blocks(result, "feedback.md", students), _Para([_footer(result)])])


def overview_html(result: ClassResult, students: str = "students") -> str:
    """The TA's page as one self-contained HTML file (students link to their pages in
    ``<students>/<id>/feedback.html``)."""
    blocks = _overview_blocks(result, "feedback.html", students)
    return _html_page(f"{result.game}: grading overview", blocks, _footer(result))


# ---------------------------------------------------------------------------- writing


def _write(path: Path, text: str) -> None:
    # No fsync: every report can be re-made from the steps' files, which are durable.
    write_atomically(str(path), text.encode("utf-8"), durable=False)


def _student_dir(folder: Path, student: str) -> Path:
    """``folder/<student>``, created; refused unless it is a folder right inside ``folder``.

    Ids are made safe by unpack, but this is where a bad one would write elsewhere, so
    it is checked here too: no separator, not ``.``/``..``, and the resolved path (a
    planted symlink followed) must sit directly in the resolved ``folder``."""
    root = folder.resolve()
    if student in ("", ".", "..") or "/" in student or "\\" in student or "\0" in student:
        raise ValueError(f"unsafe student id for a folder name: {student!r}")
    target = root / student
    target.mkdir(exist_ok=True)
    if target.resolve().parent != root or not target.is_dir():
        raise ValueError(f"student folder {target} resolves outside {root}")
    return target


def write_gradebook(result: ClassResult, path: Path | str) -> None:
    """Write ``gradebook.csv``: one row per student, sorted by id (module docstring on
    what is made safe).  Columns: student, outcome, the five steps' outcomes (empty: not
    run), ``points: NAME`` per point item, total, max_total, rank, rating, rating_low,
    rating_high, rating_unit, content_hash."""
    _write(Path(path), gradebook_csv(result))


def write_gradescope(result: ClassResult, folder: Path | str) -> None:
    """Write ``folder/<student>/results.json`` for every student."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    for student in result.students:
        doc = gradescope_results(student, result)
        _write(
            _student_dir(root, student.student) / "results.json", json.dumps(doc, indent=2, allow_nan=False)
        )


def write_feedback(result: ClassResult, folder: Path | str) -> None:
    """Write ``folder/<student>/feedback.md`` and ``feedback.html`` for every student."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    for student in result.students:
        where = _student_dir(root, student.student)
        _write(where / "feedback.md", feedback_markdown(student, result))
        _write(where / "feedback.html", feedback_html(student, result))


def write_overview(result: ClassResult, folder: Path | str, students: str = "students") -> None:
    """Write ``folder/overview.md`` and ``folder/overview.html``; their links lead to the
    students' pages in ``folder/<students>/<id>/``."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    _write(root / "overview.md", overview_markdown(result, students))
    _write(root / "overview.html", overview_html(result, students))


def write_all(result: ClassResult, folder: Path | str) -> None:
    """Write every report under ``folder`` as ``referee grade`` does (the table in the
    module docstring): the gradebook and the overview in it, each student's files in
    ``folder/students/<id>/``."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    write_gradebook(result, root / "gradebook.csv")
    write_gradescope(result, root / _STUDENTS)
    write_feedback(result, root / _STUDENTS)
    write_overview(result, root, _STUDENTS)
