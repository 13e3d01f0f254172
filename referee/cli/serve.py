"""``referee serve`` and ``referee connect``: tables of bots playing over TCP (docs/remote.md).

    referee serve --game G [--table-size K] [--games N] [--port P] [--bind ADDR]
                  [--tokens FILE] [--cert PEM --key PEM] [--tables N] --out DIR
    referee connect HOST:PORT BOT [--token T] [--name NAME] [--tls | --cafile PEM]

Exit status: 0 done (serve: its tables are played; connect: the server said bye);
1 the connection was lost or refused (connect); 2 a usage error, one line;
130/143 stopped by a signal (serve: every table finished so far is stored).
"""

from __future__ import annotations

import argparse
import ipaddress
import itertools
import secrets
import ssl
from pathlib import Path
from typing import Any

from referee import games
from referee.cli import arguments
from referee.cli.arguments import EXIT_FAILED, EXIT_OK, EXIT_USAGE, say

DEFAULT_PORT = 7878
#: Tables a --round-robin may have (combinations grow fast with the table size).
MAX_TABLES = 100_000


def add_parsers(subparsers: Any) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="seat bots that connect over TCP at tables of a game",
        description="Accept players over TCP (referee connect, or any program speaking the relay "
        "protocol of docs/remote.md), seat them at tables of --table-size as they arrive, and play each "
        "table as a match of --games games, results into --out. Off loopback the server speaks TLS and "
        "wants --tokens.",
    )
    serve.add_argument("--game", required=True, choices=list(games.available()))
    serve.add_argument("--table-size", type=int, metavar="K", help="players per table (default: the seed's)")
    serve.add_argument("--games", type=int, default=1, metavar="N", help="games per table (default 1)")
    serve.add_argument("--tables", type=int, metavar="N", help="stop after N tables (default: until stopped)")
    serve.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0: any)"
    )
    serve.add_argument(
        "--bind", default="127.0.0.1", metavar="ADDR", help="address to listen on (default 127.0.0.1)"
    )
    serve.add_argument("--tokens", type=Path, metavar="FILE", help="lines 'NAME TOKEN': who may play")
    serve.add_argument("--cert", type=Path, metavar="PEM", help="TLS certificate (needed off loopback)")
    serve.add_argument("--key", type=Path, metavar="PEM", help="TLS private key")
    serve.add_argument("--seed", type=arguments.match_seed, metavar="S", help="seed of the tables' deals")
    serve.add_argument(
        "--network-allowance",
        type=arguments.seconds,
        metavar="S",
        help="seconds added to every time limit for the network (default 1)",
    )
    serve.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="results: a store and the tables' logs"
    )
    serve.add_argument(
        "--dialect",
        choices=("relay", "ppca"),
        default="relay",
        help="relay: referee connect's protocol (default); ppca: the PPCA 2014 Hold'em server's own, "
        "for its original clients (holdem, one game a table, the ppca rules; plain TCP, no tokens)",
    )
    serve.add_argument(
        "--round-robin",
        action="store_true",
        help="instead of tables of whoever waits: every table of --table-size from the field (the names "
        "in --tokens, or --players), each played once all its players are connected; serving again into "
        "the same --out plays only the tables not done",
    )
    serve.add_argument(
        "--players", metavar="A,B,…", help="the field of --round-robin on a server without tokens"
    )
    serve.add_argument("--quiet", action="store_true", help="print only the tables' results")
    arguments.add_limit_options(
        serve, "limits (each player's, enforced on its machine; the server adds the allowance)", full=True
    )
    arguments.add_game_options(serve, "game options")

    connect = subparsers.add_parser(
        "connect",
        help="play a local bot at a referee serve's tables",
        description="Run BOT here (sandboxed, under the limits the server announces) and relay its lines "
        "to the server at HOST:PORT until the server is done.",
    )
    connect.add_argument("address", metavar="HOST:PORT")
    connect.add_argument("bot", metavar="BOT", help="the bot, as referee match takes it")
    connect.add_argument("--token", help="your token from the organiser")
    connect.add_argument("--name", help="your name on a server without tokens (default: the bot's)")
    tls = connect.add_mutually_exclusive_group()
    tls.add_argument(
        "--tls", action="store_true", help="use TLS, checking the server against the system's CAs"
    )
    tls.add_argument(
        "--cafile", type=Path, metavar="PEM", help="use TLS, checking the server against this certificate"
    )
    tls.add_argument("--no-tls", action="store_true", help="plain TCP even off loopback")
    connect.add_argument("--sandbox", default="auto", help="the local sandbox layer (default auto)")
    connect.add_argument(
        "--allow-root-bots", action="store_true", help="as root, run the bot as root if it must"
    )
    connect.add_argument("--stderr-dir", type=Path, metavar="DIR", help="keep the bot's stderr here")


def _loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _stored_seed(out: Path) -> int:
    """Serving again into a folder goes on with its seed; a new folder draws one."""
    from referee.tournament.store import Store, StoreError

    try:
        with Store.read(out) as store:
            return int(store.seed)
    except (StoreError, ValueError):
        return secrets.randbits(63)


