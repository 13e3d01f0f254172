"""The tournament's live display (referee/tournament/live.py): the frame, the rate's
moving window, the plain lines, quiet mode, and a terminal that goes away."""

from __future__ import annotations

import io
import os
import re
import sys
import time

import pytest
import trio
from rich.console import Console

from referee.tournament import live as live_module
from referee.tournament.live import LiveDisplay, format_duration

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


@pytest.fixture(autouse=True)
def ordinary_terminal(monkeypatch):
    """The environment of an interactive shell, whatever the CI runner's: rich reads
    these (TERM=dumb makes the display fall back to plain lines, FORCE_COLOR makes any
    file a terminal)."""
    monkeypatch.setenv("TERM", "xterm-256color")
    for name in ("CI", "FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)


def plain(text: str) -> str:
    """What a person sees: the text without colours and cursor moves."""
    return ANSI.sub("", text)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def terminal(buffer: io.StringIO, width: int = 120) -> Console:
    return Console(file=buffer, force_terminal=True, width=width)


def scenario(display: LiveDisplay, clock: FakeClock | None = None) -> None:
    """A small tournament: 40 matches of 125 games, 2 already in the store, 3 running."""
    display.plan(40, 5000)
    display.already_done(2, 250)
    display.match_started("rr-1-alice-bob", ["alice", "bob"], 125)
    display.match_started("rr-1-carol-dave", ["carol", "dave"], 125)
    display.match_started("rr-1-eve-frank", ["eve", "frank"], 125)
    if clock is not None:
        clock.now += 10
    display.games_done("rr-1-alice-bob", 100)
    display.games_done("rr-1-carol-dave", 40)
    display.games_done("rr-1-eve-frank", 125)
    display.match_finished("rr-1-eve-frank", "eve 70–55 frank")
    display.standings(
        [("1", "alice", "12", "0.61"), ("2", "carol", "10", "0.55"), ("3", "bob", "9", "0.48")],
        ["#", "bot", "wins", "mean"],
    )
    display.forfeit("rr-1-carol-dave", "dave", "timeout", "no reply within 1.00 s")
    display.forfeit("rr-1-carol-dave", "dave", "crash", "exit status 1\nTraceback (most recent call last)")


# ---- the frame ----------------------------------------------------------------------


def test_frame_shows_progress_running_matches_standings_and_forfeits():
    buffer = io.StringIO()
    clock = FakeClock()
    with LiveDisplay("yahtzee round-robin", console=terminal(buffer), clock=clock) as display:
        assert display.live_mode
        scenario(display, clock)
    # transient=False: the last frame stays once the display stops.
    shown = plain(buffer.getvalue())
    last_frame = shown[shown.rindex("yahtzee round-robin ") :]
    assert "515/5000 games" in last_frame  # 250 from the store + 265 played
    assert "10.3%" in last_frame
    assert "26 games/s" in last_frame  # 265 games in 10 s
    assert "ETA 2m49s" in last_frame  # 4485 left at 26.5/s
    assert "matches 3/40 done, 2 running · forfeits 2" in last_frame
    assert re.search(r"rr-1-alice-bob +alice vs bob +100/125", last_frame)
    assert re.search(r"rr-1-carol-dave +carol vs dave +40/125", last_frame)
    assert "rr-1-eve-frank " not in last_frame.split("last finished")[0]  # finished: not running
    assert "last finished: eve 70–55 frank" in last_frame
    assert re.search(r"1 +alice +12 +0\.61", last_frame)
    assert re.search(r"3 +bob +9 +0\.48", last_frame)
    assert "last forfeits (2 in all)" in last_frame
    # The latest forfeit first, its detail on one line (the newline shown escaped).
    forfeits = last_frame.split("last forfeits")[1].splitlines()
    rows = [line for line in forfeits if "rr-1-carol-dave" in line]
    assert "crash" in rows[0] and r"exit status 1\nTraceback" in rows[0]
    assert "timeout" in rows[1]


def test_standings_show_only_the_top():
    buffer = io.StringIO()
    display = LiveDisplay("t", console=terminal(buffer), top=2)
    display.standings([(str(i), f"bot{i}") for i in range(1, 10)], ["#", "bot"])
    render = Console(file=io.StringIO(), width=120)
    render.print(display.render())
    text = render.file.getvalue()
    assert "bot2" in text and "bot3" not in text and "standings (top 2)" in text


def test_long_names_and_details_are_cut_never_wrapped():
    display = LiveDisplay(
        "a tournament with a very long title indeed, longer than a key", console=terminal(io.StringIO())
    )
    long = "x" * 200
    display.plan(10, 1000)
    display.match_started("rr-" + long, [long, "b" + long], 100)
    display.standings([("1", long, "3")], ["#", "bot", "wins"])
    display.forfeit("rr-" + long, long, "timeout", "line one\nline two " + "y" * 5000)
    display.match_finished("other", "r" * 500)
    for width in (120, 80):
        out = Console(file=io.StringIO(), width=width)
        out.print(display.render())
        lines = out.file.getvalue().splitlines()
        # progress (1) + matches (1) + running (title, header, rule, row) + last finished
        # (1) + standings (title, header, rule, row) + forfeits (title, header, rule, row)
        assert len(lines) == 15, "\n".join(lines)
        assert all(len(line) <= width for line in lines)
        assert sum("…" in line for line in lines) >= 5


def test_names_are_never_markup():
    display = LiveDisplay("t", console=terminal(io.StringIO()))
    display.match_started("k", ["[bold]a[/]", "[/]"], 10)
    display.standings([("1", "[red]x")], ["#", "bot"])
    display.forfeit("k", "[/]", "crash", "\x1b[2J cleared your screen")
    out = Console(file=io.StringIO(), width=120)
    out.print(display.render())
    text = out.file.getvalue()
    assert "[bold]a[/] vs [/]" in text and "[red]x" in text
    assert "\x1b" not in text and r"\x1b[2J" in text


def test_a_next_slice_of_a_running_match_keeps_its_count():
    display = LiveDisplay("t", console=terminal(io.StringIO()))
    display.match_started("rr-a-b", ["a", "b"], 100)
    display.games_done("rr-a-b", 100)
    display.match_started("rr-a-b", ["a", "b"], 200)
    out = Console(file=io.StringIO(), width=120)
    out.print(display.render())
    assert "100/200" in out.file.getvalue()


# ---- the rate and the time left -----------------------------------------------------


def test_rate_and_eta_come_from_the_recent_window():
    clock = FakeClock()
    display = LiveDisplay("t", console=terminal(io.StringIO()), clock=clock)
    display.plan(10, 10_000)
    display.already_done(3, 3000)  # the store's games: progress, never rate
    status = display.status()
    assert status.games_done == 3000 and status.rate is None and status.eta == "?"

    clock.now += 0.5
    display.games_done("m", 50)
    assert display.status().rate is None  # under MIN_SPAN_S: no rate yet

    # A slow warm-up: 100 games in the first 10 s.
    clock.now += 9.5
    display.games_done("m", 50)
    status = display.status()
    assert status.rate == pytest.approx(10.0)
    assert status.eta_s == pytest.approx(6900 / 10)
    assert status.percent == pytest.approx(31.0)

    # Then 600 games in 30 s: the window (30 s) has forgotten the warm-up, which an
    # average since the start (700 / 40 s = 17.5/s) would not have.
    for _ in range(30):
        clock.now += 1
        display.games_done("m", 20)
        display.status()
    status = display.status()
    assert status.rate == pytest.approx(20.0)
    assert status.eta_s == pytest.approx((10_000 - 3700) / 20)
    assert status.eta == "5m15s"
    assert display.plain_line(status) == (
        "t: 3700/10000 games (37.0%), 3/10 matches, 0 running, 20 games/s, ETA 5m15s"
    )

    # A stall: once the window holds no game, the time left is unknown, not huge.
    clock.now += 31
    status = display.status()
    assert status.rate == 0 and status.eta_s is None and status.eta == "?"

    # The plan grows (a format's next round): the time left follows.  300 games in the
    # last 10 s after the stall: 300 in the 30 s window, 10/s.
    display.plan(20, 20_000)
    display.games_done("m", 300)
    clock.now += 10
    status = display.status()
    assert status.rate == pytest.approx(10.0)
    assert status.eta_s == pytest.approx((20_000 - 4000) / 10)


def test_eta_is_zero_once_everything_is_done():
    clock = FakeClock()
    display = LiveDisplay("t", console=terminal(io.StringIO()), clock=clock)
    display.plan(1, 100)
    clock.now += 5
    display.games_done("m", 100)
    status = display.status()
    assert status.eta == "0s" and status.percent == 100.0


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0s"),
        (44.6, "45s"),
        (83, "1m23s"),
        (3599, "59m59s"),
        (7500, "2h05m"),
        (3 * 86400 + 4 * 3600, "3d04h"),
    ],
)
def test_format_duration(seconds, text):
    assert format_duration(seconds) == text


