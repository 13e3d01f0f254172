"""What a bot process is allowed: the isolation layers, set up around its spawn.

Layers, weakest to strongest (``--sandbox``; ``auto`` picks the strongest that works):

``none``
    Its own session and process group, a private 0700 working directory, a minimal
    environment, psutil accounting of its whole tree, every wait bounded.  For
    debugging a bot, not for untrusted code.
``rlimits``
    Adds kernel rlimits as backstops (CPU seconds, file size, no core dumps, open files,
    optionally address space), ``oom_score_adj`` 1000 so the OOM killer takes a bot
    before the referee, and — when the referee runs as root — a distinct unprivileged
    uid per bot, so bots cannot signal, trace or read each other or the referee, and the
    final sweep can kill everything that uid owns.
``bwrap``
    Adds bubblewrap namespaces: no network, its own pid namespace (with a fresh /proc),
    read-only system directories, only its own working directory writable, its own
    files read-only, private /tmp and /dev/shm, and nothing else of the file system.

docs/security.md has the threat model and what each layer stops.
"""

from __future__ import annotations

import ctypes
import enum
import functools
import math
import os
import resource
import secrets
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import psutil

from referee.limits import Limits

#: Environment variable carrying a per-bot random token; the final sweep finds escaped
#: descendants (a double-forked daemon) by it.
TOKEN_VAR = "REFEREE_BOT_TOKEN"
#: Where a bot's own files (its manifest directory) are, since it runs elsewhere.
HOME_VAR = "REFEREE_BOT_DIR"

_PR_SET_CHILD_SUBREAPER = 36

#: Bot uids: a block of 64 per referee process, from its pid (unique among live
#: processes), far above the usual /etc/subuid ranges and below 2**31.
_UID_BASE = 1_000_000_000 + os.getpid() * 64
_UID_SLOTS = 64
_uids_in_use: set[int] = set()
#: Files a bot running as root inside bubblewrap must not read.
_SECRET_FILES = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers")
_SECRET_DIRS = ("/etc/ssh", "/etc/sudoers.d", "/etc/ssl/private")

#: Directories a sandboxed bot sees read-only (when they exist).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
#: The wire modules are public: sandboxed Python bots may import them.
PROTOCOL_DIR = str(Path(__file__).resolve().parents[1] / "protocol")


class Layer(enum.StrEnum):
    NONE = "none"
    RLIMITS = "rlimits"
    BWRAP = "bwrap"


CHOICES = ("auto", *Layer)


@functools.cache
def bwrap_works() -> bool:
    """Whether bubblewrap is installed and can build a sandbox here (probed once)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return False
    probe = [
        exe,
        "--unshare-all",
        "--die-with-parent",
        *_system_binds(),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        # As bots get it: --size needs bubblewrap >= 0.7 and a bwrap that is not setuid.
        "--size",
        "1048576",
        "--tmpfs",
        "/tmp",
        "true",
    ]
    uid = _UID_BASE + _UID_SLOTS - 1  # reserved for the probe
    kwargs = {"user": uid, "group": uid, "extra_groups": []} if os.geteuid() == 0 else {}
    try:
        done = subprocess.run(probe, capture_output=True, timeout=10, check=False, **kwargs)
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        reap_orphans()  # bwrap's sandbox init re-parents to us when we are the subreaper
    return done.returncode == 0


def choose(requested: str) -> Layer:
    """The layer for ``--sandbox requested``; raises ValueError if it cannot work here."""
    if requested == "auto":
        return Layer.BWRAP if bwrap_works() else Layer.RLIMITS
    layer = Layer(requested)
    if layer is Layer.BWRAP and not bwrap_works():
        raise ValueError("--sandbox bwrap: bubblewrap is not installed or cannot create namespaces here")
    return layer


def _system_binds() -> list[str]:
    args = []
    for path in SYSTEM_DIRS:
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    # A bot that runs as root (no uid of its own was possible) could read these.
    for path in _SECRET_FILES:
        if os.path.isfile(path):
            args += ["--ro-bind", "/dev/null", path]
    for path in _SECRET_DIRS:
        if os.path.isdir(path):
            args += ["--tmpfs", path]
    return args


def _allocate_uid() -> int | None:
    """A uid no live process has, from this referee's block; None if all are busy."""
    owned = set()
    for proc in psutil.process_iter(["uids"]):
        uids = proc.info["uids"]
        if uids is not None:
            owned.update((uids.real, uids.effective))
    for uid in range(_UID_BASE, _UID_BASE + _UID_SLOTS - 1):  # the last one is the probe's
        if uid not in _uids_in_use and uid not in owned:
            _uids_in_use.add(uid)
            return uid
    return None


def release_uid(uid: int | None) -> None:
    """Give a bot's uid back, once nothing of the bot is left."""
    _uids_in_use.discard(uid)


