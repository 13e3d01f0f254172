"""A command run in its jail as the referee's child, with everything it starts.

A :class:`Child` is the operating-system side of a bot (or of a grading job): it makes
the command's private working directory and its jail (:func:`referee.seats.process.sandbox.jail`:
the layer, a uid of its own as root, a cgroup), starts it there
(:func:`~referee.seats.process.sandbox.spawn.start`) and hands back the referee's ends of
its three pipes, draining its stderr (:class:`~referee.seats.process.stderr.StderrDrain`)
while it runs; then it knows the process tree — the leader, every descendant seen, the
supervisor's own processes, which are never the bot's — kills all of it, escapees
included, and waits for and reaps it, every wait bounded.  It measures the tree (CPU,
memory, files, run delay) and says which cap a sample broke.

It is used by composition, as :class:`trio.Process` is: the process seat
(:class:`referee.seats.process.bot.BotProcess`) and a grading job
(:class:`referee.seats.process.job.Job`) each hold one and decide what its exit, or a
broken cap, means — the verdict, and when to stop it.  Their lifetimes are the same::

    child = Child(spec, limits, layer)
    pipes = await child.start(nursery) # spawn(), ready(), its stderr drained; CannotStart
    ...                                # talk over the pipes; sample() now and then
    await child.stop(grace)            # after closing its stdin: wait_exit(grace) for it
                                       # to exit by itself, kill_and_reap() everything
                                       # (bounded), release() its directory, cgroup, uid

A process this module names is a :class:`psutil.Process`: psutil checks that a pid was not
reused before it signals one.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import re
import shutil
import signal
import stat
import tempfile
from collections.abc import Mapping
from typing import NamedTuple

import psutil
import trio

from referee.core import overload
from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.core.verdict import Verdict
from referee.seats.process import pinning, sandbox
from referee.seats.process.sandbox import spawn
from referee.seats.process.sandbox.reaping import child_pids
from referee.seats.process.stderr import StderrDrain

_EXIT_POLL_S = 0.01
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: The longest a sandbox may take to be built, whatever the startup allowance.
_SETUP_MAX_S = 30.0
#: Files a bot under Landlock alone may keep in its working directory before the scan
#: that measures them gives up and calls the directory full.
_DISK_SCAN_MAX_ENTRIES = 20_000
#: Seconds a process has to exit by itself once its input is closed, before it is killed.
EOF_GRACE_S = 0.5


def eof_grace_s(limits: Limits) -> float:
    """How long a bot may take to exit after EOF on its input (``referee check`` holds
    bots to the same figure)."""
    return min(EOF_GRACE_S, limits.exit_s)


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


class CannotStart(Exception):
    """The command could not be started; :attr:`detail` says why, in a verdict's words.
    If :attr:`Child.spawned`, a process was made (its sandbox was not ready): its owner
    stops it as usual; otherwise nothing of it is left."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class Pipes(NamedTuple):
    """The referee's ends of a child's pipes, nonblocking: its owner closes them."""

    stdin: int
    stdout: int
    stderr: int


