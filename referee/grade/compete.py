"""Step 5 of ``referee grade``: the competition among the qualified bots.

It is a ``referee tournament`` run in a child process, with its store, so that a grading
run stopped in the middle of it (Ctrl-C, a crash, ``kill -9``) continues where it
stopped: ``referee grade --resume DIR`` finds the store and resumes it.  Its configuration
is written to ``OUT/compete/<…>/tournament.toml`` first, so a TA can rerun or inspect it
with ``referee tournament --config``.

Two shapes, by format:

* **gauntlet** — each student's bot plays the house bots (``[compete] house``), alone: one
  small tournament per student in ``OUT/compete/<id>/``.  A student's result depends on
  nobody else's bot, so ``--only ID`` re-grades that student alone.  Students are ranked
  by their score rate against the house (points per game: a win 1, a draw ½, for games
  ranked by wins; mean score per game for games ranked by score), with its interval.
* **every other format** (round robin, Swiss, double elimination, tables) — one
  tournament of every qualified bot (and the house bots) in ``OUT/compete/all/``; its
  ratings (Bradley–Terry Elo, Plackett–Luce, or score per game: docs/ratings.md) and
  standings are the students'.  Students play each other, so re-grading one student
  re-runs the whole competition (``--only`` says so).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from referee.core import toml_values
from referee.grade.config import GradingConfig
from referee.grade.model import OK, CompeteStep, Forfeit, Replay, Standing
from referee.grade.steps import GAME_REPLAYS, referee_command, replayed_games_text, run_child
from referee.seats.process.stderr import stderr_tail
from referee.tournament import snapshot
from referee.tournament.store import Store, StoreError

GAUNTLET = "gauntlet"
#: `referee tournament`'s exit status for a resume it refuses (a changed bot, another
#: configuration): the tournament is then started anew.
_CANNOT_RESUME = 2
#: How long a whole tournament may take before the grading run gives up on it.
_TOURNAMENT_WALL_S = 7 * 24 * 3600.0
#: Replay links per student, and games kept in each.
_REPLAYS_MAX = 20
_GAMES_PER_REPLAY = 50


@dataclass
class Entrant:
    student: str | None  # None: a house bot
    path: str  # what `referee tournament` is given
    name: str = ""  # its name in the tournament (read back from its store)
    #: The built tree's content hash: written into tournament.toml, so that a bot built
    #: anew makes a stored tournament void rather than refused ("files changed").
    bot_hash: str | None = None


@dataclass
class Competition:
    """What a tournament gave: the standings rows by bot name, and more."""

    rows: dict[str, dict] = field(default_factory=dict)
    faults: dict[str, list[dict]] = field(default_factory=dict)
    #: The standings' notes entries by bot name (docs/records.md, "Notes").
    notes: dict[str, dict] = field(default_factory=dict)
    scale: str = ""
    #: What ranks the standings, in words ("games won", "chips won").
    ranked_by: str = ""
    matches: list[dict] = field(default_factory=list)
    error: str | None = None
    #: Each bot's folder, by its name in the tournament (the store's record of them).
    homes: dict[str, str] = field(default_factory=dict)


def name_entrants(entrants: list[Entrant], competition: Competition) -> None:
    """Each student's name in the tournament, found by its folder in the tournament's
    own record of its bots: names are the tournament's to make unique (a student id
    such as "a b" becomes a_b, and may then be renamed), folders are not."""
    by_home = {home: name for name, home in competition.homes.items()}
    for entrant in entrants:
        if entrant.student is not None:
            entrant.name = by_home.get(str(Path(entrant.path).resolve()), "")


def tournament_keys(
    config: GradingConfig,
    game: str,
    entrants: list[Entrant],
    seed: int,
    sandbox: str,
    allow_root: bool,
    candidates: list[str] | None = None,
) -> dict[str, object]:
    """The tournament's configuration, keys as `referee tournament --config` takes them
    (besides ``[limits]`` and ``[options]``, which are the grading configuration's)."""
    c = config.compete
    # A gauntlet's candidates are bots to add (their paths), not names in `bots`.
    paths = [e.path for e in entrants if candidates is None or e.path not in candidates]
    keys: dict[str, object] = {
        "game": game,
        "format": c.format,
        "bots": paths,
        "games": c.games,
        "seed": seed,
        "sandbox": sandbox,
        "recover": c.recover,
        "duplicate": c.duplicate,
        "game_logs": True,
        "quiet": True,
        "allow_root_bots": allow_root,
        # Issue 28: a game whose forfeit the grading machine caused is played again.
        "replay_overloaded": GAME_REPLAYS,
    }
    for key in ("rounds", "table_size", "tables", "seeding", "seeding_games"):
        if getattr(c, key) is not None:
            keys[key] = getattr(c, key)
    if candidates:
        keys["candidates"] = candidates
    return keys


def tournament_toml(
    config: GradingConfig,
    game: str,
    entrants: list[Entrant],
    seed: int,
    sandbox: str,
    allow_root: bool,
    candidates: list[str] | None = None,
) -> str:
    """The tournament's configuration file (keys as `referee tournament --config` takes)."""
    keys = tournament_keys(config, game, entrants, seed, sandbox, allow_root, candidates)
    c = config.compete
    lines = [f"# bot {e.path}: {e.bot_hash}" for e in entrants if e.bot_hash]
    lines += [f"{key} = {toml_values.value(value)}" for key, value in keys.items()]
    if config.limits is not None:
        lines.append("[limits]")
        for name in config.limits.__struct_fields__:
            value = getattr(config.limits, name)
            if value is not None:
                lines.append(f"{name} = {toml_values.value(value)}")
    if c.options:
        lines.append("[options]")
        lines += [f"{key} = {toml_values.value(value)}" for key, value in c.options.items()]
    return "\n".join(lines) + "\n"


async def run_tournament(folder: Path, toml: str, concurrency: int) -> Competition:
    """Run (or resume) the tournament configured by ``toml`` in ``folder``.  A stored
    tournament of another configuration or other bots (``toml`` names their hashes) is
    void and started anew; so is one its own resume refuses."""
    folder.mkdir(parents=True, exist_ok=True)
    config_path = folder / "tournament.toml"
    out = folder / "results"
    store = out / "results.sqlite"
    if store.exists() and (not config_path.exists() or config_path.read_text() != toml):
        shutil.rmtree(out, ignore_errors=True)
    config_path.write_text(toml)
    start = referee_command(
        "tournament", "--config", str(config_path), "--out", str(out), "--concurrency", str(concurrency)
    )
    log = folder / "tournament.log"
    if store.exists():
        resume = referee_command(
            "tournament", "--resume", str(out), "--concurrency", str(concurrency), "--quiet"
        )
        code, last = await run_child(resume, _TOURNAMENT_WALL_S, log)
        if code == _CANNOT_RESUME:  # it cannot resume (a changed bot, a damaged store): anew
            shutil.rmtree(out, ignore_errors=True)
            code, last = await run_child(start, _TOURNAMENT_WALL_S, log)
    else:
        code, last = await run_child(start, _TOURNAMENT_WALL_S, log)
    result = Competition()
    if code != 0:
        result.error = f"referee tournament stopped (exit {code}): {last}"
        return result
    try:
        standings = json.loads((out / "standings.json").read_text())
    except (OSError, ValueError) as exc:
        result.error = f"referee tournament left no standings: {exc}"
        return result
    try:
        # The tournament plays its own snapshot of each bot (results/bots/NAME): a student
        # is found by the folder the snapshot was taken from.
        origins = snapshot.sources(out)
        with Store.read(out) as stored:
            result.homes = {
                name: origins.get(Path(spec.home).name, spec.home)
                if snapshot.is_snapshot(spec, out)
                else spec.home
                for name, spec in stored.bots().items()
            }
    except (OSError, StoreError, sqlite3.Error) as exc:
        result.error = f"referee tournament's store cannot be read: {exc}"
        return result
    result.rows = {row["bot"]: row for row in standings.get("rows", [])}
    result.faults = {f["bot"]: f.get("details", []) for f in standings.get("faults", [])}
    result.notes = {n["bot"]: n for n in standings.get("notes", [])}
    result.scale = (standings.get("ratings") or {}).get("scale", "")
    tournament = standings.get("tournament") or {}
    standing = tournament.get("standing", "")
    if tournament.get("format") == "double-elimination":
        result.ranked_by = "the bracket"
    else:
        result.ranked_by = {"wins": "games won", "score": "total score (chips won)"}.get(standing, standing)
    for path in sorted((out / "matches").glob("*.json")):
        try:
            match = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        match["key"] = path.stem
        result.matches.append(match)
    return result


def _stderr_file(folder: Path, match: str, name: str) -> str:
    """The last lines of the bot's stderr in that match, as the tournament kept it."""
    path = folder / "results" / "stderr" / match / f"{name}.stderr"
    if not match or "/" in match or not path.is_file():
        return ""
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, path.stat().st_size - 4096))
            return stderr_tail(fh.read().decode("utf-8", "replace"))
    except OSError:
        return ""


