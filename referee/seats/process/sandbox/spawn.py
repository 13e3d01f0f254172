"""Starting a bot's process without a wait that a bot could make endless.

``subprocess.Popen`` blocks the whole referee until its child has executed the new
program.  A bot that can signal the referee's processes (same uid, no pid namespace)
can SIGSTOP that child between fork and exec, and the referee would hang forever
inside ``Popen`` (reproduced: issue 8).  Here the referee forks, and then *awaits*
the child's exec under a deadline: a child that does not get there in time is
SIGKILLed, and the bot gets a ``startup`` verdict.

The code between fork and exec is plain system calls (no imports, no locks), as in
``subprocess``'s own pre-exec path.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import resource
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import trio

from referee.seats.process.sandbox.reaping import LEADERS

#: Where the supervisor reads its configuration and writes its status lines.
CONFIG_FD = 3
STATUS_FD = 4
#: SIGPIPE and SIGXFSZ are ignored by Python; an ignored signal stays ignored across
#: exec, so they are put back as every other program expects them.
_RESTORED_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ)
_MAX_FD = os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1 << 16
_PR_SET_PDEATHSIG = 1
_prctl: Callable[..., int] | None
try:  # looked up here: nothing is loaded between fork and exec
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux
    _prctl = None


class SpawnError(Exception):
    """The program could not be started; the message says why in one line."""


@dataclass
class Launch:
    """Everything the child does between fork and exec, decided beforehand."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    #: (resource, (soft, hard)) pairs set in the child.
    rlimits: list[tuple[int, tuple[int, int]]] = field(default_factory=list)
    oom_score_adj: bool = True
    #: Switch to this uid (and gid) last: root only.
    uid: int | None = None
    #: cgroup.procs files to join before anything else runs.
    cgroup_procs: Sequence[str] = ()
    #: The supervisor's configuration, fed on CONFIG_FD; its status comes on STATUS_FD.
    config: bytes | None = None
    #: The CPU mask to start up with, instead of the referee's pinned one (a supervisor
    #: pins the bot back itself: :func:`referee.seats.process.pinning.start_up_cores`).
    cores: set[int] | None = None


@dataclass
class Spawned:
    pid: int
    #: The supervisor's status pipe (nonblocking), or -1 for a bot started directly.
    status_fd: int = -1


def _child(
    launch: Launch, fds: tuple[int, int, int], extra: tuple[int, int] | None, err_w: int, parent: int
) -> None:
    """Runs in the forked child: set up, exec.  Never returns."""
    try:
        for path in launch.cgroup_procs:
            fd = os.open(path, os.O_WRONLY)
            os.write(fd, b"0")
            os.close(fd)
        if launch.cores:
            with contextlib.suppress(OSError):  # a core gone offline: the pinned mask stays
                os.sched_setaffinity(0, launch.cores)
        os.setsid()
        # First out of the way (any of them may be 0-4 when the referee's own stdio is
        # closed), then into place: 0-2 the bot's pipes, 3-4 the supervisor's.
        wanted = (*fds, *(extra or ()))
        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in wanted]
        err_w = fcntl.fcntl(err_w, fcntl.F_DUPFD_CLOEXEC, 10)
        for target, fd in enumerate(moved):
            os.dup2(fd, target)  # inheritable
        # err_w is close-on-exec: it stays open until the exec succeeds.
        os.closerange(len(moved), err_w)
        os.closerange(err_w + 1, _MAX_FD)
        os.chdir(launch.cwd)
        for sig in _RESTORED_SIGNALS:
            signal.signal(sig, signal.SIG_DFL)
        for res, value in launch.rlimits:
            with contextlib.suppress(ValueError, OSError):  # above our hard limit: the lower one stays
                resource.setrlimit(res, value)
        if launch.oom_score_adj:
            try:
                fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
                os.write(fd, b"1000")
                os.close(fd)
            except OSError:
                pass
        if launch.uid is not None:
            # Last: after a change of uid /proc/self belongs to root.
            os.setgroups([])
            os.setgid(launch.uid)
            os.setuid(launch.uid)
        if _prctl is not None:
            # Dies with the referee, even by SIGKILL (set after the uid change, which
            # clears it; it survives the exec).  The referee forks from its main thread,
            # whose exit is what fires it.
            _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:
                os._exit(127)
        os.execvpe(launch.argv[0], launch.argv, launch.env)  # PATH search: the bot's own PATH
    except BaseException as exc:  # everything must end in _exit, never back into trio
        try:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else repr(exc)
            os.write(err_w, reason.encode(errors="replace")[:1000])
        finally:
            os._exit(127)


