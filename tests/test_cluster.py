"""Tournaments on a Dask cluster (issue 16, docs/cluster.md): the same results as a local
run, a worker killed mid-tournament costs nothing, a worker with other bot files is refused,
each worker process of a machine holds a core of its own (its bots with it)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

pytest.importorskip("distributed")

from conftest import BOT_PYTHON

from referee.core.botspec import BotSpec, resolve
from referee.match.spec import MatchConfig, MatchSpec
from referee.tournament import wire
from referee.tournament.cluster import (
    LOCKS_ENV,
    BotMismatch,
    Pinning,
    claim_core,
    pin_workers,
    play_match_task,
    worker_pinning,
)
from referee.tournament.executors.cluster import ClusterExecutor
from referee.tournament.executors.health import WorkerHealth, outliers
from referee.tournament.store import Store, content_hash

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

ROOT = Path(__file__).resolve().parents[1]
YAHTZEE = ROOT / "sample_players" / "yahtzee"
BOTS = [
    str(YAHTZEE / "bin" / "competent"),
    str(YAHTZEE / "greedy_player.py"),
    str(YAHTZEE / "random_player.py"),
]
#: What may differ between two runs of the same tournament: measurements and clocks.
MEASURED = {
    "cpu_seconds",
    "peak_rss_bytes",
    "created",
    "mean_decision_us",
    "max_decision_us",
    "first_answer_ms",
}
#: Where the run was: which workers played (a cluster run's metadata, not a result).
WHERE = {"workers"}


#: Games a match of the tournaments compared with ``local_run``: enough that a worker can
#: be killed while it plays one.
GAMES = 60


def tournament(
    out: Path, *extra: str, games: int = GAMES, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "referee", "tournament", *BOTS, "--game", "yahtzee", "--format",
            "round-robin", "--games", str(games), "--seed", "9", "--out", str(out), "--quiet", *extra]  # fmt: skip
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, env=env
    )


def own_locks(path: Path) -> dict[str, str]:
    """The environment with a folder of core locks of the test's own, so that Dask workers
    elsewhere on the machine (another test, an organiser's) do not hold its cores."""
    path.mkdir(mode=0o700)
    return {**os.environ, LOCKS_ENV: str(path)}


def results(out: Path) -> object:
    """The standings without the figures that are measurements."""

    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in MEASURED | WHERE}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(json.loads((out / "standings.json").read_text()))


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    """The round robin of ``BOTS`` (GAMES games a match, seed 9) played locally with
    ``--concurrency 2``, once for the tests that compare a cluster run with it."""
    out = tmp_path_factory.mktemp("local") / "local"
    local = tournament(out, "--concurrency", "2")
    assert local.returncode == 0, local.stderr
    return out


def test_a_local_cluster_gives_the_standings_of_a_local_run(tmp_path, local_run):
    """The issue: a LocalCluster with 2 workers plays a round robin whose standings equal
    the local --concurrency 2 run of the same seed (timing figures aside)."""
    cluster = tournament(tmp_path / "cluster", "--cluster", "local:2", env=own_locks(tmp_path / "locks"))
    assert cluster.returncode == 0, cluster.stderr
    assert results(tmp_path / "cluster") == results(local_run)
    assert (tmp_path / "cluster" / "crosstable.csv").read_text() == (local_run / "crosstable.csv").read_text()
    workers = json.loads((tmp_path / "cluster" / "standings.json").read_text())["workers"]
    assert len(workers) <= 2 and sum(w["matches"] for w in workers) == 3, workers  # every match, once
    # Each worker played on a core of its own (the machine has 2; LocalCluster's workers
    # inherit this process's mask).
    if len(os.sched_getaffinity(0)) >= 2:
        cores = [w["core"] for w in workers]
        assert None not in cores and len(set(cores)) == len(cores), workers
    assert json.loads((local_run / "standings.json").read_text())["workers"] is None
    report = (tmp_path / "cluster" / "standings.md").read_text()
    assert "## Cluster workers" in report and "| worker | core | matches |" in report