def _stderr_of(detail: str) -> str:
    _, sep, tail = detail.partition("; stderr: ")
    return stderr_tail(tail) if sep else ""


def _replay_page(log: Path) -> str:
    """Write the replay page of ``log`` beside it; the name to link (the page, or the
    records when the page cannot be made)."""
    from referee.replay.page import page
    from referee.replay.sources import ReplayError, load

    try:
        html = log.with_suffix(".html")
        html.write_text(page(load(log)), encoding="utf-8")
        return html.name
    except (ReplayError, OSError):
        return log.name


def _keep_replays(log: Path, me: str, known: set[str], dest: Path) -> int:
    """Copy the games of ``log`` that ``me`` lost or forfeited to ``dest`` (the student's
    own folder, so their feedback page can link them), other students' names replaced by
    "another student"; how many games were kept (at most _GAMES_PER_REPLAY)."""
    kept: list[bytes] = []
    try:
        with open(log, "rb") as lines:
            for raw in lines:
                try:
                    game = json.loads(raw)
                    seat = game["seats"].index(me)
                except (ValueError, KeyError, TypeError, AttributeError):
                    continue
                ranks = game.get("ranks") or []
                forfeited = any(f.get("player") == me for f in game.get("forfeits") or [])
                lost = len(ranks) > seat and ranks[seat] > min(ranks)
                if not (lost or forfeited):
                    continue
                game["seats"] = [n if n in known else "another student" for n in game["seats"]]
                for f in game.get("forfeits") or []:
                    if f.get("player") not in known:
                        f["player"] = "another student"
                kept.append(json.dumps(game, separators=(",", ":")).encode() + b"\n")
                if len(kept) >= _GAMES_PER_REPLAY:
                    break
    except OSError:
        return 0
    if kept:
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(b"".join(kept))
    return len(kept)


