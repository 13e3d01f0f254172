"""One bot as an operating-system process: spawn, line I/O with deadlines, kill.

A :class:`BotProcess` is the referee's only way to talk to a bot.  Its contract:

* ``await bot.request(line)`` writes one line and returns the bot's one-line reply, or
  raises :class:`~referee.core.verdict.BotFault` naming what went wrong.  Every wait in it
  is bounded: the first reply by the startup allowance, later ones by the per-decision
  limit, a bot that does not read its input by the same deadline.
* ``await bot.tell(line)`` sends an information line; if the game says the bot answers
  those, the answer is read and discarded (at once if it comes within the short wait
  below, else before the next reply).
* ``bot.kill(verdict, detail)`` ends it at once (the monitor uses it for CPU and memory);
  ``await bot.close()`` ends it for good: EOF on stdin, a short grace, then SIGKILL to
  the process group and a sweep of anything that escaped it, all bounded in time.

The I/O path is the hot path of the whole referee: nonblocking ``os.read``/``os.write``
on the raw pipe descriptors; when the reply is not there yet, a short blocking wait for
it (:data:`REPLY_WAIT_S`, which hands a bot on the same core the CPU), and only then
``trio.lowlevel.wait_readable`` up to the real deadline.  docs/architecture.md has the
figures.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import json
import os
import re
import select
import shutil
import signal
import stat
import tempfile
import termios
import time
from pathlib import Path

import psutil
import trio

from protocol.lines import show
from protocol.notes import NoteReader
from referee.core import overload
from referee.core.botspec import BotSpec
from referee.core.limits import NEAR_LIMIT, Limits
from referee.core.seeding import BOT_SEED_VAR, bot_seed
from referee.core.verdict import BotFault, Verdict, cpu_note
from referee.seats import SLOW_KEPT, Seat, SeatUsage, notes_usage
from referee.seats.process import sandbox
from referee.seats.process.fastpath import (
    ANSWERED,
    FIRST_ANSWER,
    LATENCY_MAX,
    LATENCY_SUM,
    START,
    exchange,
    new_counters,
)
from referee.seats.process.monitor import Monitor, shared_monitor
from referee.seats.process.sandbox import spawn
from referee.seats.process.stderr import STDERR_TAIL_CHARS, StderrCapture, stderr_tail

_READ_SIZE = 1 << 16
_NEWLINE = b"\n"
_now_ns = time.monotonic_ns  # CLOCK_MONOTONIC, as in the C fast path
_read = os.read
_write = os.write
#: Yield to the trio scheduler every this many requests.  A prompt bot answers before
#: we ever block, and without a checkpoint the monitor and progress tasks would starve.
_CHECKPOINT_EVERY = 64
_EXIT_POLL_S = 0.01
#: How long a request (or an answered information line) waits for the reply right after
#: its write, blocking, before it falls back to trio's ``wait_readable`` with the real
#: deadline.  On one core the bot has often not run yet when we first read (over half
#: the time with an instant C bot); blocking hands it the core and takes its reply
#: ~8.5 µs later, where a fall-back to trio costs ~40 µs of wall time.  The cost: the
#: wait holds up the whole trio loop, so every other task (the limits monitor, stderr
#: drains, the other bots of a simultaneous move) may be delayed by up to this much per
#: request, and by up to ``_CHECKPOINT_EVERY`` times it between two yields if a bot
#: always answers just within it.  1 ms catches all but ~1 in 50,000 of an instant
#: bot's misses (a descheduling: p99.9 is 23 µs) and the replies of bots that take up
#: to 1 ms, which still save the ~40 µs; a slower bot gains nothing and loses nothing
#: but that 1 ms of loop time.  It is also the finest wait ``select.poll`` (the
#: pure-Python path) can do.  A signal ends the wait at once.  Measured in
#: docs/architecture.md ("The hot path").
REPLY_WAIT_S = 0.001
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: While waiting for a reply, how often to check that the bot's leader process still runs.
_LEADER_CHECK_S = 0.1
#: How often a bot whose first decision is held to the decision limit
#: (``Limits.first_answer_in_startup`` False) is looked at, until it has read its first
#: request: its decision clock starts when it has.
_READ_POLL_S = 0.001
#: The longest a sandbox may take to be built, whatever the startup allowance.
_SETUP_MAX_S = 30.0
#: Files a bot under Landlock alone may keep in its working directory before the scan
#: that measures them gives up and calls the directory full.
_DISK_SCAN_MAX_ENTRIES = 20_000


def _proportional_memory(proc: psutil.Process) -> int:
    """The process's PSS (from ``smaps_rollup``), or its RSS where that cannot be read
    (a process that made itself undumpable, or an old kernel)."""
    try:
        return proc.memory_full_info().pss
    except psutil.AccessDenied:
        return proc.memory_info().rss


def _lingers(proc: psutil.Process) -> bool:
    """Whether ``proc`` still exists, as a live process or as a zombie nobody reaped."""
    try:
        return proc.is_running()
    except psutil.Error:
        return False


def describe_status(status: int, via_bwrap: bool = False) -> str:
    """Words for a wait status.  bubblewrap reports its child's death by signal N as
    exit code 128 + N, so under it such codes are read back as signals."""
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 0
    if os.WIFSIGNALED(status) or (via_bwrap and 128 < code < 128 + 65):
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else code - 128
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return f"killed by {name}"
    if os.WIFEXITED(status):
        hint = _EXIT_HINTS.get(os.WEXITSTATUS(status), "")
        return f"exited with code {os.WEXITSTATUS(status)}{hint}"
    return f"wait status {status}"


#: What the shell's conventional exit codes usually mean.
_EXIT_HINTS = {
    126: " (a command it ran is not executable: check its permissions or its #! line)",
    127: " (a command it ran was not found: check the command line and its #! line)",
}

#: Shown with a bot that gave no first answer: the usual reasons, in order of frequency.
STARTUP_HINT = (
    "usual causes: the answer is not flushed (flush stdout after each line), the input is "
    "buffered (mawk needs -W interactive; Python -u or sys.stdin.readline), or the bot reads all "
    "of stdin before answering (Node: answer in readline's 'line' handler, not on 'end'); "
    "referee check BOT tells more"
)
#: Seconds a bot has to exit by itself once its input is closed, before it is killed.
EOF_GRACE_S = 0.5
#: Seconds a bot whose output closed is given to be seen exiting before it is said to
#: have "closed its output but kept running" (and is killed): GONE_WAIT_S, and up to
#: GONE_WAIT_MAX_S while a process of it is still runnable or already dead — exiting,
#: but not yet scheduled to finish, or its supervisor to report it (issue 28: at load
#: 9–16 on 2 cores, 0.5 s called bots that exited with status 0 "kept running").  A bot
#: whose processes all sleep is not exiting: it kept running.  An exit ends the wait.
GONE_WAIT_S = 0.5
GONE_WAIT_MAX_S = 5.0


def eof_grace_s(limits: Limits) -> float:
    """How long a bot may take to exit after EOF on its input (``referee check`` holds
    bots to the same figure)."""
    return min(EOF_GRACE_S, limits.exit_s)


class BotProcess(Seat):
    """A running bot.  Create, ``await start(nursery)``, talk, ``await close()``.

    The process seat: its sandbox, its limits monitor (one shared per nursery, see
    :mod:`referee.seats.process.monitor`), its stderr capture and its fast path are its own business.
    """

    def __init__(
        self,
        spec: BotSpec,
        limits: Limits,
        *,
        stderr_path: Path | None = None,
        cpu_budget_s: float | None = None,
        layer: sandbox.Layer = sandbox.Layer.RLIMITS,
        allow_root: bool = False,
        monitor: Monitor | None = None,
        seed: int | None = None,
    ) -> None:
        self.spec = spec
        #: The match's (or tournament's) seed: the bot gets its own, ``$REFEREE_SEED``.
        self.seed = seed
        #: What samples its CPU and memory: its nursery's shared monitor unless one is given.
        self._monitor = monitor
        self.layer = layer
        self.allow_root = allow_root
        #: What isolation actually ran (the layer, the uid, why anything is missing).
        self.sandbox = layer.value
        self.limits = limits
        self.stderr_path = stderr_path
        self.cpu_budget_s = limits.cpu_s if cpu_budget_s is None else cpu_budget_s
        # Accounting, read by the match for results.
        self._counters = new_counters()
        self.cpu_s = 0.0
        self.peak_rss = 0
        # Why the process is gone, once it is.
        self.death: Verdict | None = None
        self.death_detail = ""
        self.exit_status: int | None = None
        self.pid = -1
        self._wfd = self._rfd = self._efd = -1
        self._spawned = False
        self._ps: psutil.Process | None = None
        #: The supervisor's processes (supervised layers): never charged to the bot.
        self._supervisors: set[int] = set()
        self._jail: sandbox.Jail | None = None
        self._status_fd = -1
        self._status_buf = bytearray()
        self._bot_status: int | None = None
        self._setup_error = ""
        #: Bytes the bot keeps in files (its private tmpfs, or its working directory).
        self.files_bytes = 0
        self._uid: int | None = None
        self._seen: dict[int, psutil.Process] = {}
        #: Everything sent SIGKILL, kept until it is seen dead and reaped.
        self._doomed: dict[int, psutil.Process] = {}
        self._token = ""
        self._workdir: str | None = None
        self._buf = b""
        self._owed = 0  # replies to read and discard: information lines, timed-out requests
        self._late = False  # a request timed out and its reply has not come yet
        self._late_deadline = 0.0  # when that reply is due at the latest (Limits.late_s)
        # Whether the startup allowance is over before the first answer: its first
        # request has been read (Limits.first_answer_in_startup False only).
        self._ready = False
        self._strict_first = not limits.first_answer_in_startup
        self._discarding = False  # skipping the rest of an over-long line
        self._stray = b""  # output beyond the owed answers, found before an information line
        self._overlong = b""  # the start of an owed answer found over the line limit, to fault
        # True while none of the four above needs attention: the request fast path.  A
        # first request held to the decision limit goes the Python way (_await_reading).
        self._clean = not self._strict_first
        self._replied = False  # a line came back (decisions counts only good ones)
        self._started_at = 0.0
        self._max_line = limits.max_line_bytes
        # The short wait for a reply (REPLY_WAIT_S), never longer than a decision may take.
        wait_s = min(REPLY_WAIT_S, limits.decision_s)
        self._wait_ns = int(wait_s * 1e9)
        self._wait_ms = wait_s * 1e3  # select.poll's unit (it rounds up to whole ms)
        self._poller = select.poll()  # the pure-Python path's short wait, on stdout
        self._told = 0  # information-line answers read at once (they yield like requests)
        self._stderr = StderrCapture(limits.stderr_bytes)
        self._notes = NoteReader()
        # Each slow answer's CPU (docs/limits-and-verdicts.md, "CPU per decision"): the
        # tree's CPU when a reply was not back within the short wait, and its start.
        self._wait_cpu: float | None = None
        self._wait_start = 0
        self._near_ns = int(NEAR_LIMIT * limits.decision_s * 1e9)
        self._slowest_cpu_ns = -1
        self._slowest_for = 0  # the answer's latency that _slowest_cpu_ns is of
        self._slow_answers = 0
        self._slow: list[tuple[int, int, bool]] = []
        self._stat_fds: dict[int, int] = {}  # pid -> /proc/PID/stat, for _cpu_reading
        # Issue 28: the run delay of its known processes' threads, and the bot's and the
        # referee's run delay (ns) when a slow wait began (_start_cpu_watch) and when the
        # bot was started: what tells a starved bot from a slow one.
        self._delays = overload.KeptDelays()
        self._wait_delay: tuple[int, int] | None = None
        self._start_delay = 0
        self._cgroup_cpu: sandbox.cgroups.CpuCounter | None = None  # the same, with a cgroup
        self._stderr_scope = trio.CancelScope()
        self._closed = False

    # ------------------------------------------------------------------ life

    @property
    def alive(self) -> bool:
        return self.death is None and self._spawned

    async def start(self, nursery: trio.Nursery) -> None:
        """Spawn the bot.  Raises ``BotFault(STARTUP)`` if it cannot be started."""
        spec, limits = self.spec, self.limits
        # The referee's pid in the name: a later run removes it if this one is killed.
        self._workdir = tempfile.mkdtemp(prefix=f"referee-{os.getpid()}-{spec.name}-")
        os.chmod(self._workdir, 0o700)
        env, self._token = sandbox.bot_environment(self._workdir, spec.home)
        if self.seed is not None:
            env[BOT_SEED_VAR] = str(bot_seed(self.seed, spec.name))
        try:
            jail = sandbox.jail(
                spec.argv,
                spec.home,
                self._workdir,
                self.layer,
                limits,
                env=env,
                allow_root=self.allow_root,
                name=spec.name,
            )
        except sandbox.RootBotRefused as exc:
            raise self._cannot_start(str(exc)) from None
        self._jail = jail
        if jail.env_path:
            env["PATH"] = jail.env_path
        # Checked with the PATH the bot gets, so that every layer says "cannot start" alike.
        argv = jail.config["argv"] if jail.config is not None else spec.argv
        problem = sandbox.cannot_exec(argv, env["PATH"])
        if problem is not None:
            raise self._cannot_start(f"cannot start: {problem}")
        self.sandbox = jail.description
        self._uid = jail.uid
        launch = spawn.Launch(
            argv=jail.argv,
            env=env,
            cwd=self._workdir,
            rlimits=jail.rlimits,
            oom_score_adj=self.layer is not sandbox.Layer.NONE,
            uid=jail.uid if jail.config is None else None,  # a supervisor drops it itself
            cgroup_procs=jail.cgroup.procs_paths() if jail.cgroup is not None else (),
            config=None if jail.config is None else json.dumps(jail.config).encode(),
        )
        # Our own pipes, so that no Python file object owns (and later closes) a descriptor.
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        setup_deadline = trio.current_time() + min(limits.startup_s, _SETUP_MAX_S)
        try:
            # From this (the main) thread: see sandbox.jail on PR_SET_PDEATHSIG.
            spawned = await spawn.start(launch, (in_r, out_w, err_w), setup_deadline)
        except BaseException as exc:  # a SpawnError, or cancelled (an interrupt)
            for fd in (in_r, in_w, out_r, out_w, err_r, err_w):
                os.close(fd)
            if isinstance(exc, spawn.SpawnError):
                raise self._cannot_start(f"cannot start: {spec.argv[0]}: {exc}") from None
            raise
        for fd in (in_r, out_w, err_w):
            os.close(fd)
        self._spawned = True
        self.pid = spawned.pid
        self._status_fd = spawned.status_fd
        self._wfd, self._rfd, self._efd = in_w, out_r, err_r
        for fd in (self._wfd, self._rfd, self._efd):
            os.set_blocking(fd, False)
        self._poller.register(self._rfd, select.POLLIN)
        try:
            self._ps = psutil.Process(self.pid)
            self._seen[self.pid] = self._ps
        except psutil.Error:
            self._ps = None
        if jail.config is not None:
            self._supervisors.add(self.pid)
            line = await spawn.read_status_line(self._status_fd, self._status_buf, setup_deadline)
            if line != "ready":
                why = "the sandbox was not ready in time" if line is None else line.removeprefix("error ")
                self.kill(Verdict.STARTUP, f"cannot start: {why}")
                await self.close()
                raise BotFault(Verdict.STARTUP, self.death_detail)
            if self.layer is sandbox.Layer.NAMESPACES and self._ps is not None:
                with contextlib.suppress(psutil.Error):
                    self._supervisors.update(child.pid for child in self._ps.children())
        self._started_at = trio.current_time()
        self._start_delay = overload.referee_delay_ns()
        nursery.start_soon(self._drain_stderr)
        if self._monitor is None:
            self._monitor = shared_monitor(nursery)
        self._monitor.watch(self)

    def _give_back_unstarted(self) -> None:
        """What a start sets up before its process exists: the working directory, the
        uid and the (still empty) cgroup."""
        self._remove_workdir()
        if self._jail is not None:
            sandbox.release_uid(self._jail.uid)
            if self._jail.cgroup is not None:
                with contextlib.suppress(OSError):
                    self._jail.cgroup.remove()

    def _cannot_start(self, detail: str) -> BotFault:
        """Undo what start() set up and return the STARTUP fault to raise."""
        self._give_back_unstarted()
        self.death = Verdict.STARTUP
        self.death_detail = detail
        return BotFault(Verdict.STARTUP, detail)

    def kill(self, verdict: Verdict, detail: str) -> None:
        """End the bot now with ``verdict`` (first cause wins).  Synchronous and quick."""
        if self.death is None:
            self.death = verdict
            self.death_detail = detail
        self._kill_tree()

    async def close(self) -> None:
        """Stop the bot and everything it started, and reap it; bounded in time."""
        if self._closed or not self._spawned:
            if not self._closed and self.death is None:
                self._give_back_unstarted()  # a start cancelled before its process existed
            self._closed = True
            return
        # Shielded: every step is bounded, and a cancelled close must not leave the bot
        # running (a second close would find _closed set and do nothing).
        with trio.CancelScope(shield=True):
            if self._monitor is not None:
                self._monitor.forget(self)  # one last sample first
            self._closed = True
            self._close_fd("_wfd")  # EOF on its stdin: a well-behaved bot exits now
            if self.death is None:
                await self._wait_exit(eof_grace_s(self.limits))
            self._kill_tree()
            await self._wait_exit(self.limits.exit_s)
            await self._reap_leftovers()
            # The drain task may not have run since the bot's last words (the fast path
            # yields only every few answers): keep what the pipe still holds (bounded).
            self._take_stderr(reads=64)
            self._notes.finish()
            self._stderr_scope.cancel()
            self._close_fd("_rfd")
            self._close_fd("_efd")
            self._read_status()
            self._close_fd("_status_fd")
            self._close_cpu_readers()
            self._delays.close()
            self._account_exit()
            self._write_stderr()
            self._remove_workdir()
            if self._cgroup is not None:
                # rmdir may need retries (EBUSY) for up to a second: not on the loop.
                await trio.to_thread.run_sync(self._cgroup.remove)
            sandbox.release_uid(self._uid)

    # ------------------------------------------------------------------ I/O

    async def request(self, line: bytes) -> bytes:
        """Send ``line`` and return the reply without its newline."""
        if self.death is not None:
            raise BotFault(self.death, self.death_detail)
        counters = self._counters
        if self._clean and exchange is not None:
            # The usual case in one C call: write, read, one-line check, latency.
            result = exchange(self._wfd, self._rfd, line, self._max_line, counters, self._wait_ns)
            if isinstance(result, bytes):
                if not counters[ANSWERED] % _CHECKPOINT_EVERY:
                    await trio.lowlevel.checkpoint()
                return result
            start = counters[START]
            if isinstance(result, tuple):
                written, chunk = result
                if not chunk:
                    raise await self._gone("closed its output")
                self._buf = chunk
                self._clean = False
            elif result < 0:
                raise await self._gone("its input pipe is closed")
            else:
                written = result
            if written != len(line):
                await self._write_rest(line[written:], self._deadline(start))
            self._start_cpu_watch(start)
            reply = await self._read_line(self._deadline(start))
        else:
            if self._late and self.limits.late_s:
                # Before the clock of this request starts: the late answer, or a hung bot.
                await self._await_late_answer()
            start = _now_ns()
            self._wait_cpu = None
            reply = await self._request_in_python(line, start)
        elapsed = _now_ns() - start
        if counters[ANSWERED]:
            counters[LATENCY_SUM] += elapsed
            if elapsed > counters[LATENCY_MAX] or elapsed >= self._near_ns:
                self._slow_answer(elapsed)
        else:
            counters[FIRST_ANSWER] = elapsed  # includes the bot's startup work: kept apart
        counters[ANSWERED] += 1
        if not counters[ANSWERED] % _CHECKPOINT_EVERY:
            await trio.lowlevel.checkpoint()
        return reply

    async def _send(self, line: bytes, start: int) -> None:
        """Write a whole line, waiting (bounded) while the bot's pipe is full."""
        try:
            written = _write(self._wfd, line)
        except BlockingIOError:
            written = 0
        except OSError:
            raise await self._gone("its input pipe is closed") from None
        if written != len(line):
            await self._write_rest(line[written:], self._deadline(start))

    async def _request_in_python(self, line: bytes, start: int) -> bytes:
        """The same as the C fast path, for when it is not built or the stream needs care."""
        if not self._clean:
            self._set_stray_aside()
            if self._overlong:
                self._refuse_overlong_answer()
            if self._stray:
                self._refuse_stray_output()
        await self._send(line, start)
        if self._strict_first and not self._ready and not self._has_answered:
            start = await self._await_reading()
        if self._clean:
            # A prompt bot's whole reply is usually in the pipe already, or soon is.
            chunk = self._read_soon(start)
            if chunk:
                reply, newline, rest = chunk.partition(b"\n")  # the cheapest one-line check
                if newline and not rest and len(reply) <= self._max_line:
                    return reply
                self._buf = chunk
                self._clean = False
            elif chunk is not None:
                raise await self._gone("closed its output")
        self._start_cpu_watch(start)
        return await self._read_line(self._deadline(start))

    def _read_soon(self, start: int) -> bytes | None:
        """What the bot's stdout holds now or after the short wait, as in the C fast path
        (a line begun is read on to its newline within the wait): None if nothing came
        (the caller falls back to trio), b"" at end of file or on a read error.  A
        signal's Python handler runs during the wait (PEP 475), and an exception it
        raises ends the wait."""
        try:
            chunk = _read(self._rfd, _READ_SIZE)
        except BlockingIOError:
            chunk = None
        except OSError:
            return b""
        if chunk is None:
            if not self._wait_ms or not self._poller.poll(self._wait_ms):
                return None
            try:
                chunk = _read(self._rfd, _READ_SIZE)
            except BlockingIOError:
                return None
            except OSError:
                return b""
        if chunk and _NEWLINE not in chunk and self._wait_ms:
            chunk = self._finish_line(chunk, start)
        return chunk

    def _finish_line(self, chunk: bytes, start: int) -> bytes:
        """A reply that began without its newline (text and newline written apart, as
        ``python -u`` does): read on until the newline, end of file or the short wait's
        deadline, as the C fast path does (finish_line)."""
        deadline = start + self._wait_ns
        while b"\n" not in chunk and len(chunk) <= self._max_line:
            left_ms = -(-(deadline - _now_ns()) // 1_000_000)
            if left_ms <= 0 or not self._poller.poll(left_ms):
                break
            try:
                more = _read(self._rfd, _READ_SIZE)
            except BlockingIOError:
                continue
            except OSError:
                break
            if not more:
                break  # end of file: the next read reports it
            chunk += more
        return chunk

    # Decision statistics live in one int64 array that the C fast path updates in place.
    @property
    def decisions(self) -> int:
        """Requests answered (the first answer included)."""
        return self._counters[ANSWERED]

    @property
    def latency_ns(self) -> int:
        """Summed latency of every answer but the first."""
        return self._counters[LATENCY_SUM]

    @property
    def latency_max_ns(self) -> int:
        return self._counters[LATENCY_MAX]

    @property
    def first_answer_ns(self) -> int:
        """The first answer's latency: it includes the bot's startup work."""
        return self._counters[FIRST_ANSWER]

    @property
    def _has_answered(self) -> bool:
        """Whether any line came back yet: the startup allowance is for the first only,
        even when that line was a protocol fault."""
        return self._replied or bool(self.decisions)

    @property
    def _starting(self) -> bool:
        """Whether the startup allowance still runs: no line came back yet and, where the
        first decision is held to the decision limit, its request is not read yet."""
        return not (self._ready or self._replied or self.decisions)

    def _deadline(self, start_ns: int) -> float:
        """The trio-clock deadline of a request that started at ``start_ns``."""
        limits = self.limits
        allowed = limits.decision_s
        if self._starting:
            # The first answer: what is left of the startup allowance, but at least one
            # decision's time (a seat first asked late must still get its turn) — and
            # never more than the allowance itself, when it is the shorter of the two.
            since_spawn = trio.current_time() - self._started_at
            allowed = max(limits.startup_s - since_spawn, min(allowed, limits.startup_s))
        return trio.current_time() + allowed - (_now_ns() - start_ns) / 1e9

    async def tell(self, line: bytes, expects_reply: bool = False) -> None:
        """Send an information line.  Its answer, if the game demands one, is dropped: read
        at once if it comes within the short wait, else owed and skipped before the next
        reply (and then what counts as an extra line or a timeout is as for any reply)."""
        if self.death is not None:
            return
        start = _now_ns()
        if not (expects_reply and self._clean):
            # Nothing to read, or the stream needs care (a late reply, an earlier answer
            # still owed): the answer is owed behind what is already due.
            if not self._clean:
                self._set_stray_aside()
            await self._send(line, start)
            if expects_reply:
                self._owed += 1
                self._clean = False
            return
        if exchange is not None:
            result = exchange(self._wfd, self._rfd, line, self._max_line, None, self._wait_ns)
            answered = isinstance(result, bytes)
            if isinstance(result, tuple):
                # Not one clean line (or b"": end of file, which the next read finds again):
                # kept, and the owed-answer bookkeeping below judges it as before.
                self._buf = result[1]
            elif isinstance(result, int) and result < 0:
                raise await self._gone("its input pipe is closed")
            elif isinstance(result, int) and result != len(line):
                await self._write_rest(line[result:], self._deadline(start))
        else:
            await self._send(line, start)
            chunk = self._read_soon(start)
            answered = bool(chunk and chunk.find(_NEWLINE) == len(chunk) - 1)  # one whole line
            if chunk and not answered:
                self._buf = chunk
        if answered:
            # Dropped.  Yield to trio every so often, as requests do (each may have waited
            # up to the short wait).
            self._told += 1
            if not self._told % _CHECKPOINT_EVERY:
                await trio.lowlevel.checkpoint()
            return
        self._owed += 1
        self._clean = False

    async def _write_rest(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._wfd, view)
                view = view[n:]
                continue
            except BlockingIOError:
                pass
            except OSError:
                raise await self._gone("its input pipe is closed") from None
            with trio.move_on_at(deadline) as scope:
                await trio.lowlevel.wait_writable(self._wfd)
            if scope.cancelled_caught:
                # Part of a line is in the pipe and no reply can be matched to it any
                # more: the bot cannot go on (unlike a slow reply, which is resynced).
                verdict = Verdict.STARTUP if self._starting else Verdict.TIMEOUT
                detail = f"did not read its input (limit {self.limits.decision_s:g} s)"
                if not self._starting:
                    self._keep_slow(int(self.limits.decision_s * 1e9), -1, True)
                self.kill(verdict, detail)
                raise BotFault(verdict, detail) from None

    async def _read_line(self, deadline: float) -> bytes:
        try:
            return await self._read_line_slowly(deadline)
        except BotFault:
            # Faults found in data already read never wait: yield, or a bot that floods
            # would starve the monitor and every other task for as long as it floods.
            await trio.lowlevel.checkpoint()
            raise
        finally:
            self._clean = not self._buf and not self._owed and not self._discarding

    async def _read_line_slowly(self, deadline: float) -> bytes:
        buf = self._buf
        while True:
            if self._discarding or self._owed:
                buf = self._skip_lines(buf)
                if self._overlong:
                    self._buf = buf
                    self._refuse_overlong_answer()
            if not self._discarding and not self._owed:
                nl = buf.find(b"\n")
                if nl >= 0:
                    self._replied = True
                    line = buf[:nl]
                    rest = buf[nl + 1 :]
                    self._buf = b""
                    self._late = False
                    if rest:
                        # The stray line is usually the first (debugging output, then the
                        # answer): show both, the first first.
                        raise BotFault(
                            Verdict.PROTOCOL,
                            f"printed more than one line: {show(line, 80)} and then "
                            f"{show(rest.rstrip(_NEWLINE), 80)} (write debugging output to stderr)",
                            line + b"\n" + rest,
                        )
                    if len(line) > self.limits.max_line_bytes:
                        raise BotFault(
                            Verdict.PROTOCOL, f"reply longer than {self.limits.max_line_bytes} bytes"
                        )
                    return line
                if len(buf) > self.limits.max_line_bytes:
                    self._replied = True
                    self._buf = b""
                    self._discarding = True
                    raise BotFault(
                        Verdict.PROTOCOL,
                        f"reply longer than {self.limits.max_line_bytes} bytes without a newline",
                        buf[:200],
                    )
            try:
                chunk = os.read(self._rfd, _READ_SIZE)
            except BlockingIOError:
                self._buf = buf
                # Wait in slices: a leader that exits while an orphan holds its stdout
                # open never gives us EOF, so look at the leader between slices.
                slice_end = trio.current_time() + _LEADER_CHECK_S
                with trio.move_on_at(min(deadline, slice_end)) as scope:
                    await trio.lowlevel.wait_readable(self._rfd)
                if scope.cancelled_caught:
                    if trio.current_time() >= deadline:
                        raise self._timed_out("no reply in time") from None
                    await self._wait_exit(0)
                    if self.exit_status is not None:
                        raise await self._gone("exited") from None
                buf = self._buf
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self._buf = b""
                raise await self._gone("closed its output")
            buf = buf + chunk if buf else chunk

    def _set_stray_aside(self) -> None:
        """Before a line is written to a bot that owes answers: read what its stdout
        already holds (one read, without waiting), skip the answers owed, and set aside
        what is beyond them (bounded) for the next request to fault.  None of it can be
        the reply to what is about to be written: read only after a request, an
        information line's second line would be taken as the request's reply; counted
        as the next information line's answer, that answer would be."""
        try:
            chunk = os.read(self._rfd, _READ_SIZE)
        except OSError:  # nothing there (or an error the read after the write meets)
            chunk = b""
        buf = self._skip_lines(self._buf + chunk if self._buf else chunk)
        if buf and not self._owed and not self._discarding:
            if not self._stray:
                self._stray = buf[: self.limits.max_line_bytes]
            buf = b""
        self._buf = buf

    def _refuse_stray_output(self) -> None:
        """Before a request is written: what the bot wrote beyond the answers it owed
        (an information line answered with two lines) cannot be this request's reply —
        it came before the request.  Drop it and fault this decision, or the bot would
        stay one reply behind for the rest of its life."""
        stray, self._stray = self._stray, b""
        self._replied = True
        raise BotFault(
            Verdict.PROTOCOL,
            f"printed more than one line: {show(stray.rstrip(_NEWLINE), 80)} came before this request, "
            "beyond the answers it owed (write debugging output to stderr)",
            stray,
        )

    def _refuse_overlong_answer(self) -> None:
        """An answer owed (to an information line, or a request that timed out) passed
        the line limit without a newline: a protocol fault now, as for a reply, not a
        timeout once the bot has flooded for the whole decision."""
        start, self._overlong = self._overlong, b""
        self._replied = True
        raise BotFault(
            Verdict.PROTOCOL,
            f"an answer it owed (to an information line or a late request) is longer than "
            f"{self.limits.max_line_bytes} bytes without a newline",
            start,
        )

    def _skip_lines(self, buf: bytes) -> bytes:
        """Drop the rest of an over-long line and the answers owed to information lines.
        An owed answer that passes the line limit is dropped like an over-long reply and
        kept aside (its start) in ``_overlong`` for the caller to fault."""
        while self._discarding or self._owed:
            nl = buf.find(b"\n")
            if nl < 0:
                if self._discarding:
                    return buf[-1:]  # keep memory bounded while skipping a flood
                if len(buf) > self.limits.max_line_bytes:
                    self._overlong = buf[:200]
                    self._owed -= 1
                    if not self._owed:
                        self._late = False
                    self._discarding = True
                    return buf[-1:]
                return buf
            buf = buf[nl + 1 :]
            if self._discarding:
                self._discarding = False
            else:
                self._owed -= 1
                if not self._owed:  # the late reply, if any, was among the owed lines
                    self._late = False
        return buf

    # ------------------------------------------------------------------ CPU per decision

    def _start_cpu_watch(self, start: int) -> None:
        """The reply was not back within the short wait: read the tree's CPU now, so that
        a slow answer (or a timeout) can say how much of its wall time was the bot's
        computing.  Only slow requests pay for it: 2.4 µs a reading with a cgroup, 5.6 µs
        for a one-process bot without (``benchmarks/slow_decision_cost.py``), against
        ≥ 1 ms."""
        self._wait_start = start
        self._wait_cpu = self._cpu_reading()
        self._wait_delay = self._delay_reading()

    def _slow_answer(self, elapsed: int) -> None:
        """A new slowest answer, or one close to the limit: its CPU read once, for both."""
        cpu_ns = self._cpu_since_wait()
        counters = self._counters
        if elapsed > counters[LATENCY_MAX]:
            counters[LATENCY_MAX] = self._slowest_for = elapsed
            self._slowest_cpu_ns = cpu_ns
        if elapsed >= self._near_ns:
            self._keep_slow(elapsed, cpu_ns, False)

    def _cpu_since_wait(self) -> int:
        """CPU ns the tree used since :meth:`_start_cpu_watch`, or -1 if not watched."""
        if self._wait_cpu is None:
            return -1
        now = self._cpu_reading()
        return -1 if now is None else max(0, int((now - self._wait_cpu) * 1e9))

    def _cpu_reading(self) -> float | None:
        """The bot's CPU seconds now: the cgroup's counter where it has one (µs), else the
        sum over the processes already known to be its own (clock ticks: 10 ms) — no
        rescan of /proc, which costs milliseconds; a child started meanwhile counts once
        its parent reaps it.  ``None`` if unreadable."""
        if self._closed:
            return None
        cgroup = self._cgroup
        if cgroup is not None:
            try:
                if self._cgroup_cpu is None:
                    self._cgroup_cpu = cgroup.cpu_counter()
                return self._cgroup_cpu.seconds()
            except (OSError, ValueError):
                pass
        if self._ps is None:
            return None
        # /proc/PID/stat read again through a descriptor kept open: 6.7 µs a process,
        # against 18.9 for psutil's cpu_times (timeit, this VM).  A descriptor names its
        # process, never a reused pid.
        fds = self._stat_fds
        for pid in fds.keys() - self._seen.keys():  # gone: bounded by the live processes
            os.close(fds.pop(pid))
        ticks = 0
        for pid in self._seen:
            fd = fds.get(pid)
            if fd is None:
                try:
                    fd = fds[pid] = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
                except OSError:
                    continue
            try:
                fields = os.pread(fd, 1024, 0).rpartition(b")")[2].split()
                # utime, stime, cutime, cstime: fields 14-17 of proc(5), after the name.
                ticks += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
            except (OSError, ValueError, IndexError):
                os.close(fds.pop(pid))
        return ticks / _CLOCK_TICKS

    def _close_cpu_readers(self) -> None:
        for fd in self._stat_fds.values():
            os.close(fd)
        self._stat_fds.clear()
        if self._cgroup_cpu is not None:
            self._cgroup_cpu.close()
            self._cgroup_cpu = None

    def _delay_reading(self) -> tuple[int, int] | None:
        """The run delay (ns) of the bot's known processes' threads, and the referee's:
        issue 28's evidence of a starved bot.  Only slow requests pay for it, as for the
        CPU reading (a few µs a thread).  None after the bot is closed."""
        if self._closed or self._ps is None:
            return None
        return self._delays.read(self._seen.keys()), overload.referee_delay_ns()

    def _judge_overload(self, wall_ns: int, cpu_ns: int, limit_s: float) -> str | None:
        """Whether a timeout was the machine's (issue 28, :mod:`referee.core.overload`):
        its evidence in words, else None.  A startup timeout is measured from the start
        (a process's run delay counts from its birth), a decision's from its wait."""
        if self._starting:
            self._tree()  # its processes, started since the last sample
            before: tuple[int, int] | None = (0, self._start_delay)
            cpu = self._cpu_reading()
            cpu_ns = -1 if cpu is None else int(cpu * 1e9)
        else:
            before = self._wait_delay
        after = self._delay_reading()
        if before is None or after is None or cpu_ns < 0:
            return None
        wall, cpu = wall_ns / 1e9, cpu_ns / 1e9
        bot_wait, referee_wait = max(0, after[0] - before[0]) / 1e9, max(0, after[1] - before[1]) / 1e9
        if not overload.machine_caused(cpu, limit_s, wall, bot_wait, referee_wait):
            return None
        return overload.describe(cpu, wall, limit_s, bot_wait, referee_wait)

    def _keep_slow(self, wall_ns: int, cpu_ns: int, timed_out: bool) -> None:
        self._slow_answers += 1
        if len(self._slow) < SLOW_KEPT:
            self._slow.append((wall_ns, cpu_ns, timed_out))

    def _timed_out(self, what: str) -> BotFault:
        if self._starting:
            detail = (
                f"{what}: no first answer within the startup allowance of {self.limits.startup_s:g} s "
                f"({STARTUP_HINT}){self._stderr_note()}"
            )
            wall_ns = int((trio.current_time() - self._started_at) * 1e9)
            machine = self._judge_overload(wall_ns, -1, self.limits.startup_s)
            self.kill(Verdict.STARTUP, detail)
            return BotFault(Verdict.STARTUP, detail, overload=machine)
        detail = f"{what} (limit {self.limits.decision_s:g} s)"
        cpu_ns = self._cpu_since_wait()
        wall_ns = _now_ns() - self._wait_start
        self._keep_slow(wall_ns, cpu_ns, True)
        machine = self._judge_overload(wall_ns, cpu_ns, self.limits.decision_s)
        if cpu_ns >= 0:
            # Whether the bot was computing, or waiting: starved (a busy machine), blocked.
            detail += cpu_note(cpu_ns / 1e9)
        if self._late:
            # It still owes the reply to the previous timed-out request: it is hung.
            self.kill(
                Verdict.TIMEOUT, f"{detail}; still no answer to the previous request, so it was stopped"
            )
        else:
            # A slow bot may still answer; that late reply is read and dropped (awaited
            # before its next request, up to Limits.late_s, where the game says so).
            self._late = True
            self._late_deadline = trio.current_time() + self._late_wait_s
            self._owed += 1
            self._clean = False
        return BotFault(Verdict.TIMEOUT, detail, overload=machine)

    @property
    def _late_wait_s(self) -> float:
        """How long a timed-out answer is awaited: ``Limits.late_s``, at most the startup
        allowance (``--startup-timeout`` shortens both)."""
        return min(self.limits.late_s, self.limits.startup_s)

    async def _await_late_answer(self) -> None:
        """Before the next request to a bot whose last answer timed out: wait for that
        late answer (until :attr:`_late_wait_s` after the timeout) and drop it, so that
        a bot slow once loses one decision, not the next one too, and keeps running with
        its memory (seed 001: each slow decision costs a die; bot objects persist).  A
        bot that has not given it by then is hung: stopped, and this request is a
        ``timeout`` — or ``startup``, with the usual causes, when the process has never
        answered at all (an unflushed answer looks just like this).  Its other output is
        judged by the request, as before."""
        buf = self._buf
        while True:
            buf = self._skip_lines(buf)
            self._buf = buf
            if self._overlong:
                self._refuse_overlong_answer()
            if not self._late:
                self._clean = not buf and not self._owed and not self._discarding
                return
            try:
                chunk = os.read(self._rfd, _READ_SIZE)
            except BlockingIOError:
                now = trio.current_time()
                if now >= self._late_deadline:
                    waited = (
                        f"{self._late_wait_s:g} s after it timed out (limit {self.limits.decision_s:g} s)"
                    )
                    if self._replied or self.decisions:
                        verdict = Verdict.TIMEOUT
                        detail = f"still no answer to the previous request {waited}, so it was stopped"
                    else:
                        verdict = Verdict.STARTUP
                        detail = (
                            f"no answer at all since it started: none to its first request {waited}, "
                            f"so it was stopped ({STARTUP_HINT}){self._stderr_note()}"
                        )
                    self.kill(verdict, detail)
                    raise BotFault(verdict, detail) from None
                with trio.move_on_at(min(self._late_deadline, now + _LEADER_CHECK_S)) as scope:
                    await trio.lowlevel.wait_readable(self._rfd)
                if scope.cancelled_caught:
                    await self._wait_exit(0)
                    if self.exit_status is not None:
                        raise await self._gone("exited") from None
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self._buf = b""
                raise await self._gone("closed its output")
            buf = buf + chunk if buf else chunk

    async def _await_reading(self) -> int:
        """A first request held to the decision limit (``Limits.first_answer_in_startup``
        False), written: the startup allowance lasts until the bot has read everything
        written to it, that request included — a bot reads its first request once it
        has started.  Returns the time (``_now_ns``) its decision clock starts.  A seat
        first asked after the allowance has run out still has one decision's time to
        read (as :meth:`_deadline` gives it to answer)."""
        limits = self.limits
        deadline = max(
            self._started_at + limits.startup_s,
            trio.current_time() + min(limits.decision_s, limits.startup_s),
        )
        unread = array.array("i", [0])
        look_again = trio.current_time() + _LEADER_CHECK_S
        while True:
            try:
                fcntl.ioctl(self._wfd, termios.FIONREAD, unread)
            except OSError:
                break  # the read that follows finds out what happened
            if not unread[0]:
                break
            now = trio.current_time()
            if now >= deadline:
                raise self._timed_out("did not read its first request")
            if now >= look_again:
                await self._wait_exit(0)
                if self.exit_status is not None:
                    raise await self._gone("exited")
                look_again = now + _LEADER_CHECK_S
            await trio.sleep(min(_READ_POLL_S, deadline - now))
        self._ready = True
        return _now_ns()

    async def _gone(self, what: str) -> BotFault:
        """The bot's pipes broke: find out why (briefly), mark it dead, return the fault."""
        if self.death is None:
            await self._wait_exit(GONE_WAIT_S)
            if self.exit_status is None and self._may_be_exiting():
                await self._wait_exit(GONE_WAIT_MAX_S - GONE_WAIT_S)
            if self.exit_status is None:
                self.kill(Verdict.CRASH, f"{what} but kept running")
            else:
                verdict = Verdict.CRASH
                detail = describe_status(self.exit_status, self.layer is sandbox.Layer.BWRAP)
                if self._setup_error:
                    detail = f"cannot start: {self._setup_error}"
                if detail == "killed by SIGXCPU":
                    verdict = Verdict.CPU
                    detail += " (the kernel CPU-time limit)"
                elif self._cgroup_oom():
                    verdict = Verdict.MEMORY
                    cap = self.limits.memory_bytes
                    detail += (
                        f" by the kernel: over its memory cap of {cap >> 20} MiB (cgroup)"
                        if cap is not None
                        else " by the kernel: out of memory (cgroup)"
                    )
                if not self._has_answered:
                    detail += " before its first answer"
                self.kill(verdict, detail + self._stderr_note())
        return BotFault(self.death or Verdict.CRASH, self.death_detail)

    async def ended(self, within: float = 0.0) -> bool:
        if self.death is not None:
            return True
        await self._wait_exit(within)
        return self.exit_status is not None

    def _may_be_exiting(self) -> bool:
        """Whether the bot, its output closed, may be on its way out (issue 28): a
        process of it (its supervisor aside) is runnable, in the disk's wait or dead, or
        none is left.  All asleep (or stopped): it is not exiting."""
        mine = [p for p in self._tree() if p.pid not in self._supervisors]
        if not mine:
            return True  # its exit is yet to be reported
        for proc in mine:
            try:
                status = proc.status()
            except psutil.Error:
                return True  # gone meanwhile
            if status not in (psutil.STATUS_SLEEPING, psutil.STATUS_STOPPED, psutil.STATUS_IDLE):
                return True
        return False

    # ------------------------------------------------------------------ accounting

    @property
    def description(self) -> str:
        return self.sandbox

    def usage(self) -> SeatUsage:
        if self._efd >= 0:
            # Notes written before the last answer are in the pipe already; the drain task
            # may not have run since (the fast path yields every few answers).  An empty
            # pipe's read: 1.2 µs (timeit).
            self._take_stderr(reads=4)
        counters = self._counters
        return SeatUsage(
            cpu_s=self.cpu_s,
            peak_rss_bytes=self.peak_rss,
            decisions=counters[ANSWERED],
            latency_ns_total=counters[LATENCY_SUM],
            latency_ns_max=counters[LATENCY_MAX],
            first_answer_ns=counters[FIRST_ANSWER],
            answered=self._has_answered,
            # The C fast path keeps the maximum itself: a fast answer that became it was
            # not measured (its CPU is unknown, and below a millisecond).
            slowest_cpu_ns=self._slowest_cpu_ns if self._slowest_for == counters[LATENCY_MAX] else -1,
            slow_answers=self._slow_answers,
            slow_details=list(self._slow),
            **notes_usage(self._notes.counts, self._notes.examples),
        )

    def new_stretch(self) -> None:
        self._counters[LATENCY_MAX] = 0
        self._slowest_cpu_ns = -1
        self._slowest_for = 0
        self._slow.clear()

    def sample(self) -> None:
        """Update CPU and memory from the whole process tree (called by the monitor).

        Everything in the bot's sandbox is charged, orphans and daemons included (under
        the supervised layers they cannot leave the tree), and so are the files it keeps
        in its private tmpfs (memory no process's RSS shows) or, under Landlock alone,
        in its working directory.  The supervisor itself is not the bot's: only what it
        reaped (its children's CPU) counts.
        """
        if self._ps is None or self.death is not None:
            return
        procs = self._tree()
        cpu = 0.0
        rss = 0
        supervisors = self._supervisors
        # One process: its RSS.  Several (a bot that forks workers): each one's
        # proportional share (PSS), since copy-on-write pages shared between a parent
        # and its forks would otherwise be charged once per process.
        shared = len(procs) - len(supervisors) > 1
        supervisors_cpu = 0.0  # their own CPU: in the bot's cgroup, but not the bot's
        for proc in procs:
            try:
                with proc.oneshot():
                    t = proc.cpu_times()
                    if proc.pid in supervisors:
                        mem = 0
                    elif shared:
                        mem = _proportional_memory(proc)
                    else:
                        mem = proc.memory_info().rss
            except psutil.Error:
                continue
            cpu += t.children_user + t.children_system
            if proc.pid not in supervisors:
                cpu += t.user + t.system
            else:
                supervisors_cpu += t.user + t.system
            rss += mem
        files = self._files_bytes()
        if files is not None:
            self.files_bytes = files
            rss += files
        if self._cgroup is not None:
            # The cgroup counts every process of the sandbox, the supervisor's Python
            # (~40 ms to start) included: take that out, as the process sums above do.
            with contextlib.suppress(OSError):
                cpu = max(cpu, self._cgroup.cpu_seconds() - supervisors_cpu)
        if cpu > self.cpu_s:
            self.cpu_s = cpu
        if rss > self.peak_rss:
            self.peak_rss = rss
        limits = self.limits
        if self.cpu_budget_s is not None and self.cpu_s > self.cpu_budget_s:
            self.kill(
                Verdict.CPU, f"used {self.cpu_s:.1f} s of CPU, over its budget of {self.cpu_budget_s:g} s"
            )
        elif limits.memory_bytes is not None and rss > limits.memory_bytes:
            what = f" (of which {files >> 20} MiB in files)" if files else ""
            self.kill(
                Verdict.MEMORY,
                f"resident memory {rss >> 20} MiB{what}, over the cap of {limits.memory_bytes >> 20} MiB",
            )
        elif self._cgroup_oom():
            # The kernel's cap (the cgroup's) acted between two samples: a process of
            # the bot was killed for memory; the bot goes with it.
            self.kill(
                Verdict.MEMORY,
                f"a process of it was killed by the kernel: over its memory cap of "
                f"{(limits.memory_bytes or 0) >> 20} MiB (cgroup)",
            )
        elif files is not None and files > limits.disk_bytes:
            self.kill(
                Verdict.MEMORY,
                f"its files take {files >> 20} MiB, over the cap of {limits.disk_bytes >> 20} MiB",
            )

    @property
    def _cgroup(self) -> sandbox.cgroups.BotCgroup | None:
        return self._jail.cgroup if self._jail is not None else None

    def _cgroup_oom(self) -> bool:
        try:
            return self._cgroup is not None and self._cgroup.oom_killed()
        except OSError:
            return False

    def _files_bytes(self) -> int | None:
        """Bytes the bot keeps in files, where the referee can tell: its private tmpfs
        (one under namespaces; bubblewrap's three), or its working directory on disk
        (Landlock alone)."""
        if self.layer is sandbox.Layer.LANDLOCK and self._workdir:
            enough = self.limits.disk_bytes + 1
            used = _directory_bytes(self._workdir, _DISK_SCAN_MAX_ENTRIES, enough)
            # A file unlinked but still open is on the disk and in no directory.
            return used + _deleted_open_bytes(self._tree(), _DISK_SCAN_MAX_ENTRIES, enough)
        if self.layer is sandbox.Layer.NAMESPACES:
            mounts: tuple[str, ...] = ("tmp",)
        elif self.layer is sandbox.Layer.BWRAP and self._workdir:
            mounts = ("tmp", "dev/shm", self._workdir.lstrip("/"))
        else:
            return None
        # Seen through the root of the sandbox's init: the leader's child, inside it.
        if self._ps is None:
            return None
        try:
            inner = self._ps.children()
        except psutil.Error:
            return None
        if not inner:
            return None
        try:
            # Still the host's root (the sandbox not set up yet — a process stopped
            # before its pivot_root, say): what its /tmp holds is not the bot's.
            root = os.stat(f"/proc/{inner[0].pid}/root/")
            host = os.stat("/")
        except OSError:
            return None
        if (root.st_dev, root.st_ino) == (host.st_dev, host.st_ino):
            return None
        used = 0
        for mount in mounts:
            try:
                fs = os.statvfs(f"/proc/{inner[0].pid}/root/{mount}")
            except OSError:
                return None
            used += (fs.f_blocks - fs.f_bfree) * fs.f_frsize
        return used

    def _tree(self) -> list[psutil.Process]:
        """The bot's live processes: its descendants now and any seen before that still run."""
        if self._ps is not None:
            try:
                for child in self._ps.children(recursive=True):
                    self._seen.setdefault(child.pid, child)
            except psutil.Error:
                pass
        alive = []
        for pid, proc in list(self._seen.items()):
            if proc.is_running():
                alive.append(proc)
            else:
                del self._seen[pid]
        return alive

    def _kill_tree(self) -> None:
        """SIGKILL everything of the bot's: signals only, no waiting (reaping is in close)."""
        if not self._spawned:
            return
        if self._cgroup is not None:
            # Frozen, then killed: nothing in it can fork in between.
            with contextlib.suppress(OSError):
                self._cgroup.kill_all(timeout=0)
        procs = self._tree()  # before the leader dies and its children re-parent
        if self.exit_status is None:
            # Once the leader is reaped its group id may be reused: psutil's checked
            # kills below cover what is left.
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGKILL)
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                proc.kill()  # psutil checks the pid was not reused
                self._doomed[proc.pid] = proc
        self._kill_escapees()

    def _kill_escapees(self) -> None:
        """SIGKILL descendants that left the group (setsid, double fork).

        They carry the bot's token in their environment, or run under the bot's uid;
        as the subreaper (``sandbox.become_subreaper``) the referee inherits them when
        they are orphaned, and :func:`sandbox.reap_orphans` collects them.
        """
        try:
            children = psutil.Process().children(recursive=True)
        except psutil.Error:
            children = []
        for proc in sandbox.carrying_token(self._token, children):
            if proc.pid != self.pid:
                with contextlib.suppress(psutil.Error):
                    proc.kill()
                    self._doomed[proc.pid] = proc
        if self._uid is not None:
            # Everything the bot's uid owns is the bot's, wherever it went.
            for proc in psutil.process_iter(["uids"]):
                uids = proc.info["uids"]
                if uids is not None and self._uid in (uids.real, uids.effective):
                    with contextlib.suppress(psutil.Error):
                        proc.kill()
                        self._doomed[proc.pid] = proc

    async def _wait_exit(self, timeout: float) -> None:
        """Reap the leader if it exits within ``timeout``; records status and CPU.

        Under a supervisor the leader is the supervisor: the bot's own wait status and
        the CPU of everything of it that was reaped come on the status pipe.
        """
        if self.exit_status is not None or not self._spawned:
            return
        with trio.move_on_after(timeout):
            while True:
                try:
                    pid, status, usage = os.wait4(self.pid, os.WNOHANG)
                except ChildProcessError:
                    sandbox.LEADERS.discard(self.pid)
                    return
                if pid:
                    sandbox.LEADERS.discard(self.pid)
                    if self.pid not in self._supervisors:
                        # A supervisor's rusage holds its own CPU too; the bot's comes
                        # on the status pipe instead (_read_status).
                        self.cpu_s = max(self.cpu_s, usage.ru_utime + usage.ru_stime)
                    self._read_status()
                    self.exit_status = status if self._bot_status is None else self._bot_status
                    return
                await trio.sleep(_EXIT_POLL_S)

    def _read_status(self) -> None:
        """Take in what the supervisor reported: the bot's exit, or a late setup error."""
        if self._status_fd < 0:
            return
        for line in spawn.poll_status_lines(self._status_fd, self._status_buf):
            word, _, rest = line.partition(" ")
            if word == "exit":
                status, _, cpu_ns = rest.partition(" ")
                with contextlib.suppress(ValueError):
                    self._bot_status = int(status)
                    self.cpu_s = max(self.cpu_s, int(cpu_ns) / 1e9)
            elif word == "error":
                self._setup_error = rest

    async def _reap_leftovers(self) -> None:
        """Wait (bounded, without blocking trio) until everything signalled is dead and
        reaped: SIGKILL takes effect asynchronously, and a process still dying when we
        last reaped would stay a zombie."""
        deadline = trio.current_time() + self.limits.exit_s
        while True:
            sandbox.reap_orphans()
            left = [p for p in [*self._tree(), *self._doomed.values()] if p.pid != self.pid and _lingers(p)]
            if not left or trio.current_time() >= deadline:
                return
            self._kill_tree()
            await trio.sleep(_EXIT_POLL_S)

    def _account_exit(self) -> None:
        if self.exit_status is None and self.death is None:
            self.death = Verdict.CRASH
            self.death_detail = "did not exit after SIGKILL"

    # ------------------------------------------------------------------ stderr and files

    async def _drain_stderr(self) -> None:
        with self._stderr_scope:
            # Wait between batches also while it floods: other tasks must run meanwhile.
            while self._take_stderr():
                await trio.lowlevel.wait_readable(self._efd)

    def _take_stderr(self, reads: int = 16) -> bool:
        """Keep what the stderr pipe holds now (at most ``reads`` reads); False once it
        has ended (end of file, or the pipe is gone)."""
        for _ in range(reads):
            try:
                data = os.read(self._efd, _READ_SIZE)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not data:
                return False
            self._stderr.feed(data)
            self._notes.feed(data)
        return True

    def _stderr_note(self) -> str:
        """``; stderr: <its last lines>`` for a verdict's detail, or "" if it wrote none.

        Reads what is still in the pipe first (bounded): the drain task may not have run
        since the bot wrote its dying words."""
        self._take_stderr()
        tail = stderr_tail(self._stderr.last(4 * STDERR_TAIL_CHARS).decode("utf-8", "replace"))
        return f"; stderr: {tail}" if tail else ""

    def stderr_text(self) -> str:
        return self._stderr.render().decode("utf-8", "replace")

    def _write_stderr(self) -> None:
        if self.stderr_path is None or self._stderr.total == 0:
            return
        try:
            # Private: a bot's stderr may say things other users of the machine should not read.
            self.stderr_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with open(self.stderr_path, "ab") as fh:
                fh.write(self._stderr.render())
        except OSError:
            pass  # losing a bot's stderr must not stop the match or leave bots running

    def _close_fd(self, attr: str) -> None:
        fd = getattr(self, attr, None)
        if fd is None or fd < 0:
            return
        setattr(self, attr, -1)
        trio.lowlevel.notify_closing(fd)
        os.close(fd)

    def _remove_workdir(self) -> None:
        if self._workdir:
            shutil.rmtree(self._workdir, ignore_errors=True)

    def __repr__(self) -> str:
        return f"<BotProcess {self.spec.name} pid={self.pid} death={self.death}>"


