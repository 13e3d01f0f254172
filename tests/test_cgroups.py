"""Per-bot cgroups (referee/seats/process/sandbox/cgroups.py): limits, accounting and kill hold for a whole tree.

Loaded as the top-level module ``cgroups`` from its file, the way the supervisor loads it,
so these tests do not depend on the rest of the package.  Skipped where ``probe()`` says
cgroups cannot be used (not root and no delegated subtree, no controllers).  As root they
test the cgroups the referee makes itself; as a user in a delegated subtree (``.ci/run``
makes one for its unprivileged user) the delegated layout.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import signal
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

MODULE = Path(__file__).resolve().parents[1] / "referee" / "seats" / "process" / "sandbox" / "cgroups.py"
_spec = importlib.util.spec_from_file_location("cgroups", MODULE)
assert _spec is not None and _spec.loader is not None
cgroups = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cgroups)

REASON = cgroups.probe()
pytestmark = [
    pytest.mark.skipif(REASON is not None, reason=f"per-bot cgroups unavailable here: {REASON}"),
    pytest.mark.slow,
]

MiB = 1 << 20
PY = sys.executable
PR_SET_CHILD_SUBREAPER = 36


@pytest.fixture(autouse=True)
def subreaper():
    """Be the tests' child subreaper, as the referee is, and reap the orphans at the end.

    Orphans otherwise go to pid 1, which on some machines (containers) never reaps them.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    try:
        yield
    finally:
        libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                time.sleep(0.005)


@pytest.fixture
def make_cg():
    """Create cgroups; every one is removed afterwards, and must leave nothing behind."""
    made = []

    def make(name: str = "test", *, pids_max: int = 64, memory_max: int | None = 256 * MiB, layout=None):
        if layout is None:
            cg = cgroups.BotCgroup.create(name, pids_max=pids_max, memory_max=memory_max)
        else:
            cg = layout.create(name, pids_max, memory_max)
        made.append(cg)
        return cg

    yield make
    for cg in made:
        cg.remove()
    left = [d for cg in made for d in (*cg.dirs, *cg.parent_dirs) if os.path.exists(d)]
    assert not left, f"left behind: {left}"


#: In the environment of everything the tests start, so that the tests can find and kill
#: what escaped when the code under test fails.
MARK = f"REFEREE_CGROUPS_TEST={os.getpid()}"


def spawn(cg, source: str) -> subprocess.Popen:
    """Run Python ``source`` inside ``cg`` (joined in the child before exec)."""
    name, value = MARK.split("=")
    return subprocess.Popen(
        [PY, "-c", textwrap.dedent(source)],
        preexec_fn=cg.join_self,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, name: value},
    )


def reap_orphans(leader: int) -> None:
    """Reap exited orphans (they come to us, the subreaper), not the leader.

    A zombie counts against pids.max until it is reaped; the referee reaps them too.
    """
    while (child := os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)) is not None:
        if child.si_pid == leader:
            return
        os.waitpid(child.si_pid, 0)


def marked() -> list[int]:
    """Processes started by these tests, wherever they are."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as f:
                    if MARK.encode() in f.read().split(b"\0"):
                        found.append(int(entry.name))
            except OSError:
                pass
    return found


def kill_marked() -> None:
    """Stop then kill every marked process until none is left (a pid hopper included)."""
    for _ in range(100):
        pids = marked()
        if not pids:
            return
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
        time.sleep(0.01)


def start_time(pid: int) -> str | None:
    """Field 22 of /proc/PID/stat (tells a survivor from a reused pid), None when gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (FileNotFoundError, ProcessLookupError):
        return None


def state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return None


def v2_layouts() -> list:
    """A v2 layout on this machine's cgroup2 mount with no controllers (freeze/kill/cpu.stat only).

    On a hybrid machine this is the only way to run the v2 kill and CPU paths; on a
    pure-v2 machine it repeats what the real layout does.
    """
    layout = cgroups._layout()
    if layout.version == 2 and layout.delegated:
        return [layout]  # the cgroup2 mount's top is root's
    _, v2 = cgroups._mounts()
    if v2 is None or not os.access(v2[0], os.W_OK):
        return []
    return [cgroups._Layout(2, (v2[0],), {}, ())]


