"""A match: the same bots play a series of games of one kind.

:class:`Match` seats the lineup for each game of the schedule (rotating, so every bot
takes every seat equally often; ``--duplicate`` plays each deal once per rotation),
drives each game through the interface in :mod:`referee.games.base`, turns every
failure into a verdict and the game's penalty, and hands a
:class:`~referee.core.records.GameRecord` of each game to its sinks.  The bots' lives
are the :class:`~referee.match.lineup.Lineup`'s business, the totals the
:mod:`~referee.match.scoreboard`'s.  It knows nothing about any particular game, and
writes no file itself.
"""

from __future__ import annotations

import functools
import itertools
import os
import secrets
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import trio

from referee import __version__
from referee.core.botspec import BotSpec
from referee.core.overload import REPLAY_NOTICE
from referee.core.records import BotFigures, GameForfeit, GameRecord, MatchRecord, Step
from referee.core.seeding import SEEDS
from referee.core.verdict import BotFault, Forfeit, Verdict, shorten
from referee.games import DeadBot, Game, GameState
from referee.match.evidence import EvidenceTally
from referee.match.lineup import Lineup, MatchError, OutputError, Player
from referee.match.schedule import Scheduled, games_to_play, schedule, seat_order
from referee.match.scoreboard import PlayerStats, tally_game
from referee.match.spec import MatchConfig
from referee.seats import SeatFactory
from referee.seats.process import sandbox
from referee.seats.process.bot import BotProcess, sweep_stale_directories
from referee.seats.process.pinning import pinned_to_one_core
from referee.sinks._abc import MatchInfo, Sink
from referee.sinks.export import ExportFile
from referee.sinks.gamelog import GameLog
from referee.sinks.summary import SummaryFile
from referee.stats.sprt import ScoreSprtTally, SprtTally, new_tally, standing_problem

#: Characters of a faulted request or reply kept in the forfeit details.
DETAIL_CHARS = 1000
#: Seconds between a game set aside as the machine's fault (``replay_overloaded``) and
#: its replay: a burst of load may pass.
REPLAY_PAUSE_S = 1.0
#: How long a game with no legal decision looks for an unasked bot's end (``_void``).
ENDED_LOOK_S = 0.5


def file_sinks(config: MatchConfig, game: Game) -> list[Sink]:
    """The sinks a config's output paths ask for: the game log, the exports, the summary."""
    unknown = sorted(set(config.exports) - set(game.exports))
    if unknown:
        offered = ", ".join(game.exports) or "none"
        raise MatchError(f"{game.name} cannot be exported as {', '.join(unknown)} (formats: {offered})")
    sinks: list[Sink] = []
    if config.log_path is not None:
        sinks.append(GameLog(config.log_path))
    sinks += [ExportFile(path, game.exports[fmt]) for fmt, path in config.exports.items()]
    if config.summary_path is not None:
        sinks.append(SummaryFile(config.summary_path))
    return sinks


class GameInProgress:
    """What one game has produced so far: its transcript (when kept) and forfeits."""

    __slots__ = ("forfeits", "index", "penalised", "penalties", "seated", "together", "transcript")

    def __init__(self, index: int, seated: list[Player], transcript: bool) -> None:
        self.index = index
        self.seated = seated
        self.forfeits: list[GameForfeit] = []
        #: Decisions penalised (a fault, or a bot that was down); the seats' decisions
        #: beyond one per step of simultaneous moves: with the steps, every decision due.
        self.penalties = 0
        self.together = 0
        #: Bit s: seat s had a decision penalised.
        self.penalised = 0
        self.transcript: list[Step] | None = [] if transcript else None


