"""The supervisor: the one process between the referee and a sandboxed bot.

The referee runs it as ``python3 -I -S -c "…import supervisor; supervisor.main()" CONFIG_FD
STATUS_FD`` (imported, so its bytecode is cached; standard library only, nothing of the
``referee`` package, so it starts in ~15 ms and works
whatever the bot's uid may read; and none of ``json``, ``typing``, ``contextlib``,
which with what they import would double that: every bot start pays it).  It reads
its configuration, a :mod:`marshal`-ed dict (the same interpreter wrote it), from ``CONFIG_FD``,
builds the bot's sandbox, starts the bot, and reports on ``STATUS_FD`` in lines:

``ready``
    the bot's program was executed (everything below is in force);
``error STAGE: MESSAGE``
    the sandbox could not be built or the program not executed; nothing ran;
``exit STATUS CPU_NS``
    the bot's leader ended with wait status ``STATUS``; ``CPU_NS`` is the CPU time of
    everything of the bot that was reaped (its leader and its orphans).

Two modes:

``namespaces``
    The supervisor (P) enters new user (unless root), pid, network, IPC and UTS
    namespaces and forks the namespace's init (B, pid 1).  B makes its own mount
    namespace with a fresh root: read-only binds of the system directories and the
    bot's own files, a fresh ``/proc``, a minimal ``/dev``, and one size-capped tmpfs
    that holds ``/tmp``, ``/dev/shm`` and the working directory.  B forks the bot (C),
    which drops to its uid (root: a uid of its own), sets its rlimits (RLIMIT_NPROC
    counts per user namespace, so it caps this bot alone), applies Landlock and a
    seccomp filter, and executes the program.  B reaps every orphan; when C ends, B
    reports and exits, and the kernel kills whatever is left in the pid namespace.
``landlock``
    For kernels that refuse unprivileged user namespaces: P makes itself a child
    subreaper (orphans of the bot stay its children) and forks the bot (C), which
    applies Landlock (read system and its own files, write only its working
    directory; no TCP; signals and abstract sockets scoped) and a seccomp filter that
    also refuses sockets and System V / POSIX IPC.  When C ends, P kills and reaps
    every descendant left, then reports.

Every step that can fail reports ``error`` and exits; the referee turns it into a
``startup`` verdict with this message.
"""

from __future__ import annotations

import ctypes
import errno
import marshal
import os
import resource
import select
import sys
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (~6 ms a start)

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

if TYPE_CHECKING:  # the same two files, as the checker finds them in the package
    import signal
    from collections.abc import Callable

    from referee.seats.process.sandbox import landlock, seccomp
else:
    # The C module under signal: the same functions and numbers, without the enums
    # that signal builds from them (enum, functools, collections: ~5 ms a start).
    import _signal as signal

    import landlock  # from this directory, put on sys.path above
    import seccomp

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 0x1
MOUNT_ATTR_NOSUID = 0x2
MOUNT_ATTR_NODEV = 0x4

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

_DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
#: Files and directories the bot may make in its private tmpfs.
_INODES = 65536
#: /proc entries that a uid-0 process could write through (sysctls, sysrq): read-only.
_PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus")

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class SetupError(Exception):
    """A step of building the sandbox failed: ``stage`` names it."""

    def __init__(self, stage: str, message: str) -> None:
        super().__init__(f"{stage}: {message}")


def _check(result: int, stage: str, what: str) -> None:
    if result < 0:
        err = ctypes.get_errno()
        raise SetupError(stage, f"{what}: {os.strerror(err)} (errno {err})")