# -- create / remove -------------------------------------------------------------------


def test_create_and_remove_leave_nothing(make_cg):
    cg = make_cg("alice", pids_max=17, memory_max=96 * MiB)
    twin = make_cg("alice")
    assert all(os.path.isdir(d) for d in (*cg.dirs, *twin.dirs))
    assert not set(cg.dirs) & set(twin.dirs), "two bots of one name share a cgroup"
    layout = cgroups._layout()
    assert len(cg.dirs) == len(layout.bases) == (4 if layout.version == 1 else 1)
    pids_max = Path(cg.dirs[layout.roles.get("pids", 0)], "pids.max").read_text().strip()
    assert pids_max == "17"
    mem_dir = cg.dirs[layout.roles.get("memory", 0)]
    limit = Path(mem_dir, "memory.limit_in_bytes" if layout.version == 1 else "memory.max").read_text()
    assert int(limit) == 96 * MiB
    cg.remove()
    twin.remove()
    twin.remove()  # twice is harmless
    assert not [d for d in (*cg.dirs, *twin.dirs, *cg.parent_dirs) if os.path.exists(d)]
    assert cg.pids() == [] and cg.cpu_seconds() >= 0


@pytest.mark.skipif(
    os.geteuid() == 0, reason="root makes its own cgroups: a delegated subtree is a non-root user's"
)
def test_a_delegated_subtree_holds_the_bots_beside_the_referees_leaf(make_cg):
    """Without root, in a subtree delegated to the user (systemd's Delegate=yes; .ci/run
    makes one): the referee's cgroup is the base, every process of it moved into a leaf
    (v2), a cgroup per bot with the limits written."""
    layout = cgroups._layout()
    assert layout.delegated
    cg = make_cg("delegated", pids_max=19, memory_max=80 * MiB)
    assert cg.delegated
    _, own_v2 = cgroups._own_cgroups()
    if layout.version == 2:
        base = layout.bases[0]
        assert cgroups._inside(*cgroups._mounts()[1], own_v2) == os.path.join(base, cgroups.LEAF)
        assert Path(base, "cgroup.procs").read_text() == ""
        assert {"pids", "memory"} <= set(Path(base, "cgroup.subtree_control").read_text().split())
        assert Path(cg.dirs[0], "memory.max").read_text().strip() == str(80 * MiB)
        assert Path(cg.dirs[0], "pids.max").read_text().strip() == "19"
    else:
        assert Path(cg.dirs[layout.roles["memory"]], "memory.limit_in_bytes").read_text().strip() == str(
            80 * MiB
        )
    for d, parent in zip(cg.dirs, cg.parent_dirs, strict=True):
        assert os.path.dirname(d) == parent and os.stat(d).st_uid == os.geteuid()


SOCKBUF = """
    import os, socket, sys
    chunk = b"\\x01" * 65536
    held, kept = 0, []
    try:
        while held < 300 << 20:
            a, b = socket.socketpair()
            for s in (a, b):
                s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
                s.setblocking(False)
            kept.append((a, b))
            for s in (a, b):
                try:
                    while held < 300 << 20:
                        held += s.send(chunk)
                except BlockingIOError:
                    pass
    except OSError as e:
        print("stopped", held >> 20, e, flush=True)
        sys.exit(3)
    print("held", held >> 20, flush=True)
    """


def test_memory_cap_counts_socket_buffers(make_cg):
    """Issue 27, item 2: bytes written into socketpairs and never read are kernel memory
    no RSS shows; the memory controller charges them to the writer's cgroup (v2, and v1
    with its kernel-memory accounting), so the cap holds."""
    cg = make_cg("sockbuf", memory_max=100 * MiB)
    p = spawn(cg, SOCKBUF)
    out, err = p.communicate(timeout=60)
    assert p.returncode in (-9, 3), f"300 MiB held in socket buffers under a 100 MiB cap: {out} {err}"
    assert cg.memory_peak() <= 100 * MiB
    assert p.returncode == 3 or cg.oom_killed()


