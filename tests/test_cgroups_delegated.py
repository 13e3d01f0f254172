"""Per-bot cgroups without root (issue 27, item 2): a cgroup subtree delegated to the user.

Detection and the layout are tested on a fake cgroup tree — a temporary directory laid
out like cgroupfs v2, its writes following the kernel's rules the code relies on (moving
a process out of every other ``cgroup.procs``, no processes in a cgroup whose
``cgroup.subtree_control`` is set, a controller only when the parent enabled it, rmdir
only of an empty cgroup) — so they run anywhere, as anyone.  The real thing runs in
tests/test_cgroups.py as a non-root user in a delegated subtree (``.ci/run`` makes one
where the machine has cgroup v2 with the memory controller), and the socketpair attack in
tests/test_sandbox_layers.py.
"""

from __future__ import annotations

import errno
import importlib.util
import os
from pathlib import Path

import pytest

MODULE = Path(__file__).resolve().parents[1] / "referee" / "seats" / "process" / "sandbox" / "cgroups.py"
_spec = importlib.util.spec_from_file_location("cgroups_delegated_under_test", MODULE)
assert _spec is not None and _spec.loader is not None
cgroups = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cgroups)

MiB = 1 << 20
ME = str(os.getpid())
SHELL = "4242"  # a process of the user's that shares the referee's cgroup (its shell)
SCOPE = "/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope"
PURE_V2 = "30 23 0:26 / {mount} rw,nosuid - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
HYBRID = """\
32 31 0:29 / {mount}/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / {mount}/memory rw,relatime - cgroup cgroup rw,memory
37 31 0:34 / {mount}/freezer rw,relatime - cgroup cgroup rw,freezer
39 31 0:36 / {mount}/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / {mount}/unified rw,relatime - cgroup2 cgroup2 rw
"""