def serve_main(args: argparse.Namespace) -> int:
    import trio

    from referee.core import interrupts
    from referee.seats.remote import NETWORK_ALLOWANCE_S
    from referee.serve.server import ServeConfig, Server, load_tokens, serve_listeners, server_tls

    game_cls = games.get(args.game)
    size = args.table_size or game_cls.seats.default
    if size not in game_cls.seats:
        say(f"--table-size {size}: {args.game} is played by {game_cls.seats.wanted()} players")
        return EXIT_USAGE
    if args.games < 1 or (args.tables is not None and args.tables < 1):
        say("--games and --tables are at least 1")
        return EXIT_USAGE
    tls = None
    ppca = args.dialect == "ppca"
    if ppca and (args.tokens or args.cert):
        say("--dialect ppca: the original clients know neither tokens nor TLS (use it on a trusted network)")
        return EXIT_USAGE
    if (args.cert is None) != (args.key is None):
        say("--cert and --key go together")
        return EXIT_USAGE
    if args.cert is not None:
        try:
            tls = server_tls(args.cert, args.key)
        except (OSError, ssl.SSLError) as exc:
            say(f"--cert/--key: {getattr(exc, 'strerror', None) or exc}")
            return EXIT_USAGE
    elif not _loopback(args.bind) and not ppca:
        say(f"--bind {args.bind} is reachable from other machines: give --cert and --key (TLS) and --tokens")
        return EXIT_USAGE
    if ppca and not _loopback(args.bind):
        say(f"warning: --dialect ppca on {args.bind}: plain TCP, anyone who reaches the port may play")
    if args.tokens is None and not _loopback(args.bind) and not ppca:
        say(f"--bind {args.bind} is reachable from other machines: give --tokens (who may play)")
        return EXIT_USAGE
    tokens = None
    if args.tokens is not None:
        try:
            tokens = load_tokens(args.tokens)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            say(f"--tokens: {getattr(exc, 'strerror', None) or exc}")
            return EXIT_USAGE
    schedule = None
    if args.round_robin:
        if ppca:
            say("--round-robin: the ppca dialect seats its players as they log in")
            return EXIT_USAGE
        field = sorted(set(tokens.values())) if tokens else [x for x in (args.players or "").split(",") if x]
        if len(field) < size:
            say(f"--round-robin needs a field of at least {size} players (--tokens or --players)")
            return EXIT_USAGE
        schedule = [list(t) for t in itertools.islice(itertools.combinations(field, size), MAX_TABLES + 1)]
        if len(schedule) > MAX_TABLES:
            say(f"--round-robin: more than {MAX_TABLES} tables of {size} from {len(field)} players")
            return EXIT_USAGE
    elif args.players:
        say("--players goes with --round-robin")
        return EXIT_USAGE
    config = ServeConfig(
        game=args.game,
        table_size=size,
        games=args.games,
        seed=args.seed if args.seed is not None else _stored_seed(args.out),
        options=arguments.game_options(args, game_cls),
        limits=arguments.limits_from(args),
        allowance_s=args.network_allowance if args.network_allowance is not None else NETWORK_ALLOWANCE_S,
        tables=args.tables,
        dialect=args.dialect,
        schedule=schedule,
    )
    quiet = args.quiet

    def tell(line: str) -> None:
        if not quiet or " over: " in line:
            say(line)

    try:
        server = Server(config, out=args.out, tokens=tokens, say=tell)
    except (ValueError, TypeError) as exc:
        say(f"{args.game}: {exc}")
        return EXIT_USAGE

    async def work() -> int:
        try:
            listeners = await serve_listeners(args.port, args.bind, tls)()
        except OSError as exc:
            say(f"cannot listen on {args.bind}:{args.port}: {exc.strerror or exc}")
            return EXIT_USAGE
        port = (
            listeners[0].socket.getsockname()[1]
            if hasattr(listeners[0], "socket")
            else (listeners[0].transport_listener.socket.getsockname()[1])
        )
        say(
            f"serving {args.game} at {args.bind}:{port}{' (TLS)' if tls else ''}; tables of {size}, "
            f"{args.games} game{'s' * (args.games != 1)} each; results in {args.out}"
        )
        await server.run(listeners)
        return EXIT_OK

    from referee.tournament.store import StoreError

    try:
        with interrupts.catching() as guard:
            status, signum = trio.run(interrupts.run_until_signalled, work, guard)
    except StoreError as exc:
        say(str(exc))
        return EXIT_USAGE
    say(f"{len(server.results)} table{'s' * (len(server.results) != 1)} played; results in {args.out}")
    if signum is not None:
        return interrupts.exit_status(signum)
    return status if status is not None else EXIT_FAILED


def connect_main(args: argparse.Namespace) -> int:
    import trio

    from referee.core.botspec import BotSpecError, resolve
    from referee.seats.process import sandbox
    from referee.seats.remote_client import ConnectError, Relay, open_stream

    host, sep, port_text = args.address.rpartition(":")
    if not sep or not port_text.isdigit() or not host:
        say(f"{args.address}: expected HOST:PORT")
        return EXIT_USAGE
    host = host.strip("[]")
    try:
        spec = resolve(args.bot)
    except BotSpecError as exc:
        say(str(exc))
        return EXIT_USAGE
    try:
        layer = sandbox.choose(args.sandbox)
    except ValueError as exc:
        say(str(exc))
        return EXIT_USAGE
    tls: ssl.SSLContext | None = None
    if args.cafile is not None:
        tls = ssl.create_default_context(cafile=str(args.cafile))
    elif args.tls or (not args.no_tls and not _loopback(host)):
        tls = ssl.create_default_context()
    name = args.name or spec.name
    relay = Relay(spec, layer=layer, allow_root=args.allow_root_bots, stderr_dir=args.stderr_dir, say=say)

    async def work() -> str:
        stream = await open_stream(host, int(port_text), tls)
        try:
            return await relay.run(stream, name, args.token)
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(2):
                await stream.aclose()

    try:
        reason = trio.run(work)
    except ConnectError as exc:
        say(str(exc))
        return EXIT_FAILED
    except KeyboardInterrupt:
        say("stopped")
        return 130
    say(f"the server is done ({reason}); {relay.decisions} decisions, {relay.faults} faults")
    return EXIT_OK