def test_odd_names_stay_one_path_component(make_cg):
    cg = make_cg("../../etc x/..")
    for d, parent in zip(cg.dirs, cg.parent_dirs, strict=True):
        assert os.path.dirname(d) == parent


def test_module_imports_standalone_under_isolated_python():
    """The supervisor imports it as ``cgroups`` under ``python3 -I -S``: stdlib only."""
    done = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            f"import sys; sys.path.insert(0, {str(MODULE.parent)!r}); import cgroups; "
            "print(sorted(m for m in sys.modules if m.startswith('referee')))",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# -- limits ----------------------------------------------------------------------------


def test_pids_max_caps_forks(make_cg):
    cg = make_cg("forker", pids_max=20)
    p = spawn(
        cg,
        """
        import os
        r, w = os.pipe()
        ok = 0
        for _ in range(50):
            try:
                pid = os.fork()
            except OSError:
                continue
            if pid == 0:
                os.close(w)
                os.read(r, 1)  # stay alive until the parent has tried all 50
                os._exit(0)
            ok += 1
        os.close(w)
        for _ in range(ok):
            os.wait()
        print(ok)
        """,
    )
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    forks = int(out)
    assert 1 + forks <= 20
    assert forks >= 15, "forks failed far below the cap: something else limits them"


def test_memory_cap_oom_kills(make_cg):
    cg = make_cg("hog", memory_max=100 * MiB)
    assert not cg.oom_killed()
    p = spawn(cg, "x = b'\\x01' * (300 << 20)\nprint('survived', len(x))")
    out, _ = p.communicate(timeout=60)
    assert p.returncode == -9, out
    assert cg.oom_killed()
    assert cg.memory_peak() <= 100 * MiB


def test_memory_cap_counts_tmpfs_pages(make_cg):
    """/dev/shm pages are charged to the cgroup that touched them, and outlive the writer."""
    shm = Path(f"/dev/shm/referee-cgroup-test-{os.getpid()}")
    cg = make_cg("shm", memory_max=100 * MiB)
    try:
        p = spawn(
            cg,
            f"""
            import sys
            chunk = b"\\x01" * (1 << 20)
            n = 0
            try:
                with open({str(shm)!r}, "wb", buffering=0) as f:
                    for n in range(1, 151):
                        f.write(chunk)
            except OSError as e:
                print("write failed", n, e, flush=True)
                sys.exit(3)
            print("wrote", n)
            """,
        )
        out, _ = p.communicate(timeout=60)
        assert p.returncode in (-9, 3), f"150 MiB went into /dev/shm under a 100 MiB cap: {out}"
        assert shm.stat().st_size <= 100 * MiB
        assert cg.memory_peak() <= 100 * MiB
        # Nothing runs in it any more, yet the file's pages are still charged to it.
        assert cg.pids() == []
        assert cg.memory_bytes() >= 50 * MiB
        shm.unlink()
        assert cg.memory_bytes() < 50 * MiB
    finally:
        shm.unlink(missing_ok=True)


# -- accounting ------------------------------------------------------------------------

BURN = """
    import os, time

    def burn(seconds):
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass

    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:  # the grandchild: nobody will ever wait for it
            burn(0.3)
            os.write(w, b"x")
            os._exit(0)
        os._exit(0)
    os.wait()
    os.close(w)
    burn(0.2)
    os.read(r, 1)  # the grandchild is done burning
    """


