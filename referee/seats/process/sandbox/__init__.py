"""What a bot process is allowed: the isolation layers, set up around its spawn.

Layers, weakest to strongest (``--sandbox``; ``auto`` picks the strongest that works
here, ``strict`` the strongest or refuses to run):

``none``
    Its own session, a private 0700 working directory, a minimal environment, psutil
    accounting of its whole tree, every wait bounded.  For debugging, not for
    untrusted code.
``rlimits``
    Adds kernel rlimits as backstops, ``oom_score_adj`` 1000, and, when the referee is
    root, a uid of the bot's own.
``landlock``
    For machines that refuse unprivileged user namespaces: the bot runs under a
    supervisor (a child subreaper, so nothing it starts escapes accounting), confined
    by Landlock (reads only system and its own files, writes only its working
    directory, no TCP; signals and abstract sockets scoped to itself) and a seccomp
    filter (no ptrace, no sockets, no System V or POSIX IPC, no namespaces).
``namespaces``
    The default wherever the kernel allows it, root or not: the supervisor puts the bot
    in new user, pid, network, IPC, UTS and mount namespaces, behind a root that holds
    only the system directories and the bot's own files (read-only), a fresh /proc,
    and one size-capped tmpfs for /tmp, /dev/shm and its working directory; Landlock,
    the seccomp filter and a per-bot process cap on top.  As root, a uid of its own and
    (where available) a cgroup.
``bwrap``
    bubblewrap, where it is installed: namespaces much like the layer above, without
    the seccomp filter, Landlock or the process cap.

:mod:`referee.seats.process.sandbox.supervisor` builds the supervised layers; :mod:`.spawn` starts
every bot with bounded waits.  docs/security.md has the threat model and a measured
table of what each layer stops.
"""

from __future__ import annotations

import ctypes
import enum
import functools
import json
import math
import os
import resource
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from referee.core.limits import Limits
from referee.seats.process.sandbox import cgroups, landlock, seccomp

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
#: Files a bot running as root must not read.
_SECRET_FILES = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers")
_SECRET_DIRS = ("/etc/ssh", "/etc/sudoers.d", "/etc/ssl/private")

#: Directories a sandboxed bot sees read-only (when they exist).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
#: Also visible, read-only, under the supervised layers: runtimes (the JVM, Go) read
#: the CPU and memory topology there.
_SYSFS = "/sys"
#: The wire modules are public: sandboxed Python bots may import them.
PROTOCOL_DIR = str(Path(__file__).resolve().parents[4] / "protocol")
SUPERVISOR = str(Path(__file__).resolve().parent / "supervisor.py")
#: Device files a bot under Landlock alone may write (it reads all of /dev).
_WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty")
#: Memory the supervisor's processes may use in a bot's cgroup on top of the bot's cap.
_SUPERVISOR_ROOM = 64 << 20


class Layer(enum.StrEnum):
    NONE = "none"
    RLIMITS = "rlimits"
    LANDLOCK = "landlock"
    NAMESPACES = "namespaces"
    BWRAP = "bwrap"


CHOICES = ("auto", "strict", *(layer.value for layer in Layer))
#: What ``auto`` tries, strongest first.
_PREFERENCE = (Layer.NAMESPACES, Layer.BWRAP, Layer.LANDLOCK, Layer.RLIMITS)


class RootBotRefused(Exception):
    """As root, a bot could not get a uid of its own and --allow-root-bots was not given."""


def is_root() -> bool:
    return os.geteuid() == 0


# ---------------------------------------------------------------------- probes


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
        # As bots get it: --disable-userns needs bubblewrap >= 0.8, --size >= 0.7 and a
        # bwrap that is not setuid.
        "--unshare-user",
        "--disable-userns",
        "--size",
        "1048576",
        "--tmpfs",
        "/tmp",
        "true",
    ]
    uid = _probe_uid()
    kwargs = {"user": uid, "group": uid, "extra_groups": []} if uid is not None else {}
    try:
        done = subprocess.run(probe, capture_output=True, timeout=10, check=False, **kwargs)
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        reap_orphans()  # bwrap's sandbox init re-parents to us when we are the subreaper
    return done.returncode == 0


def _probe_uid() -> int | None:
    return _UID_BASE + _UID_SLOTS - 1 if is_root() else None  # the last slot is the probes'