def test_a_worker_killed_mid_tournament_loses_no_match_and_counts_none_twice(tmp_path, local_run):
    """A scheduler and two workers started as an organiser would (`dask scheduler`,
    `dask worker --nthreads 1`); one worker process is killed by pid while matches run:
    its match is played again elsewhere, every match is stored once with all its games,
    and the standings are those of a local run.  Its core is freed by its death: the
    worker its nanny starts in its place holds it."""
    scheduler_file = tmp_path / "scheduler.json"
    env = {**own_locks(tmp_path / "locks"), "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    procs = [subprocess.Popen([*dask, "--scheduler-file", str(scheduler_file), "--port", "0",
                               "--dashboard-address", ":0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=env, start_new_session=True)]  # fmt: skip
    try:
        address = scheduler_address(scheduler_file)
        worker = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                  "--dashboard-address", ":0"]  # fmt: skip
        for _ in range(2):
            procs.append(subprocess.Popen(worker, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                                          start_new_session=True))  # fmt: skip
        argv = [sys.executable, "-m", "referee", "tournament", *BOTS, "--game", "yahtzee", "--format",
                "round-robin", "--games", str(GAMES), "--seed", "9", "--out", str(tmp_path / "cluster"), "--quiet",
                "--cluster", address]  # fmt: skip
        run = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL)  # fmt: skip
        # Kill the worker process (not its nanny) that is playing a match: one with bots
        # under it.  Any child is not enough: importing trio runs `ldconfig -p` (ctypes'
        # find_library), so a worker loading the plugin has a child before it is pinned.
        victim = None
        deadline = time.monotonic() + 60
        while victim is None and time.monotonic() < deadline and run.poll() is None:
            for nanny in procs[1:]:
                for child in psutil.Process(nanny.pid).children():
                    if runs_a_bot(child):
                        victim = child
                        break
            time.sleep(0.05)
        assert victim is not None, "no worker was seen playing"
        bots = victim.children(recursive=True)
        victim_cores = victim.cpu_affinity()  # its main thread's: the core it holds
        os.kill(victim.pid, signal.SIGKILL)
        _, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        # Its bots died with it (killed when the thread that started them ended).
        assert not [b for b in bots if b.is_running() and b.status() != psutil.STATUS_ZOMBIE]
        if len(os.sched_getaffinity(0)) >= 2:
            assert len(victim_cores) == 1, victim_cores
            workers = pinned_workers(address, 2, gone=victim.pid)
            assert victim_cores[0] in {p.core for p in workers.values()}, workers
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    with Store.read(tmp_path / "cluster") as store:
        keys = store.done_keys()
        assert len(keys) == 3 and store.unfinished_keys() == []
        assert all(store.game_count(key) == GAMES for key in keys)
    assert results(tmp_path / "cluster") == results(local_run)


def test_a_worker_with_other_bot_files_refuses_the_match(tmp_path):
    """Bots are identified by the content hash of their files, checked on the worker
    before play: a different build is refused with a line naming the bot."""
    bot = resolve(BOTS[1])
    spec = MatchSpec(bots=[bot, resolve(BOTS[2])], config=MatchConfig(game="yahtzee", games=1, seed=1))
    import msgspec

    good = {b.name: content_hash(b) for b in spec.bots}
    address, pinning, encoded = play_match_task("m", msgspec.msgpack.encode(spec), good)
    assert address == "local" and pinning.core is None and encoded  # not on a pinned worker
    bad = {**good, bot.name: "0" * 64}
    with pytest.raises(BotMismatch, match=f"bot {bot.name} .* differs"):
        play_match_task("m", msgspec.msgpack.encode(spec), bad)


def test_a_worker_that_times_out_far_more_than_the_others_is_named():
    health = {
        "tcp://a": WorkerHealth(matches=10, decisions=10_000, forfeits={"timeout": 2}),
        "tcp://b": WorkerHealth(matches=10, decisions=10_000, forfeits={"timeout": 3}),
        "tcp://c": WorkerHealth(matches=10, decisions=10_000, forfeits={"timeout": 40}),
    }
    assert outliers(health) == ["tcp://c"]
    assert outliers({k: v for k, v in health.items() if k != "tcp://c"}) == []