def test_games_done_is_cheap():
    """Called per stored batch from the loop that feeds the store: bookkeeping only."""
    display = LiveDisplay("t", console=terminal(io.StringIO()))
    display.match_started("m", ["a", "b"], 10**9)
    start = time.perf_counter()
    for _ in range(200_000):
        display.games_done("m", 1)
    # ~0.1 µs a call on a laptop; the bound only catches a clock read or a render
    # creeping in (a rich update is ~1 µs, a render ~1 ms).
    assert time.perf_counter() - start < 1.0
    assert display.status().games_done == 200_000


# ---- plain lines, quiet -------------------------------------------------------------


async def test_plain_lines_without_a_terminal(autojump_clock):
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=False, width=120)
    display = LiveDisplay("tournament", console=console, clock=trio.current_time, plain_every_s=5)
    assert not display.live_mode
    with display:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(display.plain_lines)
            display.plan(40, 5000)
            display.match_started("rr-a-b", ["a", "b"], 125)
            await trio.sleep(1)
            display.games_done("rr-a-b", 45)
            await trio.sleep(4.5)  # the first line, at 5 s
            display.forfeit("rr-a-b", "b", "timeout", "no reply within 1.00 s\nthen garbage")
            display.notice("bot c gave up after 3 failed starts")  # at once
            for _ in range(12):  # a flood: the last five are told, the rest counted
                display.forfeit("rr-a-c", "c", "crash", "exit status 1")
            await trio.sleep(5)  # the second line, at 10 s
            nursery.cancel_scope.cancel()
        display.match_finished("rr-a-b", "a 70–55 b")
    lines = buffer.getvalue().splitlines()
    assert lines == [
        # At 5 s: 4955 games left at 45 games / 5 s.
        "tournament: 45/5000 games (0.9%), 0/40 matches, 1 running, 9.0 games/s, ETA 9m11s",
        "referee: bot c gave up after 3 failed starts",
        "tournament: 45/5000 games (0.9%), 0/40 matches, 1 running, 4.5 games/s, ETA 18m21s",
        "tournament: 8 more forfeits since the last line",
        # The last five say the same: one line with their count.
        "tournament: forfeit in rr-a-c: c crash: exit status 1 (×5)",
        # The final line, as the tournament ends (the display's exit, at 10.5 s).
        "tournament: 45/5000 games (0.9%), 1/40 matches, 0 running, 4.3 games/s, ETA 19m16s",
    ]
    assert "\x1b" not in buffer.getvalue()


