"""Isolation: the sandbox contains every attack of the issue's table.

Each row of the table is turned into tests that run under ``--sandbox auto`` (the
namespaces layer wherever the kernel allows it, root or not), under ``landlock`` where
that layer should contain the attack, and under ``bwrap`` when bubblewrap works here
(skipped, with the reason, otherwise).  ``rlimits`` and ``none`` are not expected to
contain these attacks and are not run here.  The attack programs are in
``tests/hostile/`` (``ATTACKS.md`` describes them); the C ones are built by a fixture.

Rows and their tests:

1. The opponent's fork is SIGSTOPped before it execs:
   ``test_stopping_new_processes_cannot_hang_a_bots_start`` (``attack stop-forks``
   while other bots start) and ``test_a_child_stuck_before_exec_is_a_bounded_spawn_error``
   (the bounded spawn itself, whatever the layer).
2. SIGSTOP or SIGKILL the referee, ``kill(-1, SIGKILL)``;
3. signal the opponent, write into its stdout, read its stdin, ptrace it:
   ``test_an_attack_in_a_match_harms_neither_referee_nor_opponent`` (``attack
   stop-parent|kill-minus-one|signal-all|fd-write|ptrace`` in a Yahtzee match against
   the competent sample player, with a bystander process and a watchdog that would
   catch, and undo, a stopped referee).
4. Pass a secret between the two bots: ``test_two_bots_cannot_pass_a_secret``
   (``collude send`` / ``collude recv``, every channel of collude.c).
5. Read the referee's environment; read and write the project's source, ``.venv/bin``,
   the referee's working directory and the opponent's files:
   ``test_a_bot_cannot_read_the_referees_environment``,
   ``test_a_bot_cannot_read_or_write_outside_its_sandbox`` (one case per place) and
   ``test_a_manifest_cannot_widen_its_own_sandbox`` (naming the opponent's file in
   ``bot.toml``).
6. CPU, memory or /dev/shm held by a setsid, double-forked grandchild:
   ``test_a_grandchilds_cpu_and_memory_are_charged_to_the_bot``.
7. The leader exits and a detached grandchild answers on:
   ``test_a_grandchild_cannot_answer_for_a_dead_leader``.
8. A daemon that renames itself or hops pids: ``test_a_disguised_daemon_does_not_survive``.
9. Writing to the real disk: ``test_a_bot_cannot_fill_the_disk``; writing beyond the
   caps anywhere else: ``test_a_bot_cannot_write_beyond_its_caps``.
10. As root, bots that cannot get a uid of their own:
    ``test_as_root_an_unreadable_bot_is_refused_unless_allowed``,
    ``test_as_root_a_bot_runs_under_a_uid_of_its_own`` and
    ``test_as_root_the_cli_refuses_an_unreadable_bot``.
11. A fork bomb is capped: ``test_a_fork_bomb_is_capped``.
12. The layer in force is reported: ``test_the_cli_warns_about_a_weak_layer`` and
    ``test_the_cli_runs_the_strict_layer``.

Documented gaps are reported, not hidden: under landlock the attack program's
interlock sees the referee's /proc and refuses to attack (a skip that says so), the
other bot's command line is readable in /proc (the ``proc`` channel of ``collude``) and
so is the list of the referee's descriptors for a bot of its own uid (expected
failures); under bwrap a bot can ptrace, or write to the stdout of, its sandbox's own
init, the only other process it sees (an expected failure: bwrap has no seccomp
filter).

Every attack is checked from the outside where it can be (the opponent's games, files
on disk, processes in /proc), not only from the bot's own reply; and everything a test
starts or creates is removed in a ``finally``, sandbox or no sandbox.  ``attack`` is
always given ``os.getpid()``: the test process is the referee, and the program's
interlock refuses to attack anything while it can see that pid.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec
import psutil
import pytest
import trio
from test_hostile import BIN, HOSTILE, LIMITS, Run, play_match, run_bot, spec, token_holders

from referee.core.botspec import BotSpec, BotSpecError, resolve
from referee.core.limits import Limits, MiB
from referee.core.verdict import BotFault, Verdict
from referee.seats.process import sandbox as isolation
from referee.seats.process.bot import BotProcess
from referee.seats.process.sandbox import spawn

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
REQUEST = b"1 2 3 4 5\n"
IS_ROOT = os.geteuid() == 0
Layer = isolation.Layer

#: The Python of the probes that read and write files: the system's own, so that no
#: virtualenv (the project's own .venv may be the test's interpreter) is made visible
#: to the bot as its interpreter's installation.
SYSTEM_PYTHON = next((p for p in ("/usr/bin/python3", "/bin/python3") if os.path.exists(p)), None)
PROBE = str(HOSTILE / "probe.py")

#: ``--sandbox`` values the rows run under (``auto`` is the namespaces layer here).
LAYERS = ["auto", "landlock", "bwrap"]


# ---------------------------------------------------------------------- fixtures and helpers


@pytest.fixture(scope="module")
def hostile_bin() -> Path:
    """Build the C attack programs once per module (make is incremental)."""
    subprocess.run(["make", "-s", "-C", str(HOSTILE)], check=True)
    return BIN


@pytest.fixture(params=LAYERS)
def layer(request) -> str:
    """The ``--sandbox`` value under test; skipped, with the reason, where it cannot run."""
    effective(request.param)
    return request.param


@pytest.fixture(params=["auto", "landlock"])
def layer_no_bwrap(request) -> str:
    """For rows bubblewrap is not meant to contain: it neither measures its tmpfs nor
    caps processes (docs/security.md)."""
    effective(request.param)
    return request.param


def effective(requested: str) -> isolation.Layer:
    """The layer ``--sandbox requested`` runs here; skips when it cannot run."""
    if requested == "auto":
        return isolation.choose("auto")
    layer = Layer(requested)
    reason = isolation.problem(layer)
    if reason is not None:
        pytest.skip(f"--sandbox {requested} cannot run here: {reason}")
    return layer


def assert_ran_under(description: str, layer: isolation.Layer) -> None:
    """The bot's own isolation description names the layer asked for."""
    assert description.split(",")[0] == layer.value, f"asked for {layer}, ran under: {description}"


