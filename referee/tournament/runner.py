"""Running a tournament: the plan, the executors, the store and the display, together.

The runner is the tournament's parent process.  It asks the :class:`~.plan.Plan` for the
matches to play, registers them in the store, hands them to an executor
(:mod:`.workers`), and writes what comes back: every batch of games through a
:class:`~.sink.StoreSink` per match, each finished match's summary to
``DIR/matches/KEY.json``, restarts and notices to the store's events.  Between
stages and rounds it asks the plan again, until the tournament is over; then it writes
the standings files.  It is the store's only writer.

**Resume** (:mod:`.resume`).  The store says which matches are done.  A match of
bots started per match that was running when the referee died is replayed from its
start (its games are discarded first).  Bots that live for the whole tournament keep
every stored game: a match cut short goes on at its first game not stored
(``Match.resume_after``), the bots started afresh, and each gets a ``restart`` event
(``--replay-all`` discards everything and plays it again instead).

**Stopping.**  When the run is cancelled (Ctrl-C, SIGTERM) the workers' input is
closed; each stops its matches cleanly and the runner stores what they still send.
Matches cut short stay ``running`` in the store, for the next resume to replay.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import trio

from referee.core.botspec import BotSpec
from referee.core.limits import NEAR_LIMIT
from referee.core.overload import REPLAY_NOTICE
from referee.core.records import BotFigures, MatchRecord, slowest
from referee.games import Game, Lifetime
from referee.match.spec import MatchConfig, MatchSpec
from referee.sinks._abc import MatchInfo
from referee.sinks.files import write_atomically
from referee.sinks.summary import encode_summary
from referee.tournament import executors, wire
from referee.tournament.config import RunSettings, TournamentConfig
from referee.tournament.executors import Executor
from referee.tournament.executors.health import outliers
from referee.tournament.formats import MatchOutcome
from referee.tournament.live import LiveDisplay
from referee.tournament.plan import DONE, MAIN, Plan, Planned, match_seed, outcome_of
from referee.tournament.sink import StoreSink
from referee.tournament.store import Store
from referee.tournament.workers import usable_cores

#: How often the live standings are recomputed from the store.
STANDINGS_EVERY_S = 2.0


class TournamentError(Exception):
    """The tournament cannot go on (a match cannot be completed, a worker died); one line."""


class ResultsNotStored(TournamentError):
    """The store could not take a result (a full disk); one line."""


def load_outcomes(store: Store, plan: Plan) -> dict[str, MatchOutcome]:
    """The outcomes of the matches the store holds as done, as the plan reads them:
    whole where it reads their tallies, :data:`~.plan.DONE` where it only needs to
    know they are done (a static schedule's: the records are not even read)."""
    outcomes: dict[str, MatchOutcome] = {}
    for key in store.done_keys():
        record = store.match_record(key) if plan.needs_tallies(key) else None
        outcomes[key] = DONE if record is None else outcome_of(key, record)
    return outcomes


def base_config(config: TournamentConfig) -> MatchConfig:
    """What every match of the tournament shares."""
    return MatchConfig(
        game=config.game,
        seed=0,
        duplicate=config.duplicate,
        recover=config.recover,
        pin=True,
        sandbox=config.sandbox,
        allow_root_bots=config.allow_root_bots,
        limits=config.limits,
        options=dict(config.options),
        keep_going=True,
        give_up_after=config.give_up_after,
        replay_overloaded=config.replay_overloaded,
    )


def default_concurrency(game: type[Game]) -> int:
    """Matches at once when not given: the usable cores for per-match bots (a worker per
    core); one for bots that live for the whole tournament, whose one session is fastest
    pinned to one core when they answer at once (docs/tournaments.md, "Concurrency")."""
    return 1 if game.lifetime is Lifetime.TOURNAMENT else len(usable_cores())


class Runner:
    """One run of a tournament (a fresh one or a resume) into ``out``."""

    def __init__(
        self,
        config: TournamentConfig,
        specs: dict[str, BotSpec],
        store: Store,
        settings: RunSettings,
        game: type[Game],
        *,
        display: LiveDisplay | None = None,
        on_standings: Callable[[], None] | None = None,
    ) -> None:
        self.config = config
        self.specs = specs
        self.store = store
        self.settings = settings
        self.game = game
        self.out = Path(settings.out)
        self.plan = Plan(config, game)
        self.display = display
        self.on_standings = on_standings
        self.ids = config.ids()
        self.per_tournament = game.lifetime is Lifetime.TOURNAMENT
        self.concurrency = settings.concurrency or default_concurrency(game)
        self._base = base_config(config)
        #: What a session of bots that live for the whole tournament shares: the base,
        #: with the tournament's seed (each bot's $REFEREE_SEED comes from it).
        self._session_config = msgspec.structs.replace(self._base, seed=config.seed)
        self._sinks: dict[str, StoreSink] = {}
        self._specs: dict[str, MatchSpec] = {}
        self._stored: dict[str, MatchSpec] = {}
        self.outcomes: dict[str, MatchOutcome] = {}
        self._failure: TournamentError | None = None
        self._planned_matches = 0
        self._planned_games = 0
        #: Games stored of each match cut short that this run goes on with (bots that
        #: live for the whole tournament): the match resumes after them.
        self._held: dict[str, int] = store.unfinished_games() if self.per_tournament else {}
        for directory in ("matches", "stderr", "workers") + (("logs",) if settings.game_logs else ()):
            (self.out / directory).mkdir(parents=True, exist_ok=True)

    # ------------------------------------------------------------------ specs

    def stored_spec(self, planned: Planned) -> MatchSpec:
        """The match as stored (no paths of this run in it: a resume compares it)."""
        config = msgspec.structs.replace(
            self._base,
            games=planned.games,
            seed=match_seed(self.config.seed, planned.key),
            ids=[self.ids[b] for b in planned.bots],
            unstartable={b: self.config.unstartable[b] for b in planned.bots if b in self.config.unstartable},
        )
        if self.config.sprt is not None and planned.stage == MAIN:
            # A gauntlet tests its candidate; a round robin the pairing's first bot.
            tested = next((b for b in planned.bots if b in self.config.candidates), planned.bots[0])
            config = msgspec.structs.replace(config, sprt=self.config.sprt, sprt_bot=tested)
        return MatchSpec(bots=[self.specs[b] for b in planned.bots], config=config)

    def run_spec(self, planned: Planned, stored: MatchSpec) -> MatchSpec:
        """The match as this run plays it: where its bots' stderr and its game log go."""
        config = msgspec.structs.replace(
            stored.config,
            stderr_dir=str(self.out / "stderr" / planned.key),
            log_path=str(self.out / "logs" / f"{planned.key}.jsonl") if self.settings.game_logs else None,
            pin=not self.per_tournament,
        )
        return msgspec.structs.replace(stored, config=config)

    # ------------------------------------------------------------------ the run

    async def run(self) -> None:
        """Play the tournament to its end (or until cancelled)."""
        self.outcomes = load_outcomes(self.store, self.plan)
        done_games = self.store.game_count()
        self._say_progress(already=(len(self.outcomes), done_games))
        if self.per_tournament and done_games and self.plan.next(self.outcomes) is not None:
            self._record_restarts()
        executor = executors.choose(
            per_tournament=self.per_tournament,
            cluster=self.settings.cluster,
            bots=[self.specs[b] for b in self.config.everyone],
            session_config=self._session_config,
            concurrency=self.concurrency,
            out=self.out,
            hashes=self.store.bot_hashes,
            ship_bots=self.settings.ship_bots,
        )
        try:
            async with trio.open_nursery() as nursery:
                if self.on_standings is not None:
                    nursery.start_soon(self._refresh_standings)
                while (batch := self.plan.next(self.outcomes)) is not None:
                    before = len(self.outcomes)
                    await self._play(batch, executor)
                    if self._failure is not None:
                        raise self._failure
                    if len(self.outcomes) == before:  # never loop on a round that cannot finish
                        raise TournamentError(
                            f"no match of {', '.join(p.key for p in batch[:3])}… could be completed"
                        )
                nursery.cancel_scope.cancel()
        finally:
            await executor.close(self.handle)
            self._record_health(executor)
        if self.on_standings is not None:
            self.on_standings()

    def _record_restarts(self) -> None:
        """A resume of bots that live for the whole tournament starts each afresh: a
        ``restart`` event per bot that had played, with the deal it starts again at
        (the first not stored of its matches cut short)."""
        next_deal: dict[str, int] = {}
        for key, held in self._held.items():
            for bot in self.store.spec(key).bots:
                next_deal[bot.name] = min(next_deal.get(bot.name, held), held)
        played = {name for key in self.outcomes for name in self._bots_of(key)}
        for name in self.config.everyone:
            if name in next_deal:
                detail = (
                    f"the tournament resumed: started afresh at deal {next_deal[name]} of its matches "
                    "cut short, without its memory of the deals before"
                )
            elif name in played:
                detail = "the tournament resumed: started afresh, without its memory of the matches before"
            else:
                continue
            self.store.add_event("restart", detail, bot=name)
            if self.display is not None:
                self.display.notice(f"bot {name} restarted ({detail})")

    def _bots_of(self, key: str) -> list[str]:
        try:
            return [b.name for b in self.store.spec(key).bots]
        except KeyError:
            return []

    def _record_health(self, executor: Executor) -> None:
        """Per-worker figures (a cluster's), as events of the store (docs/cluster.md)."""
        health = executor.health()
        for address, figures in health.items():
            self.store.add_event("worker", msgspec.json.encode(figures).decode(), bot=address)
        for address in outliers(health):
            self.store.add_event("worker-outlier", "a timeout rate out of line with the others'", bot=address)

    async def _play(self, batch: list[Planned], executor: Executor) -> None:
        registered = []
        for planned in batch:
            stored = self.stored_spec(planned)
            self._stored[planned.key] = stored
            self._specs[planned.key] = self.run_spec(planned, stored)
            registered.append((planned.key, stored))
        self.store.add_matches(registered)
        self._plan_display(batch)
        # A session's matches may be played a slice at a time and go on after the games a
        # resume kept (only bots that live for the whole tournament hold any).
        round_ = [
            wire.RoundMatch(
                p.key,
                self._specs[p.key],
                p.slice,
                self.store.games(p.key) if self._held.get(p.key) else [],
            )
            for p in batch
        ]
        await executor.play(round_, self.handle)

    def _plan_display(self, batch: list[Planned]) -> None:
        """Grow the display's totals by a batch (a format's later rounds appear later)."""
        self._planned_matches += len(batch)
        self._planned_games += sum(p.games - self._held.get(p.key, 0) for p in batch)
        if self.display is not None:
            self.display.plan(self._planned_matches, self._planned_games)

    def _say_progress(self, already: tuple[int, int]) -> None:
        self._planned_matches, self._planned_games = already
        if self.display is not None and any(already):
            self.display.already_done(*already)
            self.display.plan(*already)
            if self.plan.next(self.outcomes) is None:
                self.display.notice("the tournament is already complete: its standings are written again")

    # ------------------------------------------------------------------ messages

    def handle(self, message: wire.ToParent) -> None:
        """Store and show one message from a worker."""
        display = self.display
        if isinstance(message, wire.Games):
            sink = self._sinks.get(message.key)
            if sink is None:
                sink = self._open(message.key)
            for record in message.records:
                sink.game(record, _no_standing)
            if display is not None:
                display.games_done(message.key, len(message.records))
        elif isinstance(message, wire.Opened):
            self._open(message.key)
        elif isinstance(message, wire.Forfeited):
            if display is not None:
                f = message.forfeit
                display.forfeit(message.key, message.bot, f.verdict.value, f.detail)
        elif isinstance(message, wire.Notice):
            # A game played again as the machine's fault (--replay-overloaded): the standings count them.
            kind = "replay" if message.line.startswith(REPLAY_NOTICE) else "notice"
            self.store.add_event(kind, message.line, match_key=message.key)
            if display is not None:
                display.notice(f"{message.key}: {message.line}" if message.key else message.line)
        elif isinstance(message, wire.Restarted):
            self.store.add_event("restart", message.detail, bot=message.bot, match_key=message.key)
            if display is not None:
                display.notice(f"bot {message.bot} restarted ({message.detail})")
        elif isinstance(message, wire.Closed):
            self._close(message)

    def _open(self, key: str) -> StoreSink:
        sink = self._sinks.get(key)
        if sink is None:
            spec = self._stored[key]
            sink = StoreSink(self.store, key, spec, held=self._held.pop(key, 0))
            config = spec.config
            bots = [b.name for b in spec.bots]
            sink.open(MatchInfo(config.game, config.seed, config.games, bots, config.duplicate))
            self._sinks[key] = sink
            if self.display is not None:
                self.display.match_started(key, [b.name for b in spec.bots], spec.config.games)
        return sink

    def _close(self, message: wire.Closed) -> None:
        key, record = message.key, message.record
        sink = self._sinks.pop(key, None) or self._open_closed(key)
        self._specs.pop(key, None)
        self._stored.pop(key, None)
        sink.close(record)
        if sink.error is not None:
            self._failure = ResultsNotStored(sink.error)
            return
        if record.completed:
            self._flag_near_limit(key, record)
            self.outcomes[key] = outcome_of(key, record) if self.plan.needs_tallies(key) else DONE
            with contextlib.suppress(OSError):
                write_atomically(
                    str(self.out / "matches" / f"{key}.json"), encode_summary(record), durable=False
                )
            if self.display is not None:
                self.display.match_finished(key, _result_line(record))
        elif message.error is not None and self._failure is None:
            self._failure = TournamentError(f"match {key} could not be completed: {message.error}")

    def _flag_near_limit(self, key: str, record: MatchRecord) -> None:
        """A ``near-limit`` event per bot of the match that answered within
        :data:`NEAR_LIMIT` of the decision limit or timed out: the one result that
        depends on the machine (docs/cluster.md).  The detail gives the slowest such
        answers with the CPU the bot used in them: CPU near the wall time, the bot was
        computing; far below it, it was waiting (a busy machine, say)."""
        limit_us = self.game.limits.merged(self.config.limits).decision_s * 1e6
        for bot in record.players:
            timeouts = bot.forfeits.get("timeout", 0)
            close = bot.slow_answers or timeouts or bot.max_decision_us >= NEAR_LIMIT * limit_us
            if close:
                self.store.add_event(
                    "near-limit", near_limit_detail(bot, limit_us), bot=bot.name, match_key=key
                )

    def _open_closed(self, key: str) -> StoreSink:
        """A match closed without a game (it could not start): open it now to record it."""
        self._open(key)
        return self._sinks.pop(key)

    async def _refresh_standings(self) -> None:
        assert self.on_standings is not None
        while True:
            await trio.sleep(STANDINGS_EVERY_S)
            started = time.monotonic()
            self.on_standings()
            # Keep the recomputation a small share of the parent's time on big stores.
            await trio.sleep(min(30.0, 5 * (time.monotonic() - started)))


def _no_standing() -> MatchRecord:
    """The standing a StoreSink is handed: it never asks (the parent has no Match)."""
    raise AssertionError("StoreSink does not read the standing")


def near_limit_detail(bot: BotFigures, limit_us: float) -> str:
    """``limit 1000 ms: 2 timeouts; 3 answers took ≥ 80% of it (timeouts included);
    slowest: 998 ms wall / 12 ms CPU (timeout), …``."""
    timeouts = bot.forfeits.get("timeout", 0)
    parts = []
    if timeouts:
        parts.append(f"{timeouts} timeout{'s' * (timeouts != 1)}")
    if bot.slow_answers:
        parts.append(f"{bot.slow_answers} answers took ≥ {NEAR_LIMIT:.0%} of it (timeouts included)")
    elif not timeouts:
        parts.append(f"slowest answer {bot.max_decision_us / 1e3:.0f} ms")
    worst = slowest(bot.slow_answer_details)
    if worst:
        parts.append("slowest: " + ", ".join(a.describe() for a in worst))
    return f"limit {limit_us / 1e3:.0f} ms: " + "; ".join(parts)


def _result_line(record: MatchRecord) -> str:
    players = record.players
    if len(players) == 2:
        a, b = players
        return f"{a.name} {a.wins}–{b.wins} {b.name}" + (f" ({a.draws} drawn)" if a.draws else "")
    best = max(players, key=lambda p: (p.wins, p.mean_score))
    return f"{best.name} won {best.wins} of {best.games}"
