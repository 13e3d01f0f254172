"""A match: the same bots play a series of games of one kind.

The match owns the bots' lifetimes (all in one nursery; it knows them only as
:class:`~referee.seats.Seat` objects), seats them for each game (rotating, so every bot takes every seat equally
often), drives each game through the interface in :mod:`referee.games.base`, turns
every failure into a verdict and the game's penalty, restarts or retires dead bots per
the game's policy, and keeps the tallies.  It knows nothing about any particular game.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import random
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import msgspec
import psutil
import trio

from referee import __version__
from referee.core.botspec import BotSpec
from referee.core.limits import Limits, LimitsOverride
from referee.core.verdict import BotFault, Forfeit, ProtocolError, Verdict, shorten
from referee.games import DeadBot, Game, GameState
from referee.games import get as get_game
from referee.seats import Seat, SeatFactory, SeatUsage
from referee.seats.process import sandbox
from referee.seats.process.bot import BotProcess, sweep_stale_directories

#: How many forfeits per player are kept with full details in the summary.
FORFEIT_DETAILS_KEPT = 20
#: Characters of a faulted request or reply kept in those details.
DETAIL_CHARS = 1000
#: A bot that fails to start, or dies before its first answer, this many times in a row
#: sits out the rest of the match (``--give-up-after``): each try can cost a whole
#: startup allowance, and a broken bot must not stretch a match to hours.
GIVE_UP_AFTER = 3


class MatchError(Exception):
    """The match cannot be played (a bot cannot start); one-line message."""


class MatchConfig(msgspec.Struct, frozen=True):
    game: str
    games: int = 1000
    seed: int = 0
    recover: bool = False
    pin: bool = True
    #: ``auto``, ``strict`` or a layer of referee.seats.process.sandbox.Layer.
    sandbox: str = "auto"
    #: As root, run a bot that cannot have a uid of its own as root instead of refusing it.
    allow_root_bots: bool = False
    limits: LimitsOverride | None = None
    log_path: str | None = None
    stderr_dir: str | None = None
    options: dict[str, Any] = {}
    #: Extra formats to write every game in: format name (from ``Game.exports``) -> path.
    exports: dict[str, str] = {}
    #: A bot that cannot start at the beginning forfeits its games and the others play
    #: on (default for more than two bots); otherwise the match cannot be played.
    keep_going: bool = False
    #: Failed starts in a row after which a bot is out for the rest of the match.
    give_up_after: int = GIVE_UP_AFTER


class PlayerStats(msgspec.Struct):
    name: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    score_total: float = 0.0
    rank_total: int = 0
    forfeits: dict[str, int] = {}
    forfeit_details: list[Forfeit] = []
    cpu_seconds: float = 0.0
    peak_rss_bytes: int = 0
    decisions: int = 0
    #: Decisions after each process's first answer, which includes its startup work.
    timed_decisions: int = 0
    latency_ns_total: int = 0
    latency_ns_max: int = 0
    first_answer_ns_max: int = 0
    restarts: int = 0
    sandbox: str = ""
    #: The game's own per-seat counts, summed (GameState.tallies, e.g. hands won).
    tallies: dict[str, float] = {}
    #: Games by the place taken (1 = first, shared places count for each).
    placements: dict[int, int] = {}

    def fold(self, used: SeatUsage) -> None:
        """Add one life's figures (a seat's usage) to these totals."""
        self.cpu_seconds += used.cpu_s
        self.peak_rss_bytes = max(self.peak_rss_bytes, used.peak_rss_bytes)
        self.decisions += used.decisions
        self.timed_decisions += max(used.decisions - 1, 0)
        self.first_answer_ns_max = max(self.first_answer_ns_max, used.first_answer_ns)
        self.latency_ns_total += used.latency_ns_total
        self.latency_ns_max = max(self.latency_ns_max, used.latency_ns_max)

    def report(self) -> dict[str, Any]:
        """The summary fields for ``--json`` (means computed here)."""
        return {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "mean_score": self.score_total / self.games if self.games else 0.0,
            "mean_rank": self.rank_total / self.games if self.games else 0.0,
            "forfeits": dict(sorted(self.forfeits.items())),
            "forfeit_details": [msgspec.to_builtins(f) for f in self.forfeit_details],
            "cpu_seconds": round(self.cpu_seconds, 3),
            "peak_rss_bytes": self.peak_rss_bytes,
            "decisions": self.decisions,
            "mean_decision_us": self.latency_ns_total / self.timed_decisions / 1e3
            if self.timed_decisions
            else 0.0,
            "max_decision_us": self.latency_ns_max / 1e3,
            "first_answer_ms": self.first_answer_ns_max / 1e6,
            "restarts": self.restarts,
            "sandbox": self.sandbox,
            "placements": {str(place): n for place, n in sorted(self.placements.items())},
            **({"tallies": dict(self.tallies)} if self.tallies else {}),
        }


@dataclass
class Player:
    """A bot of the match: its spec, limits, tallies and current process."""

    spec: BotSpec
    limits: Limits
    stats: PlayerStats
    bot: Seat | None = None
    #: The fault that ended the last process, while the player has no live one.
    down: Forfeit | None = None
    stderr_path: Path | None = None
    #: Starts in a row that failed or died before a first answer.
    failed_starts: int = 0
    #: Out for the rest of the match: no more restarts.
    given_up: bool = False
    #: Why this bot can never start (its build failed), if so.
    unstartable: str | None = None

    @property
    def cpu_left(self) -> float | None:
        return None if self.limits.cpu_s is None else self.limits.cpu_s - self.stats.cpu_seconds


@dataclass
class GameOutcome:
    index: int
    seed: int
    seats: list[str]
    scores: list[float]
    ranks: list[int]
    forfeits: list[tuple[str, Forfeit]] = field(default_factory=list)
    moves: list[list[Any]] | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    tallies: list[dict[str, float]] = field(default_factory=list)


class MatchResult(msgspec.Struct):
    game: str
    seed: int
    games_requested: int
    games_played: int
    completed: bool
    referee_version: str
    sandbox: str
    players: list[dict[str, Any]]
    options: dict[str, Any] = {}
    #: Why the match ended before ``games_requested`` games (an interrupt, a bot that
    #: could not start), when it did.
    stopped: str | None = None


def game_seed(match_seed: int, index: int) -> int:
    """The seed of game ``index``: stable across Python versions and platforms."""
    digest = hashlib.sha256(f"{match_seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@contextlib.contextmanager
def pinned_to_one_core(enabled: bool) -> Iterator[int | None]:
    """Pin this process (and so the bots it spawns) to the core it runs on now.

    Turn-based play is a chain of wake-ups; on one core each costs ~2 µs, across cores
    ~55 µs (docs/architecture.md).  The previous affinity is restored afterwards.
    """
    if not enabled or not hasattr(os, "sched_setaffinity"):
        yield None
        return
    before = os.sched_getaffinity(0)
    try:
        core = psutil.Process().cpu_num()
    except (psutil.Error, AttributeError):
        core = min(before)
    if core not in before:
        core = min(before)
    os.sched_setaffinity(0, {core})
    try:
        yield core
    finally:
        os.sched_setaffinity(0, before)


class Match:
    """Plays ``config.games`` games of ``config.game`` between ``specs``."""

    def __init__(
        self,
        game: Game,
        specs: Sequence[BotSpec],
        config: MatchConfig,
        *,
        seat_factory: SeatFactory | None = None,
    ) -> None:
        if len(specs) not in game.seats:
            raise MatchError(f"{game.name} is played by {game.seats.wanted()} bots, got {len(specs)}")
        self.game = game
        self.config = config
        self.players = [
            Player(
                spec=spec,
                limits=game.limits.lowered(spec.limits).merged(config.limits),
                stats=PlayerStats(name=spec.name, forfeits={}, forfeit_details=[], tallies={}, placements={}),
            )
            for spec in specs
        ]
        # Created only when a bot writes to stderr: long runs must not litter the disk.
        default_dir = Path(tempfile.gettempdir()) / f"referee-stderr-{os.getpid()}-{secrets.token_hex(4)}"
        stderr_dir = Path(config.stderr_dir) if config.stderr_dir else default_dir
        self.stderr_dir = stderr_dir
        for player in self.players:
            player.stderr_path = stderr_dir / f"{player.spec.name}.stderr"
        self.dead_bot = DeadBot.RESTART if config.recover else game.dead_bot
        self.restart_in_game = game.restart_in_game and self.dead_bot is DeadBot.RESTART
        try:
            self.layer = sandbox.choose(config.sandbox)
        except ValueError as exc:
            raise MatchError(str(exc)) from None
        #: What runs each bot: a sandboxed process of the chosen layer unless told
        #: otherwise (``referee check`` passes one that observes more; tests, in-process seats).
        self.seat_factory: SeatFactory = seat_factory or functools.partial(
            BotProcess, layer=self.layer, allow_root=config.allow_root_bots
        )
        self.games_played = 0
        self.completed = False
        #: Why the match ended early; set by whoever stopped it.
        self.stopped: str | None = None
        #: The game being played, or the last one played.
        self._game_index = 0
        self._on_notice: Callable[[str], None] | None = None
        self._on_forfeit: Callable[[str, Forfeit], None] | None = None
        self._nursery: trio.Nursery | None = None
        self._log: BinaryIO | None = None
        self._exports: dict[str, tuple[TextIO, Callable[[dict[str, Any], list[str]], str]]] = {}
        unknown = sorted(set(config.exports) - set(game.exports))
        if unknown:
            offered = ", ".join(game.exports) or "none"
            raise MatchError(f"{game.name} cannot be exported as {', '.join(unknown)} (formats: {offered})")
        self._encoder = msgspec.json.Encoder()

    # ------------------------------------------------------------------ driving

    def mark_unstartable(self, name: str, reason: str) -> None:
        """Bot ``name`` can never start (say, its build failed): with ``keep_going`` it
        forfeits its games, otherwise the match cannot be played."""
        for player in self.players:
            if player.spec.name == name:
                player.unstartable = reason

    async def run(
        self,
        on_game: Callable[[GameOutcome], None] | None = None,
        on_notice: Callable[[str], None] | None = None,
        on_forfeit: Callable[[str, Forfeit], None] | None = None,
    ) -> MatchResult:
        """Play the match.  ``on_game`` sees each finished game; ``on_notice`` gets a line
        for things a user should hear of at once (a bot given up on); ``on_forfeit`` each
        penalised decision as it happens (bot name, forfeit).  Cancelling the call ends
        the match cleanly: bots closed, finished games tallied."""
        sandbox.become_subreaper()
        sweep_stale_directories()
        self._on_notice = on_notice
        self._on_forfeit = on_forfeit
        cannot_start: MatchError | None = None
        with pinned_to_one_core(self.config.pin), self._open_log():
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                try:
                    cannot_start = await self._start_all()
                    for index in range(self.config.games if cannot_start is None else 0):
                        outcome = await self.play_game(index)
                        self._tally(outcome)
                        self._write_log(outcome)
                        if on_game is not None:
                            on_game(outcome)
                        if index + 1 < self.config.games:
                            await self._revive_dead()
                    self.completed = cannot_start is None
                finally:
                    with trio.CancelScope(shield=True):
                        await self._close_all()
                    nursery.cancel_scope.cancel()
        if cannot_start is not None:
            self.stopped = str(cannot_start)
            raise cannot_start
        return self.result()

    async def _start_all(self) -> MatchError | None:
        for player in self.players:
            try:
                await self._start(player)
            except BotFault as fault:
                why = f"bot {player.spec.name} cannot start: {fault.detail.removeprefix('cannot start: ')}"
                if not self.config.keep_going:
                    return MatchError(why)
                player.down = Forfeit(fault.verdict, 0, -1, fault.detail)
                self._failed_start(player, 0)
                self._notice(f"{why}; it forfeits its games, the others play on")
        return None

    def _notice(self, line: str) -> None:
        if self._on_notice is not None:
            self._on_notice(line)

    def _failed_start(self, player: Player, game: int) -> None:
        """One more start in a row that failed (or died before a first answer); give up
        on the player after enough of them."""
        player.failed_starts += 1
        self._maybe_give_up(player, game)

    def _maybe_give_up(self, player: Player, game: int) -> None:
        limit = 1 if player.unstartable is not None else self.config.give_up_after
        if player.given_up or player.failed_starts < limit:
            return
        player.given_up = True
        cause = player.down or Forfeit(Verdict.STARTUP, game, -1, "cannot start")
        tries = (
            "" if player.unstartable is not None else f" after {player.failed_starts} failed starts in a row"
        )
        player.down = Forfeit(
            cause.verdict, cause.game, -1, f"out for the rest of the match{tries}: {cause.detail}"
        )
        if tries:
            self._notice(f"bot {player.spec.name} is out for the rest of the match{tries}: {cause.detail}")

    def _may_restart(self, player: Player, death: Verdict | None) -> bool:
        budget = player.cpu_left
        # A spent CPU budget is for the whole match: restarting would not renew it.
        return not player.given_up and death is not Verdict.CPU and (budget is None or budget > 0)

    async def _revive(self, player: Player, game: int) -> bool:
        """Close the player's dead process and start a new one if the rules allow;
        whether it now has a live one."""
        bot = player.bot
        death = bot.death if bot is not None else (player.down.verdict if player.down else None)
        await self._retire(player)
        if not self._may_restart(player, death):
            return False
        try:
            await self._start(player)
        except BotFault as fault:
            player.down = Forfeit(fault.verdict, game, -1, fault.detail)
            self._failed_start(player, game)
            return False
        player.stats.restarts += 1
        return True

    async def _start(self, player: Player) -> None:
        assert self._nursery is not None
        if player.unstartable is not None:
            raise BotFault(Verdict.STARTUP, player.unstartable)
        bot = self.seat_factory(
            player.spec, player.limits, stderr_path=player.stderr_path, cpu_budget_s=player.cpu_left
        )
        try:
            await bot.start(self._nursery)
        except BotFault:
            raise
        except BaseException:
            # Cancelled while starting (an interrupt): the half-started bot is ours to end.
            await bot.close()
            raise
        finally:
            player.stats.sandbox = bot.description  # what ran, or at least the layer asked for
        player.bot = bot
        player.down = None

    async def _retire(self, player: Player) -> None:
        """Close the player's process and fold its figures into the player's tallies."""
        bot = player.bot
        if bot is None:
            return
        await bot.close()
        used = bot.usage()
        player.bot = None
        player.stats.fold(used)
        if bot.death is not None and player.down is None:  # no fault recorded where it died
            player.down = Forfeit(bot.death, self._game_index, -1, bot.death_detail)
        if used.answered or used.decisions:
            player.failed_starts = 0
        elif bot.death is not None:
            self._failed_start(player, self._game_index)  # died before its first answer

    async def _close_all(self) -> None:
        for player in self.players:
            await self._retire(player)

    async def _revive_dead(self) -> None:
        """Between games: close dead processes; restart them if the policy allows."""
        for player in self.players:
            bot = player.bot
            if bot is not None and bot.alive:
                continue
            if self.dead_bot is DeadBot.RESTART:
                await self._revive(player, self.games_played)
            else:
                await self._retire(player)

    # ------------------------------------------------------------------ one game

    async def play_game(self, index: int) -> GameOutcome:
        self._game_index = index
        n = len(self.players)
        seated = [self.players[(seat + index) % n] for seat in range(n)]
        seed = game_seed(self.config.seed, index)
        state = self.game.new_state(n, random.Random(seed))
        outcome = GameOutcome(
            index=index,
            seed=seed,
            seats=[p.spec.name for p in seated],
            scores=[],
            ranks=[],
            moves=[] if self._log is not None else None,
        )
        # A bot that died and was not restarted takes the game's penalty each time it is
        # due to act (Yahtzee: the game is forfeited; dice poker: it folds).
        decision = 0
        # The hot loop: one seat at a time without a coroutine per decision, the state's
        # methods bound once.  Replies are judged by _judge, as for simultaneous moves.
        is_terminal, drain_events, to_act, request = (
            state.is_terminal,
            state.drain_events,
            state.to_act,
            state.request,
        )
        while True:
            events = drain_events()  # also after the last move: seats are told the end
            if events:
                for event in events:
                    await self._tell(
                        state, seated, event.seat, event.line, event.expects_reply, index, decision, outcome
                    )
            if is_terminal():
                break
            actors = to_act()
            if len(actors) != 1:
                await self._decide_together(state, actors, seated, index, decision, outcome)
                decision += 1
                continue
            seat = actors[0]
            player = seated[seat]
            bot = player.bot
            if bot is None or bot.death is not None:
                # Games whose every request carries the whole state (Liar's Dice) take
                # the bot back at once; the turn it missed has already cost it.
                if not (self.restart_in_game and await self._revive(player, index)):
                    self._penalize(state, seat, player, self._down_fault(player, index, decision), outcome)
                    decision += 1
                    continue
                bot = player.bot
                assert bot is not None
            line = request(seat)
            try:
                reply = await bot.request(line)
            except BotFault as fault:
                self._fault(
                    state,
                    seat,
                    player,
                    fault.verdict,
                    fault.detail,
                    line,
                    fault.reply,
                    index,
                    decision,
                    outcome,
                )
            else:
                self._judge(state, seat, player, line, reply, index, decision, outcome)
            decision += 1
        outcome.scores = state.scores()
        outcome.ranks = state.ranks()
        if outcome.moves is not None or self._exports:  # only the log and exports need it
            outcome.summary = state.summary()
        outcome.tallies = state.tallies()
        return outcome

    def _judge(
        self,
        state: GameState,
        seat: int,
        player: Player,
        line: bytes,
        reply: bytes,
        game: int,
        decision: int,
        outcome: GameOutcome,
    ) -> None:
        """Decode, check and apply one reply."""
        try:
            action = state.decode(seat, reply)
        except ProtocolError as exc:
            self._fault(state, seat, player, Verdict.PROTOCOL, str(exc), line, reply, game, decision, outcome)
            return
        reason = state.illegal(seat, action)
        if reason is not None:
            self._fault(state, seat, player, Verdict.ILLEGAL, reason, line, reply, game, decision, outcome)
            return
        state.apply(seat, action)
        if outcome.moves is not None:
            outcome.moves.append(
                [seat, line[:-1].decode("ascii", "replace"), reply.decode("utf-8", "replace")]
            )

    async def _decide_together(
        self,
        state: GameState,
        actors: Sequence[int],
        seated: list[Player],
        game: int,
        decision: int,
        outcome: GameOutcome,
    ) -> None:
        """A simultaneous move: ask every actor at once, judge each reply against the
        state before the step, then apply the step as one joint action."""
        lines = {seat: state.request(seat) for seat in actors}
        replies: dict[int, bytes | BotFault | None] = {}

        async def ask(seat: int) -> None:
            bot = seated[seat].bot
            if bot is None or bot.death is not None:
                replies[seat] = None
                return
            try:
                replies[seat] = await bot.request(lines[seat])
            except BotFault as fault:
                replies[seat] = fault

        async with trio.open_nursery() as nursery:
            for seat in actors:
                nursery.start_soon(ask, seat)
        actions: dict[int, Any] = {}
        penalties: dict[int, Verdict] = {}
        for seat in actors:
            player, reply, line = seated[seat], replies[seat], lines[seat]
            if reply is None:
                forfeit = self._down_fault(player, game, decision)
                self._record(player, forfeit, outcome)
                penalties[seat] = forfeit.verdict
                continue
            if isinstance(reply, BotFault):
                verdict, detail, raw = reply.verdict, reply.detail, reply.reply
            else:
                raw = reply
                try:
                    action = state.decode(seat, reply)
                except ProtocolError as exc:
                    verdict, detail = Verdict.PROTOCOL, str(exc)
                else:
                    reason = state.illegal(seat, action)
                    if reason is None:
                        actions[seat] = action
                        if outcome.moves is not None:
                            outcome.moves.append(
                                [seat, line[:-1].decode("ascii", "replace"), reply.decode("utf-8", "replace")]
                            )
                        continue
                    verdict, detail = Verdict.ILLEGAL, reason
            self._note_fault(seat, player, verdict, detail, line, raw, game, decision, outcome)
            penalties[seat] = verdict
        state.apply_joint(actions, penalties)

    async def _tell(
        self,
        state: GameState,
        seated: list[Player],
        seat: int,
        line: bytes,
        expects_reply: bool,
        game: int,
        decision: int,
        outcome: GameOutcome,
    ) -> None:
        player = seated[seat]
        bot = player.bot
        if bot is None or bot.death is not None:
            return
        try:
            await bot.tell(line, expects_reply)
        except BotFault as fault:
            # The bot is gone; its next decision takes the penalty.
            self._record(player, Forfeit(fault.verdict, game, decision, fault.detail), outcome, count=False)
        if outcome.moves is not None:
            outcome.moves.append([seat, line[:-1].decode("ascii", "replace")])

    # ------------------------------------------------------------------ penalties

    def _fault(
        self,
        state: GameState,
        seat: int,
        player: Player,
        verdict: Verdict,
        detail: str,
        line: bytes,
        reply: bytes | None,
        game: int,
        decision: int,
        outcome: GameOutcome,
    ) -> None:
        self._note_fault(seat, player, verdict, detail, line, reply, game, decision, outcome)
        state.penalize(seat, verdict)

    def _note_fault(
        self,
        seat: int,
        player: Player,
        verdict: Verdict,
        detail: str,
        line: bytes,
        reply: bytes | None,
        game: int,
        decision: int,
        outcome: GameOutcome,
    ) -> None:
        """Record a faulty decision (the penalty is the caller's to apply)."""
        forfeit = Forfeit(
            verdict=verdict,
            game=game,
            decision=decision,
            detail=detail,
            # Long enough for a whole Hold'em request (~250 characters); the log has
            # both whole whatever their length.
            reply=shorten(reply, DETAIL_CHARS),
            position=shorten(line.rstrip(b"\n"), DETAIL_CHARS),
        )
        bot = player.bot
        if bot is not None and bot.death is not None:
            player.down = Forfeit(bot.death, game, decision, bot.death_detail)
        if outcome.moves is not None:
            # Whole (they are bounded by the line limit): the log must replay the game.
            outcome.moves.append(
                [
                    seat,
                    line[:-1].decode("ascii", "replace"),
                    None if reply is None else reply.decode("utf-8", "backslashreplace"),
                    verdict.value,
                    detail,
                ]
            )
        self._record(player, forfeit, outcome)

    def _penalize(
        self, state: GameState, seat: int, player: Player, forfeit: Forfeit, outcome: GameOutcome
    ) -> None:
        """A seat whose bot is down: the game's penalty in place of its decision, for
        the verdict that stopped the bot (a bot stopped for hanging: ``timeout``)."""
        self._record(player, forfeit, outcome)
        state.penalize(seat, forfeit.verdict)

    def _down_fault(self, player: Player, game: int, decision: int = -1) -> Forfeit:
        bot = player.bot
        if player.down is None and bot is not None and bot.death is not None:
            player.down = Forfeit(bot.death, game, decision, bot.death_detail)
        cause = player.down or Forfeit(Verdict.CRASH, game, decision, "not running")
        return Forfeit(cause.verdict, game, decision, f"not running since game {cause.game}: {cause.detail}")

    def _record(self, player: Player, forfeit: Forfeit, outcome: GameOutcome, count: bool = True) -> None:
        if count:
            stats = player.stats
            key = forfeit.verdict.value
            stats.forfeits[key] = stats.forfeits.get(key, 0) + 1
            if len(stats.forfeit_details) < FORFEIT_DETAILS_KEPT:
                stats.forfeit_details.append(forfeit)
            if self._on_forfeit is not None:
                self._on_forfeit(player.spec.name, forfeit)
        outcome.forfeits.append((player.spec.name, forfeit))

    # ------------------------------------------------------------------ results

    def _tally(self, outcome: GameOutcome) -> None:
        self.games_played += 1
        ranks = outcome.ranks
        best = min(ranks)
        shared = ranks.count(best) > 1
        by_name = {p.spec.name: p for p in self.players}
        for seat, (name, score, rank) in enumerate(zip(outcome.seats, outcome.scores, ranks, strict=True)):
            stats = by_name[name].stats
            if outcome.tallies:
                for key, value in outcome.tallies[seat].items():
                    stats.tallies[key] = stats.tallies.get(key, 0) + value
            stats.games += 1
            stats.score_total += score
            stats.rank_total += rank
            stats.placements[rank] = stats.placements.get(rank, 0) + 1
            if rank != best:
                stats.losses += 1
            elif shared:
                stats.draws += 1
            else:
                stats.wins += 1

    def result(self) -> MatchResult:
        """The summary so far: right mid-match too (live seats' figures included)."""
        reports = []
        for player in self.players:
            stats = player.stats
            if player.bot is not None:  # folded in for good only when it retires
                stats = msgspec.structs.replace(stats)
                stats.fold(player.bot.usage())
            reports.append(stats.report())
        return MatchResult(
            game=self.game.name,
            seed=self.config.seed,
            games_requested=self.config.games,
            games_played=self.games_played,
            completed=self.completed,
            referee_version=__version__,
            sandbox=self.layer.value,
            players=reports,
            options=dict(self.config.options),
            stopped=self.stopped,
        )

    @contextlib.contextmanager
    def _open_log(self) -> Iterator[None]:
        """The JSON-lines log and the export files, open for the whole match."""
        with contextlib.ExitStack() as stack:
            if self.config.log_path is not None:
                self._log = stack.enter_context(open(self.config.log_path, "wb"))
            for fmt, path in self.config.exports.items():
                fh = stack.enter_context(open(path, "w", encoding="utf-8"))
                self._exports[fmt] = (fh, self.game.exports[fmt]())
            try:
                yield
            finally:
                self._log = None
                self._exports = {}

    def _write_log(self, outcome: GameOutcome) -> None:
        for fh, write in self._exports.values():
            fh.write(write(outcome.summary, outcome.seats))
            fh.flush()
        if self._log is None:
            return
        record = {
            "game": outcome.index,
            "seed": outcome.seed,
            "seats": outcome.seats,
            "scores": outcome.scores,
            "ranks": outcome.ranks,
            "forfeits": [{"player": name, **msgspec.to_builtins(f)} for name, f in outcome.forfeits],
            "moves": outcome.moves,
            "summary": outcome.summary,
            "sandbox": self.layer.value,  # uids vary run to run; the summary has them
        }
        self._log.write(self._encoder.encode(record) + b"\n")
        self._log.flush()  # a crash or Ctrl-C keeps every finished game


class MatchSpec(msgspec.Struct, frozen=True):
    """Everything a match is, as pure data: what a process pool or a cluster worker
    receives.  It pickles and encodes to JSON (``msgspec.json.encode(spec)``)."""

    bots: list[BotSpec]
    config: MatchConfig


def run_match(spec: MatchSpec) -> MatchResult:
    """Play the match ``spec`` describes, start to end, in a trio run of its own.

    The same spec with deterministic bots gives the same games: the same ``--log``
    lines, byte for byte (the summary's CPU and latency figures are measurements).
    Raises :class:`MatchError` if the match cannot be played.
    """
    game = get_game(spec.config.game)(**spec.config.options)
    match = Match(game, spec.bots, spec.config)
    try:
        return trio.run(match.run)
    finally:
        if spec.config.stderr_dir is None:  # the default one is temporary
            shutil.rmtree(match.stderr_dir, ignore_errors=True)