class Match:
    """Plays ``config.games`` games of ``config.game`` between ``specs``."""

    def __init__(
        self,
        game: Game,
        specs: Sequence[BotSpec],
        config: MatchConfig,
        *,
        seat_factory: SeatFactory | None = None,
        sinks: Sequence[Sink] = (),
    ) -> None:
        if len(specs) not in game.seats:
            raise MatchError(f"{game.name} is played by {game.seats.wanted()} bots, got {len(specs)}")
        if not 0 <= config.seed < SEEDS:
            raise MatchError(f"a match seed is a whole number from 0 to 2**64 - 1, got {config.seed}")
        self.game = game
        self.config = config
        # Created only when a bot writes to stderr: long runs must not litter the disk.
        default_dir = Path(tempfile.gettempdir()) / f"referee-stderr-{os.getpid()}-{secrets.token_hex(4)}"
        self.stderr_dir = Path(config.stderr_dir) if config.stderr_dir else default_dir
        self.players = [
            Player(
                spec=spec,
                limits=game.limits.lowered(spec.limits).merged(config.limits),
                stats=PlayerStats(name=spec.name),
                stderr_path=self.stderr_dir / f"{spec.name}.stderr",
            )
            for spec in specs
        ]
        self.dead_bot = DeadBot.RESTART if config.recover else game.dead_bot
        self.restart_in_game = game.restart_in_game and self.dead_bot is DeadBot.RESTART
        try:
            self.layer = sandbox.choose(config.sandbox)
        except ValueError as exc:
            raise MatchError(str(exc)) from None
        #: What runs each bot: a sandboxed process of the chosen layer unless told
        #: otherwise (``referee check`` passes one that observes more; tests, in-process seats).
        self.seat_factory: SeatFactory = seat_factory or functools.partial(
            BotProcess,
            layer=self.layer,
            allow_root=config.allow_root_bots,
            seed=config.seed,
            hold_tells=game.hold_tells,
        )
        self.sinks: list[Sink] = [*file_sinks(config, game), *sinks]
        self._transcripts = False
        self._summaries = False
        self.lineup = Lineup(
            self.players,
            self.seat_factory,
            restart=self.dead_bot is DeadBot.RESTART,
            keep_going=config.keep_going,
            give_up_after=config.give_up_after,
            notice=self._notice,
        )
        self._stats = {p.name: p.stats for p in self.players}
        n = len(self.players)
        #: Per seat rotation: the players by seat, and their names (built once).
        self._seatings = [
            ([self.players[i] for i in order], [self.players[i].name for i in order])
            for order in (seat_order(rotation, n) for rotation in range(n))
        ]
        #: Per seat rotation: the bots' stable ids by seat, for games that tell them.
        self._ids: list[list[int]] | None = None
        if game.tells_ids:
            ids = config.ids if config.ids is not None else list(range(n))
            if len(ids) != n:
                raise MatchError(f"{len(ids)} bot ids given for {n} bots")
            self._ids = [[ids[i] for i in seat_order(rotation, n)] for rotation in range(n)]
        for name, reason in config.unstartable.items():
            self.mark_unstartable(name, reason)
        self.games_requested = games_to_play(config.games, len(specs), config.duplicate)
        #: Per-deal statistics for intervals and ratings (the record's ``evidence``).
        self.evidence = EvidenceTally(n, n if config.duplicate else 1)
        #: The sequential test that may end the match early (``--sprt``), on the first
        #: bot's points (Elo) or edge (a game ranked by score); games of one deal come in
        #: pairs with ``--duplicate``.
        self.sprt: SprtTally | ScoreSprtTally | None = None
        self._sprt_position = 0
        self._sprt_value = SprtTally.value_of
        if config.sprt is not None:
            if n != 2:
                raise MatchError(f"--sprt compares two bots; this match has {n}")
            problem = standing_problem(config.sprt, game.name, game.standing)
            if problem:
                raise MatchError(f"--sprt: {problem}")
            names = [p.name for p in self.players]
            if config.sprt_bot is not None:
                if config.sprt_bot not in names:
                    raise MatchError(f"the SPRT's bot {config.sprt_bot} is not in the match")
                self._sprt_position = names.index(config.sprt_bot)
            self.sprt = new_tally(config.sprt, paired=config.duplicate)
            self._sprt_value = self.sprt.value_of  # points (Elo) or edge (score), as the test takes
        self.games_played = 0
        self.completed = False
        #: Why the match ended early; set by whoever stopped it.
        self.stopped: str | None = None
        #: The game being played, or the last one played.
        self._game_index = 0
        #: Why the match could not be played, or stopped because a sink could not write.
        self.cannot_start: MatchError | None = None
        self.cannot_write: OutputError | None = None
        self._opened: list[Sink] = []
        self._planned: Iterator[Scheduled] | None = None
        #: The caller's once-a-process work, done while the bots start (after the game's
        #: :meth:`~referee.games.Game.warm_up`): the CLI loads its table printer there.
        self.while_starting: list[Callable[[], object]] = []
        #: While a game may still be set aside (``replay_overloaded``): its penalised
        #: decisions, counted and told to the sinks only once the game stands.
        self._deferred: list[tuple[Player, Forfeit]] | None = None

    # ------------------------------------------------------------------ driving

    def resume_after(self, records: Sequence[GameRecord]) -> None:
        """Count ``records`` — the match's first games, in order, stored by an earlier
        run of a tournament — as played, before :meth:`open`: their results, forfeits
        (counted by verdict), the evidence and the sequential test take them in, and
        the schedule goes on with the next game.  The figures of the bots' processes
        (CPU, memory, decision times) cover only what is played from here."""
        if self._planned is not None or self._opened:
            raise RuntimeError("resume_after comes before the match is opened")
        stats = self._stats
        for index, record in enumerate(records):
            if record.game != index:
                raise MatchError(
                    f"the stored games are not the match's first {len(records)} (game {record.game})"
                )
            tally_game(record, stats)
            self.evidence.add(record)
            for forfeit in record.forfeits:
                own = stats.get(forfeit.player)
                if own is not None:
                    own.forfeits[forfeit.verdict] = own.forfeits.get(forfeit.verdict, 0) + 1
            if (
                self.sprt is not None
                and self.sprt.add(self._sprt_value(record, self._sprt_position)) is not None
            ):
                self.completed = True
        self.games_played = len(records)
        self._game_index = len(records)
        self._planned = itertools.islice(self.schedule(), len(records), None)
        if self.games_played >= self.games_requested:
            self.completed = True

    def mark_unstartable(self, name: str, reason: str) -> None:
        """Bot ``name`` can never start (say, its build failed): with ``keep_going`` it
        forfeits its games, otherwise the match cannot be played."""
        for player in self.players:
            if player.name == name:
                player.unstartable = reason

    def update_bot(self, spec: BotSpec) -> None:
        """Replace the spec of the bot of the same name before the match starts (a bot
        whose build has just made the program its manifest names)."""
        for player in self.players:
            if player.name == spec.name:
                player.spec = spec
                return
        raise KeyError(spec.name)

    async def run(self) -> MatchRecord:
        """Play the match and return its record.

        The sinks are opened first and closed last with the final record, however the
        match ends: finished, cancelled (an interrupt: set :attr:`stopped` to say why,
        before cancelling), or unplayable (:class:`MatchError`, raised after the sinks
        are closed).  Bots are closed, shielded, before the sinks hear the end.

        It is :meth:`open`, :meth:`start`, :meth:`play`, :meth:`stop` and :meth:`finish`
        in a nursery of its own; a tournament drives those pieces itself to play a
        match a slice at a time between other matches' slices (its bots live longer).
        """
        sandbox.become_subreaper()
        sweep_stale_directories()
        failure: str | None = None
        try:
            self.open()
            with pinned_to_one_core(self.config.pin):
                async with trio.open_nursery() as nursery:
                    try:
                        if await self.start(nursery):
                            await self.play()
                    finally:
                        await self.stop()
                        nursery.cancel_scope.cancel()
        except Exception as exc:  # the referee's own bug: the summary still says so
            leaf: BaseException = exc
            while isinstance(leaf, BaseExceptionGroup) and len(leaf.exceptions) == 1:
                leaf = leaf.exceptions[0]
            failure = f"the referee failed: {type(leaf).__name__}: {leaf}"
            raise
        finally:
            final = self.finish(failure)
        if self.cannot_start is not None:
            raise self.cannot_start
        if self.cannot_write is not None:
            raise self.cannot_write
        return final

    def open(self) -> None:
        """Open the sinks (before the first game); those opened are closed by :meth:`finish`."""
        info = MatchInfo(
            game=self.game.name,
            seed=self.config.seed,
            games=self.games_requested,
            bots=[p.name for p in self.players],
            duplicate=self.config.duplicate,
        )
        # Which sinks want what is known only now: sinks may be added after construction.
        self._transcripts = any(sink.wants_transcript for sink in self.sinks)
        self._summaries = any(sink.wants_summary for sink in self.sinks)
        for sink in self.sinks:
            sink.open(info)
            self._opened.append(sink)

    async def start(self, nursery: trio.Nursery) -> bool:
        """Start every bot, their tasks in ``nursery``; False when the match cannot be
        played (:attr:`cannot_start` says why)."""
        async with trio.open_nursery() as starting:
            starting.start_soon(self._warm_up)
            self.cannot_start = await self.lineup.start_all(nursery)
        return self.cannot_start is None

    async def _warm_up(self) -> None:
        """The game's once-a-process work (Yahtzee's tables: ~22 ms) and the caller's
        (:attr:`while_starting`), while the bots' sandboxes are built: a start waits
        ~30-60 ms for its supervisor, on other cores.  One checkpoint first: every bot's
        start has forked by then (a start does not yield before its fork), so this holds
        up nothing but their ready lines — and it is over before the first game, whose
        decisions it must not slow."""
        await trio.lowlevel.checkpoint()
        self.game.warm_up()
        for work in self.while_starting:
            work()

    async def play(self, count: int | None = None) -> bool:
        """Play the next ``count`` games of the schedule (all that are left when
        ``None``); whether games are left.  A sink that cannot write stops the match
        (:attr:`cannot_write`; False is returned)."""
        if self._planned is None:
            self._planned = self.schedule()
        if self.completed:  # resumed after every game (or the sequential test's answer)
            return False
        try:
            exhausted = await self._play_some(self._planned, count)
        except OutputError as exc:  # kept out of any nursery's exception group
            self.cannot_write = exc
            return False
        if exhausted or self.games_played >= self.games_requested:
            self.completed = True
        return not self.completed

    async def stop(self) -> None:
        """Close the bots (shielded: also when cancelled)."""
        with trio.CancelScope(shield=True):
            await self.lineup.close_all(self._game_index)

    def finish(self, failure: str | None = None) -> MatchRecord:
        """Settle why the match ended and close the sinks with the final record, which
        is returned.  ``failure`` names a bug of the referee's that ended it."""
        if self.cannot_start is not None:
            self.stopped = str(self.cannot_start)
        elif self.cannot_write is not None:
            self.stopped = str(self.cannot_write)
        elif self.completed:
            self.stopped = None  # a signal during the close of a finished match
        elif self.stopped is None:
            self.stopped = failure or "cancelled"
        final = self.result()
        opened, self._opened = self._opened, []
        for sink in opened:
            sink.close(final)
        return final

    async def _play_some(self, planned: Iterator[Scheduled], count: int | None) -> bool:
        """Play up to ``count`` more games (all that are left when None); whether the
        schedule ran out before that."""
        left = self.games_requested - self.games_played
        if count is not None:
            left = min(left, count)
        standing = self.result  # what a checkpointing sink asks for, bound once
        sinks = self.sinks
        stats = self._stats
        evidence = self.evidence
        sprt = self.sprt
        tested = self._sprt_position
        value_of = self._sprt_value
        # Without replays of overloaded games (the default) a game is played once: called
        # directly, one coroutine a game fewer.
        play = self._play_standing if self.config.replay_overloaded else self.play_game
        lineup = self.lineup
        played = 0
        for scheduled in itertools.islice(planned, max(0, left)):
            record = await play(scheduled)
            self.games_played += 1
            played += 1
            tally_game(record, stats)
            evidence.add(record)
            decided = sprt is not None and sprt.add(value_of(record, tested)) is not None
            if decided:
                self.completed = True  # the test has its answer: the match is over
            for sink in sinks:
                try:
                    sink.game(record, standing)
                except OSError as exc:  # a full disk: stop here, say where, keep the rest
                    where = getattr(sink, "path", type(sink).__name__)
                    raise OutputError(
                        f"could not write {where} after game {scheduled.index}: {exc.strerror or exc}"
                    ) from exc
            if decided:
                return True
            if self.games_played < self.games_requested and not lineup.all_alive():
                await lineup.between_games(scheduled.index + 1)
        return played < left

    async def _play_standing(self, planned: Scheduled) -> GameRecord:
        """Play ``planned``.  With ``config.replay_overloaded`` (issue 28), a game in which
        a bot forfeited a decision the machine caused — a timeout or a slow start while it
        used far less CPU than its limit and waited for a CPU (:mod:`referee.core.overload`)
        — is set aside and played again, the same deal and seats, at most that many times:
        nothing of it counts (results, forfeits, sinks) but a notice, and the record that
        stands lists the forfeits that set the others aside (``replayed``).  A bot stopped
        by such a fault is started again for the replay, whatever the restart policy.
        Only with it: without, :meth:`_play_some` calls :meth:`play_game` itself."""
        limit = self.config.replay_overloaded
        replayed: list[GameForfeit] = []
        while True:
            self._deferred = []
            try:
                record = await self.play_game(planned)
            finally:
                deferred, self._deferred = self._deferred, None
            caused = [f for f in record.forfeits if f.overload]
            if not caused:
                break
            if len(replayed) >= limit:
                # Overloaded in every play: the forfeits stand, said as the machine's.
                for f in caused:
                    self._stats[f.player].overloaded_forfeits += 1
                break
            first = caused[0]
            replayed.append(first)
            for name in dict.fromkeys(f.player for f in caused):
                self._stats[name].count_replay(f"game {planned.index}: {first.verdict}: {first.overload}")
            self._notice(
                f"{REPLAY_NOTICE}{planned.index} ({len(replayed)} of at most {limit}): {first.player}'s "
                f"{first.verdict} was the machine's, not the bot's: {first.overload}"
            )
            for player in self.players:
                if player.name in {f.player for f in caused} and not (player.seat and player.seat.alive):
                    await self.lineup.retire(player, planned.index)
                    # A start the machine cut short is no failed start of the bot's.
                    player.failed_starts = max(0, player.failed_starts - 1)
                    await self.lineup.revive(player, planned.index)
            await trio.sleep(REPLAY_PAUSE_S)
        for player, forfeit in deferred:
            player.stats.count_forfeit(forfeit)
            for sink in self.sinks:
                sink.forfeit(player.name, forfeit)
        if replayed:
            record = msgspec.structs.replace(record, replayed=replayed)
        return record

    def schedule(self) -> Iterator[Scheduled]:
        """The games to play, in order: :attr:`games_requested` of them (``referee
        check`` plays a plan of its own)."""
        return schedule(self.config.seed, self.games_requested, len(self.players), self.config.duplicate)

    def new_state(self, planned: Scheduled) -> GameState:
        """The game to play for ``planned`` (:meth:`deal`), told who plays it when the
        game tells bots their opponents' ids."""
        state = self.deal(planned)
        if self._ids is not None:
            state.introduce(self._ids[planned.rotation])
        if self.game.tells_names:
            state.name_seats(self._seatings[planned.rotation][1])
        return state

    def deal(self, planned: Scheduled) -> GameState:
        """A fresh deal from ``planned``'s seed (``referee check`` poses prepared
        positions here instead)."""
        return self.game.new_deal(len(self.players), planned.seed)

    def _notice(self, line: str) -> None:
        for sink in self.sinks:
            sink.notice(line)

    # ------------------------------------------------------------------ one game

    async def play_game(self, planned: Scheduled) -> GameRecord:
        index = planned.index
        self._game_index = index
        seated, names = self._seatings[planned.rotation]
        state = self.new_state(planned)
        current = GameInProgress(index, seated, self._transcripts)
        transcript = current.transcript
        lineup = self.lineup
        # A bot that died and was not restarted takes the game's penalty each time it is
        # due to act (Yahtzee: the game is forfeited; dice poker: it folds).
        decision = 0
        # The hot loop: one seat at a time without a coroutine per decision, the state's
        # methods bound once.  A reply is decoded, checked and applied by the state's take.
        is_terminal, drain_events, to_act, request, take = (
            state.is_terminal,
            state.drain_events,
            state.to_act,
            state.request,
            state.take,
        )
        while True:
            events = drain_events()  # also after the last move: seats are told the end
            if events:
                for event in events:
                    told = seated[event.seat].seat
                    if told is None or told.death is not None:
                        continue
                    fault = None
                    try:
                        await told.tell(event.line, event.expects_reply)
                    except BotFault as exc:
                        # The bot is gone.  No decision was penalised, so the game's
                        # forfeits (like the bot's figures) get nothing: its next decision
                        # takes the penalty, if it is not restarted for it first.  The
                        # transcript says what happened.
                        fault = exc
                    if transcript is not None:
                        told_line = event.line[:-1].decode("ascii", "replace")
                        if fault is None:
                            transcript.append(Step(event.seat, "tell", told_line))
                        else:
                            transcript.append(
                                Step(event.seat, "tell", told_line, None, fault.verdict.value, fault.detail)
                            )
            if is_terminal():
                break
            actors = to_act()
            if len(actors) != 1:
                await self._decide_together(state, actors, decision, current)
                decision += 1
                continue
            seat = actors[0]
            player = seated[seat]
            bot = player.seat
            if bot is None or bot.death is not None:
                # Games whose every request carries the whole state (Liar's Dice) take
                # the bot back at once; the turn it missed has already cost it.
                if not (self.restart_in_game and await lineup.revive(player, index)):
                    state.penalize(seat, self._note_down(seat, decision, current))
                    decision += 1
                    continue
                bot = player.seat
                assert bot is not None
            line = request(seat)
            if bot.wants_judge:  # a person: told why a move would forfeit, before sending it
                bot.judge = functools.partial(judge_reply, state, seat)
            try:
                reply = await bot.request(line)
            except BotFault as fault:
                self._note_fault(
                    seat, fault.verdict, fault.detail, line, fault.reply, decision, current, fault.overload
                )
                state.penalize(seat, fault.verdict)
            else:
                failure = take(seat, reply)  # decoded, checked and applied, or why not
                if failure is not None:
                    verdict, detail = failure
                    self._note_fault(seat, verdict, detail, line, reply, decision, current)
                    state.penalize(seat, verdict)
                elif transcript is not None:
                    transcript.append(_asked(seat, line, reply))
            decision += 1
        scores, ranks = state.scores(), state.ranks()
        if (
            current.penalties
            and current.penalties == decision + current.together
            and await self._void(current)
        ):
            # No seat made a single legal decision, and those not asked are known not
            # to play (bots that never start, say): the deal counts for nobody — a tie
            # at zero, not a win from each other's forfeits.  A bot that may play, whose
            # opponent failed before it was asked anything, still wins the deal.
            scores, ranks = [0.0] * len(scores), [1] * len(ranks)
        return GameRecord(
            game=index,
            deal=planned.deal,
            rotation=planned.rotation,
            seed=planned.seed,
            seats=names[:],
            scores=scores,
            ranks=ranks,
            forfeits=current.forfeits,
            tallies=state.tallies(),
            summary=state.summary() if self._summaries else {},
            transcript=transcript,
        )

    async def _decide_together(
        self, state: GameState, actors: Sequence[int], decision: int, current: GameInProgress
    ) -> None:
        """A simultaneous move: ask every actor at once, judge each reply against the
        state before the step, then apply the step as one joint action."""
        seated = current.seated
        lines = {seat: state.request(seat) for seat in actors}
        replies: dict[int, bytes | BotFault | None] = {}

        async def ask(seat: int) -> None:
            bot = seated[seat].seat
            if bot is None or bot.death is not None:
                replies[seat] = None
                return
            if bot.wants_judge:
                bot.judge = functools.partial(judge_reply, state, seat)
            try:
                replies[seat] = await bot.request(lines[seat])
            except BotFault as fault:
                replies[seat] = fault

        current.together += len(actors) - 1
        async with trio.open_nursery() as nursery:
            for seat in actors:
                nursery.start_soon(ask, seat)
        actions: dict[int, Any] = {}
        penalties: dict[int, Verdict] = {}
        for seat in actors:
            reply, line = replies[seat], lines[seat]
            if reply is None:
                penalties[seat] = self._note_down(seat, decision, current)
                continue
            machine = None
            if isinstance(reply, BotFault):
                verdict, detail, raw, machine = reply.verdict, reply.detail, reply.reply, reply.overload
            else:
                raw = reply
                action, failure = state.judge(seat, reply)
                if failure is None:
                    actions[seat] = action
                    if current.transcript is not None:
                        current.transcript.append(_asked(seat, line, reply))
                    continue
                verdict, detail = failure
            self._note_fault(seat, verdict, detail, line, raw, decision, current, machine)
            penalties[seat] = verdict
        state.apply_joint(actions, penalties)

    # ------------------------------------------------------------------ penalties

    def _note_down(self, seat: int, decision: int, current: GameInProgress) -> Verdict:
        """Record the penalty of a seat whose bot is not running (nothing was sent);
        the verdict that stopped the bot, for the caller to apply."""
        forfeit = self.lineup.down_fault(current.seated[seat], current.index, decision)
        self._record(seat, forfeit, current)
        if current.transcript is not None:
            current.transcript.append(
                Step(seat, "down", verdict=forfeit.verdict.value, detail=forfeit.detail)
            )
        return forfeit.verdict

    def _note_fault(
        self,
        seat: int,
        verdict: Verdict,
        detail: str,
        line: bytes,
        reply: bytes | None,
        decision: int,
        current: GameInProgress,
        overload: str | None = None,
    ) -> None:
        """Record a faulty decision (the penalty is the caller's to apply); ``overload``:
        why the machine caused it, when it did (issue 28)."""
        player = current.seated[seat]
        forfeit = Forfeit(
            verdict=verdict,
            game=current.index,
            decision=decision,
            detail=detail,
            # Long enough for a whole Hold'em request (~250 characters); the log has
            # both whole whatever their length.
            reply=shorten(reply, DETAIL_CHARS),
            position=shorten(line.rstrip(b"\n"), DETAIL_CHARS),
        )
        bot = player.seat
        if bot is not None and bot.death is not None:
            player.down = Forfeit(bot.death, current.index, decision, bot.death_detail)
        if current.transcript is not None:
            # Whole (they are bounded by the line limit): the log must replay the game.
            current.transcript.append(
                Step(
                    seat,
                    "ask",
                    line[:-1].decode("ascii", "replace"),
                    None if reply is None else reply.decode("utf-8", "backslashreplace"),
                    verdict.value,
                    detail,
                )
            )
        self._record(seat, forfeit, current, overload=overload)

    @staticmethod
    async def _void(current: GameInProgress) -> bool:
        """Whether a game with no legal decision counts for nobody (the rare path: only
        such games ask): each seat failed in it, or was not asked but is known not to
        play — it has never answered in this match, and it is dead or has failed before
        (a start, a decision).  A bot that was simply not asked before its opponent
        failed may play: the game is its win, not void."""
        for seat, player in enumerate(current.seated):
            if current.penalised >> seat & 1:
                continue
            bot = player.seat
            if player.stats.decisions or (bot is not None and bot.usage().answered):
                return False  # it plays
            if player.failed_starts or player.stats.forfeits or bot is None or not bot.alive:
                continue
            # A bot that never starts (a crash at import, say) may still be ending: a
            # short, bounded look, paid only before it has failed or answered anything.
            if not await bot.ended(within=ENDED_LOOK_S):
                return False  # nothing known against it
        return True

    def _record(
        self, seat: int, forfeit: Forfeit, current: GameInProgress, overload: str | None = None
    ) -> None:
        player = current.seated[seat]
        current.penalties += 1
        current.penalised |= 1 << seat
        if self._deferred is not None:  # the game may yet be set aside (_play_standing)
            self._deferred.append((player, forfeit))
        else:
            player.stats.count_forfeit(forfeit)
            for sink in self.sinks:
                sink.forfeit(player.name, forfeit)
        current.forfeits.append(
            GameForfeit(
                player=player.name,
                verdict=forfeit.verdict.value,
                decision=forfeit.decision,
                detail=forfeit.detail,
                reply=forfeit.reply,
                position=forfeit.position,
                overload=overload,
            )
        )

    # ------------------------------------------------------------------ results

    def figures(self) -> list[BotFigures]:
        """Each bot's figures so far: right mid-match too (live seats' usage included)."""
        out = []
        for player in self.players:
            stats = player.stats
            if player.seat is not None:  # folded in for good only when it retires
                stats = stats.with_usage(player.seat.usage())
            out.append(stats.figures())
        return out

    def result(self) -> MatchRecord:
        """The match's record so far."""
        return MatchRecord(
            game=self.game.name,
            seed=self.config.seed,
            games_requested=self.games_requested,
            games_played=self.games_played,
            completed=self.completed,
            referee_version=__version__,
            sandbox=self.layer.value,
            players=self.figures(),
            options=dict(self.config.options),
            duplicate=self.config.duplicate,
            stopped=self.stopped,
            evidence=self.evidence.result(),
            sprt=self.sprt.result() if self.sprt is not None else None,
            sprt_bot=self.players[self._sprt_position].name if self.sprt is not None else None,
        )


def judge_reply(state: GameState, seat: int, reply: bytes) -> str | None:
    """What the match would say of ``reply`` (no newline) from ``seat`` now: ``None`` if
    it is accepted, else the forfeit's detail — the decoder's reason (a protocol fault)
    or the rules' (an illegal move), exactly as a match records them (:meth:`GameState.judge`).
    Changes nothing: a seat with ``wants_judge`` calls it before answering."""
    failure = state.judge(seat, reply)[1]
    return None if failure is None else failure[1]


def _asked(seat: int, line: bytes, reply: bytes) -> Step:
    return Step(seat, "ask", line[:-1].decode("ascii", "replace"), reply.decode("utf-8", "replace"))
