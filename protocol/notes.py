"""Notes: how a bot tells the results something about its own play, in any game.

A bot writes a note as one line **on stderr** (never stdout, which is the game's)::

    referee-note: NAME TEXT…

``NAME`` is 1–40 of ``A-Z a-z 0-9 _ . -`` (a line with anything else there counts as
``(malformed)``, the first such line kept as its example) and says what kind of thing happened
(``correction.call-to-check``); ``TEXT`` is optional and says this one instance
(``game 3 hand 7: call with nothing to call -> check``).  The line must start at the
beginning of a stderr line.  The referee counts notes by name for each bot and match and
keeps the first ``TEXT`` of each name; they appear in the match's results (``notes`` and
``note_examples`` of the bot's figures), in a tournament's standings and in a student's
grading feedback.  The adapters of the seeds' APIs use them to report the corrections
they make to a student's decisions.

Stderr rather than a protocol line: it works in every game without changing its
grammar, it costs the per-decision path nothing (stderr is read on its own), and a bot
that never writes one is unaffected.  A note is the bot's own word about itself: it
changes no result and no verdict.

:class:`NoteReader` finds the notes in a stream read in chunks of any size (stdlib only,
like every wire module); a bot writing in Python may use :func:`note`.
"""

from __future__ import annotations

import re
import sys

PREFIX = b"referee-note: "
#: A note's name.
NAME = re.compile(rb"[A-Za-z0-9_.-]{1,40}")
#: The longest note line that is read whole (longer ones are cut there).
LINE_MAX = 512
#: How much of a note's text is kept as its name's example.
TEXT_MAX = 200
#: Distinct names counted per reader; notes of further names count under OTHER.
NAMES_MAX = 64
OTHER = "other"
#: Lines that begin with the prefix parsed one by one per reader, well-formed or not;
#: past it every such line is only counted, in C, under CAPPED (malformed ones too), so
#: a flood of notes costs the referee about what any other stderr output costs.
PARSED_MAX = 100_000
CAPPED = "uncounted-names"
#: Lines that begin with the prefix but whose NAME is not a name ("referee-note: bad!").
MALFORMED = "(malformed)"
_LINE_PREFIX = b"\n" + PREFIX


def is_name(name: str) -> bool:
    """Whether ``name`` (text) may name a note, as counted (``MALFORMED`` included)."""
    return name == MALFORMED or NAME.fullmatch(name.encode("ascii", "replace")) is not None


def clean_text(text: str) -> str:
    """A note's text as kept: at most TEXT_MAX characters, each printable (a bot's words
    reach terminals and web pages)."""
    return "".join(c if c.isprintable() else "?" for c in text[:TEXT_MAX])


def merge(
    counts: dict[str, int], examples: dict[str, str], more: dict[str, int], more_examples: dict[str, str]
) -> None:
    """Add notes (a life's, a match's) to totals: counts summed, first examples kept."""
    for name, count in more.items():
        counts[name] = counts.get(name, 0) + count
    for name, text in more_examples.items():
        examples.setdefault(name, text)


