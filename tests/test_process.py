"""The process layer against misbehaving bots.

Each case must end with the right verdict within a bounded wall time and leave no
process behind (checked by the bot's sweep token, which every descendant inherits).
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
import re
import signal
import struct
import subprocess
import termios
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import msgspec
import psutil
import pytest
import trio
from conftest import BOT_PYTHON

from referee.core.botspec import BotSpec
from referee.core.limits import Limits, MiB
from referee.core.verdict import BotFault, Verdict
from referee.seats.process import bot as process
from referee.seats.process import fastpath, lines, sandbox
from referee.seats.process.bot import BotProcess
from referee.seats.process.monitor import Monitor
from referee.seats.process.stderr import StderrCapture

BOT = Path(__file__).parent / "bots" / "misbehave.py"


@pytest.fixture(params=["c-fast-path", "python-path"], autouse=True)
def io_path(request, monkeypatch):
    """Every test here runs on both request paths: the C fast path and pure Python."""
    if request.param == "python-path":
        monkeypatch.setattr(process, "exchange", None)
    return request.param


def test_the_c_fast_path_is_built():
    # The README's setup needs a C compiler, and with one the extension must build.
    built = importlib.import_module("referee.seats.process._fastpath")
    assert built.VERSION == fastpath.VERSION, "a stale build: pip install -e . again"


# A startup allowance of 2.5 s: ten times a sandboxed Python bot's first answer under
# load, and what the startup cases below wait out (5 s before; the suite's budget).
LIMITS = Limits(startup_s=2.5, decision_s=0.5, cpu_s=1.0, memory_bytes=150 * MiB, exit_s=2.0)
REQUEST = b"1 2 3 4 5\n"


def spec(mode: str, good: int = 0) -> BotSpec:
    return BotSpec(name=mode, argv=[BOT_PYTHON, str(BOT), mode, str(good)], home=str(BOT.parent))


@contextlib.asynccontextmanager
async def running(bot_spec: BotSpec, limits: Limits = LIMITS, **kwargs) -> AsyncIterator[BotProcess]:
    """A started bot in a nursery of its own, closed (a bounded wait) on the way out."""
    sandbox.become_subreaper()
    async with trio.open_nursery() as nursery:
        bot = BotProcess(bot_spec, limits, **kwargs)
        await bot.start(nursery)
        try:
            yield bot
        finally:
            await bot.close()
            nursery.cancel_scope.cancel()


async def play(mode: str, good: int = 0, limits: Limits = LIMITS, line: bytes = REQUEST, asks: int = 4):
    """Start the bot, make ``good + asks`` requests, return (first fault, bot, seconds to it)."""
    sandbox.become_subreaper()
    fault = None
    async with trio.open_nursery() as nursery:
        monitor = Monitor(interval=0.05)
        nursery.start_soon(monitor.run)
        bot = BotProcess(spec(mode, good), limits)
        await bot.start(nursery)
        monitor.watch(bot)
        started = time.monotonic()
        try:
            for i in range(good + asks):
                reply = await bot.request(line)
                assert i < good, f"unexpected reply {reply!r} from {mode}"
                assert reply == b"0"
        except BotFault as exc:
            fault = exc
        elapsed = time.monotonic() - started
        token = bot.child.token
        monitor.forget(bot)
        with trio.fail_after(10):
            await bot.close()
        nursery.cancel_scope.cancel()
    assert not psutil.pid_exists(bot.pid) or psutil.Process(bot.pid).status() == psutil.STATUS_ZOMBIE
    assert sandbox.carrying_token(token, psutil.process_iter()) == [], f"{mode} left processes behind"
    return fault, bot, elapsed


#: The memory cases' decision limit: growing to the cap takes wall time, more of it when
#: the suite's other worker shares the core; only the cap may end them, not the clock.
MEMORY_LIMITS = Limits(startup_s=2.5, decision_s=3.0, cpu_s=1.0, memory_bytes=150 * MiB, exit_s=2.0)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "good", "verdict", "within"),
    [
        ("sleep", 0, Verdict.STARTUP, 3.5),  # no first answer within the startup allowance
        ("sleep", 2, Verdict.TIMEOUT, 1.5),
        ("stop", 2, Verdict.TIMEOUT, 1.5),  # SIGSTOP: uses no CPU, only a wall limit catches it
        ("exit-at-once", 0, Verdict.CRASH, 2.0),
        ("exit1", 1, Verdict.CRASH, 2.0),
        ("segv", 3, Verdict.CRASH, 2.0),
        ("two-lines", 1, Verdict.PROTOCOL, 2.0),
        ("long-line", 1, Verdict.PROTOCOL, 3.0),
        ("memory", 1, Verdict.MEMORY, 4.0),
        ("memory-child", 1, Verdict.MEMORY, 4.0),
        ("fork-holds-stdout", 1, Verdict.CRASH, 2.0),
        ("daemon", 1, Verdict.TIMEOUT, 2.0),
    ],
)
async def test_misbehaving_bot_gets_its_verdict(mode, good, verdict, within):
    limits = MEMORY_LIMITS if verdict is Verdict.MEMORY else LIMITS
    fault, _bot, elapsed = await play(mode, good, limits)
    assert fault is not None, f"{mode}: no fault"
    assert fault.verdict is verdict, f"{mode}: {fault.verdict} ({fault.detail})"
    assert elapsed < within, f"{mode}: took {elapsed:.2f} s"


@pytest.mark.slow
async def test_a_startup_allowance_shorter_than_the_decision_limit_is_honoured():
    """--startup-timeout 0.5 with a 5 s decision limit: no first answer is a startup
    verdict after 0.5 s, not after 5 (the verdict names 0.5 s)."""
    limits = Limits(startup_s=0.5, decision_s=5.0, cpu_s=10.0, exit_s=2.0)
    fault, _bot, elapsed = await play("sleep", 0, limits=limits, asks=1)
    assert fault is not None and fault.verdict is Verdict.STARTUP, fault
    assert elapsed < 2.5, f"took {elapsed:.2f} s"


@pytest.mark.slow
async def test_cpu_budget_is_enforced_over_the_tree():
    limits = Limits(startup_s=5.0, decision_s=10.0, cpu_s=1.0, exit_s=2.0)
    fault, bot, elapsed = await play("cpu", 1, limits=limits)
    assert fault.verdict is Verdict.CPU and "budget of 1 s" in fault.detail
    # 1 CPU second takes more wall time when the suite's other worker shares the core.
    assert bot.cpu_s >= 1.0 and elapsed < 6.0


@pytest.mark.slow
async def test_garbage_reply_is_returned_for_the_game_to_judge():
    async with running(spec("garbage", 1), LIMITS) as bot:
        assert await bot.request(REQUEST) == b"0"
        assert await bot.request(REQUEST) == b"\xff\xfe not a number"


async def test_crash_detail_names_the_signal():
    fault, _, _ = await play("segv", 2)
    assert "SIGSEGV" in fault.detail


async def test_exit_code_is_reported():
    fault, _, _ = await play("exit1", 1)
    assert "exited with code 1" in fault.detail


@pytest.mark.slow
async def test_a_bot_that_does_not_read_times_out_on_write():
    # 1 MiB cannot fit in a pipe (64 KiB): the write must be bounded by the deadline.
    fault, _, elapsed = await play("noread", 0, line=b"9" * (1 << 20) + b"\n", asks=1)
    assert fault.verdict is Verdict.STARTUP and "did not read its input" in fault.detail
    assert elapsed < 3.5


@pytest.mark.slow
async def test_long_line_keeps_memory_bounded():
    fault, bot, _ = await play("long-line", 1)
    assert fault.verdict is Verdict.PROTOCOL
    assert len(bot.channel.buffered) <= LIMITS.max_line_bytes


@pytest.mark.slow
async def test_slow_bot_recovers_after_a_timeout():
    """A late reply is read and dropped; the next answer is matched to the next request."""
    limits = Limits(startup_s=5.0, decision_s=0.4, exit_s=2.0)
    async with running(spec("slow", 1), limits) as bot:
        assert await bot.request(REQUEST) == b"0"
        with pytest.raises(BotFault) as first:
            await bot.request(REQUEST)  # answered after 0.6 s > 0.4 s
        assert first.value.verdict is Verdict.TIMEOUT
        assert bot.alive
        await trio.sleep(1.0)  # the late reply arrives meanwhile
        with pytest.raises(BotFault):
            await bot.request(REQUEST)  # its own reply is 0.6 s away again: a timeout, not a desync


@pytest.mark.slow
async def test_hung_bot_is_stopped_after_two_timeouts():
    async with running(spec("sleep", 1), LIMITS) as bot:
        assert await bot.request(REQUEST) == b"0"
        for _ in range(2):
            with pytest.raises(BotFault) as info:
                await bot.request(REQUEST)
            assert info.value.verdict is Verdict.TIMEOUT
        assert bot.death is Verdict.TIMEOUT and "previous request" in bot.death_detail
        with pytest.raises(BotFault):
            await bot.request(REQUEST)  # dead: fails at once


@pytest.mark.slow
async def test_ignoring_sigterm_does_not_delay_close():
    async with running(spec("ignore-term", 0), LIMITS) as bot:
        assert await bot.request(REQUEST) == b"0"
        started = time.monotonic()
        await bot.close()
        assert time.monotonic() - started < 3.0


async def test_cannot_start_is_a_startup_verdict(tmp_path):
    missing = BotSpec(name="missing", argv=[str(tmp_path / "nope")], home=str(tmp_path))
    async with trio.open_nursery() as nursery:
        bot = BotProcess(missing, LIMITS)
        with pytest.raises(BotFault) as info:
            await bot.start(nursery)
        assert info.value.verdict is Verdict.STARTUP


async def test_stderr_is_captured_to_a_file(tmp_path):
    script = tmp_path / "noisy.py"
    script.write_text(
        "import sys\nsys.stderr.write('x' * 300000)\nsys.stderr.flush()\nprint(0, flush=True)\n"
    )
    limits = Limits(startup_s=5.0, decision_s=2.0, stderr_bytes=1000)
    noisy = BotSpec(name="noisy", argv=[BOT_PYTHON, str(script)], home=str(tmp_path))
    async with running(noisy, limits, stderr_path=tmp_path / "noisy.stderr") as bot:
        assert await bot.request(REQUEST) == b"0"
        await trio.sleep(0.2)
    text = (tmp_path / "noisy.stderr").read_text()
    assert "299000 bytes of stderr cut" in text
    assert text.startswith("x" * 500) and text.endswith("x" * 500)


@pytest.mark.slow
async def test_a_fast_bots_last_stderr_lines_are_kept(tmp_path):
    """What a bot writes just before its last answer and on its way out reaches the file:
    the reader task may not have run since (the fast path yields every few answers)."""
    script = tmp_path / "chatty.py"
    script.write_text(
        "import sys\n"
        "for i, _ in enumerate(sys.stdin):\n"
        "    sys.stderr.write(f'line {i}\\n'); sys.stderr.flush(); print(0, flush=True)\n"
        "sys.stderr.write('bye\\n')\n"
    )
    chatty = BotSpec(name="chatty", argv=[BOT_PYTHON, str(script)], home=str(tmp_path))
    for attempt in range(3):
        path = tmp_path / f"chatty{attempt}.stderr"
        async with running(chatty, LIMITS, stderr_path=path) as bot:
            for _ in range(10):
                assert await bot.request(REQUEST) == b"0"
        assert path.read_text().splitlines()[-2:] == ["line 9", "bye"]


def test_stderr_capture_keeps_head_and_tail():
    cap = StderrCapture(10)
    for chunk in (b"abc", b"defgh", b"ijklmnop", b"qrstuvwxyz"):
        cap.feed(chunk)
    out = cap.render()
    assert out.startswith(b"abcde") and out.endswith(b"vwxyz")
    assert b"16 bytes of stderr cut" in out


async def test_private_working_directory_and_minimal_environment(tmp_path):
    script = tmp_path / "env.py"
    script.write_text(
        "import os, sys, json\n"
        "sys.stdin.readline()\n"
        "print(json.dumps([os.getcwd(), sorted(os.environ), oct(os.stat('.').st_mode & 0o777)]), flush=True)\n"
    )
    probe = BotSpec(name="env", argv=[BOT_PYTHON, str(script)], home=str(tmp_path))
    os.environ["REFEREE_TEST_SECRET"] = "1"
    try:
        async with running(probe, LIMITS) as bot:
            reply = await bot.request(REQUEST)
    finally:
        del os.environ["REFEREE_TEST_SECRET"]
    import json

    cwd, names, mode = json.loads(reply)
    assert cwd != str(tmp_path) and re.search(r"referee-\d+-env-", cwd)
    assert not os.path.exists(cwd), "working directory is removed afterwards"
    assert "REFEREE_TEST_SECRET" not in names
    assert mode == "0o700"


# ---------------------------------------------------------------- from the review of the layer


@pytest.mark.slow
async def test_a_bot_that_stops_reading_mid_match_is_stopped_not_desynced():
    """A write that times out leaves part of a line in the pipe: no later reply can be
    matched to its request, so the bot is stopped (it used to time out forever)."""
    async with running(spec("sleep", 1)) as bot:  # answers once, then never reads again
        assert await bot.request(REQUEST) == b"0"
        with pytest.raises(BotFault) as info:
            for _ in range(3):  # it reads one more line before it stops reading
                await bot.tell(b"9" * (1 << 20) + b"\n")  # far more than a pipe holds
        assert info.value.verdict is Verdict.TIMEOUT and "did not read its input" in info.value.detail
        assert bot.death is Verdict.TIMEOUT


@pytest.mark.slow
async def test_a_cancelled_close_still_ends_the_bot():
    async with running(spec("ignore-term", 0), LIMITS) as bot:
        assert await bot.request(REQUEST) == b"0"
        with trio.move_on_after(0.01):
            await bot.close()  # cancelled from outside almost at once
        await bot.close()
        assert not psutil.pid_exists(bot.pid)


async def test_a_nul_in_the_command_is_a_startup_verdict_without_leaks():
    before = len(os.listdir("/proc/self/fd"))
    async with trio.open_nursery() as nursery:
        bot = BotProcess(BotSpec(name="nul", argv=[BOT_PYTHON, "-c", "\0"], home="/"), LIMITS)
        with pytest.raises(BotFault) as info:
            await bot.start(nursery)
        assert info.value.verdict is Verdict.STARTUP
        nursery.cancel_scope.cancel()
    assert len(os.listdir("/proc/self/fd")) == before


@pytest.mark.skipif(os.geteuid() != 0, reason="a uid per bot needs root")
async def test_a_bot_under_its_own_uid_still_gets_oom_score_1000():
    """The uid is taken last, after the OOM score: once a process changes uid it can no
    longer write /proc/self/oom_score_adj."""
    report = Path(__file__).parent / "bots" / "report.py"
    if not isolation_reachable(report):
        pytest.skip(f"{report} is not readable by other users: no uid of its own is possible")
    bot_spec = BotSpec(name="report", argv=["/usr/bin/python3", str(report)], home=str(report.parent))
    async with running(bot_spec, LIMITS, layer=sandbox.Layer.RLIMITS) as bot:
        uid, oom = (await bot.request(REQUEST)).split()
    assert "uid " in bot.sandbox and int(uid) != 0
    assert oom == b"1000"


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="a uid per bot needs root")
def test_bot_uids_are_never_shared_while_in_use():
    taken = []
    try:
        while (uid := sandbox._allocate_uid()) is not None:
            taken.append(uid)
        assert len(taken) == len(set(taken)) == 63
        sandbox.release_uid(taken[0])
        assert sandbox._allocate_uid() == taken[0]  # free again once released
    finally:
        for uid in taken:
            sandbox.release_uid(uid)


@pytest.mark.skipif(os.geteuid() != 0, reason="a uid per bot needs root")
def test_a_uid_a_process_holds_is_not_handed_out(monkeypatch):
    """/proc is scanned once, at the first allocation: a uid of the block held then (a
    dead referee's leftover) is never handed out, nor one handed out before while a
    process of it lingers."""
    from referee.seats.process.sandbox import uids

    monkeypatch.setattr(uids, "_held_at_start", None)
    monkeypatch.setattr(uids, "_handed_out", set())
    monkeypatch.setattr(uids, "_uids_in_use", set())
    block = uids._BLOCK[:-1]  # the last one is the probes'
    leftover = subprocess.Popen(["sleep", "60"], user=block[0])
    lingering = None
    try:
        first = uids._allocate_uid()
        assert first == block[1]  # block[0] was held at the first look
        lingering = subprocess.Popen(["sleep", "60"], user=first)
        uids.release_uid(first)
        assert uids._allocate_uid() == block[2]  # never handed out: those go first
        monkeypatch.setattr(uids, "_handed_out", set(block))  # as after 63 bots
        uids.release_uid(block[2])
        assert uids._allocate_uid() == block[2]  # first is still held: looked up again
        lingering.kill()
        lingering.wait()
        assert uids._allocate_uid() == first  # free once nothing holds it
    finally:
        for proc in (leftover, lingering):
            if proc is not None:
                proc.kill()
                proc.wait()


def isolation_reachable(path: Path) -> bool:
    return sandbox._reachable(str(path)) and sandbox._reachable("/usr/bin/python3")


# ---------------------------------------------------------------- the short wait for a reply

#: Answers "0" to each line: at once to the first, after ``sys.argv[1]`` seconds to later
#: requests, after ``sys.argv[2]`` seconds to information lines ("info ..."), which it
#: answers "ack" (and then closes its stdout and sleeps, to "info bye").
PACED_BOT = """\
import os, sys, time
request_delay, info_delay = float(sys.argv[1]), float(sys.argv[2])
first = True
while line := sys.stdin.buffer.readline():
    if line.startswith(b"info"):
        time.sleep(info_delay)
        sys.stdout.write("ack\\n")
        sys.stdout.flush()
        if line.startswith(b"info bye"):
            os.close(1)
            time.sleep(60)
        continue
    if not first:
        time.sleep(request_delay)
    first = False
    sys.stdout.write("0\\n")
    sys.stdout.flush()
"""


def paced(tmp_path: Path, request_delay: float, info_delay: float = 0.0) -> BotSpec:
    script = tmp_path / "paced.py"
    script.write_text(PACED_BOT)
    argv = [BOT_PYTHON, str(script), str(request_delay), str(info_delay)]
    return BotSpec(name="paced", argv=argv, home=str(tmp_path))


@pytest.fixture
def trio_waits(monkeypatch):
    """The descriptors ``trio.lowlevel.wait_readable`` was called on, in order."""
    fds: list[int] = []
    real = trio.lowlevel.wait_readable

    async def counting(fd):
        fds.append(fd)
        await real(fd)

    monkeypatch.setattr(trio.lowlevel, "wait_readable", counting)
    return fds


async def test_a_reply_within_the_short_wait_needs_no_trio_wait(tmp_path, monkeypatch, trio_waits):
    monkeypatch.setattr(lines, "REPLY_WAIT_S", 2.0)
    async with running(paced(tmp_path, 0.05), Limits(startup_s=5.0, decision_s=5.0)) as bot:
        assert await bot.request(REQUEST) == b"0"
        trio_waits.clear()
        started = time.monotonic()
        assert await bot.request(REQUEST) == b"0"  # 50 ms: within the wait
        assert time.monotonic() - started < 1.0
        assert bot.channel.rfd not in trio_waits
        assert bot.decisions == 2


async def test_a_miss_yields_the_core_to_the_bot_before_the_timed_wait(tmp_path, monkeypatch):
    """A reply not there at the first read: the core goes to the bot first (sched_yield:
    on one core the bot our write woke is runnable, and a timed wait is a timer armed
    and cancelled, ~2.5 µs a miss on this project's VM), then the short wait.  Seen on
    the pure-Python path, which does what the C fast path does (its header says so)."""
    monkeypatch.setattr(process, "exchange", None)
    monkeypatch.setattr(lines, "REPLY_WAIT_S", 2.0)
    steps: list[str] = []
    real_yield = lines._yield
    monkeypatch.setattr(lines, "_yield", lambda: (steps.append("yield"), real_yield())[1])
    async with running(paced(tmp_path, 0.05), Limits(startup_s=5.0, decision_s=5.0)) as bot:
        assert await bot.request(REQUEST) == b"0"
        real_poll = bot.channel._poller.poll
        monkeypatch.setattr(
            bot.channel, "_poller", SimpleNamespace(poll=lambda ms: (steps.append("wait"), real_poll(ms))[1])
        )
        steps.clear()
        assert await bot.request(REQUEST) == b"0"  # 50 ms: not there after the yield either
        assert steps == ["yield", "wait"], steps


@pytest.mark.slow
async def test_a_reply_after_the_short_wait_comes_through_trio(tmp_path, monkeypatch, trio_waits):
    monkeypatch.setattr(lines, "REPLY_WAIT_S", 0.01)
    async with running(paced(tmp_path, 0.3), Limits(startup_s=5.0, decision_s=5.0)) as bot:
        assert await bot.request(REQUEST) == b"0"
        trio_waits.clear()
        started = time.monotonic()
        assert await bot.request(REQUEST) == b"0"
        assert time.monotonic() - started >= 0.3
        assert bot.channel.rfd in trio_waits
        assert bot.decisions == 2 and bot.channel.clean


SPLIT_REPLY_BOT = """\
import sys, time
while sys.stdin.buffer.readline():
    sys.stdout.write("0")
    sys.stdout.flush()
    time.sleep(0.002)  # the newline comes later, in a write of its own
    sys.stdout.write("\\n")
    sys.stdout.flush()
"""


async def test_a_reply_written_in_two_parts_is_finished_within_the_short_wait(
    tmp_path, monkeypatch, trio_waits
):
    """A runtime that writes the text and the newline apart (``python -u``, ``print``
    without buffering) still gets its reply within the short wait, not through trio."""
    monkeypatch.setattr(lines, "REPLY_WAIT_S", 0.5)
    script = tmp_path / "split.py"
    script.write_text(SPLIT_REPLY_BOT)
    split = BotSpec(name="split", argv=[BOT_PYTHON, str(script)], home=str(tmp_path))
    async with running(split, Limits(startup_s=5.0, decision_s=5.0)) as bot:
        assert await bot.request(REQUEST) == b"0"
        trio_waits.clear()
        for _ in range(5):
            assert await bot.request(REQUEST) == b"0"
        assert bot.channel.rfd not in trio_waits
        assert bot.channel.clean and bot.decisions == 6


TWO_LINE_ANSWER_BOT = """\
import sys, time
asked = told = 0
while line := sys.stdin.buffer.readline():
    if line.startswith(b"info"):
        told += 1
        time.sleep(float(sys.argv[1]))
        sys.stdout.write("ok\\nextra\\n" if told == 1 else "ok\\n")  # the first: one too many
    else:
        asked += 1
        sys.stdout.write(f"r{asked}\\n")
    sys.stdout.flush()
"""


def _unread(fd: int) -> int:
    """Bytes waiting in the pipe ``fd`` reads from."""
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


@pytest.mark.slow
@pytest.mark.parametrize("delay_s", [0.0, 0.3], ids=["at-once", "after-the-short-wait"])
@pytest.mark.parametrize("infos", [1, 2], ids=["one-information-line", "then-another"])
async def test_an_information_line_answered_with_two_lines_faults_once_and_stays_in_step(
    tmp_path, delay_s, infos
):
    """The stray line came before the next request: it faults that request (protocol)
    and is dropped, so every later reply answers its own request (it used to be taken as
    the reply, leaving the bot one reply behind for the rest of its life) — whether the
    answer came within the short wait or after it, owed.  With a second information
    line before the request (dice poker: a deal that ends before the bot is asked, then
    the next deal's end), the stray line is not taken for that line's answer either: the
    fault quotes it, and the bot stays in step whether the second answer is in the pipe
    by the request or comes after it."""
    script = tmp_path / "two.py"
    script.write_text(TWO_LINE_ANSWER_BOT)
    two = BotSpec(name="two", argv=[BOT_PYTHON, str(script), str(delay_s)], home=str(tmp_path))
    async with running(two, Limits(startup_s=5.0, decision_s=2.0)) as bot:
        assert await bot.request(REQUEST) == b"r1"
        await bot.tell(b"info\n", expects_reply=True)
        # The whole answer is in (read from the pipe by the short wait, or still in it)
        # before the next line; on a loaded machine the bot may take a while.
        with trio.fail_after(10):
            while len(bot.channel.buffered) + _unread(bot.channel.rfd) < len(b"ok\nextra\n"):
                await trio.sleep(0.01)
        if infos == 2:
            await bot.tell(b"info\n", expects_reply=True)  # the request follows at once
        with pytest.raises(BotFault) as fault:
            await bot.request(REQUEST)
        assert (
            fault.value.verdict is Verdict.PROTOCOL
            and "'extra' came before this request" in fault.value.detail
        ), fault.value.detail
        assert await bot.request(REQUEST) == b"r2"  # the request the bot actually saw
        assert await bot.request(REQUEST) == b"r3"


@pytest.mark.slow
@pytest.mark.parametrize("wait_s", [0.2, 30.0])
async def test_a_bot_that_never_answers_times_out_at_its_deadline(monkeypatch, wait_s):
    """The short wait is part of the decision's time, and never longer than it."""
    monkeypatch.setattr(lines, "REPLY_WAIT_S", wait_s)
    async with running(spec("sleep", 1), LIMITS) as bot:
        assert await bot.request(REQUEST) == b"0"
        started = time.monotonic()
        with pytest.raises(BotFault) as info:
            await bot.request(REQUEST)
        elapsed = time.monotonic() - started
        assert info.value.verdict is Verdict.TIMEOUT
        assert LIMITS.decision_s - 0.05 <= elapsed < LIMITS.decision_s + 0.3


@pytest.mark.slow
async def test_a_signal_ends_the_short_wait_at_once(tmp_path, monkeypatch, io_path, trio_waits):
    """A signal's handler runs at once, not after the wait; the C path then falls back
    to trio (a miss), and the reply still arrives."""
    monkeypatch.setattr(lines, "REPLY_WAIT_S", 5.0)
    handled: list[float] = []
    previous = signal.signal(signal.SIGUSR1, lambda *_: handled.append(time.monotonic()))
    try:
        async with running(paced(tmp_path, 1.0), Limits(startup_s=5.0, decision_s=10.0)) as bot:
            assert await bot.request(REQUEST) == b"0"
            trio_waits.clear()
            sent_at = time.monotonic() + 0.2
            timer = threading.Timer(0.2, signal.pthread_kill, (threading.main_thread().ident, signal.SIGUSR1))
            timer.start()
            try:
                assert await bot.request(REQUEST) == b"0"  # answered after 1 s
            finally:
                timer.join()
            assert handled and handled[0] - sent_at < 0.5
            if io_path == "c-fast-path":
                assert bot.channel.rfd in trio_waits
    finally:
        signal.signal(signal.SIGUSR1, previous)


async def test_an_answered_information_line_is_read_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(lines, "REPLY_WAIT_S", 2.0)
    async with running(paced(tmp_path, 0.0), Limits(startup_s=5.0, decision_s=5.0)) as bot:
        assert await bot.request(REQUEST) == b"0"
        await bot.tell(b"info 1\n", expects_reply=True)
        assert bot.channel.owed == 0 and bot.channel.clean  # dropped already: the next request is clean
        assert await bot.request(REQUEST) == b"0"
        assert bot.decisions == 2


async def test_a_late_information_answer_is_owed_and_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(lines, "REPLY_WAIT_S", 0.01)
    async with running(paced(tmp_path, 0.0, info_delay=0.2), Limits(startup_s=5.0, decision_s=5.0)) as bot:
        assert await bot.request(REQUEST) == b"0"
        await bot.tell(b"info 1\n", expects_reply=True)
        assert bot.channel.owed == 1 and not bot.channel.clean
        assert await bot.request(REQUEST) == b"0"  # "ack" came first and was dropped
        assert bot.channel.owed == 0 and bot.channel.clean
        assert await bot.request(REQUEST) == b"0"


@pytest.mark.slow
async def test_an_information_answer_then_end_of_output_is_a_crash_at_the_next_request(tmp_path, monkeypatch):
    """As before the short wait: an information line meets no fault; the next request does."""
    monkeypatch.setattr(lines, "REPLY_WAIT_S", 2.0)
    async with running(paced(tmp_path, 0.0), Limits(startup_s=5.0, decision_s=5.0)) as bot:
        assert await bot.request(REQUEST) == b"0"
        await bot.tell(b"info bye\n", expects_reply=True)  # answered, then its stdout closes
        await bot.tell(b"info 2\n", expects_reply=True)  # finds the end of its output
        with pytest.raises(BotFault) as info:
            await bot.request(REQUEST)
        assert info.value.verdict is Verdict.CRASH and "closed its output" in info.value.detail


FLOODING_BOT = """\
import os, sys, time
chunk = b"7" * 65536
for n, line in enumerate(sys.stdin):
    if line.startswith("info") or (sys.argv[1] == "late" and n == 1):
        if sys.argv[1] == "late":
            time.sleep(0.3)  # past the decision limit: the flood is the late reply
        for _ in range(1 << 14):  # 1 GiB, no newline
            os.write(1, chunk)
    else:
        sys.stdout.write("0\\n")
        sys.stdout.flush()
"""


@pytest.mark.slow
@pytest.mark.parametrize("owed", ["information", "late"])
async def test_an_owed_answer_over_the_line_limit_is_protocol_at_once(tmp_path, owed):
    """Issue 27: a 1 GiB answer without a newline, owed to an information line or to a
    request that timed out, is a protocol fault as soon as it passes the limit — not a
    timeout once it has flooded for the whole (here generous) decision limit."""
    script = tmp_path / "flood.py"
    script.write_text(FLOODING_BOT)
    mode = "info" if owed == "information" else "late"
    bot_spec = BotSpec(name="flood", argv=[BOT_PYTHON, str(script), mode], home=str(tmp_path))
    limits = Limits(startup_s=5.0, decision_s=0.2 if owed == "late" else 30.0, cpu_s=60.0)
    async with running(bot_spec, limits) as bot:
        assert await bot.request(REQUEST) == b"0"
        if owed == "information":
            await bot.tell(b"info\n", expects_reply=True)
        else:
            with pytest.raises(BotFault) as late:
                await bot.request(REQUEST)
            assert late.value.verdict is Verdict.TIMEOUT
            bot.limits = msgspec.structs.replace(limits, decision_s=30.0)
            await trio.sleep(0.5)  # the flood has begun
        started = time.monotonic()
        with pytest.raises(BotFault) as info:
            await bot.request(REQUEST)
        assert info.value.verdict is Verdict.PROTOCOL, info.value
        assert "without a newline" in info.value.detail
        assert time.monotonic() - started < 10.0


# ----------------------------------------------------------------- held information lines

LOGGING_BOT = """\
import os, sys, time
log = open(sys.argv[1], "ab", buffering=0)
info_delay = float(sys.argv[2])
asked = 0
slow_reply = False
while line := sys.stdin.buffer.readline():
    log.write(line)
    if line.startswith(b"info"):
        time.sleep(info_delay)
        sys.stdout.write("ok\\nextra\\n" if line.startswith(b"info two") else "ok\\n")
        sys.stdout.flush()
        slow_reply = line.startswith(b"info two slow")  # the next reply well after those
        if slow_reply:
            time.sleep(0.1)
        if line.startswith(b"info bye"):
            os.close(1)
            time.sleep(60)
        continue
    asked += 1
    sys.stdout.write(f"r{asked}\\n")
    sys.stdout.flush()
"""


def logging_bot(tmp_path: Path, info_delay: float = 0.0) -> tuple[BotSpec, Path]:
    """A bot that logs every line it reads (in order) and answers an information line
    with "ok" ("ok" and "extra" for "info two"), the n-th request with "r<n>"."""
    script, log = tmp_path / "logging.py", tmp_path / "seen.log"
    script.write_text(LOGGING_BOT)
    log.touch()
    log.chmod(0o666)  # as root the bot runs under a uid of its own
    argv = [BOT_PYTHON, str(script), str(log), str(info_delay)]
    return BotSpec(name="logging", argv=argv, home=str(tmp_path)), log


async def settled(bot: BotProcess, log: Path, requests: int) -> None:
    """Wait (bounded) until the bot has read ``requests`` requests and everything written
    to it, and its output has stopped coming (0.3 s without a byte more)."""
    with trio.fail_after(20):
        while log.read_bytes().count(REQUEST) < requests or bot.channel.unread_input():
            await trio.sleep(0.01)
        waiting = -1
        while waiting != (waiting := _unread(bot.channel.rfd)):
            await trio.sleep(0.3)


async def in_step(bot: BotProcess, log: Path) -> None:
    """Once its output has settled, the bot answers a request with the reply to that
    request ("r<n>", n the requests it has read): a reply still waiting from before is
    faulted first (protocol, "came before this request"), never taken for the reply."""
    await settled(bot, log, 0)
    try:
        reply = await bot.request(REQUEST)
    except BotFault as fault:
        assert fault.verdict is Verdict.PROTOCOL and "came before this request" in fault.detail, fault
        reply = await bot.request(REQUEST)
    assert reply == b"r%d" % log.read_bytes().count(REQUEST), (reply, log.read_bytes())


async def test_held_information_lines_go_out_with_the_next_request(tmp_path, io_path):
    """Game.hold_tells: answered information lines wait for the bot's next request and
    go out with it (one wake-up of the bot); their answers are read with its reply and
    dropped.  The bot reads the same lines in the same order; nothing is owed after.
    Without the C fast path nothing is held (each line goes out at once, as before)."""
    bot_spec, log = logging_bot(tmp_path)
    async with running(bot_spec, Limits(startup_s=5.0, decision_s=5.0), hold_tells=True) as bot:
        assert await bot.request(REQUEST) == b"r1"
        await bot.tell(b"info 1\n", expects_reply=True)
        await bot.tell(b"info 2\n", expects_reply=True)
        await trio.sleep(0.3)  # time enough for a bot to read what was written
        seen_before = log.read_bytes()
        assert await bot.request(REQUEST) == b"r2"
        assert bot.channel.clean and bot.channel.owed == 0
        assert await bot.request(REQUEST) == b"r3"
        assert bot.decisions == 3
    expected = REQUEST + b"info 1\ninfo 2\n" + REQUEST + REQUEST
    assert log.read_bytes() == expected
    held = io_path == "c-fast-path"
    assert seen_before == (REQUEST if held else REQUEST + b"info 1\ninfo 2\n")


async def test_held_lines_reach_the_bot_before_its_input_closes(tmp_path):
    """The last deal's end, held for a request that never comes: written at the close,
    before end of file."""
    bot_spec, log = logging_bot(tmp_path)
    async with running(bot_spec, Limits(startup_s=5.0, decision_s=5.0), hold_tells=True) as bot:
        assert await bot.request(REQUEST) == b"r1"
        await bot.tell(b"info last\n", expects_reply=True)
    assert log.read_bytes() == REQUEST + b"info last\n"
    assert bot.death is None


@pytest.mark.slow
async def test_a_held_line_answered_slowly_is_dropped_before_the_reply(tmp_path, io_path):
    """The answer to a held line takes longer than the short wait: the request's reply is
    read after it (the careful path drops it), and the bot stays in step; held (the C
    path), the time it took over the line counts in that decision's."""
    bot_spec, _ = logging_bot(tmp_path, info_delay=0.2)
    async with running(bot_spec, Limits(startup_s=5.0, decision_s=5.0), hold_tells=True) as bot:
        assert await bot.request(REQUEST) == b"r1"
        await bot.tell(b"info 1\n", expects_reply=True)
        assert await bot.request(REQUEST) == b"r2"
        assert bot.channel.clean and bot.channel.owed == 0
        assert await bot.request(REQUEST) == b"r3"
        if io_path == "c-fast-path":
            assert bot.latency_max_ns >= 0.2e9


async def test_a_held_line_answered_with_two_lines_is_faulted_and_ends_the_holding(tmp_path, io_path):
    """An information line answered with two lines, held with a request: the extra line
    faults (protocol) the request it went out with — or, when it is all that has come
    back by then, it is taken for that request's reply, and the reply behind it faults
    the first request it is found waiting before.  Either way the bot is in step once its
    output has settled (a reply never stays taken for the next request's), and from then
    on its information lines are told apart (LineChannel.irregular): the next extra line
    is faulted as such, before the request it would be taken for.  Told at once (the
    Python path) the same, the extra line faulted before the request it came before."""
    bot_spec, log = logging_bot(tmp_path)
    async with running(bot_spec, Limits(startup_s=5.0, decision_s=5.0), hold_tells=True) as bot:
        assert await bot.request(REQUEST) == b"r1"
        await bot.tell(b"info two\n", expects_reply=True)
        for _ in range(3):
            # Faulted, or (the extra line, or a reply behind, taken for it on a loaded
            # machine, where each reply may come after the next request is written) not.
            with contextlib.suppress(BotFault):
                await bot.request(REQUEST)
        await in_step(bot, log)
        assert bot.channel.irregular
        # No longer held: the extra line is in before the request is written.
        await bot.tell(b"info two\n", expects_reply=True)
        await settled(bot, log, 0)
        with pytest.raises(BotFault) as fault:
            await bot.request(REQUEST)
        assert "'extra' came before this request" in fault.value.detail, fault.value.detail
        await in_step(bot, log)


async def test_an_extra_line_taken_for_the_reply_leaves_the_bot_one_behind_for_one_request(tmp_path, io_path):
    """The case the holding cannot tell at once: the answer to a held line has an extra
    line, and the reply comes well after it — so the extra line is taken for the reply.
    The reply behind it is in the pipe before the next request is written: that request
    is faulted (protocol, "came before this request") and not sent, and every reply
    after answers its own request.  Told at once (the Python path), the extra line
    faults the request it came before — or, on a loaded machine where the answer came
    after the short wait, it too is taken for the reply, and the reply behind is faulted
    with the next."""
    bot_spec, log = logging_bot(tmp_path)
    async with running(bot_spec, Limits(startup_s=5.0, decision_s=5.0), hold_tells=True) as bot:
        assert await bot.request(REQUEST) == b"r1"
        await bot.tell(b"info two slow\n", expects_reply=True)
        outcomes: list[bytes | str] = []
        for _ in range(3):
            try:
                outcomes.append(await bot.request(REQUEST))
            except BotFault as fault:
                assert fault.verdict is Verdict.PROTOCOL, fault
                outcomes.append(fault.detail)
            if outcomes == [b"extra"]:
                # The reply behind is in the pipe before the next request is written (a
                # loaded machine may take a while).
                await settled(bot, log, 2)
        if outcomes[0] == b"extra":  # held, or told at once and answered late
            assert "'r2' came before this request" in str(outcomes[1]), outcomes
            assert outcomes[2] == b"r3", outcomes
        else:
            assert io_path == "python-path", outcomes
            assert "'extra' came before this request" in str(outcomes[0]), outcomes
            assert outcomes[1:] == [b"r2", b"r3"], outcomes
        assert bot.channel.irregular
        await in_step(bot, log)


async def test_a_bot_that_closes_its_output_on_a_held_line_crashes_at_the_request(tmp_path):
    bot_spec, _ = logging_bot(tmp_path)
    async with running(bot_spec, Limits(startup_s=5.0, decision_s=5.0), hold_tells=True) as bot:
        assert await bot.request(REQUEST) == b"r1"
        await bot.tell(b"info bye\n", expects_reply=True)  # answered, then its stdout closes
        with pytest.raises(BotFault) as info:
            await bot.request(REQUEST)
        assert info.value.verdict is Verdict.CRASH and "closed its output" in info.value.detail


@pytest.mark.parametrize(
    ("pipe", "owed", "expected"),
    [
        (b"a\nb\nreply\n", 2, b"reply"),
        (b"reply\n", 0, b"reply"),
        (b"\n\nr\n", 2, b"r"),
        (b"a\nreply\n", 2, "chunk"),  # too few lines (the wait ends)
        (b"a\nb\nreply\nmore\n", 2, "chunk"),  # one line too many
        (b"a\nb\nrep", 2, "chunk"),  # the reply without its newline
        (b"a\nb\n" + b"x" * 11 + b"\n", 2, "chunk"),  # the reply over the limit
        (b"a" * 5000 + b"\nok\n", 1, b"ok"),  # an owed answer of any length is dropped
    ],
)
def test_exchange_drops_exactly_the_owed_answers(pipe, owed, expected):
    """fastpath.exchange(..., owed): the reply after exactly ``owed`` whole answers, or
    (written, chunk) for anything else, for the careful path to judge."""
    if fastpath.exchange is None:
        pytest.skip("the C fast path is not built")
    to_bot_r, to_bot_w = os.pipe()
    from_bot_r, from_bot_w = os.pipe()
    try:
        os.set_blocking(from_bot_r, False)
        os.write(from_bot_w, pipe)  # what the bot has answered, already there
        line = b"info\n" * owed + REQUEST
        result = fastpath.exchange(to_bot_w, from_bot_r, line, 10, None, 2_000_000, owed)
        if expected == "chunk":
            assert result == (len(line), pipe), result
        else:
            assert result == expected
        assert os.read(to_bot_r, 4096) == line
    finally:
        for fd in (to_bot_r, to_bot_w, from_bot_r, from_bot_w):
            os.close(fd)


def test_exchange_looks_first_and_writes_nothing_after_output_already_waiting():
    """fastpath.exchange(..., look_first=True): output already in the bot's stdout before
    the write cannot be this line's reply — it is returned as (0, chunk) and nothing is
    written; with nothing waiting the exchange goes on as usual."""
    if fastpath.exchange is None:
        pytest.skip("the C fast path is not built")
    to_bot_r, to_bot_w = os.pipe()
    from_bot_r, from_bot_w = os.pipe()
    try:
        for fd in (from_bot_r, to_bot_r):
            os.set_blocking(fd, False)
        os.write(from_bot_w, b"r2\n")  # a reply behind: already there
        line = b"info\n" + REQUEST
        assert fastpath.exchange(to_bot_w, from_bot_r, line, 10, None, 1_000_000, 1, True) == (0, b"r2\n")
        with pytest.raises(BlockingIOError):
            os.read(to_bot_r, 4096)  # nothing was written
        os.write(from_bot_w, b"ok\nr3\n")
        # Waiting output is looked for only when asked: here it is read as the answers.
        assert fastpath.exchange(to_bot_w, from_bot_r, line, 10, None, 1_000_000, 1, False) == b"r3"
        assert os.read(to_bot_r, 4096) == line
    finally:
        for fd in (to_bot_r, to_bot_w, from_bot_r, from_bot_w):
            os.close(fd)


TRICKLE = """\
import os, sys
sys.stdin.buffer.readline()
os.write(1, b"!")
sys.stdin.buffer.readline()  # the request: then a byte at a time, never a newline
while True:
    os.write(1, b"x")
    os.sched_yield()
"""


def test_exchange_gives_up_on_a_trickle_within_the_short_wait():
    """A bot that writes a byte at a time without a newline, yielding the core after each
    (on the referee's core, as matches pin): the exchange reads on for the rest of the
    line only until the short wait's deadline.  Bounded by CPU time, not wall time: a
    loop that went on to fill its 64 KiB buffer, counting lines over it at every byte,
    spent ~0.3 s of CPU here."""
    if fastpath.exchange is None:
        pytest.skip("the C fast path is not built")
    before = os.sched_getaffinity(0)
    core = min(before)
    os.sched_setaffinity(0, {core})
    to_bot_r, to_bot_w = os.pipe()
    trickle = subprocess.Popen(
        [BOT_PYTHON, "-c", TRICKLE],
        stdin=to_bot_r, stdout=subprocess.PIPE,
    )  # fmt: skip
    try:
        out = trickle.stdout.fileno()  # type: ignore[union-attr]
        os.set_blocking(out, False)
        os.write(to_bot_w, b"hello\n")
        deadline = time.monotonic() + 10
        while not _unread(out) and time.monotonic() < deadline:  # it has started
            time.sleep(0.01)
        assert os.read(out, 1) == b"!"
        cpu = time.thread_time()
        result = fastpath.exchange(to_bot_w, out, REQUEST, 10, None, 2_000_000, 1)
        spent = time.thread_time() - cpu
        assert isinstance(result, tuple) and b"\n" not in result[1], result
        assert spent < 0.05, spent
    finally:
        os.sched_setaffinity(0, before)
        trickle.kill()
        trickle.wait()
        for fd in (to_bot_r, to_bot_w):
            os.close(fd)
