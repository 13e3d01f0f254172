"""``referee arena serve``: the web application, the intake and the ladder in one trio run.

Hypercorn serves the Starlette application on trio; a socket bound here is handed to it
(so ``--port 0`` works and the port is known before the first request).  Only
127.0.0.1 (or ::1, localhost) is served without TLS: another ``--host`` needs
``--certfile`` and ``--keyfile``.  At start the store recovers (:meth:`Store.recover`)
and stray uploads are swept; SIGINT or SIGTERM stops everything, and a match cut short
is played again at the next start.  Stopping is bounded: Hypercorn's grace
(``graceful_timeout``), the workers' stop grace; a thread still unpacking an upload,
fitting the ratings or cleaning up is abandoned, not waited for (its work is redone).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
from collections.abc import Callable
from pathlib import Path

import trio

from referee.arena import cleanup, intake, ladder, rating
from referee.arena.context import Arena, open_arena
from referee.arena.web import build_app

LOCAL = ("127.0.0.1", "::1", "localhost")


class ServeError(ValueError):
    """The server cannot start as asked; one line."""


def check_host(host: str, certfile: str | None, keyfile: str | None) -> None:
    if host not in LOCAL and not (certfile and keyfile):
        raise ServeError(
            f"--host {host} would serve tokens in clear over the network: give --certfile and --keyfile "
            "(TLS), or serve on 127.0.0.1 behind a TLS proxy"
        )


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


async def serve(
    arena: Arena,
    sock: socket.socket,
    *,
    concurrency: int | None,
    certfile: str | None = None,
    keyfile: str | None = None,
    say: Callable[[str], None] = print,
    cluster: str | None = None,
) -> None:
    from hypercorn.config import Config
    from hypercorn.trio import serve as hypercorn_serve

    host, port = sock.getsockname()[:2]
    hosts = sorted({host, *LOCAL, *arena.config.hosts, f"{host}:{port}"})
    hosts = [h for h in hosts if ":" not in h or h == "::1"]
    app = build_app(arena, hosts=hosts, secure=bool(certfile))
    config = Config()
    config.bind = [f"fd://{sock.fileno()}"]
    config.accesslog = None
    config.errorlog = "-"
    config.graceful_timeout = 2.0
    if certfile:
        config.certfile, config.keyfile = certfile, keyfile
    executor = None
    if cluster is not None:
        from referee.arena.cluster import Cluster

        executor = await trio.to_thread.run_sync(Cluster, cluster, arena.folder / "cluster.log")
        concurrency = concurrency or executor.concurrency
    concurrency = concurrency or max(1, len(os.sched_getaffinity(0)) - 1)
    matches, subs = arena.store.recover()
    swept = intake.sweep(arena)
    scheme = "https" if certfile else "http"
    shown = f"[{host}]" if ":" in host else host
    url = f"{scheme}://{shown}:{port}/"
    info = {"url": url, "pid": os.getpid(), "port": port}
    (arena.folder / "serve.json").write_text(json.dumps(info) + "\n")
    say(
        f"arena {arena.folder.name}: {arena.game}, serving {url} (sandbox {arena.layer}, {concurrency} ladder "
        f"slot(s){' on the cluster ' + cluster if cluster else ''}); recovered {matches} match(es) and {subs} submission(s) cut short, swept {swept} upload(s)"
    )
    stop = trio.Event()

    async def signals() -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as received:
            async for signum in received:
                say(
                    f"arena: {signal.Signals(signum).name}, stopping (matches cut short are replayed at the next start)"
                )
                stop.set()
                return

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(signals)
            nursery.start_soon(intake.run, arena)
            nursery.start_soon(ladder.run, arena, concurrency, executor)
            nursery.start_soon(rating.run, arena)
            nursery.start_soon(cleanup.run, arena)
            # Starlette is an ASGI 3 application; its (scope, receive, send) are typed as
            # plain mappings and callables, which hypercorn's typed ASGI events do not match.
            await hypercorn_serve(app, config, shutdown_trigger=stop.wait)  # type: ignore[arg-type]
            nursery.cancel_scope.cancel()
    finally:
        if executor is not None:
            await executor.close()


def main(
    folder: Path,
    *,
    host: str,
    port: int,
    concurrency: int | None,
    certfile: str | None,
    keyfile: str | None,
    sandbox_name: str | None = None,
    allow_root: bool = False,
    say: Callable[[str], None] = print,
    cluster: str | None = None,
) -> None:
    check_host(host, certfile, keyfile)
    arena = open_arena(folder, sandbox_name=sandbox_name, allow_root=allow_root)
    sock = bind(host, port)
    try:
        trio.run(
            lambda: serve(
                arena,
                sock,
                concurrency=concurrency,
                certfile=certfile,
                keyfile=keyfile,
                say=say,
                cluster=cluster,
            )
        )
    finally:
        with contextlib.suppress(OSError):
            sock.close()
        arena.store.close()