def test_bots_for_the_whole_tournament_stay_on_one_worker_with_the_same_results(tmp_path):
    """Dice poker's bots live for the whole tournament (seed 000: Init once): the session
    that holds them runs on one worker of the cluster, and the standings are the local
    run's."""
    bots = [
        str(ROOT / "sample_players" / "dice_poker" / "always_call.py"),
        str(ROOT / "sample_players" / "dice_poker" / "threshold.py"),
        str(ROOT / "sample_players" / "dice_poker" / "bin" / "equilibrium"),
    ]

    def run(out: Path, *extra: str) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "referee", "tournament", *bots, "--game", "dice-poker", "--format",
             "round-robin", "--games", "200", "--seed", "3", "--out", str(out), "--quiet", *extra],
            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr

    run(tmp_path / "local")
    run(tmp_path / "cluster", "--cluster", "local:1")
    assert results(tmp_path / "cluster") == results(tmp_path / "local")


def test_ship_bots_goes_with_cluster(tmp_path):
    alone = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", *BOTS, "--game", "yahtzee", "--format", "round-robin",
         "--out", str(tmp_path / "u"), "--ship-bots"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert alone.returncode == 2 and "--ship-bots goes with --cluster" in alone.stderr


def test_a_tournament_folder_inside_a_bots_folder_is_hashed_as_the_store_hashes_it(tmp_path):
    """A bot named "./mybot" from the folder the tournament writes into: the worker must
    leave the tournament's folder out of the bot's hash, as the store does."""
    import shutil

    import msgspec

    home = tmp_path / "bot"
    home.mkdir()
    shutil.copy(YAHTZEE / "bin" / "competent", home / "competent")
    out = home / "cup"
    out.mkdir()
    (out / "results.sqlite").write_text("written while the tournament runs")
    home.chmod(0o755)
    bots = [BotSpec(name=n, argv=[str(home / "competent")], home=str(home)) for n in ("a", "b")]
    spec = msgspec.msgpack.encode(MatchSpec(bots=bots, config=MatchConfig(game="yahtzee", games=1, seed=1)))
    recorded = {b.name: content_hash(b, skip=[out]) for b in bots}
    assert play_match_task("m", spec, recorded, (str(out),))[2]
    (out / "results.sqlite").write_text("more games")  # the store grows: still the same bot
    assert play_match_task("m2", spec, recorded, (str(out),))[2]


def test_shipped_bots_play_where_their_folders_do_not_exist(tmp_path):
    """--ship-bots: the coordinator's copy of each bot's folder is unpacked on the worker
    (once, named by its hash, checked) and played there, its command's paths moved: the
    worker needs no copy of its own.  A copy that does not hash as recorded is refused."""
    import shutil

    import msgspec

    from referee.tournament.cluster import pack_bot

    home = tmp_path / "bot"
    home.mkdir()
    shutil.copy(YAHTZEE / "bin" / "competent", home / "competent")
    home.chmod(0o755)
    bots = [BotSpec(name=n, argv=[str(home / "competent")], home=str(home)) for n in ("a", "b")]
    recorded = {b.name: content_hash(b) for b in bots}
    shipped = {b.name: pack_bot(b) for b in bots}
    spec = msgspec.msgpack.encode(MatchSpec(bots=bots, config=MatchConfig(game="yahtzee", games=2, seed=1)))
    shutil.rmtree(home)  # this "worker" has no copy of the bots
    _, _, encoded = play_match_task("m", spec, recorded, (), shipped)
    from referee.tournament import wire

    closed = [
        m for m in msgspec.msgpack.decode(encoded, type=list[wire.ToParent]) if isinstance(m, wire.Closed)
    ]
    assert closed[0].record.completed
    assert all(not p.forfeits and p.decisions > 0 for p in closed[0].record.players)
    with pytest.raises(BotMismatch, match="do not hash as recorded"):
        play_match_task("m", spec, {"a": "sha256:" + "0" * 64, "b": recorded["b"]}, (), shipped)


