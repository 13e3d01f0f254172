"""The running totals of a match, per bot: results, forfeits and resource figures."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from protocol import notes
from referee.core.records import BotFigures, GameRecord, SlowAnswer
from referee.core.verdict import Forfeit
from referee.seats import SLOW_KEPT, SeatUsage

#: How many forfeits per player are kept with full details in the summary.
FORFEIT_DETAILS_KEPT = 20
#: How many reasons for replayed games are kept per player (issue 28).
REPLAYED_DETAILS_KEPT = 5


@dataclass
class PlayerStats:
    """One bot's totals; :meth:`figures` is its :class:`BotFigures` (means computed)."""

    name: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    score_total: float = 0.0
    rank_total: int = 0
    forfeits: dict[str, int] = field(default_factory=dict)
    forfeit_details: list[Forfeit] = field(default_factory=list)
    cpu_seconds: float = 0.0
    peak_rss_bytes: int = 0
    decisions: int = 0
    #: Decisions after each process's first answer, which includes its startup work.
    timed_decisions: int = 0
    latency_ns_total: int = 0
    latency_ns_max: int = 0
    #: The CPU of the slowest answer (-1: not measured), and the answers near the limit.
    slowest_cpu_ns: int = -1
    slow_answers: int = 0
    slow_details: list[tuple[int, int, bool]] = field(default_factory=list)
    first_answer_ns_max: int = 0
    restarts: int = 0
    replayed_games: int = 0
    replayed_details: list[str] = field(default_factory=list)
    overloaded_forfeits: int = 0
    sandbox: str = ""
    #: The game's own per-seat counts, summed (GameState.tallies, e.g. hands won).
    tallies: dict[str, float] = field(default_factory=dict)
    #: Games by the place taken (1 = first; shared places count for each).
    placements: dict[int, int] = field(default_factory=dict)
    #: The bot's notes by name, and each name's first text (protocol.notes).
    notes: dict[str, int] = field(default_factory=dict)
    note_examples: dict[str, str] = field(default_factory=dict)

    def fold(self, used: SeatUsage) -> None:
        """Add one life's figures (a seat's usage) to these totals."""
        self.cpu_seconds += used.cpu_s
        self.peak_rss_bytes = max(self.peak_rss_bytes, used.peak_rss_bytes)
        self.decisions += used.decisions
        self.timed_decisions += max(used.decisions - 1, 0)
        self.first_answer_ns_max = max(self.first_answer_ns_max, used.first_answer_ns)
        self.latency_ns_total += used.latency_ns_total
        if used.latency_ns_max > self.latency_ns_max:
            self.latency_ns_max = used.latency_ns_max
            self.slowest_cpu_ns = used.slowest_cpu_ns
        if used.slow_answers:
            self.slow_answers += used.slow_answers
            self.slow_details += used.slow_details[: SLOW_KEPT - len(self.slow_details)]
        if used.notes:
            notes.merge(self.notes, self.note_examples, used.notes, used.note_examples)

    def count_replay(self, why: str) -> None:
        """A game set aside because a forfeit of this bot's was the machine's fault."""
        self.replayed_games += 1
        if len(self.replayed_details) < REPLAYED_DETAILS_KEPT:
            self.replayed_details.append(why)

    def count_forfeit(self, forfeit: Forfeit) -> None:
        key = forfeit.verdict.value
        self.forfeits[key] = self.forfeits.get(key, 0) + 1
        if len(self.forfeit_details) < FORFEIT_DETAILS_KEPT:
            self.forfeit_details.append(forfeit)

    def with_usage(self, used: SeatUsage) -> PlayerStats:
        """A copy with a live seat's figures folded in (for a mid-match report)."""
        live = copy.copy(self)
        if used.notes:  # folded into copies, not into these totals
            live.notes, live.note_examples = dict(self.notes), dict(self.note_examples)
        if used.slow_answers:
            live.slow_details = list(self.slow_details)
        live.fold(used)
        return live

    def figures(self) -> BotFigures:
        games = self.games
        return BotFigures(
            name=self.name,
            games=games,
            wins=self.wins,
            losses=self.losses,
            draws=self.draws,
            mean_score=self.score_total / games if games else 0.0,
            mean_rank=self.rank_total / games if games else 0.0,
            forfeits=dict(sorted(self.forfeits.items())),
            forfeit_details=list(self.forfeit_details),
            cpu_seconds=round(self.cpu_seconds, 3),
            peak_rss_bytes=self.peak_rss_bytes,
            decisions=self.decisions,
            mean_decision_us=self.latency_ns_total / self.timed_decisions / 1e3
            if self.timed_decisions
            else 0.0,
            max_decision_us=self.latency_ns_max / 1e3,
            max_decision_cpu_ms=round(self.slowest_cpu_ns / 1e6, 3) if self.slowest_cpu_ns >= 0 else None,
            slow_answers=self.slow_answers,
            slow_answer_details=[
                SlowAnswer(round(wall / 1e6, 3), round(cpu / 1e6, 3) if cpu >= 0 else None, timed_out)
                for wall, cpu, timed_out in self.slow_details
            ],
            first_answer_ms=self.first_answer_ns_max / 1e6,
            restarts=self.restarts,
            replayed_games=self.replayed_games,
            replayed_details=list(self.replayed_details),
            overloaded_forfeits=self.overloaded_forfeits,
            sandbox=self.sandbox,
            placements={str(place): n for place, n in sorted(self.placements.items())},
            tallies=dict(self.tallies),
            notes=dict(sorted(self.notes.items())),
            note_examples=dict(sorted(self.note_examples.items())),
        )


def tally_game(record: GameRecord, stats_by_name: dict[str, PlayerStats]) -> None:
    """Add one finished game to its bots' totals.

    A win is first place alone, a draw first place shared, a loss any other place — the
    same definition for any number of seats; ``placements`` keeps every place.
    """
    ranks = record.ranks
    best = min(ranks)
    shared = ranks.count(best) > 1
    tallies = record.tallies
    for seat, name in enumerate(record.seats):
        stats = stats_by_name[name]
        rank = ranks[seat]
        if tallies:
            own = stats.tallies
            for key, value in tallies[seat].items():
                own[key] = own.get(key, 0) + value
        stats.games += 1
        stats.score_total += record.scores[seat]
        stats.rank_total += rank
        stats.placements[rank] = stats.placements.get(rank, 0) + 1
        if rank != best:
            stats.losses += 1
        elif shared:
            stats.draws += 1
        else:
            stats.wins += 1
