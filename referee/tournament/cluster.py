"""Tournaments on a Dask cluster (``referee tournament … --cluster ADDRESS``; docs/cluster.md).

The coordinator — this process — keeps the schedule and the results store, as for a
local run; only where matches are played changes.  Each match is one Dask task:
:func:`play_match_task` receives the match as pure data (its spec, msgpack-encoded, and
the content hash the store holds for each of its bots), checks the bots' files on the
worker against those hashes, plays the whole match there with ``run_match``'s
machinery, and returns everything the match said (the tournament's worker messages,
:mod:`referee.tournament.wire`) with the worker's address.  The coordinator hands those
messages to the runner in schedule order, whatever order the tasks finish in, so the
store and the standings come out as from a local run.

* **Identical results.**  A match's seeds come from its spec alone (the tournament
  seed, the pairing, the match index: :mod:`referee.tournament.plan`), so where it is
  played changes nothing but timing figures.
* **Workers.**  Start them with one thread each (``dask worker ADDRESS --nthreads 1``),
  so each plays one match at a time.  A worker that dies mid-match loses the match, not
  the result: the scheduler runs the task again elsewhere, and the coordinator takes
  each match's result once.  The bots of a dead worker die with it (they are killed
  when the thread that started them ends).
* **One core per worker process.**  :func:`connect` registers :class:`CorePinning`, a
  Dask worker plugin, so every worker — those there now and those that join later (a
  nanny's restart) — claims the first core of its affinity mask that no other worker
  process of its machine holds, and pins all its threads there; a match, and the bots
  it starts, then run on that core, as the local executor pins worker *i* to core *i*.
  The claim is an ``flock`` on ``/dev/shm/referee-cores-UID/core-N.lock``: the kernel
  drops it when the process dies, however it dies, so a killed worker frees its core
  with no clean-up.  A worker with no free core (more worker processes than cores)
  plays unpinned and says so, in its log and in the standings (docs/cluster.md).
* **Bots.**  Workers run the bots from the same paths as the coordinator (a shared
  filesystem, or the same checkout on every machine).  A worker whose copy of a bot
  differs refuses the match: :class:`BotMismatch`, one line naming the bot and worker.
* **Health.**  Per worker: its core, matches, decisions and forfeits by verdict
  (the executor's ``health()``); ``outliers`` (:mod:`referee.tournament.executors.health`)
  names a worker whose timeout rate is out of line with the others'.

This module is the Dask side: the tasks, the actor, the plugins, connecting.  The
executors built on it, implementing the runner's interface, are
:mod:`referee.tournament.executors.cluster` (whole matches) and
:mod:`~referee.tournament.executors.cluster_session` (the session on one worker).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import stat
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import trio

from referee.core.botspec import BotSpec
from referee.match.spec import MatchSpec
from referee.tournament import wire
from referee.tournament.workers import WorkerLost

try:  # the coordinator imports this module only for --cluster, which needs Dask
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # pragma: no cover - without Dask, connect() says what to install
    WorkerPlugin = object  # type: ignore[assignment,misc]

Handler = Callable[[wire.ToParent], None]


class ClusterError(WorkerLost):
    """The cluster cannot be used, or refused a match; one line.  A :class:`WorkerLost`:
    the tournament cannot go on, as when a local worker dies (exit 1, resume later)."""


class BotMismatch(ClusterError):
    """A worker's copy of a bot is not the one the tournament recorded."""


# ---------------------------------------------------------------------- one core per worker process

#: Names the folder of the per-core lock files instead of the default (:func:`lock_directory`).
LOCKS_ENV = "REFEREE_CORE_LOCKS"
#: The name the plugin is registered under: registering it again changes nothing.
PLUGIN_NAME = "referee-core-pinning"

#: Lines in the worker's own log (its stderr, and Dask's ``get_worker_logs``).
logger = logging.getLogger("distributed.worker.referee")


class Pinning(msgspec.Struct, frozen=True):
    """Where a worker process runs: its core, or why it has none."""

    core: int | None = None
    why: str | None = None


class _Claim(msgspec.Struct):
    """This process's hold on a core: the lock's file descriptor, and the affinity
    mask the process had before it was pinned."""

    owner: int  # id() of the Worker that claimed it
    core: int
    fd: int
    mask: list[int]