def by_count(counts: dict[str, int]) -> list[tuple[str, int]]:
    """Names with their counts, the most frequent first (then by name): how notes are shown."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def note(name: str, text: str = "", file=None) -> None:
    """Write a note (a Python bot's helper): ``note("retry", "game 3: ...")``."""
    stream = sys.stderr if file is None else file
    line = f"{PREFIX.decode()}{name} {text}".rstrip()
    print(line, file=stream, flush=True)


class NoteReader:
    """Counts the notes in a byte stream fed in chunks, split anywhere.

    ``counts`` (name → notes) and ``examples`` (name → the first note's text) are read
    directly; ``total`` is the number of notes so far.  Memory is bounded (``NAMES_MAX``
    names, one partial line of at most ``LINE_MAX`` bytes) and so is the work per note.
    """

    __slots__ = ("_at_start", "_carry", "_long", "_names", "counts", "examples", "lines", "total")

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.examples: dict[str, str] = {}
        self.total = 0
        #: Lines that began with the prefix, well-formed or not (what PARSED_MAX bounds).
        self.lines = 0
        self._carry = b""  # a line begun in an earlier chunk that may be a note
        self._long = False  # _carry is a note's first LINE_MAX bytes; skip to its line's end
        self._at_start = True  # the next byte begins a line
        #: Names as written (bytes, maybe with a trailing "\r") -> as counted.
        self._names: dict[bytes, str] = {}

    def feed(self, data: bytes) -> None:
        start = 0
        if self._long:
            newline = data.find(b"\n")
            if newline < 0:
                return
            self._line(self._carry[len(PREFIX) :])
            self._carry, self._long = b"", False
            start = newline + 1
        elif self._carry:
            data = self._carry + data
            self._carry = b""
        elif not self._at_start:  # in the middle of a line that is not a note: skip it
            start = data.find(b"\n") + 1
            if start == 0:
                return
        end = data.rfind(b"\n") + 1  # lines in data[start:end] are whole
        if end > start:
            self._scan(data, start, end)
        tail = data[max(start, end) :]
        self._at_start = not tail
        if tail.startswith(PREFIX):
            self._carry = tail[:LINE_MAX]
            self._long = len(tail) >= LINE_MAX
        elif tail and PREFIX.startswith(tail):
            self._carry = tail

    def finish(self) -> None:
        """The stream ended: a last note without its newline counts too."""
        if self._carry.startswith(PREFIX):
            self._line(self._carry[len(PREFIX) :])
        self._carry, self._long = b"", False
        self._at_start = True

    def _scan(self, data: bytes, start: int, end: int) -> None:
        """The notes among the whole lines ``data[start:end]`` (``start`` begins a line).
        Only line starts are looked at, each found by a search in C."""
        if data.startswith(PREFIX, start):
            at = start
        else:
            found = data.find(_LINE_PREFIX, start, end)
            at = -1 if found < 0 else found + 1
        while at >= 0:
            if self.lines >= PARSED_MAX:
                # Counted in C from here on: a flood costs what reading it costs.
                self._add(CAPPED, 1 + data.count(_LINE_PREFIX, at, end), "")
                return
            stop = data.find(b"\n", at, end)  # found: data[end - 1] is a newline
            self._line(data[at + len(PREFIX) : min(stop, at + LINE_MAX)])
            found = data.find(_LINE_PREFIX, stop, end)
            at = -1 if found < 0 else found + 1

    def _line(self, body: bytes) -> None:
        """One line that began with the prefix (``body`` is what followed it)."""
        if self.lines >= PARSED_MAX:
            self._add(CAPPED, 1, "")
            return
        self.lines += 1
        name, _, text = body.partition(b" ")
        key = self._names.get(name)
        if key is not None and key in self.examples:
            # The usual note: a name seen before, its example kept, no parsing.
            self.counts[key] += 1
            self.total += 1
            return
        name = name.rstrip(b"\r\n")
        if not NAME.fullmatch(name):
            # Counted apart, the first as its example: a mistyped name would else be lost
            # without a word.
            self._add(MALFORMED, 1, body.rstrip(b"\r\n").decode("utf-8", "replace"))
            return
        key = self._add(name.decode("ascii"), 1, text.rstrip(b"\r\n").strip().decode("utf-8", "replace"))
        if len(self._names) < NAMES_MAX:
            self._names[name] = key

    def _add(self, name: str, count: int, text: str) -> str:
        """Count ``count`` notes of ``name`` (or OTHER, past NAMES_MAX); the name counted."""
        counts = self.counts
        if name not in counts and len(counts) >= NAMES_MAX:
            name = OTHER
        counts[name] = counts.get(name, 0) + count
        if name not in self.examples and text and name != OTHER and name != CAPPED:
            self.examples[name] = clean_text(text)
        self.total += count
        return name