def _reachable(path: str) -> bool:
    """Whether a stranger (a uid in no group of the file) can reach ``path``."""
    parts = Path(path).resolve().parts
    current = Path(parts[0])
    for part in parts[1:]:
        try:
            mode = current.stat().st_mode
        except OSError:
            return False
        if not mode & stat.S_IXOTH:
            return False
        current = current / part
    try:
        mode = current.stat().st_mode
    except OSError:
        return False
    return bool(mode & stat.S_IROTH) and (not stat.S_ISDIR(mode) or bool(mode & stat.S_IXOTH))


@dataclass
class Jail:
    """How one bot process is spawned: what runs, as whom, and the layer in force."""

    argv: list[str]
    layer: Layer
    uid: int | None = None
    #: Why a stronger part of the layer is not in force (empty when all of it is).
    note: str = ""
    env_path: str = ""

    @property
    def description(self) -> str:
        parts = [self.layer.value]
        if self.uid is not None:
            parts.append(f"uid {self.uid}")
        if self.note:
            parts.append(self.note)
        return ", ".join(parts)


def _installations(program: str) -> set[str]:
    """The directory trees an absolute program needs: the prefix (``X`` for
    ``X/bin/prog``) of the path as named and of the file it resolves to — a
    virtualenv's ``python`` is a symlink into the base installation, and both hold
    parts of it (``pyvenv.cfg`` and site-packages; the standard library)."""

    def prefix(path: Path) -> str:
        return str(path.parent.parent if path.parent.name == "bin" else path.parent)

    return {prefix(Path(os.path.abspath(program))), prefix(Path(os.path.realpath(program)))}


def cannot_exec(argv: list[str], path: str) -> str | None:
    """Why ``argv`` cannot be executed (checked before spawning, whatever the layer)."""
    program = argv[0] if os.path.isabs(argv[0]) else shutil.which(argv[0], path=path)
    if program is None or not os.path.isfile(program):
        return f"no such program {argv[0]!r}"
    if not os.access(program, os.X_OK):
        return f"{program} is not executable"
    try:
        with open(program, "rb") as fh:
            head = fh.read(256)
    except OSError as exc:
        return f"cannot read {program}: {exc.strerror}"
    if head.startswith(b"#!"):
        words = head[2:].split(b"\n", 1)[0].split()
        interpreter = words[0].decode(errors="replace") if words else ""
        if not interpreter or not os.access(interpreter, os.X_OK):
            return f"{program}: its interpreter {interpreter!r} does not exist"
    return None


def _bot_uid(needed: list[str], root: bool) -> tuple[int | None, str]:
    """A fresh uid for a bot that needs ``needed``, or None and the reason why not."""
    if not root:
        return None, "same uid: the referee is not root"
    unreachable = [p for p in needed if not _reachable(p)]
    if unreachable:
        return None, f"same uid: {unreachable[0]} is not readable by other users"
    uid = _allocate_uid()
    if uid is None:
        return None, f"same uid: all {_UID_SLOTS - 1} bot uids of this referee are in use"
    return uid, ""


def jail(argv: list[str], home: str, workdir: str, layer: Layer, disk_bytes: int = 256 << 20) -> Jail:
    """Decide how to spawn ``argv`` under ``layer`` (chowns ``workdir`` to the bot's uid)."""
    if layer is Layer.NONE:
        return Jail(argv=argv, layer=layer)
    root = os.geteuid() == 0
    files = [w for w in argv if os.path.isabs(w) and os.path.exists(w)]
    path_dirs = os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
    if layer is Layer.RLIMITS:
        uid, note = _bot_uid([home, *files], root)
        if uid is None:
            return Jail(argv=argv, layer=layer, note=note)
        os.chown(workdir, uid, uid)
        reachable_path = os.pathsep.join(d for d in path_dirs if _reachable(d))
        return Jail(argv=argv, layer=layer, uid=uid, env_path=reachable_path)
    # bubblewrap: only system directories, the bot's own files, the wire modules and
    # its working directory exist for it.
    # Order matters: the private /tmp goes first, then the binds that may lie under it.
    size = str(disk_bytes)
    binds = [*_system_binds(), "--proc", "/proc", "--dev", "/dev"]
    binds += ["--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/dev/shm"]
    visible = {home, PROTOCOL_DIR}
    for word in files:
        if not word.startswith(tuple(d + "/" for d in (home, *SYSTEM_DIRS))):
            visible |= _installations(word) if word == argv[0] else {str(Path(word).parent)}
    for path in sorted(visible):
        binds += ["--ro-bind", path, path]
    # bwrap runs as the bot's uid, so it can only bind what a stranger may read.
    uid, note = _bot_uid(sorted(visible), root)
    if uid is not None:
        os.chown(workdir, uid, uid)
    inner = [
        shutil.which("bwrap") or "bwrap",
        "--unshare-all",
        # Safe: the referee spawns from its main thread, never from a trio worker thread
        # (whose exit would fire PR_SET_PDEATHSIG and kill the bot mid-game).
        "--die-with-parent",
        *binds,
        # Its working directory: a private tmpfs of bounded size, so it cannot fill the disk.
        "--size", size, "--tmpfs", workdir,
        "--chdir", workdir,
        "--",
        *argv,
    ]  # fmt: skip
    sandbox_path = os.pathsep.join(d for d in path_dirs if d.startswith(tuple(SYSTEM_DIRS)))
    return Jail(argv=inner, layer=layer, uid=uid, note=note, env_path=sandbox_path)


