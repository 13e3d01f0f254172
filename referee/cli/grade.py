"""``referee grade SUBMISSIONS_DIR --game G [--config grading.toml] --out DIR``.

The command line of :mod:`referee.grade.pipeline`: it reads the configuration, chooses
the sandbox (refusing one weaker than the machine's strongest unless ``--sandbox`` names
it), and runs or resumes a grading run.  docs/grading.md walks a TA through it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee import games
from referee.cli import arguments
from referee.cli.arguments import EXIT_FAILED, EXIT_OK, EXIT_USAGE, say
from referee.core import interrupts
from referee.core.seeding import fresh_seed
from referee.seats.process import sandbox

if TYPE_CHECKING:
    from referee.grade.pipeline import Grading

#: Grading stopped by a signal: everything recorded so far is kept; --resume continues.
EPILOG = """exit status:
  0    every student was graded (whatever their outcomes)
  1    some students could not be graded because of the grading machine (outcome
       grader-error or build-error, named on stderr); --resume retries them
  2    usage error (bad option, configuration, folder), one line on stderr
  130  interrupted (Ctrl-C; 143 SIGTERM): every finished step is kept;
       `referee grade --resume DIR` continues

docs/grading.md walks through a whole class."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    grade = subparsers.add_parser(
        "grade",
        help="grade a class's submissions: build, check, qualify, compete, report",
        description="Unpack every submission in SUBMISSIONS_DIR (one folder or .zip/.tar.gz per student), "
        "build it in the sandbox, run `referee check`, a qualification match and a tournament, and write "
        "DIR/gradebook.csv, a Gradescope results.json and a feedback page per student, a class overview "
        "and DIR/manifest.json.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    grade.add_argument("submissions", metavar="SUBMISSIONS_DIR", nargs="?", help="one entry per student")
    grade.add_argument("--game", choices=list(games.available()), help="which game (or `game` in the config)")
    grade.add_argument(
        "--config", metavar="FILE", help="grading.toml (docs/grading.md); default: all defaults"
    )
    grade.add_argument("--out", metavar="DIR", help="where everything goes")
    grade.add_argument(
        "--resume", metavar="DIR", help="continue the grading run in DIR after a stop or crash"
    )
    grade.add_argument("--only", metavar="ID", help="grade this student again (their new submission)")
    grade.add_argument("--seed", type=arguments.match_seed, help="grading seed (default: random, recorded)")
    grade.add_argument(
        "--concurrency", type=int, help="students (and matches) at once (default: usable cores)"
    )
    grade.add_argument(
        "--sandbox",
        choices=sandbox.CHOICES,
        help="isolation layer; grading refuses one weaker than the strongest here unless named here",
    )
    grade.add_argument(
        "--allow-root-bots", action="store_true", help="see referee match --help (never for untrusted code)"
    )
    return grade


def _layer(requested: str | None, configured: str | None) -> sandbox.Layer:
    """The layer to grade under.  Only ``--sandbox`` on the command line may choose a
    weaker one than the strongest this machine runs."""
    if requested is not None:
        layer = sandbox.choose(requested)
        warning = sandbox.advice(layer)
        if warning:
            say(warning)
        return layer
    layer = sandbox.choose(configured or "auto")
    if sandbox.advice(layer) is not None:
        best = sandbox.choose("auto")
        raise ValueError(
            f"sandbox {layer} (from the configuration) is weaker than {best}, the strongest here: grading "
            f"untrusted code refuses it; pass --sandbox {layer} to grade under it anyway"
        )
    return layer