@pytest.mark.parametrize("which", ["native", "v2"])
def test_cpu_counts_unwaited_grandchild(make_cg, which):
    layouts = v2_layouts() if which == "v2" else [None]
    if not layouts:
        pytest.skip("no cgroup v2 hierarchy this user may write")
    cg = make_cg("burner", layout=layouts[0])
    p = spawn(cg, BURN)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    assert p.returncode == 0, p.stderr.read() if p.stderr else ""
    deadline = time.monotonic() + 5
    while cg.pids() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert cg.pids() == []
    waited = usage.ru_utime + usage.ru_stime
    assert waited < 0.4, "the test's own rusage should miss the grandchild"
    assert cg.cpu_seconds() >= 0.45, (cg.cpu_seconds(), waited)


# -- kill ------------------------------------------------------------------------------

TREE = """
    import os, time
    if os.fork() == 0:  # a daemon: double fork, own session
        os.setsid()
        if os.fork() == 0:
            while True:
                time.sleep(1)
        os._exit(0)
    os.wait()
    if os.fork() == 0:  # a pid hopper: fork, the parent exits, again, as fast as it can
        os.setsid()
        while True:
            try:
                if os.fork() != 0:
                    os._exit(0)
            except OSError:  # at pids.max until the referee reaps the zombies
                time.sleep(0.001)
    print("ready", flush=True)
    while True:
        time.sleep(1)
    """


@pytest.mark.parametrize("which", ["native", "v2-kill", "v2-freeze"])
def test_kill_all_empties_a_hostile_tree(make_cg, which):
    if which == "native":
        cg = make_cg("tree", pids_max=64)
    else:
        layouts = v2_layouts()
        if not layouts:
            pytest.skip("no cgroup v2 hierarchy this user may write")
        cg = make_cg("tree", layout=layouts[0])
        if which == "v2-freeze":
            if cg._freeze_file is None:
                pytest.skip("no cgroup.freeze")
            cg._kill_file = None
        elif cg._kill_file is None:
            pytest.skip("no cgroup.kill")
    p = spawn(cg, TREE)
    try:
        assert p.stdout is not None and p.stdout.readline() == "ready\n"
        seen: dict[int, str | None] = {}
        end = time.monotonic() + 5  # at least 8 pids: sooner when the machine is idle
        while time.monotonic() < end and len(seen) < 8:
            for pid in cg.pids():
                seen.setdefault(pid, start_time(pid))
            reap_orphans(p.pid)
            time.sleep(0.005)
        assert len(seen) >= 8, f"the hopper did not hop: {sorted(seen)}"
        t0 = time.perf_counter()
        assert cg.kill_all(timeout=2.0)
        took = time.perf_counter() - t0
        assert took < 2.0
        print(f"\n{which}: kill_all took {took * 1000:.1f} ms ({len(seen)} pids seen in the tree)")
        # The leader is ours to reap: a zombie until then, and not listed.
        assert state(p.pid) == "Z"
        assert cg.pids() == []
        assert p.wait(timeout=2) == -9
        survivors = []
        for pid, started in seen.items():
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            if start_time(pid) == started and state(pid) not in (None, "Z"):
                survivors.append(pid)
        assert not survivors
    finally:
        p.kill()
        p.wait()
        kill_marked()
        assert p.stdout is not None and p.stderr is not None
        p.stdout.close()
        p.stderr.close()


HOPPERS = """
    import os, time
    for _ in range(4):
        if os.fork() == 0:
            while True:
                try:
                    if os.fork() != 0:
                        os._exit(0)
                except OSError:
                    time.sleep(0.001)
    print("ready", flush=True)
    while True:
        time.sleep(1)
    """


