"""Per-bot cgroups: the kernel caps a bot's whole process tree and counts all of it.

rlimits and psutil see processes one at a time; a bot's double-forked daemon, a pid
hopper or pages it left in a tmpfs escape them.  A cgroup holds everything a bot ever
forks, so the kernel caps its processes (``pids``) and memory (``memory``, tmpfs pages
included), counts its CPU even for orphans nobody waits for, and lets the referee
freeze and kill the whole tree at once.

Standard library only and nothing of the ``referee`` package: the supervisor imports
this file as the top-level module ``cgroups`` under ``python3 -I -S`` (it only needs
:func:`join`).

Layouts, detected from ``/proc/self/mountinfo`` and ``/proc/self/cgroup``:

cgroup v1 (and the "hybrid" layout, where v1 holds the controllers and the v2 mount
    has none)
    One directory per hierarchy — ``pids``, ``memory``, ``cpuacct`` and ``freezer``,
    co-mounted hierarchies counted once — at the same relative path.  The referee's
    parent ``referee-<pid>`` goes *under the referee's own cgroup* in each hierarchy:
    v1 allows a cgroup with processes to have children, and this keeps the bots inside
    whatever limits the referee itself runs under (a container, a systemd unit).
cgroup v2
    One directory.  v2 forbids controllers in a non-root cgroup that holds processes,
    and the referee's own cgroup holds the referee, so the parent goes at the top of
    the hierarchy: ``<mount>/referee-<pid>/<bot>``.  ``+pids +memory`` are enabled in
    the top cgroup's ``cgroup.subtree_control`` when missing (the real root is exempt
    from the rule; a container's namespace root holding processes is not, and that is
    reported as the reason) and in ``referee-<pid>``, which never holds a process.  The
    ``cpu`` controller is not enabled: ``cpu.stat``'s ``usage_usec`` is there without
    it.

Without root, where the user has a cgroup of its own (``delegated``):

cgroup v2, delegated (systemd's ``Delegate=yes``: ``systemd-run --user --scope -p
    Delegate=yes``, or the ``user@UID.service`` subtree every desktop login gets)
    The referee's own v2 cgroup ``C`` counts as delegated when ``C``, its
    ``cgroup.procs`` and ``cgroup.subtree_control`` belong to the user and ``memory`` and
    ``pids`` are in its ``cgroup.controllers``.  v2's "no internal processes" rule then
    asks for leaves, as systemd's delegation model describes: on the first bot the
    processes of ``C`` (the referee, the shell that started it) move into the leaf
    ``C/referee-main``, ``+pids +memory`` go into ``C``'s ``cgroup.subtree_control``,
    and the bots under ``C/referee-<pid>/<bot>`` as above.  A referee started later from
    ``referee-main`` (a tournament's worker, the same shell) uses ``C`` again.
cgroup v1, delegated (an administrator's ``chown`` of a cgroup directory per hierarchy)
    The v1 layout above, when the referee's own directory in each of the four
    hierarchies is writable by the user.

v1's memory controller counts kernel memory (socket and pipe buffers included) in
``memory.usage_in_bytes`` too, on kernels since 5.x; v2's always did.

A bot that drops to a uid of its own must join before it does: joining writes the
referee's ``cgroup.procs`` files.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator

__all__ = ["LEAF", "PARENT_PREFIX", "BotCgroup", "Unavailable", "cleanup_stale", "join", "probe"]

#: The referee's parent cgroup is ``PARENT_PREFIX + str(os.getpid())``.
PARENT_PREFIX = "referee-"
#: Delegated v2: the leaf the processes of the referee's own cgroup move into.
LEAF = "referee-main"
#: v1 hierarchies a bot gets a directory in.
_V1_ROLES = ("pids", "memory", "cpuacct", "freezer")
#: v2 controllers enabled for the bots.
_V2_CONTROLLERS = ("pids", "memory")
#: How long remove() keeps retrying an rmdir that fails with EBUSY.
_RMDIR_PATIENCE = 1.0
#: How long moving the processes of a delegated cgroup into its leaf may take.
_VACATE_PATIENCE = 1.0


class Unavailable(Exception):
    """Why per-bot cgroups cannot be used here (one line, for the log and the summary)."""


def join(procs_paths: Iterable[str]) -> None:
    """Move the calling process into a bot's cgroup (every hierarchy of it).

    For a freshly forked child before exec, or the supervisor: plain ``os`` calls.
    ``0`` names the writer itself, whatever pid namespace it is in.  Raises OSError so
    that a bot which could not join is never started outside its cgroup.
    """
    for path in procs_paths:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)


class _Layout:
    """Where bot cgroups go here: the referee's parent is made in each base directory."""

    __slots__ = ("bases", "controllers", "delegated", "mounts", "roles", "vacated", "version")

    def __init__(
        self,
        version: int,
        bases: tuple[str, ...],
        roles: dict[str, int],
        controllers: tuple[str, ...],
        mounts: tuple[str, ...] | None = None,
        *,
        delegated: bool = False,
    ) -> None:
        self.version = version
        #: A subtree delegated to a user (not root): see the module's docstring.
        self.delegated = delegated
        #: Delegated v2: the base's processes are in its leaf, its controllers enabled.
        self.vacated = False
        #: v1: one per distinct hierarchy; v2: one.
        self.bases = bases
        #: Where each base's hierarchy is mounted (cleanup_stale searches all of it).
        self.mounts = mounts or bases
        #: v1 controller -> index into bases (v2: everything is 0).
        self.roles = roles
        #: v2: the controllers enabled in subtree_control for the bots.
        self.controllers = controllers

    def __repr__(self) -> str:
        kind = ", delegated" if self.delegated else ""
        return f"_Layout(v{self.version}, {self.bases}, {self.controllers}{kind})"

    def create(self, name: str, pids_max: int, memory_max: int | None) -> BotCgroup:
        """Make (and configure) one bot's directories, or undo everything and raise."""
        leaf = _safe_name(name)
        parents = tuple(os.path.join(base, f"{PARENT_PREFIX}{os.getpid()}") for base in self.bases)
        made: list[str] = []
        try:
            if self.version == 2 and self.delegated and not self.vacated:
                _vacate(self.bases[0], self.controllers)
                self.vacated = True
            if self.version == 2:
                _enable(self.bases[0], self.controllers)
            for attempt in range(3):
                made += [p for p in parents if _mkdir(p)]
                if self.version == 2:
                    _enable(parents[0], self.controllers)
                try:
                    dirs = _make_leaf(parents, leaf)
                except FileNotFoundError:
                    # Our parent vanished in between (another referee's cleanup_stale
                    # in another pid namespace took it for stale and empty): again.
                    if attempt == 2:
                        raise
                    continue
                made += dirs
                break
            cg = BotCgroup(self, name, dirs, parents)
            cg._configure(pids_max, memory_max)
            return cg
        except (OSError, Unavailable) as exc:
            for path in reversed(made):
                _rmdir_patiently(path, time.monotonic() + _RMDIR_PATIENCE)
            if isinstance(exc, Unavailable):
                raise
            raise Unavailable(f"cannot set up a cgroup for {name!r}: {exc}") from exc