def student_step(
    competition: Competition,
    entrant: Entrant,
    folder: Path,
    student_folder: Path,
    fmt: str,
    show_stderr: bool,
    names: dict[str, str | None],
) -> CompeteStep:
    """One student's part of a competition; ``names``: every bot's name in it, and the
    student it is (None for a house bot)."""
    row = competition.rows.get(entrant.name)
    if competition.error or row is None:
        why = competition.error or "the bot is not in the standings"
        return CompeteStep(outcome="grader-error", summary=why, format=fmt)
    step = CompeteStep(
        outcome=OK,
        summary="",
        format=fmt,
        rank=row.get("rank"),
        games=row.get("games", 0),
        wins=row.get("wins", 0),
        losses=row.get("losses", 0),
        draws=row.get("draws", 0),
        mean_score=row.get("mean_score"),
        matches=row.get("matches", 0),
        peak_rss_bytes=row.get("peak_rss_bytes", 0),
    )
    if row.get("rank_low") is not None:
        step.rank_range = [row["rank_low"], row["rank_high"]]
    if row.get("rating") is not None:
        step.rating = row["rating"]
        step.rating_interval = [row["rating_low"], row["rating_high"]]
        step.rating_unit = competition.scale or "Elo"
    step.forfeits = [
        Forfeit(
            verdict=f["verdict"],
            detail=f["detail"],
            match=f.get("match", ""),
            game=f.get("game"),
            position=f.get("position"),
            reply=f.get("reply"),
            stderr_tail=(_stderr_of(f["detail"]) or _stderr_file(folder, f.get("match", ""), entrant.name))
            if show_stderr
            else "",
        )
        for f in competition.faults.get(entrant.name, [])
        if not f["detail"].startswith("not running since")
    ][:50]
    noted = competition.notes.get(entrant.name) or {}
    step.notes, step.note_examples = noted.get("notes") or {}, noted.get("examples") or {}
    known = {name for name, student in names.items() if student is None}
    known.add(entrant.name)
    decisions = 0
    total_us = 0.0
    max_us = 0.0
    for match in competition.matches:
        for player in match.get("players", []):
            if player.get("name") != entrant.name:
                continue
            decisions += player.get("decisions", 0)
            step.replayed += player.get("replayed_games", 0)
            total_us += player.get("decisions", 0) * player.get("mean_decision_us", 0.0)
            max_us = max(max_us, player.get("max_decision_us", 0.0))
            if (player.get("losses") or player.get("forfeits")) and len(step.replays) < _REPLAYS_MAX:
                log = folder / "results" / "logs" / f"{match['key']}.jsonl"
                kept = _keep_replays(
                    log, entrant.name, known, student_folder / "replays" / f"{match['key']}.jsonl"
                )
                if kept:
                    # A page to watch them in, beside the records (referee replay).
                    target = _replay_page(student_folder / "replays" / f"{match['key']}.jsonl")
                    # Another student by their id, which the reports know to hide.
                    others = [names.get(p["name"]) or p["name"] for p in match["players"] if p is not player]
                    lost = f"lost {player.get('losses', 0)}"
                    if player.get("forfeits"):
                        lost += ", forfeits " + ", ".join(f"{k} {v}" for k, v in player["forfeits"].items())
                    bad = player.get("losses", 0) + sum((player.get("forfeits") or {}).values())
                    more = f" (the first {kept} kept)" if kept < bad else ""
                    label = f"{match['key']} against {', '.join(others)}: {lost}{more}"
                    step.replays.append(Replay(label=label, path=f"replays/{target}"))
    if decisions:
        step.decision_ms_mean = round(total_us / decisions / 1000, 4)
        step.decision_ms_max = round(max_us / 1000, 4)
    rank = f"rank {step.rank}" + (
        f" (could be {step.rank_range[0]}–{step.rank_range[1]})" if step.rank_range else ""
    )
    by = f" by {competition.ranked_by}" if competition.ranked_by else ""
    step.summary = f"{rank}{by}; W {step.wins}, L {step.losses}, D {step.draws} in {step.games} games"
    if step.replayed:
        step.summary += f" ({replayed_games_text(step.replayed)})"
    return step