def _syscall(name: str, *args: object) -> int:
    arch = seccomp.arch()  # its tables hold every syscall number the sandbox needs
    number = seccomp.SYSCALLS[arch].get(name) if arch is not None else None
    if number is None:
        ctypes.set_errno(errno.ENOSYS)
        return -1
    return _libc.syscall(ctypes.c_long(number), *args)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result = _libc.mount(
        None if source is None else source.encode(),
        target.encode(),
        None if fstype is None else fstype.encode(),
        ctypes.c_ulong(flags),
        None if data is None else data.encode(),
    )
    _check(result, "mount", f"{fstype or 'bind'} {source or ''} -> {target}")


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def _read_only(path: str, recursive: bool = True) -> None:
    """Make the mount at ``path`` (and every mount below it) read-only, nosuid, nodev.

    mount_setattr only adds flags, so the flags a user namespace may not clear (locked
    from the parent mount) never get in the way, as they do with MS_REMOUNT.
    """
    attr = _MountAttr(MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, 0)
    flags = AT_RECURSIVE if recursive else 0
    result = _syscall(
        "mount_setattr",
        ctypes.c_int(AT_FDCWD),
        path.encode(),
        ctypes.c_uint(flags),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
    )
    _check(result, "mount", f"read-only {path}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _make_path(path: str, directory: bool) -> None:
    """Create ``path`` (a directory, or an empty file as a bind target) and its parents."""
    os.makedirs(path if directory else os.path.dirname(path), mode=0o755, exist_ok=True)
    if not directory and not os.path.exists(path):
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))


def _in_root(root: str, path: str) -> str:
    """``root + path`` with every link on the way followed as it would be with ``root``
    as the root: an absolute link leads back into ``root``, not out of it.  mount(2)
    follows links from the staging root, where an absolute one (a virtualenv's
    ``python3 -> /usr/bin/python3``) leads nowhere."""
    pending = [p for p in path.split("/") if p]
    done = ""
    hops = 0
    while pending:
        name = pending.pop(0)
        if name == ".":
            continue
        if name == "..":
            done = done.rsplit("/", 1)[0]
            continue
        here = f"{done}/{name}"
        if not os.path.islink(root + here):
            done = here
            continue
        hops += 1
        if hops > 40:
            raise SetupError("mount", f"{path}: {os.strerror(errno.ELOOP)}")
        link = os.readlink(root + here)
        if link.startswith("/"):
            done = ""
        pending[:0] = [p for p in link.split("/") if p]
    return root + done


def _bind(source: str, target: str, read_only: bool = True) -> None:
    _make_path(target, os.path.isdir(source))
    _mount(source, target, None, MS_BIND | MS_REC)
    if read_only:
        _read_only(target)


# ---------------------------------------------------------------------- namespaces


def _enter_namespaces(cfg: dict) -> None:
    """P: new user (unless root), pid, network, IPC and UTS namespaces for its children."""
    flags = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    root = os.geteuid() == 0
    if not root:
        flags |= CLONE_NEWUSER
    uid, gid = os.geteuid(), os.getegid()
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare", "new namespaces")
    if not root:
        # Map only our own uid and gid, to themselves: the bot keeps the user's identity
        # for file access, and has no capability once it executes its program.
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1\n")
        _write("/proc/self/gid_map", f"{gid} {gid} 1\n")
        # Kernel counts per user namespace (inotify): what the bot may take of the user's.
        for name, value in cfg.get("userns_limits", {}).items():
            try:
                _write(f"/proc/sys/user/{name}", f"{int(value)}\n")
            except FileNotFoundError:
                continue  # an older kernel without this count
            except OSError as exc:
                raise SetupError(
                    "unshare", f"cannot set {name} in the bot's user namespace: {exc.strerror}"
                ) from None