async def start(launch: Launch, fds: tuple[int, int, int], deadline: float) -> Spawned:
    """Fork and exec ``launch`` with ``fds`` as its stdin, stdout and stderr.

    Returns once the program (or the supervisor, which then reports ``ready``) has
    been executed.  Raises :class:`SpawnError` if it could not be, or did not get
    there by ``deadline`` (trio clock), after killing and reaping what was started.
    """
    extra = None
    config_r = status_r = status_w = -1
    if launch.config is not None:
        config_r, config_w = os.pipe()
        os.set_blocking(config_w, False)  # nobody reads it yet: a write must never wait
        try:
            written = os.write(config_w, launch.config)
        except BlockingIOError:
            written = 0
        finally:
            os.close(config_w)
        if written != len(launch.config):
            os.close(config_r)
            raise SpawnError(f"the sandbox configuration is too large ({len(launch.config)} bytes)")
        status_r, status_w = os.pipe()  # close-on-exec, as every fd Python makes
        os.set_blocking(status_r, False)
        extra = (config_r, status_w)
    err_r, err_w = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        _child(launch, fds, extra, err_w, parent)
    # Its owner reaps it, from now: a program that exits before the exec is seen (a fast
    # build, a bot that quits at once, a loaded machine) must not be reaped meanwhile as
    # an orphan by another bot's sweep — its status would be lost (issue 28).
    LEADERS.add(pid)
    os.close(err_w)
    for fd in (config_r, status_w):
        if fd >= 0:
            os.close(fd)
    try:
        error = await _read_all(err_r, deadline)
    except BaseException:  # cancelled (a Ctrl-C while a bot starts): nothing may be left
        with trio.CancelScope(shield=True):
            if status_r >= 0:
                os.close(status_r)
            await _kill_and_reap(pid)
        raise
    finally:
        os.close(err_r)
    if error is None or error:
        if status_r >= 0:
            os.close(status_r)
        await _kill_and_reap(pid)
        if error is None:
            raise SpawnError("the new process did not reach its program in time (was it stopped?)")
        raise SpawnError(error.decode(errors="replace"))
    return Spawned(pid=pid, status_fd=status_r)


async def _read_some(fd: int, deadline: float) -> bytes | None:
    """What ``fd`` has (b"" at EOF or on an error), waiting for it until ``deadline``;
    None if the deadline passes first."""
    while True:
        try:
            return os.read(fd, 4096)
        except BlockingIOError:
            with trio.move_on_at(deadline):
                await trio.lowlevel.wait_readable(fd)
                continue
            return None
        except OSError:
            return b""


async def _read_all(fd: int, deadline: float) -> bytes | None:
    """Read ``fd`` to EOF (the exec closed it); None if the deadline passes first."""
    os.set_blocking(fd, False)
    data = b""
    while chunk := await _read_some(fd, deadline):
        data += chunk
    return None if chunk is None else data


async def _kill_and_reap(pid: int) -> None:
    """SIGKILL a child whose start failed and reap it, for 2 s at most; one not reaped
    by then is no longer its owner's (:data:`LEADERS`): the orphan sweep reaps it."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    try:
        with trio.move_on_after(2.0):
            while True:
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    done = pid
                if done:
                    return
                await trio.sleep(0.005)
    finally:
        LEADERS.discard(pid)


async def read_status_line(fd: int, buffer: bytearray, deadline: float) -> str | None:
    """The next line from a supervisor's status pipe, or None at EOF or the deadline."""
    while (nl := buffer.find(b"\n")) < 0:
        chunk = await _read_some(fd, deadline)
        if not chunk:
            return None
        buffer += chunk
    line = bytes(buffer[:nl])
    del buffer[: nl + 1]
    return line.decode(errors="replace")


def poll_status_lines(fd: int, buffer: bytearray) -> list[str]:
    """Every complete line available now, without waiting."""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except (BlockingIOError, OSError):
            break
        if not chunk:
            break
        buffer += chunk
    lines = []
    while (nl := buffer.find(b"\n")) >= 0:
        lines.append(bytes(buffer[:nl]).decode(errors="replace"))
        del buffer[: nl + 1]
    return lines