@functools.cache
def supervised_problem(layer: Layer) -> str | None:
    """Why ``layer`` (namespaces or landlock) cannot run bots here; None if it can.

    Probed once: the supervisor runs ``/bin/true`` (or ``true`` from the system) under
    the layer, exactly as it runs bots.
    """
    if not sys.platform.startswith("linux"):
        return "needs Linux"
    if layer is Layer.LANDLOCK:
        if landlock.abi_version() < 1:
            return "Landlock is not available in this kernel"
        if seccomp.arch() is None:
            return f"no seccomp filter for {os.uname().machine}"
    program = shutil.which("true", path="/usr/bin:/bin")
    if program is None:
        return "no 'true' program to probe with"
    workdir = _mkdtemp("probe")
    try:
        uid = _probe_uid()
        if uid is not None:
            os.chown(workdir, uid, uid)
        config = _supervisor_config(
            layer, [program], {"PATH": "/usr/bin:/bin"}, workdir, uid, [], Limits(), []
        )
        config_r, config_w = os.pipe()
        status_r, status_w = os.pipe()
        os.write(config_w, json.dumps(config).encode())
        os.close(config_w)
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-S", SUPERVISOR, str(config_r), str(status_w)],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                pass_fds=(config_r, status_w),
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return f"the supervisor did not run: {exc}"
        finally:
            os.close(config_r)
            os.close(status_w)
        with os.fdopen(status_r, "rb") as fh:
            lines = fh.read().decode(errors="replace").splitlines()
        errors = [line.removeprefix("error ") for line in lines if line.startswith("error ")]
        if errors:
            return errors[0]
        if not lines or lines[0] != "ready" or not any(line.startswith("exit 0 ") for line in lines):
            tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no status"]
            return f"the probe did not run cleanly: {tail[0]}"
        return None
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        reap_orphans()


def problem(layer: Layer) -> str | None:
    """Why ``layer`` cannot run bots here (None: it can)."""
    if layer in (Layer.NONE, Layer.RLIMITS):
        return None
    if layer is Layer.BWRAP:
        return None if bwrap_works() else "bubblewrap is not installed or cannot create namespaces here"
    return supervised_problem(layer)


def choose(requested: str) -> Layer:
    """The layer for ``--sandbox requested``; raises ValueError if it cannot work here."""
    if requested == "auto":
        return next(layer for layer in _PREFERENCE if problem(layer) is None)
    if requested == "strict":
        reason = problem(Layer.NAMESPACES)
        if reason is None and seccomp.arch() is None:
            reason = f"no seccomp filter for {os.uname().machine}"
        if reason is not None:
            raise ValueError(f"--sandbox strict: the namespaces layer cannot run here ({reason})")
        return Layer.NAMESPACES
    try:
        layer = Layer(requested)
    except ValueError:
        raise ValueError(f"--sandbox {requested}: no such layer (choose from {', '.join(CHOICES)})") from None
    reason = problem(layer)
    if reason is not None:
        raise ValueError(f"--sandbox {layer}: {reason}")
    return layer


#: What each layer leaves open, for the console line when a stronger one would work.
GAPS = {
    Layer.NONE: "no isolation at all: a bot can read and write your files, talk to the other bots, "
    "and signal any of your processes",
    Layer.RLIMITS: "bots can read and write your files, talk to each other and signal your processes "
    "(as root: a uid of their own stops most of it)",
    Layer.LANDLOCK: "no private /tmp or process namespace: the working directory is on disk and, on "
    "kernels before 6.12, a bot can signal your other processes",
    Layer.BWRAP: "no seccomp filter and no process cap for non-root users",
    Layer.NAMESPACES: "",
}


def advice(layer: Layer) -> str | None:
    """One line for the console when ``layer`` is weaker than the strongest this machine
    allows, or None when it is the strongest."""
    best = choose("auto")
    if layer in _PREFERENCE and _PREFERENCE.index(layer) <= _PREFERENCE.index(best):
        return None
    return (
        f"sandbox {layer} does not stop everything: {GAPS[layer]}; "
        f"use --sandbox {best} (the strongest here), or --sandbox strict to refuse anything weaker"
    )


def best_possible_note() -> str | None:
    """Why even ``auto`` is weaker than the namespaces layer here, and how to get it."""
    reason = problem(Layer.NAMESPACES)
    if reason is None:
        return None
    return (
        f"the namespaces sandbox cannot run here ({reason}); "
        "enable unprivileged user namespaces (e.g. sysctl kernel.apparmor_restrict_unprivileged_userns=0 "
        "on Ubuntu) or install bubblewrap for stronger isolation"
    )


def _mkdtemp(name: str) -> str:
    path = tempfile.mkdtemp(prefix=f"referee-{name}-")
    os.chmod(path, 0o700)
    return path


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