async def test_plain_lines_shorten_a_long_forfeit(autojump_clock):
    buffer = io.StringIO()
    display = LiveDisplay("t", console=Console(file=buffer, force_terminal=False), plain_every_s=5)
    display.forfeit("k", "b", "crash", "z" * 1000)
    with trio.move_on_after(6):
        await display.plain_lines()
    forfeit_line = buffer.getvalue().splitlines()[1]
    assert forfeit_line.startswith("t: forfeit in k: b crash: zzz")
    assert len(forfeit_line) == live_module.PLAIN_WIDTH and forfeit_line.endswith("…")


async def test_quiet_shows_notices_only():
    buffer = io.StringIO()
    with LiveDisplay("t", quiet=True, console=terminal(buffer)) as display:
        assert not display.live_mode
        scenario(display)
        display.notice("resumed from out/results.sqlite")
        with trio.fail_after(1):
            await display.plain_lines()  # returns at once
    assert buffer.getvalue() == "referee: resumed from out/results.sqlite\n"


async def test_plain_lines_return_at_once_on_a_terminal():
    with LiveDisplay("t", console=terminal(io.StringIO())) as display, trio.fail_after(1):
        await display.plain_lines()


def test_the_default_console_is_stderr_and_live_only_on_a_terminal(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    display = LiveDisplay("t")
    assert not display.live_mode
    with display:
        display.notice("to stderr")
    assert "referee: to stderr\n" in stderr.getvalue()

    monkeypatch.setattr(sys, "stderr", Tty())
    monkeypatch.delenv("CI", raising=False)
    assert LiveDisplay("t").live_mode
    assert not LiveDisplay("t", quiet=True).live_mode
    monkeypatch.setenv("CI", "true")  # a CI log viewer is no terminal, whatever isatty says
    assert not LiveDisplay("t").live_mode


# ---- a terminal that goes away ------------------------------------------------------


def everything(display: LiveDisplay) -> None:
    scenario(display)
    display.notice("a notice nobody will read")
    display.console.print(display.render())  # what the refresh thread does


def test_a_closed_stderr_never_raises():
    buffer = io.StringIO()
    with LiveDisplay("t", console=terminal(buffer)) as display:
        buffer.close()
        everything(display)
        display._live.refresh()
    for force in (True, False):
        buffer = io.StringIO()
        display = LiveDisplay("t", console=Console(file=buffer, force_terminal=force))
        buffer.close()
        with display:
            everything(display)


async def test_plain_lines_end_when_stderr_is_gone(autojump_clock):
    buffer = io.StringIO()
    display = LiveDisplay("t", console=Console(file=buffer, force_terminal=False), plain_every_s=5)
    buffer.close()
    with trio.fail_after(60):
        await display.plain_lines()  # one write fails, then the task ends


def test_a_broken_pipe_never_raises_nor_exits():
    """EPIPE (the reader of a pipe went away; Python ignores SIGPIPE) is an OSError that
    rich would answer with SystemExit: the display swallows it first."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    stream = open(write_end, "w", buffering=1)  # noqa: SIM115 (closed below, failing)
    for force in (True, False):
        with LiveDisplay("t", console=Console(file=stream, force_terminal=force)) as display:
            everything(display)
            if display._live is not None:
                display._live.refresh()
    with pytest.raises(BrokenPipeError):  # what the display kept from us
        stream.close()