class FakeCgroupFS:
    """cgroupfs v2 in a directory: interface files appear with each mkdir."""

    def __init__(self, mount: Path, controllers: str = "cpu memory pids") -> None:
        self.mount = mount
        mount.mkdir()
        self._populate(mount, controllers)

    def _populate(self, d: Path, controllers: str) -> None:
        files = {
            "cgroup.procs": "",
            "cgroup.controllers": controllers,
            "cgroup.subtree_control": "",
            "cgroup.events": "populated 0\nfrozen 0\n",
            "cgroup.kill": "",
            "cgroup.freeze": "0\n",
            "cpu.stat": "usage_usec 0\nuser_usec 0\nsystem_usec 0\n",
        }
        if "memory" in controllers.split() and d != self.mount:
            files |= {
                "memory.max": "max\n",
                "memory.swap.max": "max\n",
                "memory.current": "0\n",
                "memory.peak": "0\n",
                "memory.events": "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n",
            }
        if "pids" in controllers.split() and d != self.mount:
            files["pids.max"] = "max\n"
        for name, text in files.items():
            (d / name).write_text(text)

    def inside(self, path: str | os.PathLike) -> bool:
        return Path(path).is_relative_to(self.mount)

    def cgroup(self, rel: str, procs: tuple[str, ...] = ()) -> Path:
        """Make the cgroup ``rel`` (and those above it) as systemd would: the controllers
        of each cgroup above enabled for its children.  It holds ``procs``."""
        d = self.mount
        for part in Path(rel.strip("/")).parts:
            parent, d = d, d / part
            control = parent / "cgroup.subtree_control"
            if not control.read_text().split():
                control.write_text((parent / "cgroup.controllers").read_text())
            if not d.exists():
                d.mkdir()
                self._populate(d, (parent / "cgroup.subtree_control").read_text())
        for pid in procs:
            self.write(str(d / "cgroup.procs"), pid)
        return d

    def procs(self, d: Path) -> list[str]:
        return sorted((d / "cgroup.procs").read_text().split())

    # -- the kernel's side of the calls the code makes ---------------------------------

    def write(self, path: str, value: str) -> None:
        p = Path(path)
        if not self.inside(p):
            raise AssertionError(f"a write outside the cgroup tree: {path}")
        d = p.parent
        if p.name == "cgroup.procs":
            pid = ME if value == "0" else value
            if d != self.mount and (d / "cgroup.subtree_control").read_text().split():
                raise OSError(errno.EBUSY, "Device or resource busy")
            for other in self.mount.rglob("cgroup.procs"):
                kept = [x for x in other.read_text().split() if x != pid]
                other.write_text("".join(x + "\n" for x in kept))
            p.write_text(p.read_text() + pid + "\n")
        elif p.name == "cgroup.subtree_control":
            enabled = p.read_text().split()
            for token in value.split():
                name = token[1:]
                if name not in (d / "cgroup.controllers").read_text().split():
                    raise OSError(errno.ENOENT, "No such file or directory")
                if d != self.mount and self.procs(d):
                    raise OSError(errno.EBUSY, "Device or resource busy")
                if token[0] == "+" and name not in enabled:
                    enabled.append(name)
            p.write_text(" ".join(enabled) + "\n")
        else:
            if not p.exists():
                raise OSError(errno.ENOENT, "No such file or directory")
            p.write_text(value)

    def mkdir(self, path, mode: int = 0o777, real=os.mkdir) -> None:
        real(path, mode)
        if self.inside(path):
            self._populate(Path(path), (Path(path).parent / "cgroup.subtree_control").read_text())

    def rmdir(self, path, real=os.rmdir) -> None:
        d = Path(path)
        if not self.inside(d):
            return real(path)
        if not d.exists():
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(d))
        if self.procs(d) or any(x.is_dir() for x in d.iterdir()):
            raise OSError(errno.EBUSY, "Device or resource busy", str(d))
        for f in d.iterdir():
            f.unlink()
        real(path)


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A fake cgroup2 mount at tmp_path/cgroup, and a way to say where this process is."""
    fs = FakeCgroupFS(tmp_path / "cgroup")
    proc = {"/proc/self/mountinfo": PURE_V2.format(mount=fs.mount), "/proc/self/cgroup": f"0::{SCOPE}\n"}
    real_read = cgroups._read

    def read(path: str) -> str:
        return proc[path] if path in proc else real_read(path)

    monkeypatch.setattr(cgroups, "_read", read)
    monkeypatch.setattr(cgroups, "_write", fs.write)
    monkeypatch.setattr(os, "mkdir", fs.mkdir)
    monkeypatch.setattr(os, "rmdir", fs.rmdir)
    monkeypatch.setattr(cgroups, "_cached_layout", None)
    fs.proc = proc  # type: ignore[attr-defined]
    return fs


def test_a_delegated_v2_cgroup_is_found_at_the_process_own(fake):
    scope = fake.cgroup(SCOPE, (ME, SHELL))
    layout = cgroups._detect(root=False)
    assert (layout.version, layout.bases, layout.delegated) == (2, (str(scope),), True)
    assert layout.controllers == ("pids", "memory")


def test_the_first_bot_moves_the_cgroups_processes_into_a_leaf(fake):
    """v2's "no internal processes" rule, as systemd's delegation model asks: the
    referee and its shell into ``referee-main``, controllers enabled, one child per bot."""
    scope = fake.cgroup(SCOPE, (ME, SHELL))
    layout = cgroups._detect(root=False)
    alice = layout.create("alice", 17, 96 * MiB)
    bob = layout.create("bob", 9, None)
    leaf = scope / cgroups.LEAF
    parent = scope / f"{cgroups.PARENT_PREFIX}{os.getpid()}"
    assert fake.procs(scope) == []
    assert fake.procs(leaf) == sorted([ME, SHELL])
    assert (scope / "cgroup.subtree_control").read_text().split() == ["pids", "memory"]
    assert (parent / "cgroup.subtree_control").read_text().split() == ["pids", "memory"]
    assert alice.dirs == (str(parent / "alice"),) and alice.parent_dirs == (str(parent),)
    assert alice.delegated and bob.delegated
    assert Path(alice.dirs[0], "memory.max").read_text() == str(96 * MiB)
    assert Path(alice.dirs[0], "memory.swap.max").read_text() == "0"
    assert Path(alice.dirs[0], "pids.max").read_text() == "17"
    assert Path(bob.dirs[0], "memory.max").read_text() == "max\n"
    assert alice.procs_paths() == [str(parent / "alice" / "cgroup.procs")]
    alice.remove()
    assert not Path(alice.dirs[0]).exists() and parent.exists()  # bob is still in it
    bob.remove()
    assert not parent.exists()
    # The leaf stays, with the processes that were in the delegated cgroup.
    assert fake.procs(leaf) == sorted([ME, SHELL])


def test_a_referee_started_from_the_leaf_puts_its_bots_beside_it(fake):
    """A tournament's worker, or a second referee of the same shell: no leaf in a leaf."""
    scope = fake.cgroup(SCOPE, (ME, SHELL))
    cgroups._detect(root=False).create("first", 8, None).remove()
    fake.proc["/proc/self/cgroup"] = f"0::{SCOPE}/{cgroups.LEAF}\n"
    layout = cgroups._detect(root=False)
    assert layout.bases == (str(scope),)
    cg = layout.create("second", 8, None)
    assert Path(cg.dirs[0]).parent.parent == scope
    assert not (scope / cgroups.LEAF / cgroups.LEAF).exists()
    cg.remove()