# ---------------------------------------------------------------------- uids


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
    return _readable_leaf(str(current))


def _readable_leaf(path: str) -> bool:
    """Whether a stranger may read ``path`` itself (and list it, for a directory): under
    the namespaces layer the directories above a bound path are made anew, open to all."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return bool(mode & stat.S_IROTH) and (not stat.S_ISDIR(mode) or bool(mode & stat.S_IXOTH))


# ---------------------------------------------------------------------- plans


@dataclass
class Jail:
    """How one bot process is spawned: what runs, as whom, and the layer in force."""

    argv: list[str]
    layer: Layer
    uid: int | None = None
    #: Why a stronger part of the layer is not in force (empty when all of it is).
    note: str = ""
    env_path: str = ""
    #: The supervisor's configuration (supervised layers), or None.
    config: dict | None = None
    #: What is in force besides the layer itself, for the description.
    parts: list[str] = field(default_factory=list)
    #: Per-bot cgroup (root), or None.
    cgroup: cgroups.BotCgroup | None = None
    #: Kernel limits the spawn sets before exec (the layers without a supervisor; the
    #: supervisor sets the bot's own).
    rlimits: list[tuple[int, tuple[int, int]]] = field(default_factory=list)

    @property
    def description(self) -> str:
        parts = [self.layer.value]
        if self.uid is not None:
            parts.append(f"uid {self.uid}")
        parts += self.parts
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

    found = {prefix(Path(os.path.abspath(program))), prefix(Path(os.path.realpath(program)))}
    # Every link on the way too: a venv's python -> ~/tools/python3 -> /usr/bin/python3.11.
    hop = os.path.abspath(program)
    for _ in range(40):
        if not os.path.islink(hop):
            break
        hop = os.path.join(os.path.dirname(hop), os.readlink(hop))
        found.add(prefix(Path(os.path.normpath(hop))))
    return found


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


def _system_path(path_dirs: list[str]) -> str:
    """The bot's PATH in a sandbox: the user's PATH entries it can see (the system's),
    then the standard ones, so that ``awk`` or ``python3`` is found whatever the user's
    PATH looks like."""
    kept = [d for d in path_dirs if _under(d, SYSTEM_DIRS)]
    kept += [d for d in ("/usr/local/bin", "/usr/bin", "/bin") if d not in kept]
    return os.pathsep.join(kept)


def _under(path: str, dirs: Iterable[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


def _is_binary(path: str) -> bool:
    try:
        with open(os.path.realpath(path), "rb") as fh:
            return fh.read(4) == b"\x7fELF"
    except OSError:
        return False


def _resolve_program(argv: list[str], path_dirs: list[str]) -> list[str]:
    """``argv`` with a bare program name made absolute when it must come from outside
    the system directories: a program found first on the user's PATH outside them (a
    virtualenv's python, a Node from nvm) is used as it is, if it is a real binary; a
    wrapper script (a pyenv shim) could not work in the sandbox, so the system's
    program of that name is used instead when there is one."""
    program = argv[0]
    if os.path.isabs(program) or "/" in program:
        return argv
    found = shutil.which(program, path=os.pathsep.join(path_dirs))
    if found is None or _under(found, SYSTEM_DIRS):
        return argv
    system = shutil.which(program, path=os.pathsep.join(d for d in path_dirs if _under(d, SYSTEM_DIRS)))
    if _is_binary(found) or system is None:
        return [found, *argv[1:]]
    return argv


#: Directories never bound whole: they hold the private tmpfs (or everyone's files).
_SHARED_DIRS = ("/", "/tmp", "/var/tmp", "/dev", "/dev/shm", "/proc", "/home", "/root")


def _visible(argv: list[str], home: str, workdir: str = "") -> list[str]:
    """What a bot sees read-only besides the system: its own directory, the wire
    modules, and the installation of its program and of any file its command names.

    A directory shared with others (``/tmp`` itself, the user's home directory, where
    their keys are) or one that holds the bot's working directory is never bound whole: only the files the
    command names are, so a bot kept loose in /tmp cannot read everything else there.
    """
    named = [w for w in argv if os.path.isabs(w) and os.path.exists(w)]
    visible = {PROTOCOL_DIR}
    wanted = [home]
    for word in named:
        if _under(word, (home, *SYSTEM_DIRS)):
            continue
        wanted += sorted(_installations(word)) if word == argv[0] else [str(Path(word).parent)]
    shared_dirs = {*_SHARED_DIRS, os.path.expanduser("~")}
    for path in wanted:
        shared = path in shared_dirs or (workdir and _under(workdir, [path]))
        if shared:
            visible.update(w for w in named if _under(w, [path]) and not _under(w, SYSTEM_DIRS))
        else:
            visible.add(path)
    return sorted(visible)


def _supervisor_config(
    layer: Layer,
    argv: list[str],
    env: dict[str, str],
    workdir: str,
    uid: int | None,
    visible: list[str],
    limits: Limits,
    parts: list[str],
) -> dict:
    """The supervisor's configuration for one bot (see referee/seats/process/sandbox/supervisor.py)."""
    rlimits = [[res, soft, hard] for res, (soft, hard) in rlimits_for(limits)]
    config: dict = {
        "mode": str(layer),
        "argv": argv,
        "env": env,
        "workdir": workdir,
        "uid": uid,
        "rlimits": rlimits,
        "tmpfs_bytes": limits.disk_bytes,
        "referee": os.getpid(),
    }
    abi = min(landlock.abi_version(), landlock.HIGHEST_USED_ABI)
    has_seccomp = seccomp.arch() is not None
    if layer is Layer.NAMESPACES:
        config["ro_binds"] = [*(d for d in SYSTEM_DIRS if os.path.exists(d)), _SYSFS, *visible]
        config["nproc"] = limits.processes
        if uid is None and is_root():  # --allow-root-bots: a uid-0 bot must not read these
            config["mask_files"] = list(_SECRET_FILES)
            config["mask_dirs"] = list(_SECRET_DIRS)
        if abi:
            # Everything visible is already chosen: Landlock here guards writes and
            # scopes signals, as a second wall behind the mount namespace.
            write = [workdir, "/tmp", "/dev/shm", *_WRITABLE_DEVICES]
            config["landlock"] = {"read": ["/"], "write": write, "required": False}
            parts.append(f"landlock {abi}")
        if has_seccomp:
            config["seccomp"] = {"deny_ipc": False, "deny_sockets": False}
            parts.append("seccomp")
        parts.append(f"nproc {limits.processes}")
        parts.append(f"tmpfs {limits.disk_bytes >> 20} MiB")
    else:
        # Not all of /dev (the user's terminals, /dev/shm) nor of /sys (other bots' cgroups).
        devices = [*_WRITABLE_DEVICES, "/dev/random", "/dev/urandom"]
        read = [
            *(d for d in SYSTEM_DIRS if os.path.exists(d)),
            "/sys/devices/system",
            "/proc",
            *devices,
            *visible,
        ]
        config["landlock"] = {"read": read, "write": [workdir, *_WRITABLE_DEVICES], "required": True}
        config["seccomp"] = {"deny_ipc": True, "deny_sockets": True}
        parts += [f"abi {abi}", "seccomp"]
        if uid is not None:
            config["nproc"] = limits.processes  # a uid of its own: the count is the bot's alone
            parts.append(f"nproc {limits.processes}")
        elif not is_root():
            config["nproc"] = _user_tasks() + limits.processes
            parts.append(f"nproc +{limits.processes}")
    return config


def _user_tasks() -> int:
    """Tasks (threads included: RLIMIT_NPROC counts them) of our real uid now."""
    uid = os.getuid()
    total = 0
    for proc in psutil.process_iter(["uids", "num_threads"]):
        uids = proc.info["uids"]
        if uids is not None and uids.real == uid:
            total += proc.info["num_threads"] or 1
    return total


def _root_refusal(name: str, unreadable: str) -> RootBotRefused:
    return RootBotRefused(
        f"bot {name} cannot run under a uid of its own: {unreadable} is not readable by other users; "
        "make its files world-readable (chmod -R o+rX), or pass --allow-root-bots to run it as root "
        "(never for untrusted code)"
    )


def jail(
    argv: list[str],
    home: str,
    workdir: str,
    layer: Layer,
    limits: Limits | None = None,
    *,
    env: dict[str, str] | None = None,
    allow_root: bool = False,
    name: str = "bot",
) -> Jail:
    """Decide how to spawn ``argv`` under ``layer`` (chowns ``workdir`` to the bot's uid).

    As root, a bot gets a uid of its own or, when its files are not readable by that
    uid, is refused (:class:`RootBotRefused`) unless ``allow_root``: never silently root.
    """
    limits = limits or Limits()
    if layer is Layer.NONE:
        return Jail(argv=argv, layer=layer)
    root = is_root()
    path_dirs = os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
    files = [w for w in argv if os.path.isabs(w) and os.path.exists(w)]

    def own_uid(needed: Iterable[str], leaf_only: bool) -> tuple[int | None, str]:
        if not root:
            return None, ""
        check = _readable_leaf if leaf_only else _reachable
        unreadable = [p for p in needed if not check(p)]
        if unreadable:
            if not allow_root:
                raise _root_refusal(name, unreadable[0])
            return None, "as root (--allow-root-bots)"
        uid = _allocate_uid()
        if uid is None:
            if not allow_root:
                raise RootBotRefused(f"bot {name}: all {_UID_SLOTS - 1} bot uids of this referee are in use")
            return None, "as root (--allow-root-bots)"
        os.chown(workdir, uid, uid)
        return uid, ""

    def direct_rlimits(uid: int | None) -> list[tuple[int, tuple[int, int]]]:
        # RLIMIT_NPROC counts per uid: only a uid of its own makes it the bot's alone.
        nproc = [(resource.RLIMIT_NPROC, (limits.processes, limits.processes))] if uid is not None else []
        return [*rlimits_for(limits), *nproc]

    if layer is Layer.RLIMITS:
        uid, note = own_uid([home, *files], leaf_only=False)
        if uid is None:
            note = note or ("same uid as the referee" if not root else "")
            return Jail(argv=argv, layer=layer, note=note, rlimits=direct_rlimits(None))
        reachable_path = os.pathsep.join(d for d in path_dirs if _reachable(d))
        return Jail(argv=argv, layer=layer, uid=uid, env_path=reachable_path, rlimits=direct_rlimits(uid))

    if layer is Layer.BWRAP:
        # Order matters: the private /tmp goes first, then the binds that may lie under it.
        size = str(limits.disk_bytes)
        binds = [*_system_binds(), "--proc", "/proc", "--dev", "/dev"]
        binds += ["--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/dev/shm"]
        visible = _visible(argv, home, workdir)
        for path in visible:
            binds += ["--ro-bind", path, path]
        # bwrap runs as the bot's uid, so it can only bind what a stranger may reach.
        uid, note = own_uid(visible, leaf_only=False)
        inner = [
            shutil.which("bwrap") or "bwrap",
            "--unshare-all",
            *(["--unshare-user", "--disable-userns"] if uid is not None or not root else []),
            # Safe: the referee spawns from its main thread, never from a trio worker thread
            # (whose exit would fire PR_SET_PDEATHSIG and kill the bot mid-game).
            "--die-with-parent",
            *binds,
            # Its working directory: a private tmpfs of bounded size, so it cannot fill the disk.
            "--size", size, "--tmpfs", workdir,
            # bubblewrap's own root is an unbounded tmpfs the bot's uid owns: read-only.
            "--remount-ro", "/",
            "--chdir", workdir,
            "--",
            *argv,
        ]  # fmt: skip
        env_path = _system_path(path_dirs)
        return Jail(
            argv=inner, layer=layer, uid=uid, note=note, env_path=env_path, rlimits=direct_rlimits(uid)
        )

    # The supervised layers.
    argv = _resolve_program(argv, path_dirs)
    visible = _visible(argv, home, workdir)
    sandbox_path = _system_path(path_dirs)
    # Under namespaces only what is bound must be readable (the directories above it are
    # made anew); under Landlock the real path must be reachable too.
    uid, note = own_uid(visible, leaf_only=layer is Layer.NAMESPACES)
    parts: list[str] = []
    bot_env = dict(env or {})
    bot_env["PATH"] = sandbox_path
    config = _supervisor_config(layer, argv, bot_env, workdir, uid, visible, limits, parts)
    cgroup = None
    if root and cgroups.probe() is None:
        try:
            # The kernel's caps are backstops behind the monitor: room for the supervisor
            # (~20 MiB, itself in the cgroup) and its own processes.
            memory = None if limits.memory_bytes is None else limits.memory_bytes + _SUPERVISOR_ROOM
            cgroup = cgroups.BotCgroup.create(
                f"{name}-{secrets.token_hex(3)}", pids_max=limits.processes + 4, memory_max=memory
            )
            parts.append("cgroup")
        except cgroups.Unavailable as exc:
            note = f"{note}; no cgroup: {exc}".lstrip("; ")
    return Jail(
        argv=[sys.executable, "-I", "-S", SUPERVISOR, "3", "4"],
        layer=layer,
        uid=uid,
        note=note,
        env_path=sandbox_path,
        config=config,
        parts=parts,
        cgroup=cgroup,
    )


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
