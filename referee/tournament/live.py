"""What a running tournament shows while it runs (``referee tournament``).

The runner calls :class:`LiveDisplay` from the trio loop that also feeds the results
store, so every call only does bookkeeping — adds to counters, swaps a row — and
nothing is drawn there.  Drawing happens elsewhere:

* **On a terminal**: a rich :class:`~rich.live.Live` on stderr redraws the frame
  :data:`REFRESH_PER_S` times a second from its own thread (:meth:`LiveDisplay.render`):
  a progress bar over games with the rate and the time left, the matches done, running
  and planned, a table of the running matches, the standings top and the last
  forfeits.  The last frame stays on the screen when the tournament ends.
* **Elsewhere** (stderr piped into a file, under CI): :meth:`LiveDisplay.plain_lines`,
  run as a task beside the tournament, writes one line every ``plain_every_s`` seconds
  (:data:`referee.sinks.progress.PLAIN_EVERY_S`, 5 s) —
  ``tournament: 1234/5000 games (24.7%), 12/40 matches, 3 running, 45 games/s, ETA 1m23s``
  — and a line for each forfeit since the previous one.
* **Quiet**: nothing but notices.

Notices (:meth:`LiveDisplay.notice`) are printed at once in every mode, as
``referee: LINE``, above the live frame when there is one.

**The rate and the time left** come from a moving window of the last
:data:`RATE_WINDOW_S` seconds, not from the average since the start: a resumed
tournament starts with thousands of games the store already held, and the first matches
are slow while bots start (and a per-tournament bot runs its ``Init``); both would skew
an average for a long time.  Games the store held (:meth:`LiveDisplay.already_done`)
count towards the progress, never towards the rate.

**A terminal that goes away** (a closed pipe, a hung-up SSH session) must not end the
tournament: every write goes through :class:`_SafeStream`, which swallows the error and
stops writing — as :class:`referee.sinks.progress.MatchProgress` does.  This also keeps
rich's own broken-pipe handling (which raises ``SystemExit`` and redirects stdout) from
ever running.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import IO, Any, NamedTuple, cast

import trio
from rich import box
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from referee.core.verdict import printable
from referee.sinks.progress import PLAIN_EVERY_S

#: Redraws of the terminal frame per second.
REFRESH_PER_S = 4
#: The moving window the rate (and so the time left) is measured over, in seconds.
RATE_WINDOW_S = 30.0
#: A new point of the rate's window at most this often: the window holds ~30 points.
SAMPLE_EVERY_S = 1.0
#: No rate before this much time has been measured: the first instants are noise.
MIN_SPAN_S = 1.0
#: How many of the latest forfeits the frame shows (and a plain tick prints at most).
RECENT_FORFEITS = 5
#: How many of the latest match results the frame shows.
RECENT_RESULTS = 3
#: How many running matches the frame lists (the rest are counted): with
#: ``--concurrency 64`` a full list would push everything else off the screen.
RUNNING_ROWS = 8
#: Widest a bot name, match key or standings cell is drawn (then "…").
NAME_WIDTH = 24
KEY_WIDTH = 28
#: Characters of a name or a forfeit's detail kept at all: the frame crops further, and
#: a bot's 1 MB stack trace must not be copied on every forfeit.
KEEP_CHARS = 300
#: Longest plain forfeit line (then "…").
PLAIN_WIDTH = 160


def format_duration(seconds: float) -> str:
    """``45s``, ``1m23s``, ``2h05m``, ``3d04h``: two units at most, as a person reads
    a time left (the seconds of a three-hour wait are noise)."""
    s = max(round(seconds), 0)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def format_rate(rate: float | None) -> str:
    """Games per second: whole numbers from 10 up, one decimal below, ``?`` unknown."""
    if rate is None:
        return "?"
    return f"{rate:.0f}" if rate >= 10 else f"{rate:.1f}"


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clean(text: str) -> str:
    """One line, safe for a terminal: control characters (a bot's newlines, escape
    sequences) shown escaped; cut first so a huge detail costs nothing."""
    return printable(text[:KEEP_CHARS])


def _in_ci() -> bool:
    """CI services set ``CI``; their log viewers are no terminal even when a pseudo
    terminal makes stderr look like one."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