@pytest.mark.parametrize("which", ["native", "v2-freeze"])
def test_one_frozen_round_kills_every_hopper(make_cg, which):
    """Frozen, nothing can fork between listing and killing: one round is enough.

    (kill_all repeats rounds until empty, so it would hide a freezer that does nothing.)
    """
    if which == "native":
        cg = make_cg("hoppers", pids_max=100_000)
        if cgroups._layout().version == 2 and cg._freeze_file is None:
            pytest.skip("no cgroup.freeze")
    else:
        layouts = v2_layouts()
        if not layouts:
            pytest.skip("no cgroup v2 hierarchy this user may write")
        cg = make_cg("hoppers", layout=layouts[0])
        if cg._freeze_file is None:
            pytest.skip("no cgroup.freeze")
    for _ in range(5):
        p = spawn(cg, HOPPERS)
        try:
            assert p.stdout is not None and p.stdout.readline() == "ready\n"
            end = time.monotonic() + 0.05
            while time.monotonic() < end:
                reap_orphans(p.pid)
            cg._kill_frozen(time.monotonic() + 1.0)
            end = time.monotonic() + 0.5
            while cg.pids() and time.monotonic() < end:
                reap_orphans(p.pid)
                time.sleep(0.005)
            assert cg.pids() == [], "a hopper forked past the kill"
        finally:
            p.kill()
            p.wait()
            kill_marked()
            assert p.stdout is not None and p.stderr is not None
            p.stdout.close()
            p.stderr.close()


def test_kill_all_with_no_timeout_still_kills(make_cg):
    """timeout=0: one whole round, no waiting (the referee's kill path does this)."""
    cg = make_cg("quick")
    p = spawn(cg, TREE)
    try:
        assert p.stdout is not None and p.stdout.readline() == "ready\n"
        t0 = time.perf_counter()
        cg.kill_all(timeout=0)
        assert time.perf_counter() - t0 < 0.4
        assert p.wait(timeout=2) == -9
        deadline = time.monotonic() + 2
        while cg.pids() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert cg.pids() == []
    finally:
        p.kill()
        p.wait()
        kill_marked()
        assert p.stdout is not None and p.stderr is not None
        p.stdout.close()
        p.stderr.close()


def test_remove_kills_what_is_running(make_cg):
    cg = make_cg("sleeper")
    p = subprocess.Popen(["sleep", "60"], preexec_fn=cg.join_self)
    assert cg.pids() == [p.pid]
    cg.remove()
    assert not [d for d in cg.dirs if os.path.exists(d)]
    assert p.wait(timeout=2) == -9
    assert cg.cpu_seconds() >= 0  # the final figures stay readable


def test_procs_paths_let_a_child_join_by_itself(make_cg):
    cg = make_cg("joiner")
    paths = cg.procs_paths()
    code = f"import sys; sys.path.insert(0, {str(MODULE.parent)!r}); import cgroups; cgroups.join({paths!r})"
    p = subprocess.Popen([PY, "-I", "-S", "-c", code + "; import time; time.sleep(60)"])
    try:
        # The child joins one hierarchy after another (cgroup v1 has several): wait for all.
        def joined() -> bool:
            return cg.pids() == [p.pid] and all(
                Path(path).read_text().split() == [str(p.pid)] for path in paths
            )

        deadline = time.monotonic() + 5
        while not joined() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert cg.pids() == [p.pid]
        for path in paths:
            assert Path(path).read_text().split() == [str(p.pid)]
    finally:
        p.kill()
        p.wait()


# -- cost and upkeep -------------------------------------------------------------------


def test_timing_per_bot(make_cg):
    """create + join + remove runs for every bot start: keep it cheap."""
    times: dict[str, list[float]] = {"create": [], "spawn+join": [], "spawn, no-op preexec": [], "remove": []}
    for _ in range(20):
        t0 = time.perf_counter()
        cg = make_cg("timed")
        t1 = time.perf_counter()
        subprocess.run(["true"], preexec_fn=cg.join_self, check=True)
        t2 = time.perf_counter()
        cg.remove()
        t3 = time.perf_counter()
        subprocess.run(["true"], preexec_fn=lambda: None, check=True)
        t4 = time.perf_counter()
        for key, took in zip(times, (t1 - t0, t2 - t1, t4 - t3, t3 - t2), strict=True):
            times[key].append(took * 1000)
    median = {k: statistics.median(v) for k, v in times.items()}
    print(
        "\nper bot, ms, median (max) of 20: "
        + ", ".join(f"{k} {median[k]:.2f} ({max(v):.2f})" for k, v in times.items())
    )
    join = median["spawn+join"] - median["spawn, no-op preexec"]
    assert median["create"] + median["remove"] + join < 50


