"""The isolation layers themselves (referee/seats/process/sandbox/): choice and fallback, what a bot
under the supervised layers really gets, and that nothing of a bot outlives the referee.

The attacks of issue 8 are in tests/test_isolation.py; the misbehaving programs of
issue 4 in tests/test_hostile.py.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import trio

from referee.core.botspec import BotSpec
from referee.core.limits import Limits
from referee.seats.process import sandbox
from referee.seats.process.bot import BotProcess

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile"
NAMESPACES_HERE = sandbox.problem(sandbox.Layer.NAMESPACES) is None
needs_namespaces = pytest.mark.skipif(not NAMESPACES_HERE, reason="the namespaces layer cannot run here")
SUPERVISED = [
    layer for layer in (sandbox.Layer.NAMESPACES, sandbox.Layer.LANDLOCK) if sandbox.problem(layer) is None
]


@pytest.fixture(scope="module")
def hostile_bin() -> Path:
    subprocess.run(["make", "-s", "-C", str(HOSTILE)], check=True)
    return HOSTILE / "bin"


# ---------------------------------------------------------------------- choice


@needs_namespaces
def test_auto_and_strict_pick_the_namespaces_layer_here():
    assert sandbox.choose("auto") is sandbox.Layer.NAMESPACES
    assert sandbox.choose("strict") is sandbox.Layer.NAMESPACES
    assert sandbox.advice(sandbox.Layer.NAMESPACES) is None
    assert sandbox.best_possible_note() is None


def test_a_probe_started_ahead_is_the_one_the_choice_takes(monkeypatch):
    """probe_ahead runs the probe in a thread (the CLI starts it before parsing); the
    choice then waits for that thread's answer instead of probing again."""
    from referee.seats.process.sandbox import choice

    real = choice._probe
    probed: list[sandbox.Layer] = []

    def counted(layer: sandbox.Layer) -> str | None:
        probed.append(layer)
        return real(layer)

    monkeypatch.setattr(choice, "_probe", counted)
    monkeypatch.setattr(choice, "_ahead", {})
    choice.supervised_problem.cache_clear()
    try:
        choice.probe_ahead(sandbox.Layer.NAMESPACES)
        choice.probe_ahead(sandbox.Layer.NAMESPACES)  # already under way: nothing more
        thread, _ = choice._ahead[sandbox.Layer.NAMESPACES]
        assert not thread.daemon
        answer = choice.supervised_problem(sandbox.Layer.NAMESPACES)
        assert not thread.is_alive()
        assert answer == real(sandbox.Layer.NAMESPACES)
        assert (answer is None) == NAMESPACES_HERE
        assert probed == [sandbox.Layer.NAMESPACES]
    finally:
        choice.supervised_problem.cache_clear()


def test_an_unknown_layer_is_a_one_line_error():
    with pytest.raises(ValueError, match="no such layer"):
        sandbox.choose("chroot")


@needs_namespaces
def test_a_weaker_layer_says_what_it_leaves_open_and_how_to_do_better():
    line = sandbox.advice(sandbox.Layer.RLIMITS)
    assert line is not None and "\n" not in line
    assert "--sandbox namespaces" in line and "--sandbox strict" in line


def test_where_user_namespaces_are_refused_auto_falls_back_and_strict_refuses(monkeypatch):
    """Ubuntu 24.04 restricts unprivileged user namespaces: the namespaces layer's probe
    fails there.  auto must take the next layer that works; strict must refuse, saying why."""
    real = sandbox.problem

    def refused(layer: sandbox.Layer) -> str | None:
        if layer is sandbox.Layer.NAMESPACES:
            return "unshare: new namespaces: Operation not permitted (errno 1)"
        return real(layer)

    monkeypatch.setattr(sandbox, "problem", refused)
    expected = next(
        layer
        for layer in (sandbox.Layer.BWRAP, sandbox.Layer.LANDLOCK, sandbox.Layer.RLIMITS)
        if real(layer) is None
    )
    assert sandbox.choose("auto") is expected
    with pytest.raises(ValueError, match=r"strict.*Operation not permitted"):
        sandbox.choose("strict")
    note = sandbox.best_possible_note()
    assert note is not None and "user namespaces" in note