#: The temporary directories a referee makes: a bot's working directory
#: (``referee-PID-NAME-XXXXXXXX``, mkdtemp's 8-character suffix) and the default stderr
#: directory (``referee-stderr-PID-HHHHHHHH``).  Anything else is left alone.
_OWNED_BY_A_REFEREE = re.compile(
    r"referee-(?:stderr-(\d{1,7})-[0-9a-f]{8}|(\d{1,7})-[A-Za-z0-9._-]+-[a-z0-9_]{8})"
)


def sweep_stale_directories(tmp: str | None = None) -> int:
    """Remove the temporary directories of referees that are no longer running (killed
    with SIGKILL, or by a power cut).  Only directories named exactly as a referee names
    them, owned by this user — or, for root, by a bot uid of that referee's block (a bot's
    working directory is its own) — whose referee's pid is not running here.  Returns how
    many went.  (Referees in containers that share /tmp but not pids would see each
    other's as stale: give each container its own /tmp.)"""
    tmp = tmp or tempfile.gettempdir()
    removed = 0
    me = os.getuid()
    try:
        names = os.listdir(tmp)
    except OSError:
        return 0
    for name in names:
        owner = _OWNED_BY_A_REFEREE.fullmatch(name)
        if owner is None:
            continue
        pid = int(owner.group(1) or owner.group(2))
        path = os.path.join(tmp, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        ours = info.st_uid == me or (me == 0 and info.st_uid in sandbox.uid_block(pid))
        if not stat.S_ISDIR(info.st_mode) or not ours or psutil.pid_exists(pid):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed += not os.path.lexists(path)
    return removed


def _deleted_open_bytes(procs: list[psutil.Process], max_entries: int, enough: int) -> int:
    """Bytes of deleted files the processes still hold open (each file once); more than
    ``max_entries`` descriptors count as ``enough``."""
    seen: set[tuple[int, int]] = set()
    total = 0
    entries = 0
    for proc in procs:
        try:
            fds = os.listdir(f"/proc/{proc.pid}/fd")
        except OSError:
            continue
        for fd in fds:
            entries += 1
            if entries > max_entries:
                return enough
            path = f"/proc/{proc.pid}/fd/{fd}"
            try:
                if not os.readlink(path).endswith(" (deleted)"):
                    continue
                st = os.stat(path)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
                if total >= enough:
                    return total
    return total


def _directory_bytes(path: str, max_entries: int, enough: int) -> int:
    """Bytes of the files under ``path``, stopping once ``enough`` is reached; a tree
    of more than ``max_entries`` entries counts as ``enough`` (a bot cannot make the
    referee scan a million files four times a second)."""
    total = 0
    entries = 0
    stack = [path]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                for entry in it:
                    entries += 1
                    if entries > max_entries:
                        return enough
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        else:
                            total += entry.stat(follow_symlinks=False).st_blocks * 512
                    except OSError:
                        continue
                    if total >= enough:
                        return total
        except OSError:
            continue
    return total


__all__ = ["BotProcess", "describe_status"]