def test_cleanup_stale_removes_dead_referees_parents():
    p = subprocess.Popen(["true"])
    p.wait()
    dead = p.pid
    with contextlib.suppress(ProcessLookupError):
        os.kill(dead, 0)
        pytest.skip("pid reused already")
    live = subprocess.Popen(["sleep", "60"])
    layout = cgroups._layout()
    stale = [os.path.join(b, f"{cgroups.PARENT_PREFIX}{dead}") for b in layout.bases]
    kept = [os.path.join(b, f"{cgroups.PARENT_PREFIX}{live.pid}") for b in layout.bases]
    # One from a run in another cgroup: anywhere in the hierarchy.
    elsewhere = os.path.join(layout.mounts[0], f"cgroups-test-{os.getpid()}")
    stale.append(os.path.join(elsewhere, f"{cgroups.PARENT_PREFIX}{dead}"))
    made: list[str] = []
    try:
        for d in (elsewhere, *stale, *(os.path.join(d, "bot") for d in stale), *kept):
            os.mkdir(d)
            made.append(d)
        removed = cgroups.cleanup_stale()
        assert set(stale) <= set(removed)
        assert not [d for d in stale if os.path.exists(d)]
        assert all(os.path.isdir(d) for d in kept)
    finally:
        live.kill()
        live.wait()
        for d in reversed(made):
            with contextlib.suppress(FileNotFoundError):
                os.rmdir(d)


# -- detection on other layouts ------------------------------------------------------------

HYBRID = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
PURE_V2 = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"


@pytest.mark.parametrize(
    ("mountinfo", "own", "controllers", "expected"),
    [
        (
            HYBRID,
            "5:pids:/\n4:memory:/user.slice/x\n2:cpu,cpuacct:/\n1:freezer:/\n0::/user.slice/x\n",
            "",
            "v1 /sys/fs/cgroup/pids /sys/fs/cgroup/memory/user.slice/x /sys/fs/cgroup/cpu,cpuacct "
            "/sys/fs/cgroup/freezer",
        ),
        (
            HYBRID.replace(",freezer", ",blkio"),
            "0::/\n",
            "",
            "the cgroup v1 freezer controller is not mounted",
        ),
        (
            PURE_V2,
            "0::/user.slice/session-1.scope\n",
            "cpuset cpu io memory hugetlb pids rdma",
            "v2 /sys/fs/cgroup",
        ),
        (
            PURE_V2,
            "0::/\n",
            "cpuset cpu io",
            "cgroup v2 at /sys/fs/cgroup lacks the pids and memory controller",
        ),
        (
            PURE_V2.replace("cgroup2", "tmpfs"),
            "0::/\n",
            "",
            "no cgroup pids and memory controllers mounted (neither v1 nor v2)",
        ),
        (
            HYBRID.replace("rw,memory", "rw,hugetlb"),
            "0::/\n",
            "memory",
            "cgroup controllers split between v1 (pids) and v2",
        ),
    ],
    ids=["hybrid", "v1-no-freezer", "v2", "v2-no-controllers", "none", "split"],
)
def test_detects_layouts(monkeypatch, mountinfo, own, controllers, expected):
    files = {
        "/proc/self/mountinfo": mountinfo,
        "/proc/self/cgroup": own,
        "/sys/fs/cgroup/cgroup.controllers": controllers,
        "/sys/fs/cgroup/unified/cgroup.controllers": controllers,
    }
    monkeypatch.setattr(cgroups, "_read", files.__getitem__)
    try:
        layout = cgroups._detect(root=True)
    except cgroups.Unavailable as exc:
        assert str(exc) == expected
    else:
        assert f"v{layout.version} {' '.join(layout.bases)}" == expected
        if layout.version == 1:
            assert layout.roles == {"pids": 0, "memory": 1, "cpuacct": 2, "freezer": 3}
        else:
            assert layout.controllers == ("pids", "memory")