class BotCgroup:
    """One bot's cgroup(s): ``referee-<referee pid>/<name>`` in each hierarchy used."""

    def __init__(self, layout: _Layout, name: str, dirs: tuple[str, ...], parents: tuple[str, ...]) -> None:
        self.name = name
        self._layout = layout
        self._v2 = layout.version == 2
        #: The bot's directories, one per hierarchy (v2: one).
        self.dirs = dirs
        #: The referee's parent directories, removed with the last bot when empty.
        self.parent_dirs = parents
        role = {r: dirs[i] for r, i in layout.roles.items()}
        self._pids_dir = role.get("pids", dirs[0])
        self._mem_dir = role.get("memory", dirs[0])
        self._cpu_dir = role.get("cpuacct", dirs[0])
        self._freezer_dir = role.get("freezer", dirs[0])
        self._procs = tuple(os.path.join(d, "cgroup.procs") for d in dirs)
        #: v2: cgroup.kill (>= 5.14) and cgroup.freeze (>= 5.2), when the kernel has them.
        self._kill_file: str | None = None
        self._freeze_file: str | None = None
        self._peak_seen = 0
        #: After remove(): the final (cpu seconds, memory peak, oom killed).
        self._final: tuple[float, int, bool] | None = None

    def __repr__(self) -> str:
        return f"BotCgroup({self.name!r}, {self.dirs})"

    @property
    def delegated(self) -> bool:
        """In a subtree delegated to the (non-root) user, not made as root."""
        return self._layout.delegated

    @classmethod
    def create(cls, name: str, *, pids_max: int, memory_max: int | None) -> BotCgroup:
        """A new cgroup for one bot, capped at ``pids_max`` tasks and ``memory_max`` bytes.

        Raises :class:`Unavailable` (leaving nothing behind) when it cannot be made.
        """
        return _layout().create(name, pids_max, memory_max)

    def _configure(self, pids_max: int, memory_max: int | None) -> None:
        """Write the limits; check that the files the accounting reads exist."""
        need: list[str] = []
        if self._v2:
            if "pids" in self._layout.controllers:
                _write(os.path.join(self._pids_dir, "pids.max"), str(pids_max))
            if "memory" in self._layout.controllers:
                if memory_max is not None:
                    _write(os.path.join(self._mem_dir, "memory.max"), str(memory_max))
                # A bot must not hide its memory in swap (the file is absent without swap).
                _write_if_present(os.path.join(self._mem_dir, "memory.swap.max"), "0")
                need += [os.path.join(self._mem_dir, f) for f in ("memory.current", "memory.events")]
            need.append(os.path.join(self._cpu_dir, "cpu.stat"))
            kill = os.path.join(self.dirs[0], "cgroup.kill")
            freeze = os.path.join(self.dirs[0], "cgroup.freeze")
            self._kill_file = kill if os.path.exists(kill) else None
            self._freeze_file = freeze if os.path.exists(freeze) else None
            if self._kill_file is None and self._freeze_file is None:
                raise Unavailable("cgroup v2 without cgroup.kill and cgroup.freeze (kernel older than 5.2)")
        else:
            _write(os.path.join(self._pids_dir, "pids.max"), str(pids_max))
            if memory_max is not None:
                _write(os.path.join(self._mem_dir, "memory.limit_in_bytes"), str(memory_max))
            # Swap is left alone (memsw), but the bot's pages should not go there.
            _write_if_present(os.path.join(self._mem_dir, "memory.swappiness"), "0")
            need += [
                os.path.join(self._mem_dir, "memory.usage_in_bytes"),
                os.path.join(self._mem_dir, "memory.max_usage_in_bytes"),
                os.path.join(self._cpu_dir, "cpuacct.usage"),
                os.path.join(self._freezer_dir, "freezer.state"),
            ]
        missing = [p for p in need if not os.path.exists(p)]
        if missing:
            raise Unavailable(f"cgroup files missing: {', '.join(missing)}")

    # -- joining ---------------------------------------------------------------------

    def procs_paths(self) -> list[str]:
        """The ``cgroup.procs`` files: a forked child writes ``0`` to each to join."""
        return list(self._procs)

    def join_self(self) -> None:
        """Move the calling process into the cgroup (a ``preexec_fn``; before any uid drop)."""
        join(self._procs)

    # -- accounting ------------------------------------------------------------------

    def cpu_seconds(self) -> float:
        """User + system CPU of everything that ever ran in it, reaped or not."""
        if self._final is not None:
            return self._final[0]
        with open(self._cpu_file(), "rb") as f:
            return _cpu_from(f.read(), self._v2)

    def cpu_counter(self) -> CpuCounter:
        """:meth:`cpu_seconds` for reading again and again (a slow decision's CPU, twice
        per decision): its file kept open.  The caller closes it."""
        return CpuCounter(self._cpu_file(), v2=self._v2)

    def _cpu_file(self) -> str:
        return os.path.join(self._cpu_dir, "cpu.stat" if self._v2 else "cpuacct.usage")

    def memory_bytes(self) -> int:
        """Memory charged to it now, tmpfs pages it touched included (they outlive the bot)."""
        if self._final is not None:
            return 0
        name = "memory.current" if self._v2 else "memory.usage_in_bytes"
        now = int(_read(os.path.join(self._mem_dir, name)))
        self._peak_seen = max(self._peak_seen, now)
        return now

    def memory_peak(self) -> int:
        """The most memory ever charged to it (v2 before 5.19: the most this object saw)."""
        if self._final is not None:
            return self._final[1]
        if not self._v2:
            return int(_read(os.path.join(self._mem_dir, "memory.max_usage_in_bytes")))
        try:
            return int(_read(os.path.join(self._mem_dir, "memory.peak")))
        except FileNotFoundError:
            return max(self._peak_seen, self.memory_bytes())

    def oom_killed(self) -> bool:
        """Whether the kernel's OOM killer killed something in it."""
        if self._final is not None:
            return self._final[2]
        if self._v2:
            try:
                return _keyed(os.path.join(self._mem_dir, "memory.events"), "oom_kill") > 0
            except FileNotFoundError:  # memory controller not enabled (tests only)
                return False
        try:
            return _keyed(os.path.join(self._mem_dir, "memory.oom_control"), "oom_kill") > 0
        except KeyError:  # before 4.13: the limit was hit at least once
            return int(_read(os.path.join(self._mem_dir, "memory.failcnt"))) > 0

    def pids(self) -> list[int]:
        """Processes in it now (any hierarchy, any sub-cgroup); exited ones are not listed."""
        if self._final is not None:
            return []
        found: set[int] = set()
        for top in self.dirs:
            for d in _walk(top):
                with contextlib.suppress(FileNotFoundError):
                    found.update(int(x) for x in _read(os.path.join(d, "cgroup.procs")).split())
        return sorted(found)

    # -- ending ----------------------------------------------------------------------

    def kill_all(self, timeout: float = 2.0) -> bool:
        """SIGKILL everything in it; True when it is empty within ``timeout`` seconds.

        v2 ``cgroup.kill`` kills the subtree and anything forked meanwhile.  Otherwise
        the tree is frozen first, so nothing forks between listing and killing, killed,
        then thawed so that the kills take effect.  Exited processes (zombies waiting
        for their parent) are not in ``cgroup.procs``, so a bot leader the referee has
        not reaped yet does not hold this up.  ``timeout=0`` still does one whole round
        (waiting up to 50 ms for the freeze), then returns without waiting.
        """
        deadline = time.monotonic() + timeout
        while True:
            if not self.pids():
                return True
            if self._kill_file is not None:
                try:
                    _write(self._kill_file, "1")
                except OSError:
                    self._kill_frozen(deadline)
            else:
                self._kill_frozen(deadline)
            # Dying processes leave within milliseconds; a round again if any remain.
            if _poll(lambda: not self.pids(), min(deadline, time.monotonic() + 0.25)):
                return True
            if time.monotonic() >= deadline:
                return False

    def _kill_frozen(self, deadline: float) -> None:
        """Freeze, SIGKILL every listed pid, thaw (a frozen task dies once thawed)."""
        frozen = self._freeze(True, deadline)
        try:
            for pid in self.pids():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        finally:
            if frozen is not None:
                self._freeze(False, deadline)

    def _freeze(self, on: bool, deadline: float) -> bool | None:
        """Freeze or thaw; wait (bounded) for frozen.  None when freezing is impossible."""
        if self._v2:
            if self._freeze_file is None:
                return None
            path, value = self._freeze_file, "1" if on else "0"
            events = os.path.join(self.dirs[0], "cgroup.events")

            def done() -> bool:
                return _keyed(events, "frozen") == 1

        else:
            path, value = os.path.join(self._freezer_dir, "freezer.state"), "FROZEN" if on else "THAWED"

            def done() -> bool:
                return _read(path).strip() == "FROZEN"

        try:
            _write(path, value)
            # A task in uninterruptible sleep can keep it FREEZING: kill what is listed then.
            now = time.monotonic()
            return _poll(done, min(max(deadline, now + 0.05), now + 0.5)) if on else True
        except OSError:
            return None

    def remove(self) -> None:
        """Kill everything, remove its directories and the referee's parent if empty.

        Never raises; bounded (about 3 s at worst).  The final CPU, peak memory and OOM
        figures stay readable afterwards.
        """
        if self._final is not None:
            return
        with contextlib.suppress(Exception):
            self.kill_all()
        cpu, peak, oom = 0.0, 0, False
        with contextlib.suppress(Exception):
            cpu = self.cpu_seconds()
        with contextlib.suppress(Exception):
            peak = self.memory_peak()
        with contextlib.suppress(Exception):
            oom = self.oom_killed()
        deadline = time.monotonic() + _RMDIR_PATIENCE
        for top in self.dirs:
            for d in reversed(list(_walk(top))):
                _rmdir_patiently(d, deadline)
        for parent in self.parent_dirs:
            # EBUSY while another bot is still in it; gone already is fine too.
            with contextlib.suppress(OSError):
                os.rmdir(parent)
        self._final = (cpu, peak, oom)