def _usage(args: argparse.Namespace) -> Grading:
    """The grading run the arguments describe; ValueError (one line) when they cannot."""
    from referee.grade import compete as competing
    from referee.grade import config as grading_config
    from referee.grade.pipeline import Grading, read_manifest

    # A resume, and a re-grade of one student (--only ID --out DIR), are of the run in
    # DIR: its configuration, seed, game and folder of submissions, from its manifest.
    regrade = args.only is not None and args.out is not None and (Path(args.out) / "manifest.json").exists()
    if args.resume or regrade:
        out = Path(args.resume or args.out)
        manifest = read_manifest(out)
        config = grading_config.parse(manifest["config"], f"{out}/manifest.json")
        submissions = Path(manifest["submissions"])
        game, seed, base = manifest["game"], manifest["seed"], Path(manifest["config_base"])
        if args.resume:
            for flag in ("game", "config", "out", "seed"):
                if getattr(args, flag) is not None:
                    raise ValueError(
                        f"--resume takes its {flag} from {out}/manifest.json: leave --{flag} out"
                    )
        else:
            if args.config is not None:
                given, _ = grading_config.load(Path(args.config))
                if grading_config.as_dict(given) != grading_config.as_dict(config):
                    raise ValueError(
                        f"--config {args.config} is not the configuration {out} was graded with: a re-grade "
                        "uses that one (leave --config out), or grade into a new --out"
                    )
            for flag, recorded in (("game", game), ("seed", seed)):
                if getattr(args, flag) is not None and getattr(args, flag) != recorded:
                    raise ValueError(f"{out} was graded with --{flag} {recorded}: a re-grade uses it")
        if args.submissions is not None and Path(args.submissions).resolve() != submissions:
            raise ValueError(f"{out} graded {submissions}, not {args.submissions}")
        # Only a layer named on a command line may be weaker than the machine's best.
        requested_sandbox = args.sandbox or manifest.get("sandbox_requested")
        configured = config.sandbox
    else:
        if args.only is not None:
            raise ValueError(f"--only {args.only} re-grades a student of an earlier run: --out DIR names it")
        if args.submissions is None or args.out is None:
            raise ValueError("give SUBMISSIONS_DIR and --out DIR (or --resume DIR)")
        config, base = grading_config.load(Path(args.config) if args.config else None)
        game = args.game or config.game
        if game is None:
            raise ValueError("which game? pass --game (or set `game` in the configuration)")
        if config.game is not None and args.game is not None and config.game != args.game:
            raise ValueError(f"--game {args.game}, but the configuration says game = {config.game!r}")
        seed = args.seed if args.seed is not None else config.seed
        seed = seed if seed is not None else fresh_seed()
        submissions = Path(args.submissions).resolve()
        out = Path(args.out)
        requested_sandbox = args.sandbox
        configured = config.sandbox
        if (out / "manifest.json").exists():
            raise ValueError(f"{out} holds a grading run already: --resume {out} continues it")
    if not submissions.is_dir():
        raise ValueError(f"{submissions}: not a folder of submissions")
    # Grading plays the game's own random player (Game.random_player) where none is named.
    if game not in games.available() or games.get(game).random_player is None:
        raise ValueError(f"no grading defaults for {game}")
    game_cls = games.get(game)
    if config.qualify.enabled and 2 not in game_cls().seats:
        raise ValueError(f"{game} cannot seat two bots: set [qualify] enabled = false")
    layer = _layer(requested_sandbox, configured)
    # A configuration that cannot grade fails now, in one line, not after every build.
    if config.roster is not None:
        grading_config.read_roster(base / config.roster)
    house = [grading_config.bot_command(h, game, base) for h in config.compete.house]
    grading_config.bot_command(config.qualify.opponent, game, base)
    competing.validate(config, game, house, layer.value)
    concurrency = args.concurrency or config.concurrency or max(1, len(os.sched_getaffinity(0)))
    if concurrency < 1:
        raise ValueError("--concurrency must be at least 1")
    out.mkdir(parents=True, exist_ok=True)
    return Grading(
        submissions=submissions,
        out=out.resolve(),
        game=game,
        config=config,
        base=base,
        seed=seed,
        layer=layer,
        concurrency=concurrency,
        allow_root=args.allow_root_bots,
        only=args.only,
        say=lambda line: print(line, flush=True),
        sandbox_requested=requested_sandbox,
        resumed=bool(args.resume or regrade),
    )


def main(args: argparse.Namespace) -> int:
    # Imported here: every other `referee` command would pay for grading's modules.
    from referee.grade.pipeline import GRADER_FAULTS, GradeError, Stopped

    try:
        grading = _usage(args)
    except (ValueError, GradeError, OSError) as exc:
        say(str(exc))
        return EXIT_USAGE
    note = sandbox.best_possible_note()
    if note:
        grading.notes.append(note)
    print(
        f"referee: grading {grading.game} · seed {grading.seed} · sandbox {grading.layer} · "
        f"concurrency {grading.concurrency} → {grading.out} (resume with: referee grade --resume {grading.out})",
        file=sys.stderr,
        flush=True,
    )
    with interrupts.catching() as guard:
        grading.guard = guard
        try:
            result = grading.run()
        except GradeError as exc:
            say(str(exc))
            return EXIT_USAGE
        except (Stopped, interrupts.Interrupted):
            pass
        else:
            counts: dict[str, int] = {}
            for student in result.students:
                counts[student.outcome] = counts.get(student.outcome, 0) + 1
            outcomes = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            print(
                f"{len(result.students)} students in {result.seconds:.0f} s ({outcomes}); "
                f"{grading.out}/gradebook.csv, overview.html, students/<id>/feedback.html",
                flush=True,
            )
            faulty = [s.student for s in result.students if s.outcome in GRADER_FAULTS]
            if faulty:
                first = next(s for s in result.students if s.outcome in GRADER_FAULTS)
                step = getattr(first, first.last_step or "build")
                say(
                    f"{len(faulty)} student(s) could not be graded because of the grading machine, not their "
                    f"code ({', '.join(faulty[:5])}{' …' if len(faulty) > 5 else ''}): {step.summary}; "
                    f"fix it, then `referee grade --resume {grading.out}` grades them again"
                )
                return EXIT_FAILED
            return EXIT_OK
    signal_number = guard.seen[0] if guard.seen else 2
    say(f"stopped; every finished step is kept: referee grade --resume {grading.out} continues")
    return interrupts.exit_status(signal_number)
