"""What a match costs through Dask against the same match played here (issue 16).

    python benchmarks/cluster_overhead.py [MATCHES] [GAMES]

Plays MATCHES identical short Yahtzee matches between two instant C bots (``referee
bench``'s), GAMES games each, three ways:

1. here, one after the other (``play_match_task`` called directly: the match, its
   encoding, its hash check — everything a Dask task does but the Dask round trip);
2. on a LocalCluster of one one-thread worker, one task at a time (the per-match
   overhead: submit, schedule, run, ship the result back, decode);
3. on a LocalCluster of two workers, all tasks at once (the scaling on this machine).

The clusters' workers are pinned to a core each, as ``--cluster`` pins them
(``pin_workers``); the cores they got are printed.  The overhead per match is
(2 − 1) / MATCHES; the cluster's start is not counted.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import msgspec
from distributed import Client, LocalCluster

from referee.cli.bench import YAHTZEE_FAST_C, _compile
from referee.core.botspec import BotSpec
from referee.match.spec import MatchConfig, MatchSpec
from referee.tournament.cluster import pin_workers, play_match_task, worker_pinning
from referee.tournament.store import content_hash


def main() -> None:
    matches = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    with tempfile.TemporaryDirectory(prefix="referee-cluster-bench-") as tmp:
        work = Path(tmp)
        work.chmod(0o755)
        bot = _compile(YAHTZEE_FAST_C, work / "fast")
        specs = [BotSpec(name=f"fast-{i}", argv=[str(bot)], home=str(work)) for i in (1, 2)]
        hashes = {s.name: content_hash(s) for s in specs}
        spec = msgspec.msgpack.encode(
            MatchSpec(bots=specs, config=MatchConfig(game="yahtzee", games=games, seed=1))
        )

        started = time.perf_counter()
        for i in range(matches):
            play_match_task(f"m{i}", spec, hashes)
        here = (time.perf_counter() - started) / matches

        with (
            LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None) as cluster,
            Client(cluster) as c,
        ):
            pin_workers(c)
            cores_one = sorted(str(p.core) for p in c.run(worker_pinning).values())
            c.submit(play_match_task, "warm", spec, hashes, pure=False).result()
            times = []
            for i in range(matches):
                t = time.perf_counter()
                c.submit(play_match_task, f"m{i}", spec, hashes, pure=False).result()
                times.append(time.perf_counter() - t)
            one = statistics.mean(times)

        with (
            LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
            Client(cluster) as c,
        ):
            pin_workers(c)
            cores_two = sorted(str(p.core) for p in c.run(worker_pinning).values())
            c.submit(play_match_task, "warm", spec, hashes, pure=False).result()
            t = time.perf_counter()
            futures = [c.submit(play_match_task, f"m{i}", spec, hashes, pure=False) for i in range(matches)]
            for f in futures:
                f.result()
            two = (time.perf_counter() - t) / matches

    print(f"{matches} matches of {games} Yahtzee games between two instant C bots")
    print(f"here, one at a time:                 {here * 1e3:8.1f} ms per match")
    print(
        f"1-worker LocalCluster, one at a time: {one * 1e3:8.1f} ms per match  (+{(one - here) * 1e3:.1f} ms)"
        f"  core {', '.join(cores_one)}"
    )
    print(
        f"2-worker LocalCluster, all at once:   {two * 1e3:8.1f} ms per match  ({here / two:.2f}x one here)"
        f"  cores {', '.join(cores_two)}"
    )


if __name__ == "__main__":
    main()