# -- detection -------------------------------------------------------------------------

_cached_layout: _Layout | Unavailable | None = None
_cached_probe: list[str | None] = []


def probe() -> str | None:
    """None when per-bot cgroups work here, else the reason.  Cached.

    Needs root or a delegated subtree (see the module's docstring), and pids, memory, a
    CPU counter and a way to freeze or kill mounted and writable; checked by making (and
    removing) a real one.  Removes stale parents first.
    """
    if not _cached_probe:
        _cached_probe.append(_probe())
    return _cached_probe[0]


def _probe() -> str | None:
    try:
        layout = _layout()
        cleanup_stale()
        cg = layout.create("probe", 64, 64 << 20)
    except Unavailable as exc:
        return str(exc)
    cg.remove()
    if any(os.path.exists(d) for d in cg.dirs):
        return f"cannot remove a cgroup: {cg.dirs[0]}"
    return None


def cleanup_stale() -> list[str]:
    """Remove ``referee-<pid>`` parents of referees that died (kill -9) when they are empty.

    Empty bot directories in them go too; a directory still holding processes is kept
    (the kernel refuses its rmdir).  The whole hierarchy is searched, not just where
    this referee puts its own: under v1 that is below the referee's own cgroup, which
    differs between runs (a systemd unit, a session).  Returns the parents removed.
    """
    try:
        layout = _layout()
    except Unavailable:
        return []
    removed = []
    for mount in dict.fromkeys(layout.mounts):
        for parent in _find_parents(mount):
            digits = os.path.basename(parent)[len(PARENT_PREFIX) :]
            if not digits.isdigit() or int(digits) == os.getpid() or _alive(int(digits)):
                continue
            for d in reversed(list(_walk(parent))):
                with contextlib.suppress(OSError):
                    os.rmdir(d)
            if not os.path.exists(parent):
                removed.append(parent)
    return removed