def judge_attack(reply: str, layer: isolation.Layer) -> None:
    """An ``attack`` reply: nothing achieved.  ``unsafe`` (the interlock saw the referee)
    fails under a layer with a pid namespace; under landlock, which shows /proc of other
    processes (its documented gap), it means the attack could not be tried: skip."""
    word = reply.split(" ", 1)[0]
    if word == "unsafe":
        if layer is Layer.LANDLOCK:
            pytest.skip(
                "landlock leaves /proc of other processes visible (documented gap), so the "
                f"attack's interlock refused to run: {reply}"
            )
        pytest.fail(f"{layer}: the bot can see the referee: {reply}")
    assert word == "could-not", f"{layer}: the attack achieved something: {reply}"


def fast(**changes) -> Limits:
    return msgspec.structs.replace(LIMITS, **changes)


def processes_mentioning(tag: str) -> list[tuple[int, str, str]]:
    """Every process whose comm or cmdline contains ``tag``: (pid, comm, cmdline)."""
    found = []
    me = os.getpid()
    for entry in glob.glob("/proc/[0-9]*"):
        pid = int(entry.rsplit("/", 1)[1])
        if pid == me:
            continue
        try:
            with open(f"{entry}/comm", "rb") as fh:
                comm = fh.read().decode(errors="replace").strip()
            with open(f"{entry}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if tag in comm or tag in cmdline:
            found.append((pid, comm, cmdline))
    return found


def kill_mentioning(tag: str) -> None:
    """SIGKILL what carries ``tag`` (a clean-up after a broken sandbox).  A pid hopper
    forks on faster than a scan of /proc, so its whole process group is killed (a
    fork keeps it), until three scans in a row find nothing alive."""
    own_group = os.getpgrp()
    quiet = 0
    deadline = time.monotonic() + 3.0
    while quiet < 3 and time.monotonic() < deadline:
        alive = []
        for pid, _, _ in processes_mentioning(tag):
            try:
                with open(f"/proc/{pid}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != b"Z":
                alive.append((pid, int(fields[2])))
        for pid, group in alive:
            with contextlib.suppress(OSError):
                if group > 1 and group != own_group:
                    os.killpg(group, signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
        quiet = 0 if alive else quiet + 1
        time.sleep(0.01)
    isolation.reap_orphans()


def new_files(pattern: str, before: set[str]) -> list[str]:
    return sorted(set(glob.glob(pattern)) - before)


def remove(paths) -> None:
    for path in paths:
        with contextlib.suppress(OSError):
            os.unlink(path)


def free_bytes(path: str = "/tmp") -> int:
    fs = os.statvfs(path)
    return fs.f_bavail * fs.f_frsize


async def paced_requests(
    bot: BotProcess, *, every: float, within: float
) -> tuple[list[bytes], BotFault | None, float]:
    """Send a request every ``every`` seconds until a fault or for ``within`` seconds;
    returns the replies, the fault, and the seconds from the first request to the
    fault.  Never raises a BotFault: the caller's assertions come after close."""
    replies: list[bytes] = []
    started = time.perf_counter()
    while time.perf_counter() - started < within:
        try:
            replies.append(await bot.request(REQUEST))
        except BotFault as fault:
            return replies, fault, time.perf_counter() - started
        await trio.sleep(every)
    return replies, None, time.perf_counter() - started


def run_and_sweep(argv: tuple[str, ...], **kwargs) -> Run:
    """``run_bot`` (which asserts that nothing of the bot is left) in a fresh trio run;
    should anything carrying the bot's token be left all the same (a broken sandbox),
    it is killed before the test goes on."""
    bots: list[BotProcess] = []
    before_close = kwargs.pop("before_close", None)

    async def remember(bot: BotProcess, replies: list[bytes]) -> None:
        bots.append(bot)
        if before_close is not None:
            await before_close(bot, replies)

    try:
        return trio.run(lambda: run_bot(argv, before_close=remember, **kwargs))
    finally:
        for bot in bots:
            for proc in token_holders(bot.child.token):
                with contextlib.suppress(psutil.Error):
                    proc.kill()
        isolation.reap_orphans()


def write_script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


ECHO_BOT = "#!/bin/sh\nwhile read -r line; do echo 0; done\n"
#: The pause between two starts under the stop-forks attacker (each start is a new
#: sandbox: a start after another, without a pause, costs the test's CPU, not its claim).
START_EVERY_S = 0.2


# ---------------------------------------------------------------------- row 1: stopped forks


def test_stopping_new_processes_cannot_hang_a_bots_start(layer, hostile_bin, tmp_path, record_property):
    """While ``attack stop-forks`` SIGSTOPs every process that appears for 3 s, other
    bots are started one after another (one every ``START_EVERY_S``, a dozen or so in
    the attacker's window): each starts and answers within its startup allowance (the
    referee never hangs on a stopped fork), and the attacker stops none."""
    used = effective(layer)
    echo = write_script(tmp_path / "echo.sh", ECHO_BOT)
    attacker_limits = fast(startup_s=5.0, decision_s=6.0)
    echo_limits = fast(startup_s=2.0, decision_s=1.0)
    starts: list[float] = []
    outcome: dict[str, object] = {}

    async def scenario() -> None:
        attacker = BotProcess(spec(("attack", "stop-forks", str(os.getpid()))), attacker_limits, layer=used)
        outcome["attacker"] = attacker
        async with trio.open_nursery() as nursery:
            try:
                await attacker.start(nursery)
                outcome["first"] = await attacker.request(REQUEST)
                done = trio.Event()

                async def attack() -> None:
                    try:
                        outcome["reply"] = (await attacker.request(REQUEST)).decode(errors="replace")
                    except BotFault as fault:
                        outcome["fault"] = fault
                    finally:
                        done.set()

                nursery.start_soon(attack)
                await trio.sleep(0.3)  # its snapshot of /proc is taken: now it watches
                while not done.is_set():
                    home = str(tmp_path)
                    bot = BotProcess(
                        BotSpec(name="echo", argv=[str(echo)], home=home), echo_limits, layer=used
                    )
                    begun = time.perf_counter()
                    try:
                        with trio.fail_after(echo_limits.startup_s + 2.0):
                            await bot.start(nursery)
                            reply = await bot.request(REQUEST)
                        starts.append(time.perf_counter() - begun)
                        assert reply == b"0", reply
                        assert_ran_under(bot.sandbox, used)
                    finally:
                        with trio.fail_after(10):
                            await bot.close()
                    assert token_holders(bot.child.token) == []
                    with trio.move_on_after(START_EVERY_S):
                        await done.wait()
                with trio.fail_after(10):
                    await done.wait()
            finally:
                with trio.fail_after(10):
                    await attacker.close()
                nursery.cancel_scope.cancel()

    trio.run(scenario)
    attacker = outcome["attacker"]
    assert isinstance(attacker, BotProcess)
    assert token_holders(attacker.child.token) == []
    assert_ran_under(attacker.sandbox, used)
    assert outcome["first"] == b"0", outcome["first"]
    assert "fault" not in outcome, outcome["fault"]
    reply = str(outcome["reply"])
    record_property("attack", reply)
    record_property("starts", " ".join(f"{s:.2f}" for s in starts))
    judge_attack(reply, used)
    assert starts, f"no bot started while the attacker watched: {reply}"
    assert max(starts) < echo_limits.startup_s, f"a start took {max(starts):.2f} s"


def test_a_child_stuck_before_exec_is_a_bounded_spawn_error(tmp_path):
    """The bounded spawn, whatever the layer: a child that blocks before exec (opening
    a FIFO nobody reads, as its cgroup.procs) ends in SpawnError by the deadline, and
    the child is killed and reaped."""
    fifo = tmp_path / "cgroup.procs"
    os.mkfifo(fifo)
    launch = spawn.Launch(
        argv=["/bin/true"], env={"PATH": "/usr/bin:/bin"}, cwd=str(tmp_path), cgroup_procs=[str(fifo)]
    )
    allowance = 1.0
    seen: dict[int, psutil.Process] = {}
    outcome: dict[str, object] = {}

    async def scenario() -> None:
        isolation.become_subreaper()
        before = {p.pid for p in psutil.Process().children()}
        pipes = [os.pipe() for _ in range(3)]
        try:
            async with trio.open_nursery() as nursery:

                async def watch() -> None:
                    while True:
                        for child in psutil.Process().children():
                            if child.pid not in before:
                                seen.setdefault(child.pid, child)
                        await trio.sleep(0.005)

                nursery.start_soon(watch)
                started = time.perf_counter()
                try:
                    await spawn.start(
                        launch, (pipes[0][0], pipes[1][1], pipes[2][1]), trio.current_time() + allowance
                    )
                except spawn.SpawnError as exc:
                    outcome["error"] = exc
                outcome["took"] = time.perf_counter() - started
                nursery.cancel_scope.cancel()
        finally:
            for r, w in pipes:
                os.close(r)
                os.close(w)

    try:
        trio.run(scenario)
        left = [(pid, p.status()) for pid, p in seen.items() if p.is_running()]
    finally:
        for proc in seen.values():  # should one be left, it must not outlive the test
            with contextlib.suppress(psutil.Error):
                proc.kill()
        isolation.reap_orphans()
    assert "error" in outcome, "spawn.start returned although its child never reached exec"
    assert "in time" in str(outcome["error"]), outcome["error"]
    assert outcome["took"] < allowance + 0.5, f"SpawnError after {outcome['took']:.2f} s"
    assert seen, "the forked child was never seen"
    assert not left, f"the stuck child is still there: {left}"
    for pid in seen:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


# ---------------------------------------------------------------------- rows 2 and 3: attacks in a match

#: Resumes the referee (and logs it) should it ever be stopped: a stopped referee could
#: not notice it itself, and the run would hang instead of failing.
WATCHDOG = r"""
import os, signal, sys, time
pid, log = int(sys.argv[1]), sys.argv[2]
while os.getppid() == pid:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        break
    if state in "Tt":
        with open(log, "a") as fh:
            fh.write(f"{time.time():.3f} state {state}\n")
        os.kill(pid, signal.SIGCONT)
    time.sleep(0.01)
"""

#: Row 2 (the referee: stop-parent, kill-minus-one, signal-all) and row 3 (the opponent:
#: signal-all, fd-write, ptrace); every case checks both.
MATCH_ATTACKS = ["stop-parent", "kill-minus-one", "signal-all", "fd-write", "ptrace"]


def own_init_only(reply: str, layer: isolation.Layer) -> bool:
    """Whether an attack that ``could`` do something reached, under bwrap, only the one
    process it sees: pid 1 of its own pid namespace, bubblewrap's init, which holds the
    bot's own pipes (bwrap has no seccomp filter, so a bot may ptrace it or write to its
    stdout, which is the bot's own)."""
    if layer is not Layer.BWRAP:
        return False
    # fd-write's "pwned" line on the only stdout it reaches, its own: read by the
    # referee as its reply (or with it), depending on timing.
    if reply.split("\n", 1)[0] == "pwned":
        return True
    return re.search(r"\bof 1 (visible )?(processes|stdouts) \(1\)", reply) is not None


@pytest.mark.parametrize("mode", MATCH_ATTACKS)
def test_an_attack_in_a_match_harms_neither_referee_nor_opponent(
    mode, layer, hostile_bin, built_samples, tmp_path, record_property
):
    """The hostile seat attacks every process it can see; the competent bot wins every
    game without a forfeit, the match completes, the referee is never stopped (a
    watchdog would have resumed it and logged it), a bystander process of the test's
    own uid lives on, and the attacker's reply (its protocol forfeit) reports nothing
    achieved."""
    used = effective(layer)
    competent = str(built_samples / "yahtzee/bin/competent")
    stops = tmp_path / "watchdog.log"
    watchdog = subprocess.Popen([sys.executable, "-I", "-c", WATCHDOG, str(os.getpid()), str(stops)])
    bystander = subprocess.Popen(["sleep", "30"])

    async def scenario() -> tuple[dict, dict, float]:
        with trio.fail_after(30):
            return await play_match(("attack", mode, str(os.getpid())), competent, tmp_path, 2, sandbox=layer)

    try:
        bad, good, _ = trio.run(scenario)
        bystander_status = psutil.Process(bystander.pid).status() if bystander.poll() is None else "gone"
    finally:
        for proc in (bystander, watchdog):
            proc.kill()
            proc.wait(5)
    assert not stops.exists(), f"the referee was stopped: {stops.read_text()}"
    assert bystander_status in ("sleeping", "running"), f"the bystander is {bystander_status}"
    assert_ran_under(bad["sandbox"], used)
    assert_ran_under(good["sandbox"], used)
    assert good["games"] == 2 and good["wins"] == 2, good
    assert bad["games"] == 2, bad
    assert good["forfeits"] == {}, good["forfeit_details"]
    replies = sorted({f["reply"] for f in bad["forfeit_details"] if f.get("reply")})
    assert replies, f"the attacker never answered: {bad['forfeit_details']}"
    record_property("attack", " | ".join(replies))
    own_sandbox = [reply for reply in replies if own_init_only(reply, used)]
    for reply in replies:
        if reply not in own_sandbox:
            judge_attack(reply, used)
    if own_sandbox:
        pytest.xfail(
            f"bwrap: it reached its own sandbox's init only (bwrap has no seccomp filter): {own_sandbox[0]}"
        )


# ---------------------------------------------------------------------- row 4: collusion


def test_two_bots_cannot_pass_a_secret(layer, hostile_bin, record_property):
    """``collude send`` plants a secret in every channel (files in /tmp, /dev/shm and its
    working directory, TCP, UDP, abstract and path unix sockets, a FIFO, POSIX mq, System
    V shm, msg and sem, its command line in /proc) and ``collude recv`` looks in all of
    them: nothing arrives, and no signal reaches the sender.  Under landlock the
    sender's command line is readable in /proc (its documented gap): an expected
    failure for that channel alone."""
    used = effective(layer)
    tag = "iso" + secrets.token_hex(4)
    secret = str(secrets.randbelow(9 * 10**7) + 10**7)
    sender = BotProcess(spec(("collude", "send", secret, tag), name="sender"), LIMITS, layer=used)
    receiver = BotProcess(spec(("collude", "recv", secret, tag), name="receiver"), LIMITS, layer=used)
    out: dict[str, bytes] = {}

    async def scenario() -> None:
        async with trio.open_nursery() as nursery:
            try:
                await sender.start(nursery)
                out["first"] = await sender.request(REQUEST)
                await receiver.start(nursery)
                out["got"] = await receiver.request(REQUEST)
                await trio.sleep(0.1)  # the receiver signals what it found after its reply
                out["after"] = await sender.request(REQUEST)
            finally:
                with trio.fail_after(10):
                    await receiver.close()
                    await sender.close()
                nursery.cancel_scope.cancel()

    try:
        trio.run(scenario)
    finally:
        subprocess.run([str(BIN / "collude"), "clean", tag], check=False, timeout=10)
    assert token_holders(sender.child.token) == [] and token_holders(receiver.child.token) == []
    assert_ran_under(sender.sandbox, used)
    assert_ran_under(receiver.sandbox, used)
    got = out["got"].decode(errors="replace")
    record_property("collude", f"{got}; {sender.stderr_text().strip()}")
    assert out["first"] == b"0", out["first"]
    assert got.startswith("got "), got
    assert out["after"] == b"0", f"the receiver signalled the sender: {receiver.stderr_text()}"
    channels = set(got.removeprefix("got ").split(",")) - {"none"}
    if used is Layer.LANDLOCK:
        assert channels <= {"proc"}, f"landlock let through: {sorted(channels - {'proc'})}"
        if channels:
            pytest.xfail(
                "landlock: /proc/PID/cmdline of the other bot is readable (its documented gap): got proc"
            )
    assert channels == set(), f"{used} let the secret through: {got}; {sender.stderr_text()}"


# ---------------------------------------------------------------------- row 5: environment and files


def test_a_bot_cannot_read_the_referees_environment(layer, hostile_bin, record_property):
    """``attack read-env`` and ``probe.py proc-referee`` read /proc/REFEREE/environ (and
    list the referee's descriptors): neither gets anything.  Under landlock a bot of
    the referee's own uid can list /proc/REFEREE/fd (a count of descriptors, nothing
    they point to): part of its documented gap (no pid namespace), an expected
    failure."""
    used = effective(layer)

    async def scenario():
        attack = await run_bot(("attack", "read-env", str(os.getpid())), requests=2, sandbox=layer)
        probe = await run_bot(("probe.py", "proc-referee", str(os.getpid())), requests=1, sandbox=layer)
        return attack, probe

    attack, probe = trio.run(scenario)
    for run in (attack, probe):
        assert run.fault is None, run.fault
        assert_ran_under(run.bot.sandbox, used)
    env_reply = attack.replies[1].decode(errors="replace")
    proc_reply = probe.replies[0].decode(errors="replace")
    record_property("replies", f"{env_reply} | {proc_reply}")
    assert attack.replies[0] == b"0"
    assert env_reply.startswith("could-not "), env_reply
    assert "environ" not in proc_reply or proc_reply.startswith("could-not "), proc_reply
    if used is Layer.LANDLOCK and re.fullmatch(r"could read \d+/fd: \d+ descriptors", proc_reply):
        pytest.xfail(f"landlock: /proc/REFEREE/fd is listable by the same uid (documented gap): {proc_reply}")
    assert proc_reply.startswith("could-not "), proc_reply


def _relative(path: Path | str) -> str:
    """A path as probe.py takes it, without its leading slash: the referee does not take
    it for a file the command names (it makes the directory of those visible)."""
    return str(path).lstrip("/")


def _can_write(directory: Path) -> bool:
    return os.access(directory, os.W_OK | os.X_OK)


PLACES = ["project source", ".venv/bin", "referee's cwd", "opponent's bot directory"]


@pytest.mark.skipif(SYSTEM_PYTHON is None, reason="no system python3 to run the probe with")
@pytest.mark.parametrize("where", PLACES)
def test_a_bot_cannot_read_or_write_outside_its_sandbox(where, layer, hostile_bin, tmp_path, record_property):
    """probe.py (under the system's Python) tries to read a file of the place, to create
    a file there, and to append to a file there that anyone may write (a sentinel the
    test makes, where it can): no read gets anything, and on disk nothing is created or
    changed (a write may land in the sandbox's own tmpfs, which is not the place: the
    test after this one checks that such writes are capped).  For the opponent, an
    honest bot runs from a directory of its own in tmp_path that holds a secret, and
    its working directory is tried too."""
    used = effective(layer)
    token = secrets.token_hex(6)  # in names
    secret = secrets.token_hex(8)  # in contents
    created: list[Path] = []
    readable: Path | None = None
    marker = ""
    if where == "project source":
        directory = ROOT / "referee"
        readable = directory / "__init__.py"
    elif where == ".venv/bin":
        directory = ROOT / ".venv" / "bin"
        if not directory.is_dir():
            pytest.skip(f"{directory} does not exist")
        readable = next((directory / n for n in ("activate", "pip") if (directory / n).is_file()), None)
    elif where == "referee's cwd":
        directory = Path(os.getcwd())
        if not _can_write(directory):
            readable = next(
                (p for p in sorted(directory.iterdir()) if p.is_file() and os.access(p, os.R_OK)), None
            )
    else:
        # As root its directory is world-writable, so that only the sandbox stops a bot of
        # another uid from creating files in it.
        directory = tmp_path / f"opponent-{token}"
        directory.mkdir()
        directory.chmod(0o777 if IS_ROOT else 0o755)
        shutil.copy(HOSTILE / "victim.py", directory / "victim.py")
    replies: dict[str, str] = {}
    used_by: set[str] = set()
    try:
        if readable is None and _can_write(directory):
            readable = directory / f".isolation-secret-{token}"
            readable.write_text(f"secret {secret}\n")
            readable.chmod(0o644)
            created.append(readable)
            marker = secret
        elif readable is not None:
            marker = " ".join(readable.read_bytes()[:80].decode("ascii", "replace").split())[:40]
        sentinel = None
        if _can_write(directory):
            sentinel = directory / f".isolation-sentinel-{token}"
            created.append(sentinel)
            sentinel.write_text("sentinel\n")
            sentinel.chmod(0o666)  # anyone may write it: only the sandbox stands in the way
        target = directory / f".isolation-escaped-{token}"
        created.append(target)

        async def probe(*args: str) -> str:
            run = await run_bot((SYSTEM_PYTHON, PROBE, *args), requests=1, sandbox=layer)
            assert run.fault is None, run.fault
            used_by.add(run.bot.sandbox.split(",")[0])
            return run.replies[0].decode(errors="replace")

        async def scenario() -> None:
            async with trio.open_nursery() as nursery:
                opponent = None
                if where == "opponent's bot directory":
                    argv = [spec(("victim.py",)).argv[0], str(directory / "victim.py"), secret]
                    name = f"victim{token}"
                    opponent = BotProcess(
                        BotSpec(name=name, argv=argv, home=str(directory)), LIMITS, layer=used
                    )
                try:
                    if opponent is not None:
                        await opponent.start(nursery)
                        assert await opponent.request(REQUEST) == b"0"  # its secret.txt is written
                        workdirs = os.path.join(
                            tempfile.gettempdir(), f"referee-{os.getpid()}-{opponent.spec.name}-*"
                        )
                        replies["its working directory"] = await probe("read-opponent", workdirs)
                    if readable is not None:
                        replies["read"] = await probe("read-file", _relative(readable))
                    replies["create"] = await probe("write-outside", _relative(target))
                    if sentinel is not None:
                        replies["append"] = await probe("append-file", _relative(sentinel))
                finally:
                    if opponent is not None:
                        with trio.fail_after(10):
                            await opponent.close()
                    nursery.cancel_scope.cancel()

        trio.run(scenario)
        wrote = target.exists()
        changed = sentinel is not None and sentinel.read_text() != "sentinel\n"
    finally:
        for path in created:
            with contextlib.suppress(OSError):
                path.unlink()
    record_property("probes", " | ".join(f"{k}: {v}" for k, v in replies.items()))
    assert used_by == {used.value}, used_by
    assert not wrote, f"{used}: the bot created {target}: {replies['create']}"
    assert not changed, f"{used}: the bot wrote into {sentinel}: {replies.get('append')}"
    for what, reply in replies.items():
        assert not marker or marker not in reply, f"{used}: {where}, {what}: {reply}"
        assert secret not in reply, f"{used}: {where}, {what}: {reply}"
        if what not in ("create", "append"):
            assert reply.startswith("could-not "), f"{used}: {where}, {what}: {reply}"


def test_a_manifest_cannot_widen_its_own_sandbox(layer, hostile_bin, tmp_path):
    """A bot's ``bot.toml`` is its author's: a ``run`` line that names a file of the
    opponent (``../opponent/secret.txt``) must not make the opponent's directory
    visible to the bot.  (The referee binds the directory of every absolute path the
    command names, so that a bot finds its own files, and a manifest's relative words
    that name existing files are made absolute, ``..`` included.)"""
    used = effective(layer)
    if SYSTEM_PYTHON is None:
        pytest.skip("no system python3 to run the probe with")
    secret = secrets.token_hex(8)
    opponent = tmp_path / "opponent"
    opponent.mkdir()
    opponent.chmod(0o755)
    (opponent / "secret.txt").write_text(f"opponent secret {secret}\n")
    (opponent / "secret.txt").chmod(0o644)
    mine = tmp_path / "mine"
    mine.mkdir()
    mine.chmod(0o755)
    shutil.copy(PROBE, mine / "probe.py")
    (mine / "bot.toml").write_text(f'run = "{SYSTEM_PYTHON} probe.py read-file ../opponent/secret.txt"\n')
    # The referee refuses such a manifest outright, saying why (referee/core/botspec.py).
    with pytest.raises(BotSpecError, match="outside the bot's directory"):
        resolve(str(mine))
    # And a bot whose command merely mentions the path (not as a file it names) still
    # cannot read it from inside.
    # (Without its leading slash: probe.py adds it back, the referee sees no file name.)
    hidden = str(opponent / "secret.txt").lstrip("/")
    (mine / "bot.toml").write_text(f'run = "{SYSTEM_PYTHON} probe.py read-file {hidden}"\n')
    bot = BotProcess(resolve(str(mine)), LIMITS, layer=used)
    out: dict[str, bytes] = {}

    async def scenario() -> None:
        async with trio.open_nursery() as nursery:
            try:
                await bot.start(nursery)
                out["reply"] = await bot.request(REQUEST)
            finally:
                with trio.fail_after(10):
                    await bot.close()
                nursery.cancel_scope.cancel()

    trio.run(scenario)
    reply = out["reply"].decode(errors="replace")
    assert token_holders(bot.child.token) == []
    assert_ran_under(bot.sandbox, used)
    assert secret not in reply, (
        f"{used}: its bot.toml named {opponent / 'secret.txt'}, and it read it: {reply}"
    )
    assert reply.startswith("could-not "), reply


def test_a_bot_cannot_write_beyond_its_caps(layer, hostile_bin, record_property):
    """``probe.py fill-dir`` writes 300 MiB next to the bot's own directory (in
    tests/, above tests/hostile), with ``disk_bytes`` 64 MiB and a memory cap of 200
    MiB: it may not write there at all, or it writes into a tmpfs capped by
    ``disk_bytes``, or the referee stops it with a ``memory`` verdict.  Files it holds
    beyond its caps, in memory no process's RSS shows, are a way round both caps."""
    used = effective(layer)
    if SYSTEM_PYTHON is None:
        pytest.skip("no system python3 to run the probe with")
    disk = 64 * MiB
    limits = fast(disk_bytes=disk, memory_bytes=200 * MiB, decision_s=5.0)
    target = HOSTILE.parent
    pattern = str(target / "referee-isolation-fill-*")
    before = set(glob.glob(pattern))
    try:
        run = run_and_sweep(
            (SYSTEM_PYTHON, PROBE, "fill-dir", _relative(target), "300"),
            limits=limits,
            requests=1,
            sandbox=layer,
        )
        leaked = new_files(pattern, before)
    finally:
        remove(new_files(pattern, before))
    assert_ran_under(run.bot.sandbox, used)
    assert not leaked, f"{used}: it wrote into {target} on the host: {leaked}"
    if run.fault is not None:
        record_property("fill", repr(run.fault))
        assert run.fault.verdict is Verdict.MEMORY, run.fault
        return
    reply = run.replies[0].decode(errors="replace")
    record_property("fill", reply)
    wrote = re.match(r"could write (\d+) MiB", reply)
    assert reply.startswith("could-not ") or (wrote and int(wrote.group(1)) <= disk >> 20), (
        f"{used}: it holds more than its {disk >> 20} MiB of files, and no verdict: {reply}"
    )


# ---------------------------------------------------------------------- row 6: a grandchild's CPU and memory

GRANDCHILD_CASES = {
    # case: (argv, limits, verdict, seconds from the grandchild's start to the verdict).
    # shm: a file-size limit above the file, so that what stops it is the memory cap
    # the private tmpfs counts against, not RLIMIT_FSIZE.
    # cpu: a budget of 0.5 CPU second (judged on CPU) takes longer in wall time when the
    # suite's other worker shares the core (or two), hence 6 s (the decision limit above
    # it, so that the verdict is cpu).
    "cpu": (("grandchild", "cpu"), fast(cpu_s=0.5, decision_s=8.0), Verdict.CPU, 6.0),
    "memory": (
        ("grandchild", "memory", "400"),
        fast(memory_bytes=200 * MiB, decision_s=3.0),
        Verdict.MEMORY,
        3.0,
    ),
    "shm": (
        ("grandchild", "shm", "400"),
        fast(memory_bytes=200 * MiB, file_size_bytes=1024 * MiB, decision_s=3.0),
        Verdict.MEMORY,
        3.0,
    ),
}


@pytest.mark.parametrize("case", list(GRANDCHILD_CASES))
def test_a_grandchilds_cpu_and_memory_are_charged_to_the_bot(
    case, layer_no_bwrap, hostile_bin, record_property
):
    """A setsid, double-forked grandchild (out of the bot's group and tree, holding none
    of its pipes) burns CPU, holds 400 MiB, or writes 400 MiB into /dev/shm, while the
    bot answers promptly (a request every 0.2 s): the bot gets the CPU or memory verdict
    (the private tmpfs counts against the memory cap).  Landlock cannot write /dev/shm
    at all: there the shm case may end without a verdict.  Nothing is left in the
    host's /dev/shm."""
    layer = layer_no_bwrap
    used = effective(layer)
    argv, limits, verdict, within = GRANDCHILD_CASES[case]
    shm_before = set(glob.glob("/dev/shm/referee-hostile-shm-*"))
    result: dict[str, object] = {}

    async def pace(bot: BotProcess, replies: list[bytes]) -> None:
        result["replies"], result["fault"], result["took"] = await paced_requests(
            bot, every=0.2, within=within + 1.0
        )
        result["files"] = bot.files_bytes

    try:
        run = run_and_sweep((*argv, "1"), limits=limits, requests=1, before_close=pace, sandbox=layer)
        leaked = new_files("/dev/shm/referee-hostile-shm-*", shm_before)
    finally:
        remove(new_files("/dev/shm/referee-hostile-shm-*", shm_before))
    fault = result["fault"]
    record_property(
        "outcome", f"{fault!r} after {result['took']:.2f} s, files {int(result['files']) >> 20} MiB"
    )
    assert run.replies == [b"0"]
    assert_ran_under(run.bot.sandbox, used)
    assert not leaked, f"left in the host's /dev/shm: {leaked}"
    assert all(reply == b"0" for reply in result["replies"]), result["replies"]
    if case == "shm" and used is Layer.LANDLOCK and fault is None:
        return  # it could not write /dev/shm at all: no effect, and nothing left
    assert isinstance(fault, BotFault), f"{case}: no verdict in {result['took']:.1f} s"
    assert fault.verdict is verdict, f"{case}: {fault.verdict} ({fault.detail})"
    assert result["took"] < within, f"{case}: the verdict came after {result['took']:.2f} s"


# ---------------------------------------------------------------------- row 7: a hand-off to a grandchild


def test_a_grandchild_cannot_answer_for_a_dead_leader(layer, hostile_bin):
    """``handoff``: the leader answers once, hands its pipes to a setsid grandchild and
    exits.  The next request, sent once the leader is gone, is a ``crash`` within 1 s,
    not the grandchild's answer; nothing of the bot is left (run_bot checks)."""
    used = effective(layer)
    result: dict[str, object] = {}

    async def after_the_leader_left(bot: BotProcess, replies: list[bytes]) -> None:
        # The leader exits within milliseconds of its answer, and the sandbox then ends
        # the grandchild: wait for both (bounded), not for a fixed delay a loaded machine
        # may overrun (the grandchild, still alive, would answer the request).
        waited = time.perf_counter()
        while token_holders(bot.child.token) and time.perf_counter() - waited < 5:
            await trio.sleep(0.02)
        result["gone_after"] = time.perf_counter() - waited
        started = time.perf_counter()
        try:
            result["reply"] = await bot.request(REQUEST)
        except BotFault as fault:
            result["fault"] = fault
        result["took"] = time.perf_counter() - started

    run = run_and_sweep(("handoff", "1"), requests=1, before_close=after_the_leader_left, sandbox=layer)
    assert_ran_under(run.bot.sandbox, used)
    assert run.replies == [b"0"]
    assert result["gone_after"] < 5, "the grandchild outlived its leader by 5 s"
    assert "reply" not in result, f"the grandchild answered for the dead leader: {result['reply']!r}"
    fault = result["fault"]
    assert isinstance(fault, BotFault) and fault.verdict is Verdict.CRASH, fault
    assert result["took"] < 1.0, f"the crash came after {result['took']:.2f} s"


# ---------------------------------------------------------------------- row 8: disguised daemons


@pytest.mark.parametrize("mode", ["rename", "hop"])
def test_a_disguised_daemon_does_not_survive(mode, layer, hostile_bin):
    """``hopper rename`` re-executes itself with an empty environment as ``kworker/0:1``
    (no sweep token finds it); ``hopper hop`` changes its pid every millisecond.  The
    daemon is seen running while the bot plays; after close nothing whose comm or
    cmdline carries its tag is left, in ten scans of /proc over half a second."""
    used = effective(layer)
    tag = "iso" + secrets.token_hex(4)  # 11 characters: "kw-" and "hop-" names keep it whole
    seen: list[tuple[int, str, str]] = []

    async def look(bot: BotProcess, replies: list[bytes]) -> None:
        deadline = time.perf_counter() + 2.0
        while not seen and time.perf_counter() < deadline:
            seen.extend(processes_mentioning(tag))
            await trio.sleep(0.02)

    try:
        run = run_and_sweep(("hopper", mode, tag, "1"), requests=3, before_close=look, sandbox=layer)
        left: list[tuple[int, str, str]] = []
        for _ in range(10):
            left += processes_mentioning(tag)
            time.sleep(0.05)
    finally:
        kill_mentioning(tag)
    assert_ran_under(run.bot.sandbox, used)
    assert run.fault is None and run.replies == [b"0"] * 3, (run.fault, run.replies)
    assert seen, f"the {mode} daemon was never seen running (tag {tag})"
    assert not left, f"{mode}: still there after close: {sorted(set(left))}"


# ---------------------------------------------------------------------- row 9: the disk


def test_a_bot_cannot_fill_the_disk(layer_no_bwrap, hostile_bin, record_property):
    """``grandchild disk 400`` writes up to 400 MiB into each of its working directory,
    /tmp and /var/tmp.  Under namespaces the first two are its private tmpfs (capped by
    ``disk_bytes``, 64 MiB here) and /var/tmp does not exist, so the host disk's free
    space does not move; under landlock its working directory is on disk and the
    referee stops the bot (a ``memory`` verdict about its files) once they exceed
    ``disk_bytes`` (16 MiB here).  Afterwards no file of it is left on the host."""
    layer = layer_no_bwrap
    used = effective(layer)
    disk = 16 * MiB if used is Layer.LANDLOCK else 64 * MiB
    limits = fast(disk_bytes=disk, decision_s=3.0)
    patterns = ("/tmp/referee-hostile-disk-*", "/var/tmp/referee-hostile-disk-*")
    before = {p: set(glob.glob(p)) for p in patterns}
    free_before = free_bytes()
    lowest = [free_before]
    result: dict[str, object] = {}

    async def fill(bot: BotProcess, replies: list[bytes]) -> None:
        async with trio.open_nursery() as nursery:

            async def sample() -> None:
                while True:
                    lowest[0] = min(lowest[0], free_bytes())
                    await trio.sleep(0.01)

            nursery.start_soon(sample)
            result["replies"], result["fault"], result["took"] = await paced_requests(
                bot, every=0.2, within=3.0
            )
            result["files"] = bot.files_bytes
            nursery.cancel_scope.cancel()

    try:
        run = run_and_sweep(
            ("grandchild", "disk", "400", "1"),
            limits=limits,
            requests=1,
            before_close=fill,
            sandbox=layer,
        )
        lowest[0] = min(lowest[0], free_bytes())
        leaked = [f for p in patterns for f in new_files(p, before[p])]
    finally:
        for p in patterns:
            remove(new_files(p, before[p]))
    drop = free_before - lowest[0]
    fault = result["fault"]
    files = int(result["files"])  # type: ignore[call-overload]
    record_property("disk", f"{used}: {fault!r}; files {files >> 20} MiB; host disk -{drop >> 20} MiB")
    assert_ran_under(run.bot.sandbox, used)
    assert not leaked, f"left on the host: {leaked}"
    if used is Layer.LANDLOCK:
        assert isinstance(fault, BotFault) and fault.verdict is Verdict.MEMORY, fault
        assert "files" in fault.detail, fault.detail
        # The referee measures the directory at every monitor sample (every 0.05 s in
        # run_bot): what the bot writes between two samples comes on top of disk_bytes,
        # and the host disk's free space moves with everything else on the machine: the
        # bound only says the bot was stopped long before its 1.2 GiB (its own limit).
        assert drop < disk + 600 * MiB, f"the host disk lost {drop >> 20} MiB"
    else:
        assert fault is None or fault.verdict is Verdict.MEMORY, fault
        assert files <= disk + MiB, f"its files took {files >> 20} MiB"
        assert files > MiB, "the referee did not see the files in its tmpfs"
        assert drop < 150 * MiB, f"the host disk lost {drop >> 20} MiB"


# ---------------------------------------------------------------------- row 10: root and uids

root_only = pytest.mark.skipif(not IS_ROOT, reason="as root only: bots then get a uid of their own, or root")
WHOAMI_BOT = "#!/bin/sh\nwhile read -r line; do id -u; done\n"


async def _one_answer(bot: BotProcess) -> bytes | BotFault:
    """Start the bot, one request, close: its reply, or the fault it got."""
    async with trio.open_nursery() as nursery:
        try:
            await bot.start(nursery)
            return await bot.request(REQUEST)
        except BotFault as fault:
            return fault
        finally:
            with trio.fail_after(10):
                await bot.close()
            nursery.cancel_scope.cancel()


@root_only
def test_as_root_an_unreadable_bot_is_refused_unless_allowed(private_dir):
    """As root, a bot whose files other users cannot read cannot get a uid of its own:
    under auto it does not start, with a ``startup`` verdict naming
    ``--allow-root-bots``; allowed, it runs as root, and its description says so."""
    used = effective("auto")
    script = write_script(private_dir / "whoami.sh", WHOAMI_BOT)
    bot_spec = BotSpec(name="private", argv=[str(script)], home=str(private_dir))
    refused = trio.run(_one_answer, BotProcess(bot_spec, LIMITS, layer=used))
    assert isinstance(refused, BotFault), f"it started and answered {refused!r}"
    assert refused.verdict is Verdict.STARTUP, refused
    assert "--allow-root-bots" in refused.detail, refused.detail
    allowed = BotProcess(bot_spec, LIMITS, layer=used, allow_root=True)
    reply = trio.run(_one_answer, allowed)
    assert token_holders(allowed.child.token) == []
    assert_ran_under(allowed.sandbox, used)
    assert "as root" in allowed.sandbox, allowed.sandbox
    assert reply == b"0", reply


@root_only
def test_as_root_a_bot_runs_under_a_uid_of_its_own(layer, tmp_path):
    """A bot whose files anyone may read runs under a uid of its own: not 0, and the
    one its description names."""
    used = effective(layer)
    script = write_script(tmp_path / "whoami.sh", WHOAMI_BOT)
    bot = BotProcess(BotSpec(name="whoami", argv=[str(script)], home=str(tmp_path)), LIMITS, layer=used)
    answer = trio.run(_one_answer, bot)
    assert isinstance(answer, bytes), answer
    reply = answer.decode()
    assert token_holders(bot.child.token) == []
    assert_ran_under(bot.sandbox, used)
    uid = re.search(r"\buid (\d+)", bot.sandbox)
    assert uid is not None, bot.sandbox
    assert reply == uid.group(1) and reply != "0", (reply, bot.sandbox)


def referee_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": pythonpath},
    )


@root_only
def test_as_root_the_cli_refuses_an_unreadable_bot(built_samples, private_dir, tmp_path):
    """Through the command line: exit status 3 and one line on stderr naming
    --allow-root-bots."""
    script = write_script(private_dir / "bot.sh", ECHO_BOT)
    competent = str(built_samples / "yahtzee/bin/competent")
    done = referee_cli("match", str(script), competent, "--games", "1", "--no-pin", "--quiet", cwd=tmp_path)
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--allow-root-bots" in lines[0], done.stderr


# ---------------------------------------------------------------------- row 11: fork bombs


def test_a_fork_bomb_is_capped(layer_no_bwrap, hostile_bin, record_property):
    """``probe.py fork-count 100`` with ``Limits(processes=40)``: fewer than 40 forks
    succeed under namespaces (RLIMIT_NPROC in its own user namespace, or under its own
    uid as root) and under landlock as root (its own uid: ``processes`` is the
    RLIMIT_NPROC of a bot with a uid of its own); under landlock as an ordinary user
    the cap is 40 on top of the tasks the user already has (RLIMIT_NPROC counts per
    uid), so fewer than 40 + those succeed."""
    layer = layer_no_bwrap
    used = effective(layer)
    limits = fast(processes=40, decision_s=5.0)
    tasks_before = isolation._user_tasks()
    run = run_and_sweep(("probe.py", "fork-count", "100"), limits=limits, requests=1, sandbox=layer)
    assert run.fault is None, run.fault
    assert_ran_under(run.bot.sandbox, used)
    reply = run.replies[0].decode(errors="replace")
    record_property("forks", f"{reply} ({run.bot.sandbox})")
    counted = re.match(r"could fork (\d+) of 100 children", reply)
    assert counted, reply
    forked = int(counted.group(1))
    if used is Layer.LANDLOCK and not IS_ROOT:
        assert forked < 40 + tasks_before, f"{reply} (the user had {tasks_before} tasks)"
    else:
        assert forked < 40, f"{reply}; {run.bot.sandbox}"


# ---------------------------------------------------------------------- row 12: the layer is reported


def test_the_cli_warns_about_a_weak_layer(built_samples, tmp_path):
    """``--sandbox rlimits`` says on stderr, in one line, that it does not stop
    everything, and names ``--sandbox strict``; ``--sandbox auto`` says nothing of it,
    and both name the layer on their ``isolation:`` lines."""
    competent = str(built_samples / "yahtzee/bin/competent")
    common = ("match", competent, competent, "--games", "2", "--no-pin", "--quiet")
    weak = referee_cli(*common, "--sandbox", "rlimits", cwd=tmp_path)
    assert weak.returncode == 0, weak.stderr
    warnings = [line for line in weak.stderr.splitlines() if "does not stop everything" in line]
    assert len(warnings) == 1, weak.stderr
    assert "rlimits" in warnings[0] and "--sandbox strict" in warnings[0], warnings[0]
    assert "isolation: rlimits" in weak.stdout, weak.stdout
    auto = referee_cli(*common, cwd=tmp_path)
    assert auto.returncode == 0, auto.stderr
    assert "does not stop everything" not in auto.stderr, auto.stderr
    assert f"isolation: {isolation.choose('auto').value}" in auto.stdout, auto.stdout


def test_the_cli_runs_the_strict_layer(built_samples, tmp_path):
    """``--sandbox strict`` runs here, under the namespaces layer, and says so."""
    reason = isolation.problem(Layer.NAMESPACES)
    if reason is not None:
        pytest.skip(f"the namespaces layer cannot run here: {reason}")
    competent = str(built_samples / "yahtzee/bin/competent")
    common = ("match", competent, competent, "--games", "2", "--no-pin", "--quiet")
    done = referee_cli(*common, "--sandbox", "strict", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("isolation:")]
    assert lines and all(line.startswith("isolation: namespaces") for line in lines), done.stdout
    assert "does not stop everything" not in done.stderr, done.stderr