class _SafeStream:
    """A text stream whose writes never raise.

    A closed stream (``ValueError``) or a broken one (``OSError``: ``EIO`` from a
    hung-up terminal, ``EPIPE`` from a closed pipe) makes it *broken*: later writes are
    dropped at once.  ``BlockingIOError`` (a bot's shell left the terminal
    non-blocking) drops only that write: the terminal is still there.
    """

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                self.stream.write(text)
            except BlockingIOError:
                pass
            except (OSError, ValueError):
                self.broken = True
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self.stream.flush()
            except BlockingIOError:
                pass
            except (OSError, ValueError):
                self.broken = True

    def isatty(self) -> bool:
        try:
            return not self.broken and self.stream.isatty()
        except (OSError, ValueError):
            return False

    def __getattr__(self, name: str) -> Any:
        # encoding, fileno…: what rich asks a file for besides writing to it.
        return getattr(self.stream, name)

    def as_file(self) -> IO[str]:
        """This stream where a text file is wanted (rich's console): it is one by duck
        typing, its other attributes the wrapped stream's."""
        return cast(IO[str], self)


class _Running:
    """A running match, as the frame lists it (``done`` is bumped per batch)."""

    __slots__ = ("bots", "done", "games", "key")

    def __init__(self, key: str, bots: str, games: int) -> None:
        self.key = key
        self.bots = bots
        self.games = games
        self.done = 0


class _Forfeit(NamedTuple):
    at: float  # wall-clock time, shown as HH:MM:SS to match the logs
    key: str
    bot: str
    verdict: str
    detail: str


@dataclass(frozen=True, slots=True)
class Status:
    """The figures of one moment, as the frame and the plain line show them."""

    games_done: int  # including the games the store already held
    games_total: int
    matches_done: int
    matches_running: int
    matches_total: int
    rate: float | None  # games per second over the recent window; None: not known yet
    eta_s: float | None  # seconds left at that rate; None: unknown (no rate, or stalled)
    elapsed_s: float
    forfeits: int

    @property
    def percent(self) -> float:
        if self.games_total <= 0:
            return 0.0
        return min(100.0 * self.games_done / self.games_total, 100.0)

    @property
    def eta(self) -> str:
        return "?" if self.eta_s is None else format_duration(self.eta_s)