_claim: _Claim | None = None
#: The Workers (their id()) this process has set up: more than one, and none is pinned.
_workers: set[int] = set()
#: What :func:`play_match_task` reports for this process.
_pinning = Pinning(why="the core-pinning plugin is not set up in this process")


def lock_directory() -> Path:
    """The folder of the per-core lock files: ``$REFEREE_CORE_LOCKS``, else
    ``/dev/shm/referee-cores-UID`` (a tmpfs every process of the machine sees; per uid,
    so that no other user can hold our locks), else the same under the temporary folder."""
    named = os.environ.get(LOCKS_ENV)
    if named:
        return Path(named)
    base = Path("/dev/shm") if os.path.isdir("/dev/shm") else Path(tempfile.gettempdir())
    return base / f"referee-cores-{os.getuid()}"


def claim_core(cores: Iterable[int], directory: Path) -> tuple[int, int] | None:
    """The first of ``cores`` no other process holds, and the descriptor of its lock
    file, now locked: ``flock`` on ``directory/core-N.lock``.  The kernel drops the lock
    when the process dies, however it dies, so a killed worker frees its core with no
    clean-up.  ``None`` when every one is held.  The files stay: removing one while
    another process opens it would let two processes lock two files of one name."""
    import fcntl

    for core in cores:
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(directory / f"core-{core}.lock", flags, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        except BaseException:
            os.close(fd)
            raise
        return core, fd
    return None


def _thread_ids() -> set[int]:
    try:
        return {int(name) for name in os.listdir("/proc/self/task")}
    except OSError:  # no /proc: only the calling thread can be named
        return {0}


def pin_threads(cores: set[int]) -> None:
    """Every thread of this process onto ``cores``.  On Linux ``sched_setaffinity(0)``
    moves only the calling thread; threads started later inherit their starter's mask,
    so once all are moved every new one (Dask's task thread, a match's, its bots) follows.
    Listed again until no new thread shows up, for one started while we went through."""
    done: set[int] = set()
    for _ in range(20):
        todo = _thread_ids() - done
        if not todo:
            return
        for tid in todo:
            with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
                os.sched_setaffinity(tid, cores)
        done |= todo


@contextlib.contextmanager
def _thread_affinity(cores: Iterable[int] | None) -> Iterator[None]:
    """This thread on ``cores`` for a while (what a process started meanwhile inherits)."""
    if cores is None or not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, set(cores))
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def _release() -> None:
    """Give this process's core back and let it run where it ran before."""
    global _claim
    claim, _claim = _claim, None
    if claim is not None:
        with contextlib.suppress(OSError):
            pin_threads(set(claim.mask))
        os.close(claim.fd)  # closing the only descriptor drops the lock


class CorePinning(WorkerPlugin):
    """One core per worker process of a machine, as the local executor pins worker *i*
    to core *i*: on each worker, the first core of its affinity mask that no other
    worker process of the machine holds (:func:`claim_core`), every thread of the
    worker pinned to it.  A match then pins itself, and the bots it starts, to that same
    core (``pinned_to_one_core`` picks within the thread's mask, which is that core).

    A worker that finds no free core (more worker processes than cores), or that runs
    several tasks at once (``--nthreads`` above 1), is left unpinned and says why: a
    warning in its log and, through :func:`play_match_task`, in the standings."""

    idempotent = True  # registered again (a second tournament): the workers keep their cores
    name = PLUGIN_NAME

    def setup(self, worker: Any) -> None:
        global _pinning
        _workers.add(id(worker))
        _release()
        if len(_workers) > 1:
            # Workers as threads of one process (a threaded cluster): pinning the
            # process would put all their matches on one core.
            _pinning = Pinning(why="several workers share this process")
        else:
            _pinning = self._pin(worker)
        if _pinning.core is None:
            logger.warning(
                "referee: worker not pinned to a core: %s; its matches may share a core with another worker's",
                _pinning.why,
            )

    def teardown(self, worker: Any) -> None:
        global _pinning
        _workers.discard(id(worker))
        if _claim is not None and _claim.owner == id(worker):
            _release()
            _pinning = Pinning(why="the core-pinning plugin was removed")

    @staticmethod
    def _pin(worker: Any) -> Pinning:
        global _claim
        if not hasattr(os, "sched_setaffinity"):
            return Pinning(why="this platform cannot pin threads")
        state = getattr(worker, "state", worker)
        threads = getattr(state, "nthreads", 1)
        if threads != 1:
            return Pinning(why=f"{threads} threads: one core per worker needs --nthreads 1")
        mask = sorted(os.sched_getaffinity(0))
        directory = lock_directory()
        try:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = directory.lstat()
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                return Pinning(why=f"{directory} is not a folder of this user's")
            claimed = claim_core(mask, directory)
            if claimed is None:
                return Pinning(
                    why=f"no free core: other worker processes hold all {len(mask)} cores of its mask"
                )
            core, fd = claimed
            _claim = _Claim(owner=id(worker), core=core, fd=fd, mask=mask)
            os.ftruncate(fd, 0)  # who holds it, for whoever looks
            os.write(fd, f"{os.getpid()} {getattr(worker, 'address', '')}\n".encode())
            pin_threads({core})
        except OSError as exc:
            _release()
            return Pinning(why=f"cannot pin: {exc}")
        logger.info("referee: worker pinned to core %d (%s)", core, directory / f"core-{core}.lock")
        return Pinning(core=core)