def test_shared_directories_are_never_bound_whole(tmp_path):
    """A bot kept loose in /tmp or in the user's home directory must not see everything
    else there: only the files its command names."""
    loose = Path("/tmp") / f"referee-loose-{os.getpid()}.py"
    home_file = str(Path.home() / "bot.py")
    visible = sandbox._visible(["/usr/bin/python3", str(loose)], "/tmp", "/tmp/referee-x-1")
    assert "/tmp" not in visible and str(loose) not in visible  # it does not exist: nothing to bind
    loose.write_text("pass\n")
    try:
        visible = sandbox._visible(["/usr/bin/python3", str(loose)], "/tmp", "/tmp/referee-x-1")
        assert "/tmp" not in visible and str(loose) in visible
    finally:
        loose.unlink()
    visible = sandbox._visible(["/usr/bin/python3", home_file], str(Path.home()), "/tmp/referee-x-1")
    assert str(Path.home()) not in visible
    own = tmp_path / "mybot"
    own.mkdir()
    (own / "bot.py").write_text("pass\n")
    assert str(own) in sandbox._visible(["/usr/bin/python3", str(own / "bot.py")], str(own), "/tmp/w")


# ---------------------------------------------------------------------- what a bot gets

NS_REPORT = """\
import os, sys
for line in sys.stdin:
    ns = [os.readlink(f"/proc/self/ns/{k}") for k in ("pid", "net", "ipc", "mnt", "user", "uts")]
    try:
        open("/written-at-the-root", "w").close()
        root = "root-writable"
    except OSError:
        root = "root-read-only"
    with open(os.path.join(os.environ["HOME"], "mine"), "w") as fh:
        fh.write("ok")
    print(" ".join([*ns, root, str(os.getpid()), ",".join(sorted(os.listdir("/")))]), flush=True)
"""


async def _ask(spec: BotSpec, layer: sandbox.Layer, limits: Limits | None = None) -> tuple[str, BotProcess]:
    sandbox.become_subreaper()
    async with trio.open_nursery() as nursery:
        bot = BotProcess(spec, limits or Limits(startup_s=10, decision_s=5), layer=layer)
        await bot.start(nursery)
        try:
            reply = (await bot.request(b"go\n")).decode()
            bot.sample()
        finally:
            await bot.close()
            nursery.cancel_scope.cancel()
    return reply, bot


@needs_namespaces
async def test_a_bot_lives_in_namespaces_of_its_own_behind_a_read_only_root(tmp_path):
    from conftest import BOT_PYTHON

    script = tmp_path / "report.py"
    script.write_text(NS_REPORT)
    spec = BotSpec(name="report", argv=[BOT_PYTHON, str(script)], home=str(tmp_path))
    reply, bot = await _ask(spec, sandbox.Layer.NAMESPACES)
    words = reply.split()
    ours = [os.readlink(f"/proc/self/ns/{k}") for k in ("pid", "net", "ipc", "mnt", "user", "uts")]
    theirs = words[:6]
    for kind, mine, its in zip(("pid", "net", "ipc", "mnt", "user", "uts"), ours, theirs, strict=True):
        if kind == "user" and os.geteuid() == 0:
            continue  # root needs no user namespace: the bot gets a uid of its own instead
        assert mine != its, f"the bot shares the referee's {kind} namespace"
    assert words[6] == "root-read-only"
    assert int(words[7]) < 10, "the bot is not in a fresh pid namespace"
    top = set(words[8].split(","))
    # Only what the bot needs is there: the system, its own files, its interpreter's
    # installation (a virtualenv under /home, say), the wire modules.
    needed = {Path(p).parts[1] for p in sandbox._visible(spec.argv, spec.home, "/tmp/w")}
    assert {"usr", "proc", "tmp", "dev"} <= top
    assert not ({"home", "root", "var", "srv", "mnt", "run"} - needed) & top, top
    assert "seccomp" in bot.sandbox and "nproc" in bot.sandbox and "tmpfs" in bot.sandbox
    assert (os.geteuid() == 0) == ("uid " in bot.sandbox)