def _dask(tmp_path: Path, name: str, env: dict[str, str]) -> tuple[list[subprocess.Popen], str]:
    """A `dask scheduler` and one `dask worker --nthreads 1`, as an organiser starts them."""
    scheduler_file = tmp_path / f"{name}.json"
    procs = [subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--scheduler-file", str(scheduler_file),
         "--port", "0", "--dashboard-address", ":0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True,
    )]  # fmt: skip
    address = scheduler_address(scheduler_file)
    procs.append(subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--dashboard-address", ":0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True,
    ))  # fmt: skip
    return procs, address


def test_after_the_scheduler_dies_the_tournament_resumes_on_a_new_one(tmp_path):
    """The issue: `--resume DIR` works after the scheduler dies.  The coordinator's wait
    is bounded (Dask's reconnection timeout, shortened here), it says so in one line and
    exits 1; resumed on a new scheduler every match is stored once, whole."""
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "3s"}
    procs, address = _dask(tmp_path, "first", env)
    out = tmp_path / "t"
    argv = [sys.executable, "-m", "referee", "tournament", *BOTS, "--game", "yahtzee", "--format", "round-robin",
            "--games", "200", "--seed", "9", "--out", str(out), "--quiet"]  # fmt: skip
    try:
        run = subprocess.Popen([*argv, "--cluster", address], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env, stdin=subprocess.DEVNULL)  # fmt: skip
        deadline = time.monotonic() + 60
        while not (out / "results.sqlite").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        os.killpg(procs[0].pid, signal.SIGKILL)  # the scheduler
        _, err = run.communicate(timeout=90)
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert run.returncode == 1, err
    # Lost while a match was out ("a match failed on the cluster"), or before the
    # coordinator had reached it ("cannot reach the scheduler"): either way one line.
    said = [
        line
        for line in err.splitlines()
        if line.startswith(("referee: a match failed on the cluster", "referee: --cluster"))
    ]
    assert len(said) == 1 and "--resume" in said[0], err
    procs, address = _dask(tmp_path, "second", env)
    try:
        resumed = subprocess.run(
            [sys.executable, "-m", "referee", "tournament", "--resume", str(out), "--cluster", address, "--quiet"],
            capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert resumed.returncode == 0, resumed.stderr
    with Store.read(out) as store:
        assert len(store.done_keys()) == 3 and all(store.game_count(k) == 200 for k in store.done_keys())


async def test_a_different_build_is_refused_through_the_cluster(tmp_path):
    """End to end: the worker's refusal crosses Dask as itself, one line naming the bot."""
    from referee.tournament.cluster import ClusterError

    bots = [resolve(BOTS[0]), resolve(BOTS[2])]
    spec = MatchSpec(bots=bots, config=MatchConfig(game="yahtzee", games=1, seed=1))
    hashes = {b.name: content_hash(b) for b in bots}
    hashes[bots[0].name] = "sha256:" + "0" * 64  # what the tournament recorded: another build
    executor = ClusterExecutor("local:1", hashes)
    try:
        with pytest.raises(ClusterError, match=f"bot {bots[0].name} .* differs from the tournament's"):
            await executor.play([wire.RoundMatch("m", spec)], lambda message: None)
    finally:
        await executor.close()


# ---------------------------------------------------------------------- one core per worker process


def scheduler_address(scheduler_file: Path) -> str:
    """The address a ``dask scheduler`` writes to its scheduler file, once written whole
    (the file exists, empty, while it is being written)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return json.loads(scheduler_file.read_text())["address"]
        except (OSError, ValueError, KeyError):
            assert time.monotonic() < deadline, f"no scheduler address in {scheduler_file} after 30 s"
            time.sleep(0.1)


def runs_a_bot(process: psutil.Process) -> bool:
    """Whether one of ``BOTS`` runs under ``process`` (psutil errors: it does not).  By
    file name: a tournament plays its snapshots of the bots (OUT/bots/NAME/…), not them."""
    names = {Path(bot).name for bot in BOTS}
    try:
        descendants = process.children(recursive=True)
    except psutil.Error:
        return False
    for descendant in descendants:
        with contextlib.suppress(psutil.Error):
            if any(Path(word).name in names for word in descendant.cmdline()):
                return True
    return False


def pinned_workers(address: str, count: int, gone: int | None = None) -> dict[int, Pinning]:
    """Each worker of the scheduler at ``address`` (by pid) with its core, once ``count``
    have joined, none of them the process ``gone``; each must hold a core of its own."""
    from distributed import Client

    with Client(address, timeout=30) as client:
        deadline = time.monotonic() + 60
        while True:
            pids = client.run(os.getpid, on_error="ignore")
            if len(pids) == count and gone not in pids.values():
                break
            assert time.monotonic() < deadline, f"the workers never became {count} new ones: {pids}"
            time.sleep(0.2)
        pinning = client.run(worker_pinning)
    workers = {pids[a]: pinning[a] for a in pids}
    cores = [p.core for p in workers.values()]
    assert None not in cores and len(set(cores)) == count, workers
    return workers


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory):
    """A LocalCluster of two one-thread worker processes, pinned as ``--cluster`` pins them,
    with a folder of core locks of its own in which exactly two cores are free (this
    process holds any beyond the first two it may use): (client, cluster, the two cores)."""
    from distributed import Client, LocalCluster

    usable = sorted(os.sched_getaffinity(0))
    if len(usable) < 2:
        pytest.skip("needs two cores")
    locks = tmp_path_factory.mktemp("locks")
    held = [claim_core([core], locks) for core in usable[2:]]
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, env={LOCKS_ENV: str(locks)}
    )
    client = Client(cluster)
    try:
        pin_workers(client)
        yield client, cluster, usable[:2]
    finally:
        client.close()
        cluster.close()
        for claimed in held:
            assert claimed is not None
            os.close(claimed[1])


def affinity_bots(home: Path) -> list[BotSpec]:
    """Two Yahtzee bots that first write the cores they may run on to their stderr."""
    import shutil

    home.mkdir()
    shutil.copy(YAHTZEE / "bin" / "competent", home / "competent")
    (home / "report.py").write_text(
        "import os, sys\n"
        "sys.stderr.write(f'affinity {sorted(os.sched_getaffinity(0))}\\n')\n"
        "sys.stderr.flush()\n"
        f"os.execv({str(home / 'competent')!r}, [{str(home / 'competent')!r}])\n"
    )
    home.chmod(0o755)
    return [BotSpec(name=n, argv=[BOT_PYTHON, str(home / "report.py")], home=str(home)) for n in ("a", "b")]


def play_on(client, address: str, key: str, bots: list[BotSpec], stderr_dir: Path) -> Pinning:
    """A 2-game match on the worker at ``address``; it must be played whole, there."""
    import msgspec

    from referee.tournament import wire

    stderr_dir.mkdir(mode=0o755)
    config = MatchConfig(game="yahtzee", games=2, seed=1, stderr_dir=str(stderr_dir))
    spec = msgspec.msgpack.encode(MatchSpec(bots=bots, config=config))
    future = client.submit(play_match_task, key, spec, {}, workers=[address], pure=False)
    where, pinning, encoded = future.result(timeout=60)
    assert where == address
    closed = [
        m for m in msgspec.msgpack.decode(encoded, type=list[wire.ToParent]) if isinstance(m, wire.Closed)
    ]
    assert closed[0].record.completed and not any(p.forfeits for p in closed[0].record.players), closed
    return pinning


def test_each_worker_process_holds_a_core_of_its_own_and_its_bots_run_there(two_workers, tmp_path):
    """Two worker processes of one machine hold different cores, every thread of each is
    pinned to its core, and the bots of a match a worker plays run on that core alone."""
    client, _, free = two_workers
    # Workers another test added beyond the cores are not pinned; these two are.
    pinned = {a: p.core for a, p in client.run(worker_pinning).items() if p.core is not None}
    assert sorted(pinned.values()) == free, pinned
    threads = client.run(
        lambda: {int(t): sorted(os.sched_getaffinity(int(t))) for t in os.listdir("/proc/self/task")}
    )
    for address, core in pinned.items():
        assert set(map(tuple, threads[address].values())) == {(core,)}, threads[address]
    bots = affinity_bots(tmp_path / "bots")
    for address, core in pinned.items():
        stderr_dir = tmp_path / f"stderr-{core}"
        assert play_on(client, address, f"m{core}", bots, stderr_dir) == Pinning(core=core)
        for bot in bots:
            said = (stderr_dir / f"{bot.name}.stderr").read_text()
            assert f"affinity [{core}]" in said, said


def test_more_worker_processes_than_cores_is_no_failure(two_workers, tmp_path):
    """A third worker process where two cores are held: it runs unpinned, says so in its
    log, and plays its matches; the coordinator hears why it has no core."""
    client, cluster, _ = two_workers
    before = set(client.run(worker_pinning))
    cluster.scale(len(before) + 1)
    client.wait_for_workers(len(before) + 1, timeout=60)
    pinning = client.run(worker_pinning)
    [extra] = set(pinning) - before
    assert pinning[extra].core is None and "no free core" in (pinning[extra].why or ""), pinning
    logs = client.get_worker_logs(workers=[extra])[extra]
    assert any("not pinned to a core: no free core" in line for _, line in logs), logs
    bots = [BotSpec(name=n, argv=[BOTS[0]], home=str(YAHTZEE / "bin")) for n in ("a", "b")]
    assert play_on(client, extra, "extra", bots, tmp_path / "stderr") == pinning[extra]


def test_a_worker_lost_while_the_pinning_plugin_is_sent_does_not_end_the_run(monkeypatch):
    """CI saw it: a worker killed while the plugin was being sent closed the scheduler's
    stream, and the tournament stopped.  The registration is tried again (bounded); a
    scheduler that stays unreachable is still a one-line error."""
    import distributed

    from referee.tournament import cluster

    class FlakyClient:
        status = "running"

        def __init__(self, *args, failures: int = 1, **kwargs) -> None:
            self.calls = 0
            self.failures = failures
            self.closed = False

        def register_plugin(self, plugin, name):
            self.calls += 1
            if self.calls <= self.failures:
                raise OSError("Stream is closed")

        def close(self) -> None:
            self.closed = True

    monkeypatch.setattr(distributed, "Client", FlakyClient)
    client = cluster.connect("tcp://127.0.0.1:1")
    assert client.calls == 2 and not client.closed
    monkeypatch.setattr(distributed, "Client", lambda *a, **k: FlakyClient(failures=5))
    with pytest.raises(
        cluster.ClusterError, match="cannot set up the workers' core pinning: Stream is closed"
    ):
        cluster.connect("tcp://127.0.0.1:1")


class _LostScheduler:
    """A client whose scheduler died just after connect() reached it (CI saw this: the
    scheduler killed between the core pinning and the executor's first question)."""

    closed = False

    def nthreads(self) -> dict:
        raise OSError("Timed out trying to connect to tcp://192.0.2.2:34549 after 20 s")

    def close(self) -> None:
        self.closed = True


def test_a_scheduler_lost_right_after_connecting_is_one_clusters_error(monkeypatch):
    """The issue: after the scheduler dies the coordinator "says so in one line" (a
    ClusterError, which the CLI prints with the --resume hint) — not a traceback — and
    the client is closed, at whatever moment it dies."""
    from referee.tournament import cluster

    client = _LostScheduler()
    monkeypatch.setattr(cluster, "connect", lambda address, log=None: client)
    with pytest.raises(
        cluster.ClusterError, match=r"^--cluster tcp://192\.0\.2\.2:1: cannot reach the scheduler: "
    ):
        ClusterExecutor("tcp://192.0.2.2:1", {})
    assert client.closed


# ---------------------------------------------------------------------- issue 25: snapshots, logs


@pytest.mark.slow
def test_a_cluster_run_with_bots_under_tmp_equals_the_local_run_shipped_or_not(tmp_path, local_run):
    """Issue 25, item 1: "a cluster run with bots under /tmp equals the local run".  The
    bots (a C executable, and two copied sample players, which import the project's
    protocol) live in a folder of /tmp outside the checkout; the tournament plays its
    snapshots of them, on the workers at the same path or shipped (--ship-bots), while
    logs and files change beside the originals.  Dask's lines go to cluster.log."""
    import shutil
    import tempfile

    loose = Path(tempfile.mkdtemp(prefix="referee-bots-", dir="/tmp"))
    try:
        loose.chmod(0o755)
        shutil.copy2(YAHTZEE / "bin" / "competent", loose / "competent")
        for name in ("greedy_player.py", "random_player.py"):
            shutil.copy2(YAHTZEE / name, loose / name)
        bots = [
            str(loose / "competent"),
            f"python3 {loose / 'greedy_player.py'}",
            f"python3 {loose / 'random_player.py'}",
        ]

        def run(out: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
            argv = [sys.executable, "-m", "referee", "tournament", *bots, "--game", "yahtzee", "--format",
                    "round-robin", "--games", str(GAMES), "--seed", "9", "--out", str(out), "--quiet", *extra]  # fmt: skip
            (loose / "run.log").write_text(f"{out.name}\n" * 100)  # changes beside the bots, every run
            (loose / "notes.py").write_text(f"X = {out.name!r}\n")
            return subprocess.run(
                argv, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, env=env
            )

        # The local run: the same tournament of the same files (the checkout's, which
        # these are copies of), played once for the module.
        for name, extra in (("cluster", ()), ("shipped", ("--ship-bots",))):
            done = run(
                tmp_path / name, "--cluster", "local:1", *extra, env=own_locks(tmp_path / f"locks-{name}")
            )
            assert done.returncode == 0, done.stderr
            assert results(tmp_path / name) == results(local_run), name
            assert "distributed" not in done.stderr and "Traceback" not in done.stderr, done.stderr
            assert (tmp_path / name / "cluster.log").is_file()
            snapshots = tmp_path / name / "bots"
            assert sorted(p.name for p in snapshots.iterdir() if p.is_dir()) == [
                "competent", "greedy_player", "random_player"
            ]  # fmt: skip
            assert (snapshots / "greedy_player" / "protocol" / "yahtzee.py").is_file()
            assert not (snapshots / "competent" / "run.log").exists()
    finally:
        shutil.rmtree(loose, ignore_errors=True)


@pytest.fixture
def dask_logging():
    """The test process's Dask loggers as they were: route_logs changes them."""
    import logging

    names = ["distributed", "dask", "tornado", "bokeh", "asyncio", "distributed.client", "distributed.gc",
             "tornado.application"]  # fmt: skip
    saved = {n: (list(logging.getLogger(n).handlers), logging.getLogger(n).propagate) for n in names}
    yield
    for name, (handlers, propagate) in saved.items():
        log = logging.getLogger(name)
        for handler in list(log.handlers):
            log.removeHandler(handler)
        for handler in handlers:
            log.addHandler(handler)
        log.propagate = propagate


@pytest.mark.slow
def test_a_failing_workers_traceback_goes_to_the_cluster_log_not_the_terminal(tmp_path, capfd, dask_logging):
    """Issue 25: "third-party log lines stay off the terminal".  A local cluster's worker
    whose task fails logs a traceback and prints to its stderr (the referee's terminal:
    it is the referee's child); with the tournament's log, both land in cluster.log."""
    from referee.tournament.cluster import close_client, connect

    def fails() -> None:
        import logging
        import sys

        try:
            raise RuntimeError("boom in the worker")
        except RuntimeError:
            logging.getLogger("distributed.worker").exception("a worker's own traceback")
        print("a stray line on the worker's stderr", file=sys.stderr, flush=True)
        raise RuntimeError("the task failed")

    log = tmp_path / "cluster.log"
    client = connect("local:1", log)
    try:
        with pytest.raises(RuntimeError, match="the task failed"):
            client.submit(fails, pure=False).result(timeout=60)
    finally:
        close_client(client)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "boom" not in err and "stray line" not in err, err
    text = log.read_text()
    assert "a worker's own traceback" in text and "Traceback" in text and "boom in the worker" in text, text
    assert "a stray line on the worker's stderr" in text, text