def become_subreaper() -> bool:
    """Make orphaned bot descendants re-parent to this process instead of init.

    A double-forked daemon then stays findable (and reapable) as our child.
    Linux only; returns whether it took effect.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


#: Bot leaders this process spawned and has not reaped yet: their exit status is
#: collected by their own BotProcess, never by :func:`reap_orphans`.
LEADERS: set[int] = set()


def reap_orphans() -> int:
    """Reap zombie children that are not bot leaders; returns how many.

    As a child subreaper the referee inherits every orphaned descendant of its bots.
    Once dead they are zombies whose environment can no longer be read, so they are
    collected here by what they are: dead children nobody else waits for.
    """
    reaped = 0
    try:
        children = psutil.Process().children()
    except psutil.Error:
        return 0
    for child in children:
        if child.pid in LEADERS:
            continue
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                continue
            if os.waitpid(child.pid, os.WNOHANG)[0]:
                reaped += 1
        except (psutil.Error, ChildProcessError):
            continue
    return reaped


def carrying_token(token: str, procs: Iterable[psutil.Process]) -> list[psutil.Process]:
    """The processes among ``procs`` whose environment carries a bot's sweep token.

    A process that changed or scrubbed its environment, or a zombie (whose environment
    can no longer be read), is not found this way.
    """
    marker = f"{TOKEN_VAR}={token}".encode()
    found = []
    for proc in procs:
        try:
            with open(f"/proc/{proc.pid}/environ", "rb") as fh:
                if marker in fh.read():
                    found.append(proc)
        except OSError:
            continue
    return found


def bot_environment(workdir: str, home: str) -> tuple[dict[str, str], str]:
    """A minimal environment for a bot, and its sweep token."""
    token = secrets.token_hex(8)
    env = {
        # The user's PATH, so that "python3 bot.py" runs the python3 they get at their
        # prompt (a virtualenv, Homebrew, pyenv); it names programs, it holds no secrets.
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": workdir,
        "TMPDIR": workdir,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        HOME_VAR: home,
        TOKEN_VAR: token,
    }
    return env, token


def _rlimit_value(value: float | None) -> int:
    if value is None or math.isinf(value):
        return resource.RLIM_INFINITY
    return int(value)


def rlimits_for(limits: Limits) -> list[tuple[int, tuple[int, int]]]:
    """The kernel backstops for ``limits`` as (resource, (soft, hard)) pairs."""
    out = [
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_FSIZE, (limits.file_size_bytes, limits.file_size_bytes)),
        (resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files)),
    ]
    if limits.cpu_s is not None and not math.isinf(limits.cpu_s):
        # Per process, whole seconds, and SIGXCPU can be caught: the hard limit one
        # second later delivers SIGKILL.  The monitor normally acts first.
        soft = math.ceil(limits.cpu_s) + 1
        out.append((resource.RLIMIT_CPU, (soft, soft + 1)))
    if limits.address_space_bytes is not None:
        cap = _rlimit_value(limits.address_space_bytes)
        out.append((resource.RLIMIT_AS, (cap, cap)))
    return out


def preexec(limits: Limits, layer: Layer = Layer.RLIMITS, uid: int | None = None) -> Callable[[], None]:
    """The function run in the child between fork and exec.

    It only makes system calls (no locks, no imports), which keeps it safe to run
    after fork.
    """
    pairs = rlimits_for(limits) if layer is not Layer.NONE else []
    if uid is not None and layer is not Layer.NONE:
        pairs.append((resource.RLIMIT_NPROC, (limits.processes, limits.processes)))
    setrlimit = resource.setrlimit
    linux = sys.platform.startswith("linux") and layer is not Layer.NONE

    def child() -> None:
        for res, value in pairs:
            try:  # noqa: SIM105 -- keep the code between fork and exec minimal
                setrlimit(res, value)
            except (ValueError, OSError):
                # A limit above our own hard limit cannot be raised: keep the lower one.
                pass
        if linux:
            try:
                fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
                os.write(fd, b"1000")
                os.close(fd)
            except OSError:
                pass
        if uid is not None:
            # Last, as root could still write oom_score_adj above: after setuid the
            # process is not dumpable and /proc/self belongs to root.
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)

    return child
