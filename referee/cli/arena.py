"""``referee arena init|serve|freeze`` and ``referee submit``: the command line of
:mod:`referee.arena` (docs/arena.md).  It parses and prints; the arena does the work."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from referee import games
from referee.cli.arguments import EXIT_FAILED, EXIT_OK, EXIT_USAGE, say
from referee.seats.process import sandbox

EPILOG = "docs/arena.md walks a TA through a term: init, hand out tokens, serve, deadline, freeze."


def add_parsers(subparsers: Any) -> None:
    arena = subparsers.add_parser(
        "arena",
        help="run a course's competition as a service: uploads, checks, a ladder, a leaderboard",
        description="A ladder server for a term-long course competition.",
        epilog=EPILOG,
    )
    sub = arena.add_subparsers(dest="arena_command", required=True)
    init = sub.add_parser("init", help="make an arena's folder, store, tokens and house bots")
    init.add_argument("folder", metavar="DIR")
    init.add_argument("--game", choices=list(games.available()), help="which game (or game in arena.toml)")
    init.add_argument("--config", metavar="arena.toml", help="the arena's configuration (docs/arena.md)")
    init.add_argument("--roster", metavar="roster.csv", help="a CSV with a `student` column")
    serve = sub.add_parser("serve", help="serve the web application and run the ladder until stopped")
    serve.add_argument("folder", metavar="DIR")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (others than 127.0.0.1 need TLS)"
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free one)")
    serve.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="ladder matches at once (default: cores − 1, at least 1; with --cluster: its worker threads)",
    )
    serve.add_argument("--certfile", help="TLS certificate (PEM)")
    serve.add_argument("--keyfile", help="TLS private key (PEM)")
    serve.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play ladder matches on a Dask cluster: tcp://HOST:PORT, or local[:N] (docs/arena.md; "
        "workers must see DIR at the same path)",
    )
    serve.add_argument(
        "--sandbox", choices=sandbox.CHOICES, help="isolation layer (default: the strongest here)"
    )
    serve.add_argument("--allow-root-bots", action="store_true", help="see referee match --help")
    freeze = sub.add_parser("freeze", help="grade every student's last checked submission at the deadline")
    freeze.add_argument("folder", metavar="DIR")
    freeze.add_argument("--out", required=True, metavar="GRADES", help="where the grading goes")
    freeze.add_argument("--deadline", metavar="ISO", help="take submissions made by then (default: now)")
    freeze.add_argument(
        "--config", metavar="grading.toml", help="the grading's rules (default: arena.toml's `grading`)"
    )
    freeze.add_argument("--concurrency", type=int, help="students at once")
    freeze.add_argument("--sandbox", choices=sandbox.CHOICES)
    freeze.add_argument("--allow-root-bots", action="store_true")

    submit = subparsers.add_parser(
        "submit",
        help="upload a bot to an arena and print its check report",
        description="Upload FILE (a source file, .zip or .tar) to the arena at URL and wait for its check.",
    )
    submit.add_argument("url", metavar="URL", help="the arena, e.g. https://arena.example.edu/")
    submit.add_argument("file", metavar="FILE")
    submit.add_argument(
        "--token", default=os.environ.get("REFEREE_ARENA_TOKEN"), help="your token (or REFEREE_ARENA_TOKEN)"
    )
    submit.add_argument(
        "--timeout", type=float, default=900.0, help="seconds to wait for the check (default 900)"
    )
    submit.add_argument("--no-wait", action="store_true", help="print the submission's id and return")


def main(args: argparse.Namespace) -> int:
    if args.arena_command == "init":
        from referee.arena.config import ArenaConfigError
        from referee.arena.create import ADMIN_TOKEN, TOKENS, init

        try:
            made = init(Path(args.folder), args.game, Path(args.config) if args.config else None,
                        Path(args.roster) if args.roster else None)  # fmt: skip
        except (ArenaConfigError, ValueError, OSError) as exc:
            say(str(exc))
            return EXIT_USAGE
        print(
            f"arena {made['folder']}: {made['game']}, {made['students']} students, {made['house']} house bot(s); "
            f"hand out {args.folder}/{TOKENS} (written once), keep {args.folder}/{ADMIN_TOKEN}; "
            f"then: referee arena serve {args.folder}"
        )
        return EXIT_OK
    if args.arena_command == "serve":
        from referee.arena.service import ServeError
        from referee.arena.service import main as serve
        from referee.tournament.workers import WorkerLost

        if args.concurrency is not None and args.concurrency < 1:
            say("--concurrency must be at least 1")
            return EXIT_USAGE
        try:
            serve(Path(args.folder), host=args.host, port=args.port, concurrency=args.concurrency,
                  certfile=args.certfile, keyfile=args.keyfile, sandbox_name=args.sandbox,
                  allow_root=args.allow_root_bots, say=lambda line: print(line, flush=True),
                  cluster=args.cluster)  # fmt: skip
        except (ServeError, FileNotFoundError, ValueError, WorkerLost) as exc:
            say(str(exc))
            return EXIT_USAGE
        return EXIT_OK
    from referee.arena.freeze import FreezeError, freeze
    from referee.grade.config import GradingConfigError

    try:
        result = freeze(Path(args.folder), Path(args.out), deadline=args.deadline,
                        config_path=Path(args.config) if args.config else None, concurrency=args.concurrency,
                        sandbox_name=args.sandbox, allow_root=args.allow_root_bots,
                        say=lambda line: print(line, flush=True))  # fmt: skip
    except (FreezeError, GradingConfigError, FileNotFoundError) as exc:
        say(str(exc))
        return EXIT_USAGE
    print(f"{len(result.students)} students graded: {args.out}/grading/gradebook.csv", flush=True)
    return EXIT_OK


def submit_main(args: argparse.Namespace) -> int:
    from referee.arena.client import SubmitError, report, submit, wait

    if not args.token:
        say("give --token (or set REFEREE_ARENA_TOKEN)")
        return EXIT_USAGE
    path = Path(args.file)
    if not path.is_file():
        say(f"{path}: no such file")
        return EXIT_USAGE
    try:
        made = submit(args.url, path, args.token)
        print(f"submission {made['id']} uploaded", flush=True)
        if args.no_wait:
            return EXIT_OK
        data = wait(args.url, made["id"], args.token, args.timeout,
                    tick=lambda d: print(f"  {d['state']}", file=sys.stderr, flush=True))  # fmt: skip
    except SubmitError as exc:
        say(str(exc))
        return EXIT_FAILED
    print(report(data))
    return EXIT_OK if data["outcome"] == "ok" else EXIT_FAILED


def standalone(argv: list[str] | None = None) -> int:
    """``python -m referee.cli.arena arena …|submit …``: the same commands without the rest
    of the ``referee`` command."""
    parser = argparse.ArgumentParser(prog="referee")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parsers(sub)
    args = parser.parse_args(argv)
    return main(args) if args.command == "arena" else submit_main(args)


if __name__ == "__main__":
    sys.exit(standalone())