def standings_rows(competition: Competition, entrants: list[Entrant]) -> list[Standing]:
    """The competition's standings, students named by their id."""
    by_name = {e.name: e for e in entrants}
    out = []
    for name, row in sorted(competition.rows.items(), key=lambda kv: kv[1].get("rank", 0)):
        entrant = by_name.get(name)
        out.append(
            Standing(
                rank=row.get("rank", 0),
                name=entrant.student if entrant and entrant.student else name,
                student=bool(entrant and entrant.student),
                points=row.get("points"),
                rating=row.get("rating"),
                rating_interval=[row["rating_low"], row["rating_high"]]
                if row.get("rating") is not None
                else None,
                games=row.get("games", 0),
                wins=row.get("wins", 0),
                losses=row.get("losses", 0),
                draws=row.get("draws", 0),
                mean_score=row.get("mean_score"),
                forfeits=sum((row.get("forfeits") or {}).values()),
            )
        )
    return out


def _names(competition: Competition, entrants: list[Entrant]) -> dict[str, str | None]:
    """Every bot of the tournament by name: the student it is, or None (a house bot)."""
    name_entrants(entrants, competition)
    students = {e.name: e.student for e in entrants if e.student is not None and e.name}
    return {name: students.get(name) for name in competition.homes}


@dataclass
class Arena:
    """Where and how a grading run's competition is played: the same for every
    tournament of it (one for all, or one gauntlet per student)."""

    config: GradingConfig
    game: str
    #: The house bots, as `referee tournament` takes them.
    house: list[str]
    #: ``OUT/compete`` (tournaments) and ``OUT/students`` (each student's folder).
    folder: Path
    students_folder: Path
    seed: int
    sandbox: str
    allow_root: bool
    show_stderr: bool

    async def _play(
        self, where: Path, entrants: list[Entrant], concurrency: int, candidates: list[str] | None = None
    ) -> tuple[Competition, dict[str, str | None]]:
        toml = tournament_toml(
            self.config, self.game, entrants, self.seed, self.sandbox, self.allow_root, candidates
        )
        competition = await run_tournament(where, toml, concurrency)
        return competition, _names(competition, entrants)

    def _step(self, competition: Competition, entrant: Entrant, where: Path, names: dict) -> CompeteStep:
        assert entrant.student is not None
        return student_step(
            competition, entrant, where, self.students_folder / entrant.student,
            self.config.compete.format, self.show_stderr, names,
        )  # fmt: skip

    async def everyone(
        self, students: dict[str, Path], hashes: dict[str, str | None], concurrency: int
    ) -> tuple[dict[str, CompeteStep], list[Standing]]:
        """One tournament of every qualified bot and the house bots, in ``folder/all``
        (every format but the gauntlet)."""
        entrants = [Entrant(s, str(p), bot_hash=hashes.get(s)) for s, p in sorted(students.items())]
        entrants += [Entrant(None, h) for h in self.house]
        where = self.folder / "all"
        competition, names = await self._play(where, entrants, concurrency)
        steps = {
            e.student: self._step(competition, e, where, names) for e in entrants if e.student is not None
        }
        return steps, standings_rows(competition, entrants)

    async def gauntlet(self, student: str, bot: Path, bot_hash: str | None) -> CompeteStep:
        """One student's gauntlet against the house bots, in ``folder/<id>``; the same
        seed for everyone, so every student meets the same deals."""
        me = Entrant(student, str(bot), bot_hash=bot_hash)
        where = self.folder / student
        competition, names = await self._play(
            where, [me] + [Entrant(None, h) for h in self.house], 1, [me.path]
        )
        return self._step(competition, me, where, names)

    async def gauntlets(
        self, students: dict[str, Path], hashes: dict[str, str | None], concurrency: int
    ) -> dict[str, CompeteStep]:
        """Every student's gauntlet, ``concurrency`` at once."""
        steps: dict[str, CompeteStep] = {}
        limiter = trio.CapacityLimiter(concurrency)

        async def one(student: str, bot: Path) -> None:
            async with limiter:
                steps[student] = await self.gauntlet(student, bot, hashes.get(student))

        async with trio.open_nursery() as nursery:
            for student, bot in sorted(students.items()):
                nursery.start_soon(one, student, bot)
        return steps