def worker_pinning() -> Pinning:
    """This process's core, or why it has none (``client.run(worker_pinning)``)."""
    return _pinning


#: Dask's and distributed's own log lines (a lost worker, a nanny's restart, a task's
#: traceback), in the tournament's folder: third-party lines stay off the terminal.
LOG_NAME = "cluster.log"
#: The third-party loggers routed there (and their children).
_THIRD_PARTY = ("distributed", "dask", "tornado", "bokeh", "asyncio")
_LOG_FORMAT = "%(asctime)s %(process)d %(name)s %(levelname)s: %(message)s"


def route_logs(path: Path | str) -> None:
    """Send this process's Dask, distributed and tornado log lines to ``path`` (appended)
    instead of stderr: their stream handlers are removed, a file handler takes their
    place, and none propagates to the root (whose handlers may print)."""
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter(_LOG_FORMAT))
    names = [
        n
        for n, log in list(logging.root.manager.loggerDict.items())
        if isinstance(log, logging.Logger) and any(n == t or n.startswith(t + ".") for t in _THIRD_PARTY)
    ]
    for name in {*_THIRD_PARTY, *names}:
        log = logging.getLogger(name)
        for old in list(log.handlers):
            if isinstance(old, logging.StreamHandler):  # FileHandler is one too: an earlier route's
                log.removeHandler(old)
                if isinstance(old, logging.FileHandler):
                    old.close()
        if name in _THIRD_PARTY:
            log.addHandler(handler)
        log.propagate = name not in _THIRD_PARTY  # children reach the file through their root logger


class LogRouting(WorkerPlugin):
    """On each worker process of a ``local[:N]`` cluster (children of the referee, so
    their stderr is its terminal): its Dask lines and anything else it writes to stderr
    (a traceback Python prints, a warning) go to the tournament's ``cluster.log``.  Not
    used on an organiser's cluster: its workers' logs are the organiser's."""

    idempotent = True
    name = "referee-log-routing"

    def __init__(self, path: str) -> None:
        self.path = path

    def setup(self, worker: Any) -> None:
        route_logs(self.path)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.dup2(fd, 2)
        finally:
            os.close(fd)


def pin_workers(client: Any) -> None:
    """Register :class:`CorePinning` with the scheduler: every worker runs it now, and
    every worker that joins later (a nanny's restart, a machine added) when it joins."""
    client.register_plugin(CorePinning(), name=PLUGIN_NAME)


# ---------------------------------------------------------------------- on the worker


def pack_bot(spec: BotSpec, skip: tuple[str, ...] = ()) -> bytes:
    """The bot's files (those its content hash covers) as a gzipped tar, paths relative
    to its home: what ``--ship-bots`` sends each worker once."""
    from referee.tournament.store import bot_files

    home = Path(spec.home)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in bot_files(spec, skip=skip):
            tar.add(path, arcname=str(path.relative_to(home)), recursive=False)
    return buffer.getvalue()


