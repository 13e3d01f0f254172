"""The plan for one bot's spawn under a layer: the jail it runs in.

:func:`jail` takes a bot's command and the chosen layer and returns a :class:`Jail`,
the plan the spawn (:mod:`.spawn`) carries out: the argv to execute, the uid to run
as, the rlimits to set before exec, and, for the supervised layers, the configuration
handed to the supervisor (:func:`_supervisor_config`), which builds the sandbox from
inside and then executes the bot.

Planning is kept apart from doing: nothing here starts a process.  What planning does
reserve is the bot's own: its uid (as root; given back with :func:`.uids.release_uid`),
its working directory (handed to that uid) and, as root or in a cgroup subtree delegated
to the user, a cgroup (without one the description says what is not capped).  As root a
bot never silently runs as root: it gets a uid of its own or is refused
(:class:`RootBotRefused`), unless ``--allow-root-bots``.

:func:`bot_environment` builds the minimal environment every bot starts with.
"""

from __future__ import annotations

import os
import resource
import secrets
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field

import psutil

from referee.core.limits import Limits
from referee.seats.process.sandbox import cgroups, landlock, seccomp
from referee.seats.process.sandbox.layers import Layer
from referee.seats.process.sandbox.paths import (
    _SECRET_DIRS,
    _SECRET_FILES,
    _SYSFS,
    _WRITABLE_DEVICES,
    PROTOCOL_DIR,
    SUPERVISOR_COMMAND,
    SYSTEM_DIRS,
)
from referee.seats.process.sandbox.reaping import TOKEN_VAR
from referee.seats.process.sandbox.rlimits import rlimits_for
from referee.seats.process.sandbox.uids import _UID_SLOTS, _allocate_uid, _reachable, _readable_leaf, is_root
from referee.seats.process.sandbox.visibility import (
    _resolve_program,
    _system_binds,
    _system_path,
    _visible,
)

#: Where a bot's own files (its manifest directory) are, since it runs elsewhere.
HOME_VAR = "REFEREE_BOT_DIR"
#: The bot's environment names the referee's ``protocol`` package (its directory).
PROTOCOL_VAR = "REFEREE_PROTOCOL"
#: Memory the supervisor's processes may use in a bot's cgroup on top of the bot's cap.
_SUPERVISOR_ROOM = 64 << 20
#: What only a cgroup caps: kernel memory that no process's RSS shows (docs/security.md).
UNCAPPED = "so kernel memory is not capped (socket and pipe buffers, epoll watches, other kernel objects)"


class RootBotRefused(Exception):
    """As root, a bot could not get a uid of its own and --allow-root-bots was not given."""


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
    #: Per-bot cgroup (root, or a delegated subtree), or None.
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


#: Kernel counts kept per user namespace (/proc/sys/user/ inside it), set in a non-root
#: bot's own: its inotify instances and watches count against these as well as against
#: the user's (128 instances by default), so a bot cannot use up what the user's file
#: watchers, editors and ``tail -f`` need.  fanotify_init is denied by seccomp besides.
USER_NS_LIMITS: dict[str, int] = {
    "max_inotify_instances": 8,
    "max_inotify_watches": 1024,
    "max_fanotify_groups": 0,
    "max_fanotify_marks": 0,
}


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
        if not is_root():
            # Counted per user namespace: the user's own allowance stays the user's.
            config["userns_limits"] = dict(USER_NS_LIMITS)
        if has_seccomp:
            # IPC too, although the IPC namespace is the bot's own: a System V segment
            # detached, or a message queue, holds memory that no process's RSS shows.
            config["seccomp"] = {"deny_ipc": True, "deny_sockets": False, "deny_inotify": False}
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
        config["landlock"] = {
            "read": read,
            "write": [workdir, *_WRITABLE_DEVICES],
            # The project's root may be listed, not read: a Python bot that puts it on
            # sys.path (as the sample players do) imports `protocol` only if its importer
            # can list the directory holding it.
            "list": [os.path.dirname(PROTOCOL_DIR)],
            "required": True,
        }
        # No user namespace to count inotify in apart from the user's other programs.
        config["seccomp"] = {"deny_ipc": True, "deny_sockets": True, "deny_inotify": True}
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
    # As root, or where the user has a delegated cgroup subtree (cgroups.py).
    reason = cgroups.probe()
    if reason is None:
        try:
            # The kernel's caps are backstops behind the monitor: room for the supervisor
            # (~20 MiB, itself in the cgroup) and its own processes.
            memory = None if limits.memory_bytes is None else limits.memory_bytes + _SUPERVISOR_ROOM
            cgroup = cgroups.BotCgroup.create(
                f"{name}-{secrets.token_hex(3)}", pids_max=limits.processes + 4, memory_max=memory
            )
            parts.append("cgroup (delegated)" if cgroup.delegated else "cgroup")
        except cgroups.Unavailable as exc:
            reason = str(exc)
    if cgroup is None:
        note = f"{note}; no cgroup, {UNCAPPED}: {reason}".lstrip("; ")
    return Jail(
        argv=[sys.executable, *SUPERVISOR_COMMAND, "3", "4"],
        layer=layer,
        uid=uid,
        note=note,
        env_path=sandbox_path,
        config=config,
        parts=parts,
        cgroup=cgroup,
    )


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
        # The referee's stdlib-only wire package, visible under every layer: a copied
        # sample player (or any bot) outside the checkout finds it here, under a Python
        # without the referee (docs/writing-a-bot.md).
        PROTOCOL_VAR: PROTOCOL_DIR,
    }
    return env, token