class LiveDisplay:
    """The live view of a tournament; use as a context manager around the run.

    ``console`` defaults to one on stderr; the live frame is used only when that is a
    terminal (and not under CI).  A console given is trusted as it is (tests pass one
    with ``force_terminal``); its file is wrapped so that writing never raises.
    ``clock`` (monotonic seconds) is injectable for the rate's tests.
    """

    def __init__(
        self,
        title: str,
        *,
        quiet: bool = False,
        console: Console | None = None,
        top: int = 5,
        clock: Callable[[], float] = time.monotonic,
        plain_every_s: float = PLAIN_EVERY_S,
    ) -> None:
        self.title = _clean(title)
        self.quiet = quiet
        self.top = top
        self._clock = clock
        self._plain_every_s = plain_every_s
        if console is None:
            raw = getattr(sys.stderr, "rich_proxied_file", sys.stderr)  # under another Live
            self._stream = _SafeStream(raw)
            console = Console(file=self._stream.as_file(), highlight=False)
            terminal = self._stream.isatty() and not _in_ci()
        else:
            raw = console.file
            self._stream = _SafeStream(raw)
            console.file = self._stream.as_file()
            terminal = True
        self.console = console
        #: Whether the rich frame is drawn (else plain lines, or nothing when quiet).
        self.live_mode = not quiet and terminal and console.is_terminal and not console.is_dumb_terminal
        # Stray writes to stderr (warnings, a traceback) go above the frame rather than
        # through it — only when the frame is on stderr: never move them elsewhere.
        self._redirect_stderr = raw is sys.stderr or raw is sys.__stderr__
        self._live: Live | None = None

        self._matches_total = 0
        self._games_total = 0
        self._matches_done = 0
        self._resumed_games = 0
        self._played = 0  # games played by this run: the rate's measure
        self._running: dict[str, _Running] = {}
        self._forfeits: deque[_Forfeit] = deque(maxlen=RECENT_FORFEITS)
        self._forfeit_count = 0
        self._forfeits_printed = 0  # plain mode: how many the lines have told so far
        self._results: deque[str] = deque(maxlen=RECENT_RESULTS)
        self._header: tuple[str, ...] = ()
        self._rows: tuple[tuple[str, ...], ...] = ()
        # The frame is drawn by rich's refresh thread while the trio thread changes the
        # running matches, the forfeits and the rate's points: structural changes and the
        # frame's snapshot of them hold this lock.  games_done only adds to integers and
        # takes no lock.
        self._lock = threading.Lock()
        self._started = clock()
        self._samples: deque[tuple[float, int]] = deque([(self._started, 0)])

    # ---- lifetime -------------------------------------------------------------------

    def __enter__(self) -> LiveDisplay:
        now = self._clock()
        with self._lock:
            self._started = now
            self._samples = deque([(now, self._played)])
        if self.live_mode and not self._stream.broken:
            self._live = Live(
                console=self.console,
                get_renderable=self.render,
                refresh_per_second=REFRESH_PER_S,
                transient=False,
                redirect_stdout=False,  # stdout may be a file of results: never the frame's
                redirect_stderr=self._redirect_stderr,
            )
            try:
                self._live.start(refresh=True)
            except (OSError, ValueError):  # belt and braces: the stream already swallows these
                self._stop_live()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._live is not None:
            self._stop_live()  # draws the last frame, which stays
        elif not self.quiet:
            self._emit_plain()  # the final figures, as the frame would leave them

    def _stop_live(self) -> None:
        live, self._live = self._live, None
        if live is not None:
            with contextlib.suppress(OSError, ValueError):
                live.stop()

    # ---- what the runner tells ------------------------------------------------------

    def plan(self, matches_total: int, games_total: int) -> None:
        """The totals known so far; called again as later rounds are scheduled."""
        self._matches_total = matches_total
        self._games_total = games_total

    def already_done(self, matches: int, games: int) -> None:
        """Matches and games the store already held (resume); adds, so it may be called
        per stage or per match found in the store.  Counted as done, not in the rate."""
        self._matches_done += matches
        self._resumed_games += games

    def match_started(self, key: str, bots: Sequence[str], games: int) -> None:
        """A match (or, for a per-tournament bot, the next slice of one) began."""
        # Each name cut on its own, so a long one cannot hide its opponents.
        short = [_shorten(printable(bot), NAME_WIDTH) for bot in bots]
        names = " vs ".join(short) if len(short) == 2 else ", ".join(short)
        with self._lock:
            running = self._running.get(key)
            if running is None:
                self._running[key] = _Running(_clean(key), _clean(names), games)
            else:  # a next slice of the same match: its games so far are kept
                running.games = games

    def games_done(self, key: str, count: int) -> None:
        """``count`` more games of match ``key`` finished.  Called per stored batch,
        possibly thousands of times a second: two additions, no clock, no lock."""
        self._played += count
        running = self._running.get(key)
        if running is not None:
            running.done += count

    def match_finished(self, key: str, result: str) -> None:
        """Match ``key`` ended; ``result`` is its one-line outcome."""
        with self._lock:
            self._running.pop(key, None)
            self._results.append(_clean(result))
        self._matches_done += 1

    def forfeit(self, key: str, bot: str, verdict: str, detail: str) -> None:
        """A bot's penalised decision (or its failed start) in match ``key``."""
        entry = _Forfeit(time.time(), _clean(key), _clean(bot), _clean(verdict), _clean(detail))
        with self._lock:
            self._forfeits.append(entry)
            self._forfeit_count += 1

    def standings(self, rows: Sequence[tuple[str, ...]], header: Sequence[str]) -> None:
        """The current standings, already formatted; the frame shows the first ``top``."""
        top = tuple(tuple(_clean(cell) for cell in row) for row in rows[: self.top])
        head = tuple(_clean(cell) for cell in header)
        with self._lock:
            self._rows, self._header = top, head

    def notice(self, line: str) -> None:
        """A line the user must see now, in every mode (also quiet): above the frame
        when there is one, else on stderr."""
        text = f"referee: {printable(line)}"
        if self._live is not None:
            self.console.print(Text(text), soft_wrap=True, highlight=False)
        else:
            self._write([text])

    # ---- figures --------------------------------------------------------------------

    def status(self) -> Status:
        """The figures now.  Each call may add a point to the rate's window (at most one
        per :data:`SAMPLE_EVERY_S`): the frame and the plain lines call it regularly."""
        now = self._clock()
        played = self._played
        with self._lock:
            samples = self._samples
            if now - samples[-1][0] >= SAMPLE_EVERY_S:
                samples.append((now, played))
            start = now - RATE_WINDOW_S
            # Keep one point at or before the window's start, and read the count at the
            # start itself between it and the next: after a stall, a 30 s-old point is
            # not the window's start.
            while len(samples) > 1 and samples[1][0] <= start:
                samples.popleft()
            since, first_count = samples[0]
            played_then: float = first_count
            if since < start and len(samples) > 1:
                (t1, p1) = samples[1]
                played_then += (p1 - played_then) * (start - since) / (t1 - since)
                since = start
            forfeits = self._forfeit_count
        span = now - since
        rate = (played - played_then) / span if span >= MIN_SPAN_S else None
        done = self._resumed_games + played
        remaining = max(self._games_total - done, 0)
        if remaining == 0:
            eta: float | None = 0.0
        elif rate:  # neither unknown nor stalled
            eta = remaining / rate
        else:
            eta = None
        return Status(
            games_done=done,
            games_total=self._games_total,
            matches_done=self._matches_done,
            matches_running=len(self._running),
            matches_total=self._matches_total,
            rate=rate,
            eta_s=eta,
            elapsed_s=now - self._started,
            forfeits=forfeits,
        )

    def plain_line(self, status: Status | None = None) -> str:
        """The one-line form of the figures, for logs."""
        s = status or self.status()
        return (
            f"{self.title}: {s.games_done}/{s.games_total} games ({s.percent:.1f}%), "
            f"{s.matches_done}/{s.matches_total} matches, {s.matches_running} running, "
            f"{format_rate(s.rate)} games/s, ETA {s.eta}"
        )

    # ---- plain mode -----------------------------------------------------------------

    async def plain_lines(self) -> None:
        """Run beside the tournament: without a terminal, the plain line every
        ``plain_every_s`` seconds until cancelled.  Returns at once when the frame is
        drawn instead, or when quiet."""
        if self.live_mode or self.quiet:
            return
        while not self._stream.broken:
            await trio.sleep(self._plain_every_s)
            self._emit_plain()

    def _emit_plain(self) -> None:
        lines = [self.plain_line()]
        with self._lock:
            new = self._forfeit_count - self._forfeits_printed
            recent = list(self._forfeits)[-new:] if new else []
            self._forfeits_printed = self._forfeit_count
        if new > len(recent):  # a flood (a bot failing every deal): the last ones tell enough
            lines.append(f"{self.title}: {new - len(recent)} more forfeits since the last line")
        # A bot failing alike game after game: one line with a count, not five copies.
        seen: dict[str, int] = {}
        for f in recent:
            line = self._forfeit_line(f)
            seen[line] = seen.get(line, 0) + 1
        lines.extend(line if n == 1 else f"{line} (×{n})" for line, n in seen.items())
        self._write(lines)

    def _forfeit_line(self, f: _Forfeit) -> str:
        return _shorten(f"{self.title}: forfeit in {f.key}: {f.bot} {f.verdict}: {f.detail}", PLAIN_WIDTH)

    def _write(self, lines: list[str]) -> None:
        # One write per batch of lines, so they stay together in a shared log.
        self._stream.write("".join(line + "\n" for line in lines))
        self._stream.flush()

    # ---- the frame ------------------------------------------------------------------

    def render(self) -> RenderableType:
        """The live frame (rich calls this from its refresh thread).  Every cell is one
        line: long names and details end in "…", never wrap into tall rows."""
        if self._stream.broken:  # nobody is watching: stop spending the GIL on frames
            return Text("")
        s = self.status()
        with self._lock:
            running = list(self._running.values())[:RUNNING_ROWS]
            counts = [(r.key, r.bots, r.done, r.games) for r in running]
            results = list(self._results)
            forfeits = list(self._forfeits)
            header, rows = self._header, self._rows
        parts: list[RenderableType] = [self._progress(s)]
        if counts:
            parts.append(self._running_table(counts, s.matches_running))
        if results:
            parts.append(_one_line("last finished: " + " · ".join(reversed(results)), style="dim"))
        if header and rows:
            parts.append(self._standings_table(header, rows))
        if forfeits:
            parts.append(self._forfeits_table(forfeits, s.forfeits))
        return Group(*parts)

    def _progress(self, s: Status) -> RenderableType:
        title = _shorten(self.title, KEY_WIDTH)
        figures = (
            f"{s.percent:5.1f}%  {s.games_done}/{s.games_total} games  {format_rate(s.rate)} games/s"
            f"  ETA {s.eta}  elapsed {format_duration(s.elapsed_s)}"
        )
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True, style="bold")
        cells: list[RenderableType] = [Text(title)]
        # The bar gets what the words leave (at most 40 columns), and goes on a narrow
        # terminal: rich would otherwise squeeze the figures to make room for it.
        room = min(self.console.width - len(title) - len(figures) - 2, 40)
        if room >= 10:
            grid.add_column(width=room)
            cells.append(ProgressBar(total=max(s.games_total, 1), completed=min(s.games_done, s.games_total)))
        grid.add_column(no_wrap=True, overflow="ellipsis")
        cells.append(Text(figures))
        grid.add_row(*cells)
        line = _one_line(
            f"matches {s.matches_done}/{s.matches_total} done, {s.matches_running} running"
            f" · forfeits {s.forfeits}"
        )
        return Group(grid, line)

    @staticmethod
    def _table(*, expand: bool = False) -> Table:
        return Table(expand=expand, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)

    @staticmethod
    def _titled(title: str, table: Table) -> Group:
        # A line of its own rather than the table's title, which wraps to the table's
        # width ("standings (top" / "1)") when the table is narrow.
        return Group(_one_line(title, style="bold"), table)

    def _running_table(self, counts: list[tuple[str, str, int, int]], running: int) -> Group:
        more = running - len(counts)
        table = self._table()
        table.add_column("match", no_wrap=True, overflow="ellipsis", max_width=KEY_WIDTH)
        # Wrappable as a column, so a narrow terminal shrinks it first; its cells crop.
        table.add_column("bots", max_width=3 * NAME_WIDTH)
        table.add_column("games", no_wrap=True, justify="right")
        for key, bots, done, games in counts:
            table.add_row(Text(key), _one_line(bots), Text(f"{done}/{games}"))
        return self._titled(f"running ({running})" + (f", {more} not listed" if more > 0 else ""), table)

    def _standings_table(self, header: tuple[str, ...], rows: tuple[tuple[str, ...], ...]) -> Group:
        table = self._table()
        for i, name in enumerate(header):
            # Figures line up on the right; names (the first non-figure column) on the left.
            figures = all(_looks_numeric(row[i]) for row in rows if i < len(row))
            table.add_column(
                name,
                no_wrap=True,
                overflow="ellipsis",
                max_width=NAME_WIDTH,
                justify="right" if figures else "left",
            )
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))  # Text: a name is never markup
        return self._titled(f"standings (top {len(rows)})", table)

    def _forfeits_table(self, forfeits: list[_Forfeit], count: int) -> Group:
        table = self._table(expand=True)
        table.add_column("time", no_wrap=True)
        table.add_column("match", no_wrap=True, overflow="ellipsis", max_width=KEY_WIDTH)
        table.add_column("bot", no_wrap=True, overflow="ellipsis", max_width=NAME_WIDTH)
        table.add_column("verdict", no_wrap=True, overflow="ellipsis", max_width=16)
        # The detail takes what the others leave (ratio, in an expanded table) rather
        # than squeezing them out.
        table.add_column("detail", ratio=1)
        for f in reversed(forfeits):  # the latest first
            at = time.strftime("%H:%M:%S", time.localtime(f.at))
            table.add_row(Text(at), Text(f.key), Text(f.bot), Text(f.verdict), _one_line(f.detail))
        return self._titled(f"last forfeits ({count} in all)", table)


def _one_line(text: str, style: str = "") -> Text:
    """Text that is cropped with "…" to its width, never wrapped onto a second line."""
    return Text(text, style=style, no_wrap=True, overflow="ellipsis")


def _looks_numeric(cell: str) -> bool:
    return cell.replace(".", "", 1).replace("-", "", 1).replace("+", "", 1).replace("%", "").isdigit()