def unpack_bot(spec: BotSpec, packed: bytes, expected: str) -> BotSpec:
    """The shipped bot on this worker: unpacked once into a cache named by its content
    hash (checked), its command's paths moved there."""
    from referee.tournament.store import content_hash

    cache = Path(tempfile.gettempdir()) / f"referee-bots-{os.getuid()}"
    dest = cache / expected.replace(":", "-")
    if not dest.exists():
        cache.mkdir(mode=0o755, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=cache))
        with tarfile.open(fileobj=io.BytesIO(packed), mode="r:gz") as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(staging, filter="data")
            else:  # Python before 3.11.4; the archive is the coordinator's own
                tar.extractall(staging)
        staging.chmod(0o755)  # as root, bots run under uids of their own: they must read it
        try:
            staging.rename(dest)
        except OSError:  # another task of this worker unpacked it first
            shutil.rmtree(staging, ignore_errors=True)
    home = spec.home.rstrip("/")
    argv = [str(dest) + w[len(home) :] if w == home or w.startswith(home + "/") else w for w in spec.argv]
    moved = msgspec.structs.replace(spec, home=str(dest), argv=argv)
    if content_hash(moved) != expected:
        shutil.rmtree(dest, ignore_errors=True)  # never leave a wrong copy under that name
        raise BotMismatch(f"bot {spec.name}: the files shipped to this worker do not hash as recorded")
    return moved


#: Bots this worker process has checked: (home, recorded hash).  A worker checks each
#: bot once per tournament, not before every match (a hash reads the bot's files).
_checked: set[tuple[str, str]] = set()


def play_match_task(
    key: str,
    spec_bytes: bytes,
    hashes: dict[str, str],
    skip: tuple[str, ...] = (),
    shipped: dict[str, bytes] | None = None,
) -> tuple[str, Pinning, bytes]:
    """Play one whole match on a Dask worker; returns (the worker's address, its core
    or why it has none, the match's messages encoded).  Raises :class:`BotMismatch` before playing if a bot's
    files differ from the recorded ones (hashed as the store does: ``skip`` is the
    tournament's folder, which may lie inside a bot's)."""
    from distributed import get_worker

    from referee.seats.process import sandbox
    from referee.tournament.store import content_hash
    from referee.tournament.worker import _play_match

    try:
        address = get_worker().address
    except ValueError:  # not on a worker (a test calling it directly)
        address = "local"
    spec = msgspec.msgpack.decode(spec_bytes, type=MatchSpec)
    if shipped:  # --ship-bots: play the coordinator's copies, not whatever is at the paths
        bots = [unpack_bot(b, shipped[b.name], hashes[b.name]) if b.name in shipped else b for b in spec.bots]
        spec = msgspec.structs.replace(spec, bots=bots)
    for bot in spec.bots:
        expected = hashes.get(bot.name)
        if expected is None or (bot.home, expected) in _checked:
            continue
        if content_hash(bot, skip=skip) != expected:
            raise BotMismatch(
                f"worker {address}: bot {bot.name} at {bot.home} differs from the tournament's "
                "(a different build): give every worker the same files"
            )
        _checked.add((bot.home, expected))
    sandbox.become_subreaper()
    messages: list[wire.ToParent] = []
    trio.run(_play_match, wire.PlayMatch(key, spec), messages.append, trio.Event())
    return address, _pinning, msgspec.msgpack.encode(messages)


# ---------------------------------------------------------------------- the coordinator


def one_line(exc: BaseException) -> str:
    """Dask's messages carry newlines (some escaped): one line for ours."""
    return " ".join(str(exc).replace("\\n", "\n").split()) or type(exc).__name__