AFFINITY_REPORT = """\
import os, sys
for line in sys.stdin:
    print(sorted(os.sched_getaffinity(0)), sorted(os.sched_getaffinity(os.getppid())), sep=";", flush=True)
"""


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one core: nothing to spread over")
@pytest.mark.parametrize("layer", [*SUPERVISED, sandbox.Layer.RLIMITS], ids=str)
async def test_a_pinned_match_starts_its_supervisors_spread_and_its_bots_on_its_core(layer, tmp_path):
    """A supervisor's start-up (a Python interpreter) runs on any of the referee's cores
    from before the pin, so that a match's bots start side by side; the bot itself runs
    on the referee's core alone, as every decision must be played on one core
    (docs/architecture.md).  Unsupervised layers start the bot pinned at once."""
    from conftest import BOT_PYTHON

    from referee.seats.process.pinning import pinned_to_one_core

    script = tmp_path / "affinity.py"
    script.write_text(AFFINITY_REPORT)
    tmp_path.chmod(0o755)
    spec = BotSpec(name="affinity", argv=[BOT_PYTHON, str(script)], home=str(tmp_path))
    before = sorted(os.sched_getaffinity(0))
    with pinned_to_one_core(True) as core:
        reply, _ = await _ask(spec, layer)
    assert os.sched_getaffinity(0) == set(before)
    mine, parents = reply.split(";")
    assert mine == str([core])
    # The bot's parent: its supervisor (landlock), the namespace's init (namespaces, which
    # the supervisor forked), or the referee itself (rlimits: pinned).
    assert parents == (str([core]) if layer is sandbox.Layer.RLIMITS else str(before))


@pytest.mark.slow
@pytest.mark.parametrize("layer", SUPERVISED, ids=str)
async def test_the_supervisor_is_not_charged_to_the_bot(layer, hostile_bin):
    """The supervisor is a Python process of ~10 MiB: a C bot that uses 1-2 MiB must be
    reported as using about that, not the supervisor's memory or CPU."""
    spec = BotSpec(name="sleepy", argv=[str(hostile_bin / "ignoreterm")], home=str(hostile_bin))
    reply, bot = await _ask(spec, layer)
    assert reply == "0"
    assert 0 < bot.peak_rss < 6 << 20, f"charged {bot.peak_rss >> 20} MiB"
    assert bot.cpu_s < 0.05, f"charged {bot.cpu_s:.3f} s of CPU"


# ---------------------------------------------------------------------- the referee dies