class Child:
    """``spec``'s command under ``layer`` and ``limits``: spawned, watched, killed, reaped.

    ``env`` is added to the environment the sandbox gives it; ``cpu_budget_s`` is the CPU
    a sample may find it used before :meth:`sample` says so (``limits.cpu_s`` unless
    given).  Every wait here is bounded; nothing raises for what the command does.
    """

    def __init__(
        self,
        spec: BotSpec,
        limits: Limits,
        layer: sandbox.Layer,
        *,
        allow_root: bool = False,
        env: Mapping[str, str] | None = None,
        cpu_budget_s: float | None = None,
    ) -> None:
        self.spec = spec
        self.limits = limits
        self.layer = layer
        self.allow_root = allow_root
        self._env = dict(env or {})
        self.cpu_budget_s = limits.cpu_s if cpu_budget_s is None else cpu_budget_s
        #: What isolation actually ran (the layer, the uid, why anything is missing).
        self.description = layer.value
        #: The leader's pid (the supervisor's, under a supervised layer), -1 before spawn.
        self.pid = -1
        self.spawned = False
        #: The wait status — the bot's own under a supervisor — once the leader is reaped.
        self.exit_status: int | None = None
        #: What a supervisor reported going wrong after the spawn ("error ..."), if anything.
        self.setup_error = ""
        # The figures: the largest seen (CPU seconds, resident bytes, bytes in files).
        self.cpu_s = 0.0
        self.peak_rss = 0
        #: Bytes it keeps in files (its private tmpfs, or its working directory).
        self.files_bytes = 0
        #: The token every process of it carries in its environment: how escapees are found.
        self.token = ""
        self.workdir: str | None = None
        self.jail: sandbox.Jail | None = None
        #: The supervisor's processes (supervised layers): never charged to the bot.
        self.supervisors: set[int] = set()
        self._uid: int | None = None
        self._ps: psutil.Process | None = None
        self._seen: dict[int, psutil.Process] = {}
        #: Everything sent SIGKILL, kept until it is seen dead and reaped.
        self._doomed: dict[int, psutil.Process] = {}
        self._status_fd = -1
        self._pidfd: int | None = None  # the leader's, while a close waits for it
        self._status_buf = bytearray()
        self._bot_status: int | None = None
        self._setup_deadline = 0.0
        self._stat_fds: dict[int, int] = {}  # pid -> /proc/PID/stat, for cpu_reading
        self._cgroup_cpu: sandbox.cgroups.CpuCounter | None = None  # the same, with a cgroup
        # Issue 28: the run delay of its known processes' threads.
        self._delays = overload.KeptDelays()
        self._released = False
        #: Its stderr, kept and quoted (bounded), drained while it runs.
        self.stderr = StderrDrain(limits.stderr_bytes)

    @property
    def cgroup(self) -> sandbox.cgroups.BotCgroup | None:
        """Its cgroup, where the layer made one."""
        return self.jail.cgroup if self.jail is not None else None

    # ------------------------------------------------------------------ start

    async def spawn(self) -> Pipes:
        """Make its working directory and jail, start the command there, and return the
        referee's ends of its stdin, stdout and stderr.  Raises :class:`CannotStart`
        after giving back what it had set up; a cancelled spawn kills and reaps the
        command (:func:`~referee.seats.process.sandbox.spawn.start`), and
        :meth:`release` gives back the rest."""
        spec, limits = self.spec, self.limits
        # The referee's pid in the name: a later run removes it if this one is killed.
        self.workdir = tempfile.mkdtemp(prefix=f"referee-{os.getpid()}-{spec.name}-")
        os.chmod(self.workdir, 0o700)
        env, self.token = sandbox.bot_environment(self.workdir, spec.home)
        env.update(self._env)
        try:
            jail = sandbox.jail(
                spec.argv,
                spec.home,
                self.workdir,
                self.layer,
                limits,
                env=env,
                allow_root=self.allow_root,
                name=spec.name,
            )
        except sandbox.RootBotRefused as exc:
            raise self._cannot_start(str(exc)) from None
        self.jail = jail
        if jail.env_path:
            env["PATH"] = jail.env_path
        # Checked with the PATH the bot gets, so that every layer says "cannot start" alike.
        argv = jail.config["argv"] if jail.config is not None else spec.argv
        problem = sandbox.cannot_exec(argv, env["PATH"])
        if problem is not None:
            raise self._cannot_start(f"cannot start: {problem}")
        self.description = jail.description
        self._uid = jail.uid
        config, cores = jail.config, None
        if config is not None and (cores := pinning.start_up_cores()) is not None:
            # The supervisor starts on those cores and pins the bot back to ours.
            config = {**config, "cores": sorted(os.sched_getaffinity(0))}
        launch = spawn.Launch(
            argv=jail.argv,
            env=env,
            cwd=self.workdir,
            rlimits=jail.rlimits,
            oom_score_adj=self.layer is not sandbox.Layer.NONE,
            uid=jail.uid if jail.config is None else None,  # a supervisor drops it itself
            cgroup_procs=jail.cgroup.procs_paths() if jail.cgroup is not None else (),
            config=None if config is None else marshal.dumps(config),
            cores=cores,
        )
        # Our own pipes, so that no Python file object owns (and later closes) a descriptor.
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        self._setup_deadline = trio.current_time() + min(limits.startup_s, _SETUP_MAX_S)
        try:
            # From this (the main) thread: see sandbox.jail on PR_SET_PDEATHSIG.
            spawned = await spawn.start(launch, (in_r, out_w, err_w), self._setup_deadline)
        except BaseException as exc:  # a SpawnError, or cancelled (an interrupt)
            for fd in (in_r, in_w, out_r, out_w, err_r, err_w):
                os.close(fd)
            if isinstance(exc, spawn.SpawnError):
                raise self._cannot_start(f"cannot start: {spec.argv[0]}: {exc}") from None
            raise
        for fd in (in_r, out_w, err_w):
            os.close(fd)
        self.spawned = True
        self.pid = spawned.pid
        self._status_fd = spawned.status_fd
        for fd in (in_w, out_r, err_r):
            os.set_blocking(fd, False)
        try:
            self._ps = psutil.Process(self.pid)
            self._seen[self.pid] = self._ps
        except psutil.Error:
            self._ps = None
        if jail.config is not None:
            self.supervisors.add(self.pid)
        return Pipes(in_w, out_r, err_r)

    async def start(self, nursery: trio.Nursery) -> Pipes:
        """:meth:`spawn`, then :meth:`ready`, its stderr drained from then on by a task in
        ``nursery``.  Returns its pipes (stderr is :attr:`stderr`'s).  Raises
        :class:`CannotStart`; when the sandbox was not ready, after closing its stdin and
        stdout — the process is left for its owner to :meth:`stop`."""
        pipes = await self.spawn()
        self.stderr.open(pipes.stderr)
        why = await self.ready()
        if why is not None:
            os.close(pipes.stdin)
            os.close(pipes.stdout)
            raise CannotStart(f"cannot start: {why}")
        nursery.start_soon(self.stderr.run)
        return pipes

    async def ready(self) -> str | None:
        """Under a supervisor, wait (within the setup allowance) for it to report the
        sandbox built: None once it has (at once without a supervisor), else why not."""
        if self.jail is None or self.jail.config is None:
            return None
        line = await spawn.read_status_line(self._status_fd, self._status_buf, self._setup_deadline)
        if line != "ready":
            return "the sandbox was not ready in time" if line is None else line.removeprefix("error ")
        if self.layer is sandbox.Layer.NAMESPACES:
            self.supervisors.update(child_pids(self.pid))  # the namespace's init
        return None

    def _cannot_start(self, detail: str) -> CannotStart:
        """Give back what spawn() set up and return the exception to raise."""
        self._give_back_unstarted()
        self._released = True
        return CannotStart(detail)

    def _give_back_unstarted(self) -> None:
        """What a start sets up before its process exists: the working directory, the
        uid and the (still empty) cgroup."""
        self._remove_workdir()
        if self.jail is not None:
            sandbox.release_uid(self.jail.uid)
            if self.jail.cgroup is not None:
                with contextlib.suppress(OSError):
                    self.jail.cgroup.remove()

    # ------------------------------------------------------------------ the tree

    def processes(self) -> list[psutil.Process]:
        """Its live processes: the leader's descendants now and any seen before that still
        run.  Found by following ``/proc/PID/task/TID/children`` down from the leader
        (~0.1 ms for a bot's few processes); where the kernel lacks those files or
        hides them, by psutil's scan of all of /proc (milliseconds on a busy machine)."""
        # Only while the leader is not reaped: after, its pid may be another's.
        if self._ps is not None and self.exit_status is None:
            for pid in child_pids(self._ps.pid, recursive=True):
                if pid not in self._seen:
                    with contextlib.suppress(psutil.Error):
                        self._seen[pid] = psutil.Process(pid)
        alive = []
        for pid, proc in list(self._seen.items()):
            if proc.is_running():
                alive.append(proc)
            else:
                del self._seen[pid]
        return alive

    def known_pids(self) -> list[int]:
        """The pids of its processes as last seen (the supervisor's included), without a
        scan of /proc."""
        return list(self._seen)

    def may_be_exiting(self) -> bool:
        """Whether it may be on its way out (issue 28): a process of it (its supervisor
        aside) is runnable, in the disk's wait or dead, or none is left.  All asleep
        (or stopped): it is not exiting."""
        mine = [p for p in self.processes() if p.pid not in self.supervisors]
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

    # ------------------------------------------------------------------ the end

    def kill(self) -> None:
        """SIGKILL everything of it: signals only, no waiting (:meth:`kill_and_reap` waits)."""
        if not self.spawned:
            return
        cgroup = self.cgroup
        if cgroup is not None:
            # Frozen, then killed: nothing in it can fork in between.
            with contextlib.suppress(OSError):
                cgroup.kill_all(timeout=0)
        procs = self.processes()  # before the leader dies and its children re-parent
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

        They carry its token in their environment, or run under its uid; as the
        subreaper (``sandbox.become_subreaper``) the referee inherits them when they are
        orphaned, and :func:`sandbox.reap_orphans` collects them.
        """
        children = []
        for pid in child_pids(os.getpid(), recursive=True):
            with contextlib.suppress(psutil.Error):
                children.append(psutil.Process(pid))
        for proc in sandbox.carrying_token(self.token, children):
            if proc.pid != self.pid:
                with contextlib.suppress(psutil.Error):
                    proc.kill()
                    self._doomed[proc.pid] = proc
        if self._uid is not None and self.layer is not sandbox.Layer.NAMESPACES:
            # Everything its uid owns is its own, wherever it went.  (Under namespaces
            # nothing of it can leave its pid namespace, which dies with the namespace's
            # init, a process of the leader's tree killed above: no scan of /proc.)
            for proc in psutil.process_iter(["uids"]):
                uids = proc.info["uids"]
                if uids is not None and self._uid in (uids.real, uids.effective):
                    with contextlib.suppress(psutil.Error):
                        proc.kill()
                        self._doomed[proc.pid] = proc

    async def wait_exit(self, timeout: float) -> None:
        """Reap the leader if it exits within ``timeout``; records :attr:`exit_status` and
        the CPU.  ``wait_exit(0)`` looks once.

        Under a supervisor the leader is the supervisor: the bot's own wait status and
        the CPU of everything of it that was reaped come on the status pipe.
        """
        if self.exit_status is not None or not self.spawned:
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
                    self._close_pidfd()
                    if self.pid not in self.supervisors:
                        # A supervisor's rusage holds its own CPU too; the bot's comes
                        # on the status pipe instead (_read_status).
                        self.cpu_s = max(self.cpu_s, usage.ru_utime + usage.ru_stime)
                    self._read_status()
                    self.exit_status = status if self._bot_status is None else self._bot_status
                    return
                await self._exit_or_poll()

    async def _exit_or_poll(self) -> None:
        """Wait until the leader may have exited: woken by its pidfd the moment it does
        (Linux 5.3+), else after a poll's interval.  The pidfd is closed once the leader
        is reaped, or by :meth:`release`."""
        if self._pidfd is None and hasattr(os, "pidfd_open"):
            try:
                self._pidfd = os.pidfd_open(self.pid)
            except OSError:  # no pidfd here (an old kernel, a seccomp'd container)
                self._pidfd = -1
        if self._pidfd is None or self._pidfd < 0:
            await trio.sleep(_EXIT_POLL_S)
            return
        with trio.move_on_after(_EXIT_POLL_S * 10):  # a backstop: wait4 decides, not this
            await trio.lowlevel.wait_readable(self._pidfd)

    def _close_pidfd(self) -> None:
        fd, self._pidfd = self._pidfd, None
        if fd is not None and fd >= 0:
            trio.lowlevel.notify_closing(fd)
            os.close(fd)

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
                self.setup_error = rest

    async def kill_and_reap(self) -> None:
        """SIGKILL everything of it, wait for the leader (``limits.exit_s``) and reap the
        rest, bounded: SIGKILL takes effect asynchronously, and a process still dying
        when last reaped would stay a zombie."""
        self.kill()
        await self.wait_exit(self.limits.exit_s)
        deadline = trio.current_time() + self.limits.exit_s
        while True:
            sandbox.reap_orphans()
            left = [
                p for p in [*self.processes(), *self._doomed.values()] if p.pid != self.pid and _lingers(p)
            ]
            if not left or trio.current_time() >= deadline:
                return
            self.kill()
            await trio.sleep(_EXIT_POLL_S)

    async def stop(self, grace_s: float | None) -> bool:
        """End it, its stdin closed by its owner first: up to ``grace_s`` to exit by itself
        (None: no wait), then :meth:`kill_and_reap`, its stderr's last words kept
        (:meth:`~referee.seats.process.stderr.StderrDrain.finish`), and :meth:`release`
        (also of a start that made no process).  Bounded in time.  Returns whether its
        leader outlived even SIGKILL (not reaped within ``limits.exit_s``)."""
        if self.spawned:
            if grace_s is not None:
                await self.wait_exit(grace_s)
            await self.kill_and_reap()
        # The drain task may not have run since the last words (a seat's fast path yields
        # only every few answers): keep what the pipe still holds (bounded).
        self.stderr.finish()
        await self.release()
        return self.spawned and self.exit_status is None

    async def release(self) -> None:
        """Give back what it holds — its status pipe, the CPU readers, its working
        directory, its cgroup, its uid — once its processes are gone
        (:meth:`kill_and_reap`); or what a start that made no process had set up.  A
        second call does nothing, and the readings say nothing after it."""
        if self._released:
            return
        self._released = True
        if not self.spawned:
            self._give_back_unstarted()  # a start cancelled before its process existed
            return
        self._read_status()
        self._close_pidfd()
        fd, self._status_fd = self._status_fd, -1
        if fd >= 0:
            trio.lowlevel.notify_closing(fd)
            os.close(fd)
        self._close_cpu_readers()
        self._delays.close()
        self._remove_workdir()
        cgroup = self.cgroup
        if cgroup is not None:
            # rmdir may need retries (EBUSY) for up to a second: not on the loop.
            await trio.to_thread.run_sync(cgroup.remove)
        sandbox.release_uid(self._uid)

    def _remove_workdir(self) -> None:
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    # ------------------------------------------------------------------ readings

    def cpu_reading(self) -> float | None:
        """Its CPU seconds now: the cgroup's counter where it has one (µs), else the sum
        over the processes already known to be its own (clock ticks: 10 ms) — no rescan
        of /proc, which costs milliseconds; a child started meanwhile counts once its
        parent reaps it.  ``None`` if unreadable, or once released."""
        if self._released:
            return None
        cgroup = self.cgroup
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

    def run_delay(self) -> int | None:
        """The run delay (ns: time runnable without a CPU) its known processes' threads
        have had: issue 28's evidence of a starved bot.  A few µs a thread.  None if it
        has no process to read, or once released."""
        if self._released or self._ps is None:
            return None
        return self._delays.read(self._seen.keys())

    def oom_killed(self) -> bool:
        """Whether the kernel's memory cap (its cgroup's) killed a process of it."""
        try:
            return self.cgroup is not None and self.cgroup.oom_killed()
        except OSError:
            return False

    def sample(self) -> tuple[Verdict, str] | None:
        """Update :attr:`cpu_s`, :attr:`peak_rss` and :attr:`files_bytes` from the whole
        process tree, and return the cap it is over, as the verdict and detail to stop
        it with, if any.

        Everything in its sandbox is charged, orphans and daemons included (under the
        supervised layers they cannot leave the tree), and so are the files it keeps in
        its private tmpfs (memory no process's RSS shows) or, under Landlock alone, in
        its working directory.  The supervisor itself is not the bot's: only what it
        reaped (its children's CPU) counts.
        """
        if self._ps is None:
            return None
        procs = self.processes()
        cpu = 0.0
        rss = 0
        supervisors = self.supervisors
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
        cgroup = self.cgroup
        if cgroup is not None:
            # The cgroup counts every process of the sandbox, the supervisor's Python
            # (~40 ms to start) included: take that out, as the process sums above do.
            with contextlib.suppress(OSError):
                cpu = max(cpu, cgroup.cpu_seconds() - supervisors_cpu)
        if cpu > self.cpu_s:
            self.cpu_s = cpu
        if rss > self.peak_rss:
            self.peak_rss = rss
        limits = self.limits
        # Memory first: a bot over both caps at one sample (a hog faulting in pages, its
        # sample late on a busy machine) is stopped for what it holds, the harm to others.
        if limits.memory_bytes is not None and rss > limits.memory_bytes:
            what = f" (of which {files >> 20} MiB in files)" if files else ""
            return (
                Verdict.MEMORY,
                f"resident memory {rss >> 20} MiB{what}, over the cap of {limits.memory_bytes >> 20} MiB",
            )
        if self.oom_killed():
            # The kernel's cap (the cgroup's) acted between two samples: a process of
            # the bot was killed for memory; the bot goes with it.
            return (
                Verdict.MEMORY,
                f"a process of it was killed by the kernel: over its memory cap of "
                f"{(limits.memory_bytes or 0) >> 20} MiB (cgroup)",
            )
        if files is not None and files > limits.disk_bytes:
            return (
                Verdict.MEMORY,
                f"its files take {files >> 20} MiB, over the cap of {limits.disk_bytes >> 20} MiB",
            )
        if self.cpu_budget_s is not None and self.cpu_s > self.cpu_budget_s:
            return Verdict.CPU, f"used {self.cpu_s:.1f} s of CPU, over its budget of {self.cpu_budget_s:g} s"
        return None

    def _files_bytes(self) -> int | None:
        """Bytes it keeps in files, where the referee can tell: its private tmpfs (one
        under namespaces; bubblewrap's three), or its working directory on disk
        (Landlock alone)."""
        if self.layer is sandbox.Layer.LANDLOCK and self.workdir:
            enough = self.limits.disk_bytes + 1
            used = _directory_bytes(self.workdir, _DISK_SCAN_MAX_ENTRIES, enough)
            # A file unlinked but still open is on the disk and in no directory.
            return used + _deleted_open_bytes(self.processes(), _DISK_SCAN_MAX_ENTRIES, enough)
        if self.layer is sandbox.Layer.NAMESPACES:
            mounts: tuple[str, ...] = ("tmp",)
        elif self.layer is sandbox.Layer.BWRAP and self.workdir:
            mounts = ("tmp", "dev/shm", self.workdir.lstrip("/"))
        else:
            return None
        # Seen through the root of the sandbox's init: the leader's child, inside it —
        # while the leader is not reaped (after, its pid may be another's).
        if self._ps is None or self.exit_status is not None:
            return None
        # The kernel's children files (~0.1 ms), not psutil's scan of all of /proc.
        inner = child_pids(self._ps.pid)
        if not inner:
            return None
        try:
            # Still the host's root (the sandbox not set up yet — a process stopped
            # before its pivot_root, say): what its /tmp holds is not the bot's.
            root = os.stat(f"/proc/{inner[0]}/root/")
            host = os.stat("/")
        except OSError:
            return None
        if (root.st_dev, root.st_ino) == (host.st_dev, host.st_ino):
            return None
        used = 0
        for mount in mounts:
            try:
                fs = os.statvfs(f"/proc/{inner[0]}/root/{mount}")
            except OSError:
                return None
            used += (fs.f_blocks - fs.f_bfree) * fs.f_frsize
        return used

    def __repr__(self) -> str:
        return f"<Child {self.spec.name} pid={self.pid} exit_status={self.exit_status}>"


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


__all__ = [
    "EOF_GRACE_S",
    "CannotStart",
    "Child",
    "Pipes",
    "describe_status",
    "eof_grace_s",
    "sweep_stale_directories",
]