def connect(address: str, log: Path | None = None) -> Any:
    """A ``distributed.Client`` for ``address``: ``tcp://HOST:PORT`` (a running
    scheduler), or ``local[:N]`` (a LocalCluster of N one-thread worker processes on
    this machine; N defaults to the usable cores).  Its workers pin themselves to a
    core each (:func:`pin_workers`).  With ``log``, Dask's own lines (this process's,
    and a local cluster's workers') go to that file, not to the terminal."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError("--cluster needs Dask: pip install 'referee[cluster]'") from None
    if log is not None:
        route_logs(log)
    if address == "local" or address.startswith("local:"):
        count_text = address.partition(":")[2]
        if count_text and not count_text.isdigit():
            raise ClusterError(f"--cluster {address}: expected local or local:N")
        from referee.tournament.workers import usable_cores

        count = int(count_text) if count_text else len(usable_cores())
        # The scheduler's HTTP server (health, metrics; the dashboard is not installed)
        # on a free loopback port: a default of 8787 already taken prints Dask's warning on
        # the terminal, and None means that default.
        cluster = LocalCluster(
            n_workers=max(1, count), threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0"
        )
        client = Client(cluster)
        if log is not None:
            try:
                client.register_plugin(LogRouting(str(log)), name=LogRouting.name)
            except Exception as exc:  # a worker lost meanwhile: its replacement gets it on joining
                logger.warning("referee: cannot route the workers' logs: %s", one_line(exc))
    else:
        try:
            client = Client(address, timeout=20)
        except OSError as exc:
            raise ClusterError(f"--cluster {address}: cannot reach the scheduler: {exc}") from None
    # A worker that dies while the plugin is sent to it fails the registration (the
    # scheduler's stream closes): a tournament must outlive a lost worker, so try again —
    # the plugin is idempotent, and workers that join later get it anyway.
    for attempt in range(3):
        try:
            pin_workers(client)
            break
        except Exception as exc:  # the scheduler lost, or a worker lost or unable to load it
            if attempt < 2 and client.status == "running":
                time.sleep(0.5)
                continue
            close_client(client)
            raise ClusterError(
                f"--cluster {address}: cannot set up the workers' core pinning: {one_line(exc)}"
            ) from None
    return client


def close_client(client: Any) -> None:
    """Close a client from :func:`connect`, and the local cluster it started, if any."""
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


# ---------------------------------------------------------------------- bots for the whole tournament


class SessionActor:
    """On one Dask worker, for the whole tournament: the session worker process that
    holds every bot (:mod:`referee.tournament.worker`, as a local run starts it), fed
    its rounds over blocking pipes.  Dice poker's and Liar's Dice's bots live for the
    whole tournament, so they stay on this one worker."""

    def __init__(self, opening: bytes, hashes: dict[str, str], skip: tuple[str, ...] = ()) -> None:
        import subprocess
        import sys

        from referee.tournament.store import content_hash

        session = msgspec.msgpack.decode(opening[4:], type=wire.OpenSession)
        for bot in session.bots:
            expected = hashes.get(bot.name)
            if expected is not None and content_hash(bot, skip=skip) != expected:
                raise BotMismatch(
                    f"bot {bot.name} at {bot.home} differs from the tournament's on this worker"
                )
        log = tempfile.NamedTemporaryFile(prefix="referee-session-", suffix=".log", delete=False)  # noqa: SIM115
        self.log_path = log.name
        # It inherits this worker's core: right for one match at a time (a local run pins
        # it too); several at once get the cores the worker had before it was pinned.
        spread = _claim.mask if _claim is not None and session.slots > 1 else None
        with _thread_affinity(spread):
            self.proc = subprocess.Popen(
                [sys.executable, "-P", "-m", "referee.tournament.worker", "--parent", str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                start_new_session=True,
            )
        log.close()
        self.frames = wire.Frames(to_parent=True)
        self._write(opening)

    def play_round(self, frame: bytes) -> bytes:
        """Send one PlayRound frame; return every message up to RoundDone, encoded."""
        self._write(frame)
        messages: list[wire.ToParent] = []
        assert self.proc.stdout is not None
        while True:
            data = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not data:
                raise ClusterError(f"the session's worker process ended; its log: {self.log_path}")
            for message in self.frames.feed(data):
                if isinstance(message, wire.RoundDone):
                    return msgspec.msgpack.encode(messages)
                if isinstance(message, wire.Failed):
                    raise ClusterError(f"the session failed: {message.error}; its log: {self.log_path}")
                messages.append(message)  # type: ignore[arg-type]

    def close(self) -> None:
        """End the session: its input closed, its bots closed by it (bounded), then killed."""
        import subprocess

        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def _write(self, frame: bytes) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(frame)
            self.proc.stdin.flush()
        except OSError:
            raise ClusterError(f"the session's worker process is gone; its log: {self.log_path}") from None