def _bot_processes(marker: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if any(marker in word for word in cmdline):
            found.append(proc)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("layer", [*SUPERVISED, *(["bwrap"] if sandbox.bwrap_works() else [])], ids=str)
def test_nothing_of_a_bot_outlives_a_referee_killed_with_sigkill(layer, hostile_bin, tmp_path):
    """kill -9 of the referee: bots that ignore EOF and SIGTERM, and their children, die too
    (PR_SET_PDEATHSIG on the supervisor; the pid namespace, or under Landlock the
    supervisor's sweep)."""
    bot = tmp_path / "stubborn"
    bot.write_bytes((hostile_bin / "ignoreterm").read_bytes())
    bot.chmod(0o755)
    referee = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "referee",
            "match",
            str(bot),
            str(bot),
            "--games",
            "1000000",
            "--sandbox",
            str(layer),
            "--quiet",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 15

        def running() -> list[psutil.Process]:
            return [p for p in _bot_processes(str(bot)) if p.pid != referee.pid]

        while len(running()) < 4 and time.monotonic() < deadline:  # 2 bots, 2 children
            time.sleep(0.05)
        assert len(running()) >= 2, "the bots did not start"
    finally:
        referee.send_signal(signal.SIGKILL)
        referee.wait()
    deadline = time.monotonic() + 3
    while _bot_processes(str(bot)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _bot_processes(str(bot))
    for proc in left:  # do not leave them to the next test
        proc.kill()
    assert not left, f"left running after the referee died: {[p.pid for p in left]}"


def test_every_link_to_a_program_is_made_visible(tmp_path):
    """A virtualenv's python may reach the real interpreter through a link in another
    directory (~/tools/python3 -> /usr/bin/python3.11): each hop's directory must be
    visible in the sandbox, or the exec fails there although the file exists."""
    tools = tmp_path / "tools" / "bin"
    tools.mkdir(parents=True)
    (tools / "python3").symlink_to("/usr/bin/env")
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").symlink_to(tools / "python3")
    found = sandbox._installations(str(venv / "python"))
    assert {str(tmp_path / "venv"), str(tmp_path / "tools"), "/usr"} <= found


@pytest.mark.slow
def test_a_build_command_is_not_run_without_build(tmp_path, built_samples):
    """A bot.toml's build runs outside the sandbox: only with --build."""
    marker = tmp_path / "built"
    bot = tmp_path / "bot"
    bot.mkdir()
    bot.chmod(0o755)
    (bot / "bot.toml").write_text(f'run = "/bin/cat"\nbuild = "touch {marker}"\n')
    competent = str(built_samples / "yahtzee" / "bin" / "competent")
    done = subprocess.run(
        [sys.executable, "-m", "referee", "match", str(bot), competent, "--games", "1", "--quiet"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert not marker.exists()
    assert "pass --build" in done.stderr


# ---------------------------------------------------------------------- a bot kept loose in the home directory

HOME_REPORT = """\
import os, sys
for line in sys.stdin:
    try:
        open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "secret")).close()
        secret = "secret-readable"
    except OSError:
        secret = "secret-hidden"
    print(sys.prefix, sys.prefix != sys.base_prefix, secret, flush=True)
"""


def _fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A home directory (the referee's ``~``) holding a virtualenv, a secret, and a bot
    script directly in it; returns (home, the venv's python)."""
    from conftest import BOT_PYTHON

    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    subprocess.run([BOT_PYTHON, "-m", "venv", "--without-pip", str(home / ".venv")], check=True)
    (home / "secret").write_text("key\n")
    (home / "homebot.py").write_text(HOME_REPORT)
    monkeypatch.setenv("HOME", str(home))
    return home, home / ".venv" / "bin" / "python3"


@pytest.mark.slow
@pytest.mark.parametrize("named", [True, False], ids=["named", "on-path"])
@pytest.mark.parametrize("layer", SUPERVISED, ids=str)
async def test_a_bot_in_the_home_directory_runs_under_a_virtualenv_there(layer, named, tmp_path, monkeypatch):
    """``python3 ~/homebot.py`` with a virtualenv under ~ activated (or named by its path):
    the home directory is never bound whole, so the bot's program was bound alone, a
    link into the base Python that the sandbox could not follow (namespaces: "mount: ...
    No such file or directory"; Landlock: pyvenv.cfg unreadable).  The virtualenv is
    the program's installation and must be visible; the rest of ~ must stay hidden."""
    home, python = _fake_home(tmp_path, monkeypatch)
    if not named:
        monkeypatch.setenv("PATH", f"{python.parent}{os.pathsep}{os.environ['PATH']}")
    program = str(python) if named else "python3"
    spec = BotSpec(name="homebot", argv=[program, str(home / "homebot.py")], home=str(home))
    reply, _ = await _ask(spec, layer)
    assert reply.split() == [str(home / ".venv"), "True", "secret-hidden"]


@pytest.mark.slow
@needs_namespaces
async def test_a_named_file_that_is_an_absolute_link_is_bound_where_it_leads(tmp_path, monkeypatch):
    """Files in a shared directory are bound one by one; a link among them
    (~/python3 -> /usr/bin/python3, ~/bot.py -> /elsewhere/bot.py) must be followed on the
    host, not from the half-built root where an absolute link leads nowhere."""
    from conftest import BOT_PYTHON

    home, _ = _fake_home(tmp_path, monkeypatch)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o755)
    (elsewhere / "homebot.py").write_text(HOME_REPORT)
    (home / "linked.py").symlink_to(elsewhere / "homebot.py")
    (home / "python3").symlink_to(os.path.realpath(BOT_PYTHON))
    spec = BotSpec(name="linked", argv=[str(home / "python3"), str(home / "linked.py")], home=str(home))
    reply, _ = await _ask(spec, sandbox.Layer.NAMESPACES)
    assert reply.split()[1:] == ["False", "secret-hidden"]


IMPORTS_PROTOCOL = """\
import os, sys
ROOT = %r  # in the text, not on the command line (a path named there is made visible)
sys.path.insert(0, ROOT)  # the project's root, as the Python sample players do
from protocol import lines  # noqa: F401 -- the import is the test
try:
    open(os.path.join(ROOT, "pyproject.toml")).read()
    leaked = "read"
except OSError:
    leaked = "unreadable"
for line in sys.stdin:
    print("imported", leaked, flush=True)
"""


@pytest.mark.parametrize("layer", SUPERVISED, ids=str)
async def test_a_python_bot_imports_the_protocol_package_from_the_project_root(layer, tmp_path):
    """The Python sample players put the project's root on sys.path to import
    `protocol`: every layer lets them (Landlock used to refuse the listing the importer
    needs: "No module named 'protocol'"), and no other file of the root is readable."""
    from conftest import BOT_PYTHON

    home = tmp_path / "bot"
    home.mkdir()
    (home / "bot.py").write_text(IMPORTS_PROTOCOL % str(ROOT))
    home.chmod(0o755)
    (home / "bot.py").chmod(0o644)
    spec = BotSpec(name="importer", argv=[BOT_PYTHON, str(home / "bot.py")], home=str(home))
    reply, _ = await _ask(spec, layer)
    assert reply == "imported unreadable"


# ---------------------------------------------------------------------- memory and quotas (issue 27)

#: Ways to hold memory or kernel objects that no process's RSS shows, each denied by the
#: seccomp filter (EPERM) under both supervised layers: tests/hostile/kernmem.c.
HIDDEN_MEMORY = [
    "memfd_secret",
    "vmsplice",
    "seccomp",
    "prctl_seccomp",
    "pipesz",
    "fanotify",
    "shm",
    "msg",
    "mq",
]


@pytest.mark.parametrize("mode", HIDDEN_MEMORY)
@pytest.mark.parametrize("layer", SUPERVISED, ids=str)
async def test_memory_no_rss_shows_cannot_be_held(layer, mode, hostile_bin):
    """memfd_secret (12 × 32 MiB touched then unmapped held 384 MiB against a 64 MiB cap,
    unseen), a System V segment detached or a queue filled in the bot's own IPC
    namespace, pages pinned by vmsplice, a pipe grown to 1 MiB, stacked seccomp
    filters, fanotify groups (counted per user): every first try fails with EPERM."""
    if mode in ("shm", "msg") and layer is sandbox.Layer.LANDLOCK:
        pytest.skip("no IPC namespace of its own under landlock: the probe would leak (IPC is denied there)")
    argv = [str(hostile_bin / "kernmem"), mode, os.readlink("/proc/self/ns/ipc")]
    spec = BotSpec(name="kernmem", argv=argv, home=str(hostile_bin))
    reply, _ = await _ask(spec, layer, Limits(startup_s=10, decision_s=10, memory_bytes=64 << 20))
    assert reply == f"{mode} denied EPERM"


#: Why a bot gets no cgroup here (None: it gets one: root, or a delegated subtree).
NO_CGROUP = sandbox.cgroups.probe()


@pytest.mark.slow
@pytest.mark.skipif(NO_CGROUP is not None, reason=f"no per-bot cgroup here: {NO_CGROUP}")
@pytest.mark.parametrize("layer", SUPERVISED, ids=str)
async def test_socket_buffers_count_against_the_bots_cgroup(layer, hostile_bin):
    """Issue 27, item 2: 10 helper children, each holding ~38 MiB written into socketpairs
    it never reads, held 380 MiB of kernel memory that no process's RSS shows: no
    verdict, and the host's MemAvailable fell by as much.  In the bot's cgroup (as root,
    or in a subtree delegated to the user) the kernel charges socket buffers: it kills at
    the cap, and the referee gives a ``memory`` verdict."""
    from referee.core.verdict import BotFault, Verdict

    spec = BotSpec(name="sockbuf", argv=[str(hostile_bin / "kernmem"), "sockbuf"], home=str(hostile_bin))
    limits = Limits(startup_s=10, decision_s=10, memory_bytes=64 << 20)
    sandbox.become_subreaper()
    reply = ""
    async with trio.open_nursery() as nursery:
        bot = BotProcess(spec, limits, layer=layer)
        await bot.start(nursery)
        try:
            assert bot.child.jail is not None and bot.child.jail.cgroup is not None, bot.sandbox
            cap = limits.memory_bytes + sandbox.plan._SUPERVISOR_ROOM
            with trio.fail_after(30):
                with contextlib.suppress(BotFault):
                    reply = (await bot.request(b"go\n")).decode()
                # The kernel may kill a helper child only, and the bot answer on: the
                # monitor's next sample sees the kill in the cgroup.
                bot.sample()
            peak = bot.child.jail.cgroup.memory_peak()
        finally:
            await bot.close()
            nursery.cancel_scope.cancel()
    assert "cgroup" in bot.sandbox
    assert bot.death is Verdict.MEMORY, (reply, bot.death, bot.death_detail)
    assert "(cgroup)" in bot.death_detail
    assert peak <= cap, f"{peak >> 20} MiB charged under a cap of {cap >> 20} MiB"
    if reply.startswith("sockbuf held"):
        assert int(reply.split()[2]) < 380, reply


def _planned_jail(tmp_path) -> sandbox.Jail:
    """The plan for ``cat`` under a supervised layer (nothing started; its uid given back)."""
    layer = next(iter(SUPERVISED), sandbox.Layer.LANDLOCK)
    workdir = tmp_path / "work"
    workdir.mkdir()
    jail = sandbox.jail(["/bin/cat"], str(tmp_path), str(workdir), layer, allow_root=True)
    if jail.uid is not None:
        sandbox.release_uid(jail.uid)
    return jail


def test_without_a_cgroup_the_description_names_what_is_not_capped(monkeypatch, tmp_path):
    """Where a bot gets no cgroup (not root, no delegated subtree), its ``isolation:``
    line says that kernel memory is not capped, and why."""
    monkeypatch.setattr(sandbox.cgroups, "probe", lambda: "no delegated cgroup (test)")
    jail = _planned_jail(tmp_path)
    assert jail.cgroup is None
    assert (
        "no cgroup, so kernel memory is not capped (socket and pipe buffers, epoll watches, "
        "other kernel objects): no delegated cgroup (test)"
    ) in jail.description


def test_a_delegated_cgroup_is_named_in_the_description(monkeypatch, tmp_path):
    """A bot in a cgroup of a subtree delegated to the user says so: ``cgroup (delegated)``."""

    class Delegated:
        delegated = True

    monkeypatch.setattr(sandbox.cgroups, "probe", lambda: None)
    monkeypatch.setattr(sandbox.cgroups.BotCgroup, "create", lambda *_, **__: Delegated())
    jail = _planned_jail(tmp_path)
    assert jail.description.endswith(", cgroup (delegated)"), jail.description


QUOTA_PROBE = """\
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
what = sys.argv[1]
if what == "inotify":
    ok = libc.inotify_init1(os.O_CLOEXEC) >= 0
elif what == "sigqueue":
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])
    ok = libc.sigqueue(os.getpid(), signal.SIGRTMIN, ctypes.c_void_p(0)) == 0
else:
    name = b"/referee-probe-%d" % os.getpid()
    fd = libc.mq_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600, None)
    ok = fd >= 0
    if ok:
        libc.mq_unlink(name)
print("ok" if ok else "failed: " + os.strerror(ctypes.get_errno()))
"""
#: The most a bot may take of a quota counted per user (any layer that counts it): what → most.
QUOTA_SHARE = {"inotify": 8, "sigqueue": 1024}


def _quota_cases() -> list:
    cases = []
    for layer in (*SUPERVISED, sandbox.Layer.RLIMITS):
        for what in ("inotify", "sigqueue", "mq"):
            if what == "inotify" and layer is sandbox.Layer.RLIMITS:
                continue  # no user namespace, no seccomp: a gap of that layer (docs/security.md)
            cases.append(pytest.param(layer, what, id=f"{layer}-{what}"))
    return cases


@pytest.mark.slow
@pytest.mark.parametrize(("layer", "what"), _quota_cases())
async def test_a_bot_leaves_the_users_own_quotas_alone(layer, what, hostile_bin, tmp_path):
    """Issue 27: inotify instances, queued signals and POSIX message-queue bytes are
    counted per user.  Without a uid of its own (not root) a bot used to take them all
    (128 inotify instances, ~96k queued signals) and the user's file watchers, editors,
    ``tail -f`` failed while the match ran.  The bot gets a share; a probe of the same
    user outside the match still gets one while the bot holds all it can."""
    from conftest import BOT_PYTHON

    probe = tmp_path / "probe.py"
    probe.write_text(QUOTA_PROBE)
    spec = BotSpec(name="quota", argv=[str(hostile_bin / "kernmem"), what], home=str(hostile_bin))
    sandbox.become_subreaper()
    async with trio.open_nursery() as nursery:
        bot = BotProcess(spec, Limits(startup_s=10, decision_s=10), layer=layer)
        await bot.start(nursery)
        try:
            reply = (await bot.request(b"go\n")).decode()
            # The bot still holds what it took while the probe runs.
            probe_run = subprocess.run(
                [BOT_PYTHON, str(probe), what], capture_output=True, text=True, timeout=30, check=False
            )
            assert await bot.request(b"go\n") == b"0"
        finally:
            await bot.close()
            nursery.cancel_scope.cancel()
    assert probe_run.stdout.strip() == "ok", (reply, probe_run.stdout, probe_run.stderr)
    words = reply.split()
    if what == "mq":
        assert words[:2] == ["mq", "denied"], reply  # EPERM (seccomp) or EMFILE (RLIMIT_MSGQUEUE 0)
    elif what == "inotify" and layer is sandbox.Layer.LANDLOCK:
        assert reply == "inotify denied EPERM"  # no user namespace to count them in: denied
    elif os.geteuid() != 0:  # as root the count is its own uid's: any number is its own
        assert words[1] == "held" and int(words[2]) <= QUOTA_SHARE[what], reply


def test_a_failed_start_not_reaped_in_time_is_left_to_the_orphan_sweep(monkeypatch):
    """spawn marks a child as its owner's from the fork (sandbox.LEADERS, which the orphan
    sweep skips); a failed start whose child is still not reaped after the 2 s of
    _kill_and_reap (stuck in the kernel) must not stay marked, or no one ever reaps it."""
    from referee.seats.process.sandbox import spawn

    pid = 2**22 + 12345  # no such process: the kill and the wait are faked
    monkeypatch.setattr(spawn.os, "kill", lambda *_: None)
    monkeypatch.setattr(spawn.os, "waitpid", lambda *_: (0, 0))
    sandbox.LEADERS.add(pid)
    try:
        trio.run(spawn._kill_and_reap, pid, clock=trio.testing.MockClock(autojump_threshold=0))
        assert pid not in sandbox.LEADERS
    finally:
        sandbox.LEADERS.discard(pid)