def _build_root(cfg: dict) -> None:
    """B: a private mount namespace whose root holds only what the bot may see."""
    _check(_libc.unshare(ctypes.c_int(CLONE_NEWNS)), "unshare", "mount namespace")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    # A small tmpfs becomes the root; the old root stays reachable at /oldroot while
    # the new one is built at /newroot.
    _mount("referee", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    for name in ("newroot", "oldroot"):
        os.mkdir(f"/tmp/{name}", 0o755)
    _check(_syscall("pivot_root", b"/tmp", b"/tmp/oldroot"), "mount", "pivot_root into the staging tmpfs")
    os.chdir("/")
    old = "/oldroot"
    new = "/newroot"
    _mount("referee", new, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")

    # One tmpfs holds everything the bot may write, so one size caps it and one
    # statvfs measures it (tmpfs pages are memory that no process's RSS shows).
    store = "/store"
    os.mkdir(store, 0o755)
    # Inodes are kernel memory that size= does not count: capped as well.
    _mount(
        "referee-bot",
        store,
        "tmpfs",
        MS_NOSUID | MS_NODEV,
        f"size={int(cfg['tmpfs_bytes'])},nr_inodes={_INODES},mode=0755",
    )
    owner = cfg.get("uid")
    for name, mode in (("tmp", 0o1777), ("shm", 0o1777)):
        os.mkdir(f"{store}/{name}", mode)
        os.chmod(f"{store}/{name}", mode)
    _bind(f"{store}/tmp", f"{new}/tmp", read_only=False)
    # After the private /tmp, so that bot files under /tmp stay visible above it.
    for path in cfg["ro_binds"]:
        if os.path.lexists(old + path):
            _bind(_in_root(old, path), new + path)
    # Other bots' cgroups (their names, memory, process counts) are not this bot's business.
    if os.path.isdir(f"{new}/sys/fs/cgroup"):
        _mount("referee-none", f"{new}/sys/fs/cgroup", "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "size=4k")

    # /dev: a few device nodes, the usual links, and the private /dev/shm.
    os.makedirs(f"{new}/dev", 0o755, exist_ok=True)
    _mount("referee-dev", f"{new}/dev", "tmpfs", MS_NOSUID, "size=64k,mode=0755")
    for name in _DEVICES:
        if os.path.exists(f"{old}/dev/{name}"):
            _make_path(f"{new}/dev/{name}", False)
            _mount(f"{old}/dev/{name}", f"{new}/dev/{name}", None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):  # fmt: skip
        os.symlink(target, f"{new}/dev/{name}")
    _bind(f"{store}/shm", f"{new}/dev/shm", read_only=False)
    _read_only(f"{new}/dev", recursive=False)  # /dev/shm, a mount of its own, stays writable

    # The working directory, at the path the referee gave it, inside the private tmpfs.
    workdir = cfg["workdir"]
    if workdir.startswith("/tmp/"):
        os.makedirs(new + workdir, 0o700)
    else:
        os.mkdir(f"{store}/work", 0o700)
        _bind(f"{store}/work", new + workdir, read_only=False)
    if owner is not None:
        for path in (f"{store}/tmp", f"{store}/shm", new + workdir):
            os.chown(path, owner, owner)
    os.chmod(new + workdir, 0o700)

    # A fresh /proc for the new pid namespace (allowed while the old one is visible).
    os.makedirs(f"{new}/proc", 0o755, exist_ok=True)
    _mount("proc", f"{new}/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for name in _PROC_READ_ONLY:
        if os.path.exists(f"{new}/proc/{name}"):
            _mount(f"{new}/proc/{name}", f"{new}/proc/{name}", None, MS_BIND | MS_REC)
            _read_only(f"{new}/proc/{name}")

    # Secrets a uid-0 bot could read (only with --allow-root-bots).
    for path in cfg.get("mask_files", []):
        if os.path.isfile(new + path):
            _mount(f"{old}/dev/null", new + path, None, MS_BIND)
    for path in cfg.get("mask_dirs", []):
        if os.path.isdir(new + path):
            _mount("referee-mask", new + path, "tmpfs", MS_NOSUID | MS_NODEV, "size=4k,mode=0755")

    _read_only(new, recursive=False)
    # Switch to the new root and drop the old one.
    os.chdir(new)
    _check(_syscall("pivot_root", b".", b"."), "mount", "pivot_root into the bot's root")
    _check(_libc.umount2(b".", ctypes.c_int(MNT_DETACH)), "mount", "detach the old root")
    os.chdir("/")


# ---------------------------------------------------------------------- the bot


def _exec_bot(cfg: dict, error_fd: int) -> None:
    """C: the last steps as the bot itself, then its program.  Never returns."""
    try:
        if cfg.get("cores"):  # the referee's core, which the supervisor started beside
            try:  # noqa: SIM105 (no contextlib here)
                os.sched_setaffinity(0, cfg["cores"])
            except OSError:  # a core gone offline: the bot runs unpinned, only slower
                pass
        os.setsid()
        owner = cfg.get("uid")
        for res, soft, hard in cfg["rlimits"]:
            try:  # noqa: SIM105 (contextlib is not imported here: see the module's text)
                resource.setrlimit(res, (soft, hard))
            except (ValueError, OSError):  # above our hard limit: the lower one stays
                pass
        if cfg.get("nproc"):
            resource.setrlimit(resource.RLIMIT_NPROC, (cfg["nproc"], cfg["nproc"]))
        if owner is not None and os.geteuid() == 0:
            os.setgroups([])
            os.setgid(owner)
            os.setuid(owner)
        _libc.prctl(ctypes.c_int(PR_SET_PDEATHSIG), ctypes.c_ulong(signal.SIGKILL), 0, 0, 0)
        rules = cfg.get("landlock")
        if rules is not None:
            try:
                landlock.restrict(
                    rules["read"], rules["write"], list_only=rules.get("list", ()), deny_tcp=True
                )
            except OSError as exc:
                if rules.get("required", True):
                    raise SetupError("landlock", str(exc)) from None
        filt = cfg.get("seccomp")
        if filt is not None:
            try:
                program = seccomp.build(
                    deny_ipc=filt["deny_ipc"],
                    deny_sockets=filt["deny_sockets"],
                    deny_inotify=filt.get("deny_inotify", False),
                )
                seccomp.install(program)
            except OSError as exc:
                raise SetupError("seccomp", str(exc)) from None
        for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        os.chdir(cfg["workdir"])
        env = cfg["env"]
        argv = cfg["argv"]
        executable = argv[0]
        if "/" not in executable:
            for directory in env.get("PATH", "/usr/bin:/bin").split(":"):
                candidate = os.path.join(directory or ".", executable)
                if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                    executable = candidate
                    break
        os.execve(executable, argv, env)
    except SetupError as exc:
        message = str(exc)
    except OSError as exc:
        message = f"exec: cannot run {cfg['argv'][0]!r}: {exc.strerror or exc}"
    except Exception as exc:  # anything else must still be reported, not printed
        message = f"exec: {exc!r}"
    try:
        os.write(error_fd, message.encode()[:4000])
    finally:
        os._exit(127)


def _start_bot(cfg: dict) -> tuple[int, str | None]:
    """Fork C and learn whether its program was executed: (pid, error or None)."""
    err_r, err_w = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid == 0:
        os.close(err_r)
        _exec_bot(cfg, err_w)
    os.close(err_w)
    chunks = []
    while True:
        data = os.read(err_r, 4096)
        if not data:
            break
        chunks.append(data)
    os.close(err_r)
    error = b"".join(chunks).decode(errors="replace")
    return pid, error or None


def _let_go_of_stdio() -> None:
    """Point 0-2 at /dev/null: only the bot may hold its pipes, so that its closing
    stdin or stdout is seen by the referee as it happens."""
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _supervise(cfg: dict, status_fd: int, after_exit: Callable[[], None]) -> None:
    """Start the bot, say ``ready``, wait for its leader, run ``after_exit`` (which may
    kill what the bot left), and report ``exit``; ``error`` and exit if it cannot start."""
    pid, error = _start_bot(cfg)
    if error is not None:
        _report(status_fd, f"error {error}")
        os._exit(1)
    _let_go_of_stdio()
    _report(status_fd, "ready")
    status = _wait_for(pid)
    after_exit()
    _report(status_fd, f"exit {status} {_children_cpu_ns()}")


def _report(status_fd: int, line: str) -> None:
    try:  # noqa: SIM105
        os.write(status_fd, (line + "\n").encode())
    except OSError:  # the referee is gone: nothing to tell
        pass


def _children(parent: int) -> list[int]:
    """Pids whose parent is ``parent`` (a scan of /proc)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == parent:
            found.append(int(name))
    return found


def _reap_all() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _children_cpu_ns() -> int:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return int((usage.ru_utime + usage.ru_stime) * 1e9)


def _wait_for(leader: int) -> int:
    """Reap children (orphans included) until ``leader`` ends; its wait status."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return 0
        except InterruptedError:
            continue
        if pid == leader:
            return status


def _run_init(cfg: dict, status_fd: int, lifeline: int) -> None:
    """B: pid 1 of the bot's pid namespace.  Never returns."""
    code = 0
    try:
        _libc.prctl(ctypes.c_int(PR_SET_PDEATHSIG), ctypes.c_ulong(signal.SIGKILL), 0, 0, 0)
        # P died before the line above took effect: its end of the lifeline is closed.
        # (getppid() cannot tell: P is outside this pid namespace, so it reads 0.)
        if select.select([lifeline], [], [], 0)[0]:
            os._exit(1)
        os.close(lifeline)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _build_root(cfg)
        _supervise(cfg, status_fd, lambda: None)
    except SetupError as exc:
        _report(status_fd, f"error {exc}")
        code = 1
    except OSError as exc:
        _report(status_fd, f"error setup: {exc}")
        code = 1
    # Exiting as pid 1 makes the kernel kill everything left in the namespace.
    os._exit(code)


def _kill_descendants(deadline: float) -> None:
    """landlock mode: SIGKILL and reap every descendant (they are all our children, as
    the subreaper, once their parents die) until none is left or time is up."""
    me = os.getpid()
    quiet = 0
    while time.monotonic() < deadline and quiet < 3:
        children = _children(me)
        for pid in children:
            try:  # noqa: SIM105
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _reap_all()
        quiet = 0 if children else quiet + 1
        if children:
            time.sleep(0.001)


def _sweep_and_exit(*_: object) -> None:
    _kill_descendants(time.monotonic() + 2.0)
    os._exit(1)


def main() -> None:
    config_fd, status_fd = int(sys.argv[1]), int(sys.argv[2])
    with os.fdopen(config_fd, "rb") as fh:
        cfg = marshal.loads(fh.read())
    os.set_inheritable(status_fd, False)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        if cfg["mode"] == "namespaces":
            _enter_namespaces(cfg)
            lifeline, held = os.pipe()
            init = os.fork()
            if init == 0:
                os.close(held)
                _run_init(cfg, status_fd, lifeline)
            os.close(lifeline)
            _let_go_of_stdio()
            _wait_for(init)
        else:
            _libc.prctl(ctypes.c_int(PR_SET_CHILD_SUBREAPER), ctypes.c_ulong(1), 0, 0, 0)
            # Without a pid namespace nothing kills the bot's processes if we die: so when
            # the referee dies (even by SIGKILL) we get SIGTERM instead, and sweep first.
            signal.signal(signal.SIGTERM, _sweep_and_exit)
            _libc.prctl(ctypes.c_int(PR_SET_PDEATHSIG), ctypes.c_ulong(signal.SIGTERM), 0, 0, 0)
            if os.getppid() != cfg["referee"]:
                _sweep_and_exit()
            _supervise(cfg, status_fd, lambda: _kill_descendants(time.monotonic() + 2.0))
    except SetupError as exc:
        _report(status_fd, f"error {exc}")
        os._exit(1)
    except OSError as exc:
        _report(status_fd, f"error setup: {exc}")
        os._exit(1)
    os._exit(0)


if __name__ == "__main__":
    main()