def rank_gauntlets(steps: dict[str, CompeteStep], by_score: bool) -> list[Standing]:
    """Students ranked by their results against the house: score rate (or mean score per
    game, for games ranked by score), best first; equal values share a rank."""

    def value(step: CompeteStep) -> float:
        if by_score:
            return step.mean_score or 0.0
        return (step.wins + step.draws / 2) / step.games if step.games else 0.0

    ranked = sorted((s for s in steps.items() if s[1].outcome == OK), key=lambda kv: -value(kv[1]))
    out: list[Standing] = []
    for index, (student, step) in enumerate(ranked):
        rank = out[-1].rank if out and value(step) == out[-1].points else index + 1
        step.rank = rank
        step.rank_range = None
        step.rating = round(value(step), 6)
        step.rating_interval = None
        step.rating_unit = "score per game against the house" if by_score else "score rate against the house"
        step.summary = (
            f"rank {rank} of {len(ranked)} students by {step.rating_unit}; " + step.summary.split("; ", 1)[-1]
        )
        out.append(
            Standing(
                rank=rank, name=student, student=True, points=value(step), rating=step.rating,
                games=step.games, wins=step.wins, losses=step.losses, draws=step.draws,
                mean_score=step.mean_score, forfeits=len(step.forfeits),
            )
        )  # fmt: skip
    return out


def validate(config: GradingConfig, game: str, house: list[str], sandbox: str) -> None:
    """Refuse a ``[compete]`` section `referee tournament` would refuse — at the start of
    a grading run, not after every build (ValueError, one line).  The tournament it would
    make is set up (referee.tournament.setup) with the game's random player in the
    students' seats."""
    from referee.grade.config import bot_command
    from referee.tournament import setup
    from referee.tournament.config import ConfigError

    c = config.compete
    if not c.enabled:
        return
    if c.format == GAUNTLET and not house:
        raise ValueError('[compete] format = "gauntlet" needs house bots to play: [compete] house = [...]')
    seats = max(2, c.table_size or 2)
    placeholder = bot_command("random", game, Path.cwd())
    entrants = [Entrant(f"s{i}", placeholder) for i in range(seats)] + [Entrant(None, h) for h in house]
    candidates = [entrants[0].path] if c.format == GAUNTLET else None
    if candidates:
        entrants = [entrants[0]] + [e for e in entrants if e.student is None]
    values: dict[str, Any] = dict(tournament_keys(config, game, entrants, 1, sandbox, False, candidates))
    values.update(
        out="-",  # not opened: the setup only names it
        limits=config.limits,
        options=dict(c.options or {}),
        _bots_base=Path.cwd(),
        _qualify_base=Path.cwd(),
    )
    try:
        setup.prepare(values, say=lambda line: None)
    except (ConfigError, ValueError) as exc:
        raise ValueError(f"[compete]: {exc}") from None