def _find_parents(top: str, max_depth: int = 8, max_dirs: int = 20000) -> Iterator[str]:
    """``referee-*`` directories in a cgroup tree (not below them; bounded search)."""
    stack, visited = [(top, 0)], 0
    while stack and visited < max_dirs:
        directory, depth = stack.pop()
        visited += 1
        try:
            subdirs = [e for e in os.scandir(directory) if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for entry in subdirs:
            if entry.name.startswith(PARENT_PREFIX):
                yield entry.path
            elif depth < max_depth:
                stack.append((entry.path, depth + 1))


def _layout() -> _Layout:
    """This machine's layout (cached, like a failure to find one)."""
    global _cached_layout
    if _cached_layout is None:
        try:
            _cached_layout = _detect()
        except Unavailable as exc:
            _cached_layout = exc
        except OSError as exc:
            _cached_layout = Unavailable(f"cannot read the cgroup mounts: {exc}")
    if isinstance(_cached_layout, Unavailable):
        raise _cached_layout
    return _cached_layout


def _detect(root: bool | None = None) -> _Layout:
    """Root: :func:`_detect_root`; anyone else: :func:`_detect_delegated`."""
    if root if root is not None else os.geteuid() == 0:
        return _detect_root()
    return _detect_delegated()


def _detect_root() -> _Layout:
    """Choose v1 or v2 by where the pids and memory controllers are mounted."""
    v1, v2 = _mounts()
    own_v1, own_v2 = _own_cgroups()
    wanted = ("pids", "memory")
    in_v1 = [c for c in wanted if c in v1]
    if len(in_v1) == len(wanted):
        bases: list[str] = []
        mounts: list[str] = []
        roles: dict[str, int] = {}
        for role in _V1_ROLES:
            if role not in v1:
                raise Unavailable(f"the cgroup v1 {role} controller is not mounted")
            mountpoint, root = v1[role]
            base = _inside(mountpoint, root, own_v1.get(role, "/"))
            if base not in bases:
                bases.append(base)
                mounts.append(mountpoint)
            roles[role] = bases.index(base)
        return _Layout(1, tuple(bases), roles, (), tuple(mounts))
    if in_v1:
        raise Unavailable(f"cgroup controllers split between v1 ({', '.join(in_v1)}) and v2")
    if v2 is None:
        raise Unavailable("no cgroup pids and memory controllers mounted (neither v1 nor v2)")
    base = v2[0]
    if own_v2 is not None and "/.." in own_v2 + "/":
        raise Unavailable("this process's cgroup is outside its cgroup namespace")
    missing = _v2_missing(base)
    if missing:
        raise Unavailable(f"cgroup v2 at {base} lacks the {' and '.join(missing)} controller")
    return _Layout(2, (base,), {}, _V2_CONTROLLERS)


def _detect_delegated() -> _Layout:
    """A subtree delegated to this (non-root) user: its v2 cgroup, else its v1 ones.

    Raises :class:`Unavailable` with what is missing, each kind's reason joined by "; ".
    """
    v1, v2 = _mounts()
    _, own_v2 = _own_cgroups()
    uid = os.geteuid()
    reasons: list[str] = []
    if v2 is not None and own_v2 is not None:
        try:
            return _delegated_v2(v2, own_v2, in_v1=[c for c in _V2_CONTROLLERS if c in v1])
        except Unavailable as exc:
            reasons.append(str(exc))
    else:
        reasons.append("no cgroup v2 mounted")
    if all(role in v1 for role in _V1_ROLES):
        try:
            layout = _detect_root()
        except Unavailable as exc:
            reasons.append(str(exc))
        else:
            if layout.version == 1:
                closed = [b for b in layout.bases if not os.access(b, os.W_OK | os.X_OK)]
                if not closed:
                    return _Layout(1, layout.bases, layout.roles, (), layout.bases, delegated=True)
                reasons.append(f"cgroup v1 {closed[0]} is not writable by this user ({uid})")
    raise Unavailable("; ".join(reasons))


def _delegated_v2(v2: tuple[str, str], own: str, in_v1: list[str]) -> _Layout:
    """The delegated v2 layout at this process's cgroup (or the one above its leaf)."""
    mount, root = v2
    if "/.." in own + "/":
        raise Unavailable("this process's cgroup v2 is outside its cgroup namespace")
    here = _inside(mount, root, own)
    base = here
    parent = os.path.dirname(here)
    # Moved here by a referee before us (this shell's, or our parent's): the bots go
    # beside the leaf again, when the controllers are enabled there already.
    if (
        os.path.basename(here) == LEAF
        and here != mount
        and _owned(parent)
        and _enabled(parent, _V2_CONTROLLERS)
    ):
        base = parent
    missing = _v2_missing(base)
    if missing:
        where = f" (cgroup v1 has {' and '.join(in_v1)} here)" if in_v1 else ""
        raise Unavailable(f"cgroup v2 offers no {' or '.join(missing)} controller to {base}{where}")
    files = [base, *(os.path.join(base, f) for f in ("cgroup.procs", "cgroup.subtree_control"))]
    not_ours = [f for f in files if not _owned(f)]
    if not_ours:
        raise Unavailable(
            f"cgroup v2 {base} is not delegated to this user ({os.geteuid()}: {not_ours[0]} is not its)"
        )
    return _Layout(2, (base,), {}, _V2_CONTROLLERS, delegated=True)


def _v2_missing(base: str) -> list[str]:
    """The bots' v2 controllers (:data:`_V2_CONTROLLERS`) that ``base`` does not offer."""
    try:
        available = _read(os.path.join(base, "cgroup.controllers")).split()
    except OSError as exc:
        raise Unavailable(f"cannot read {base}/cgroup.controllers: {exc.strerror}") from exc
    return [c for c in _V2_CONTROLLERS if c not in available]


def _owned(path: str) -> bool:
    """Whether ``path`` belongs to this process's user and it may write it."""
    try:
        return os.stat(path).st_uid == os.geteuid() and os.access(path, os.W_OK)
    except OSError:
        return False


def _enabled(directory: str, controllers: tuple[str, ...]) -> bool:
    """Whether ``controllers`` are all enabled for the children of ``directory``."""
    try:
        enabled = _read(os.path.join(directory, "cgroup.subtree_control")).split()
    except OSError:
        return False
    return all(c in enabled for c in controllers)


def _vacate(base: str, controllers: tuple[str, ...]) -> None:
    """Delegated v2: move every process of ``base`` into ``base/LEAF`` so that
    controllers can be enabled in ``base`` (a cgroup with controllers for its children
    holds no processes).  Nothing to do when they are enabled already.  Bounded."""
    if _enabled(base, controllers):
        return
    leaf = os.path.join(base, LEAF)
    try:
        made = _mkdir(leaf)
    except OSError as exc:
        raise Unavailable(f"cannot make {leaf}: {exc.strerror}") from exc
    try:
        deadline = time.monotonic() + _VACATE_PATIENCE
        while True:
            try:
                pids = _read(os.path.join(base, "cgroup.procs")).split()
            except OSError as exc:
                raise Unavailable(f"cannot read {base}/cgroup.procs: {exc.strerror}") from exc
            if not pids:
                return
            if time.monotonic() >= deadline:
                raise Unavailable(f"processes keep arriving in {base}: cannot move them all into {leaf}")
            for pid in pids:
                try:
                    _write(os.path.join(leaf, "cgroup.procs"), pid)
                except ProcessLookupError:
                    continue
                except OSError as exc:
                    raise Unavailable(
                        f"cannot move process {pid} of {base} into {leaf}: {exc.strerror}"
                    ) from exc
    except Unavailable:
        if made:  # gone again unless some process moved in already
            with contextlib.suppress(OSError):
                os.rmdir(leaf)
        raise


def _mounts() -> tuple[dict[str, tuple[str, str]], tuple[str, str] | None]:
    """v1 controller -> (mount point, mounted root); the v2 (mount point, root) if any."""
    v1: dict[str, tuple[str, str]] = {}
    v2: tuple[str, str] | None = None
    for line in _read("/proc/self/mountinfo").splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fields, super_fields = left.split(), right.split()
        if len(fields) < 5 or len(super_fields) < 3:
            continue
        root, mountpoint = _unescape(fields[3]), _unescape(fields[4])
        fstype, super_options = super_fields[0], super_fields[2].split(",")
        if fstype == "cgroup":
            for option in super_options:
                v1.setdefault(option, (mountpoint, root))
        elif fstype == "cgroup2" and (v2 is None or mountpoint == "/sys/fs/cgroup"):
            v2 = (mountpoint, root)
    return v1, v2


def _own_cgroups() -> tuple[dict[str, str], str | None]:
    """This process's cgroup path per v1 controller, and its v2 path."""
    v1: dict[str, str] = {}
    v2 = None
    for line in _read("/proc/self/cgroup").splitlines():
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hierarchy == "0" and not controllers:
            v2 = path
        for controller in controllers.split(","):
            v1[controller] = path
    return v1, v2


def _inside(mountpoint: str, root: str, path: str) -> str:
    """The directory of cgroup ``path`` under a mount of the hierarchy's ``root``."""
    if path == root or root == "/":
        rel = path if root == "/" else ""
    elif path.startswith(root.rstrip("/") + "/"):
        rel = path[len(root.rstrip("/")) :]
    else:
        raise Unavailable(f"this process's cgroup {path} is not under the mount of {root} at {mountpoint}")
    if "/.." in rel + "/":
        raise Unavailable("this process's cgroup is outside its cgroup namespace")
    return os.path.normpath(mountpoint + "/" + rel.strip("/"))


def _unescape(field: str) -> str:
    r"""mountinfo writes space, tab, newline and backslash as ``\ooo``."""
    if "\\" not in field:
        return field
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and field[i + 1 : i + 4].isdigit():
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


# -- small helpers ---------------------------------------------------------------------


def _safe_name(name: str) -> str:
    """A bot name as one harmless path component."""
    cleaned = "".join(c if (c.isascii() and c.isalnum()) or c in "-_." else "_" for c in name)
    return cleaned.lstrip(".")[:64] or "bot"


def _mkdir(path: str) -> bool:
    """mkdir; False when it already existed."""
    try:
        os.mkdir(path)
    except FileExistsError:
        return False
    return True


def _make_leaf(parents: tuple[str, ...], leaf: str) -> tuple[str, ...]:
    """Make ``leaf`` (or ``leaf-2``, ``leaf-3`` … when taken) in every parent."""
    for n in range(1, 1000):
        name = leaf if n == 1 else f"{leaf}-{n}"
        made: list[str] = []
        try:
            for parent in parents:
                os.mkdir(os.path.join(parent, name))
                made.append(os.path.join(parent, name))
        except FileExistsError:
            for path in reversed(made):
                os.rmdir(path)
            continue
        except OSError:
            for path in reversed(made):
                os.rmdir(path)
            raise
        return tuple(made)
    raise Unavailable(f"too many cgroups named {leaf!r}")


def _enable(directory: str, controllers: tuple[str, ...]) -> None:
    """Enable v2 controllers for the children of ``directory`` (those not enabled yet)."""
    if not controllers:
        return
    enabled = _read(os.path.join(directory, "cgroup.subtree_control")).split()
    for controller in controllers:
        if controller in enabled:
            continue
        try:
            _write(os.path.join(directory, "cgroup.subtree_control"), "+" + controller)
        except OSError as exc:
            hint = ""
            if exc.errno == errno.EBUSY:
                hint = " (it holds processes, and only the root cgroup may then enable controllers)"
            raise Unavailable(
                f"cannot enable {controller} in {directory}/cgroup.subtree_control: {exc.strerror}{hint}"
            ) from exc


class CpuCounter:
    """A cgroup's CPU counter read through one descriptor, again from its start each time
    (``pread`` at 0 makes the kernel render it anew): 2.4 µs a reading, against 24.9 µs
    to open, read and close the file (``benchmarks/slow_decision_cost.py``, as root)."""

    def __init__(self, path: str, v2: bool) -> None:
        self._fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        self._v2 = v2

    def seconds(self) -> float:
        return _cpu_from(os.pread(self._fd, 4096, 0), self._v2)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _cpu_from(data: bytes, v2: bool) -> float:
    """Seconds of CPU in a cgroup's counter file: v2's ``cpu.stat`` (``usage_usec N``),
    v1's ``cpuacct.usage`` (nanoseconds).  ValueError if it holds neither."""
    if not v2:
        return int(data) / 1e9
    for line in data.split(b"\n"):
        if line.startswith(b"usage_usec "):
            return int(line[11:]) / 1e6
    raise ValueError("usage_usec is not in cpu.stat")


def _read(path: str) -> str:
    with open(path, encoding="ascii") as f:
        return f.read()


def _write(path: str, value: str) -> None:
    """One write(2), so that the kernel's answer (EBUSY, EINVAL …) is raised here."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _write_if_present(path: str, value: str) -> None:
    """Best effort: a file some kernels lack, or refuse to change."""
    with contextlib.suppress(OSError):
        _write(path, value)


def _keyed(path: str, key: str) -> int:
    """The value of ``key N`` lines (cpu.stat, memory.events, cgroup.events …)."""
    for line in _read(path).splitlines():
        k, _, v = line.partition(" ")
        if k == key:
            return int(v)
    raise KeyError(f"{key} not in {path}")


def _walk(top: str) -> Iterator[str]:
    """``top`` and its sub-cgroups, parents first (a bot running as root may make some)."""
    yield top
    try:
        subdirs = [e.path for e in os.scandir(top) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for sub in subdirs:
        yield from _walk(sub)


def _rmdir_patiently(path: str, deadline: float) -> None:
    """rmdir, retried until ``deadline`` while the last tasks are still leaving (EBUSY)."""
    while True:
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY or time.monotonic() >= deadline:
                return
        time.sleep(0.002)


def _poll(done: Callable[[], bool], deadline: float) -> bool:
    """Wait until ``done()`` or ``deadline``, sleeping 0.5 ms, doubling up to 10 ms."""
    delay = 0.0005
    while True:
        if done():
            return True
        now = time.monotonic()
        if now >= deadline:
            return False
        time.sleep(min(delay, deadline - now))
        delay = min(delay * 2, 0.01)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