def test_a_cgroup_of_someone_elses_is_not_delegated(fake, monkeypatch):
    fake.cgroup(SCOPE, (ME,))
    uid = os.geteuid() + 1
    monkeypatch.setattr(os, "geteuid", lambda: uid)
    with pytest.raises(cgroups.Unavailable, match=rf"run-r1.scope is not delegated to this user \({uid}:"):
        cgroups._detect(root=False)


def test_a_delegated_cgroup_without_the_memory_controller_is_refused(fake):
    fake.cgroup("/user.slice", ())
    (fake.mount / "user.slice" / "cgroup.subtree_control").write_text("pids\n")
    fake.cgroup(SCOPE, (ME,))
    with pytest.raises(cgroups.Unavailable, match="cgroup v2 offers no memory controller to "):
        cgroups._detect(root=False)


def test_a_process_that_cannot_be_moved_leaves_nothing_behind(fake, monkeypatch):
    scope = fake.cgroup(SCOPE, (ME, SHELL))
    kernel_write = fake.write

    def write(path: str, value: str) -> None:
        if value == SHELL:
            raise PermissionError(errno.EACCES, "Permission denied")
        kernel_write(path, value)

    monkeypatch.setattr(cgroups, "_write", write)
    layout = cgroups._detect(root=False)
    with pytest.raises(cgroups.Unavailable, match=f"cannot move process {SHELL} of .*: Permission denied"):
        layout.create("alice", 8, None)
    # ME moved, SHELL did not: the leaf stays (it holds ME), nothing else was made.
    assert sorted(p.name for p in scope.iterdir() if p.is_dir()) == [cgroups.LEAF]
    assert fake.procs(scope) == [SHELL]


def test_hybrid_machine_says_why_for_each_kind(fake, tmp_path):
    """This machine: the memory controller is v1's, the v2 mount has only hugetlb, and the
    user's v1 cgroups are root's."""
    mount = tmp_path / "v1"
    fake.proc["/proc/self/mountinfo"] = HYBRID.format(mount=mount)
    fake.proc["/proc/self/cgroup"] = "5:pids:/\n4:memory:/x\n2:cpu,cpuacct:/\n1:freezer:/\n0::/\n"
    (mount / "unified").mkdir(parents=True)
    (mount / "unified" / "cgroup.controllers").write_text("hugetlb\n")
    with pytest.raises(cgroups.Unavailable) as caught:
        cgroups._detect(root=False)
    assert str(caught.value) == (
        f"cgroup v2 offers no pids or memory controller to {mount}/unified (cgroup v1 has pids and memory "
        f"here); cgroup v1 {mount}/pids is not writable by this user ({os.geteuid()})"
    )


def test_a_v1_subtree_writable_by_the_user_is_used(fake, tmp_path):
    """The v1 fallback: an administrator's chown of the user's cgroup in each hierarchy."""
    mount = tmp_path / "v1"
    fake.proc["/proc/self/mountinfo"] = HYBRID.format(mount=mount).replace(" rw,nsdelegate", "")
    fake.proc["/proc/self/cgroup"] = "5:pids:/u\n4:memory:/x/u\n2:cpu,cpuacct:/u\n1:freezer:/u\n0::/\n"
    (mount / "unified").mkdir(parents=True)
    (mount / "unified" / "cgroup.controllers").write_text("hugetlb\n")
    bases = [mount / "pids/u", mount / "memory/x/u", mount / "cpu,cpuacct/u", mount / "freezer/u"]
    for base in bases:
        base.mkdir(parents=True)
    layout = cgroups._detect(root=False)
    assert (layout.version, layout.delegated) == (1, True)
    assert layout.bases == tuple(map(str, bases)) and layout.mounts == layout.bases
