"""The ``ppca`` rules variant of Hold'em (``--rules ppca``): the PPCA 2014 server's behaviour.

Sources: "seed" is seed 003 (PPCA 2014, /work/shared/seeds/003_97ecf071378643a5.txt), section 1
unless said; "the issue" is the ppca-variant issue, which measured the original server
(3,169 hands at 2, 3, 6 and 9 seats); its points 1-6 are cited by number.  Where the
server and the seed's text disagree the variant follows the seed (point 2's merging);
reference.md section 5 describes the original server.  The default rules are tested in
tests/test_holdem.py and against pokerkit in tests/test_holdem_oracle.py.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import BOT_PYTHON

from protocol import holdem as wire
from referee.core.verdict import ProtocolError, Verdict
from referee.games.holdem import SHOWING, Holdem, HoldemState

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ROOT / "sample_players" / "holdem"


def table(n: int, rules: str = "ppca", **kwargs) -> HoldemState:
    kwargs.setdefault("first_dealer", 0)
    return HoldemState(n, random.Random(kwargs.pop("seed", 0)), rules=rules, **kwargs)


def play(state: HoldemState, *replies: str) -> None:
    """Each reply by whoever is to act; every one must be legal."""
    for reply in replies:
        (seat,) = state.to_act()
        action = state.decode(seat, reply.encode())
        reason = state.illegal(seat, action)
        assert reason is None, f"seat {seat} {reply!r}: {reason}"
        state.apply(seat, action)


def reply(state: HoldemState, text: str) -> None:
    """What the referee does with a reply: apply it when legal, else penalise (``illegal``,
    or ``protocol`` when it does not parse)."""
    (seat,) = state.to_act()
    try:
        action = state.decode(seat, text.encode())
    except ProtocolError:
        state.penalize(seat, Verdict.PROTOCOL)
        return
    if state.illegal(seat, action) is None:
        state.apply(seat, action)
    else:
        state.penalize(seat, Verdict.ILLEGAL)


def request(state: HoldemState) -> wire.Request:
    (seat,) = state.to_act()
    return wire.parse_request(state.request(seat))


def last_result(state: HoldemState) -> wire.Result:
    lines = [e.line for e in state.drain_events() if e.line.startswith(b"result")]
    return wire.parse_result(lines[-1])


def rig(state: HoldemState, hole: dict[int, str], board: str) -> None:
    state.set_cards({s: wire.parse_cards(h) for s, h in hole.items()}, wire.parse_cards(board))


def show_best(state: HoldemState) -> None:
    """Every player asked at the bot showdown shows their best five."""
    while state.phase == SHOWING:
        (seat,) = state.to_act()
        hole = state.hole[seat]
        assert hole is not None
        state.apply(seat, wire.best_five((*hole, *state.board)))


# ============================================================================ the option


def test_rules_option() -> None:
    """The variant is the game option ``rules``; ppca implies the seed's quirks and the bot
    showdown (the original server played the quirks and always asked for five cards)."""
    assert Holdem().options == {"seed_quirks": 1, "bot_showdown": 0}  # the default is unchanged
    assert Holdem(rules="seed").rules == "seed"
    game = Holdem(rules="ppca")
    assert game.options == {"seed_quirks": 1, "bot_showdown": 1, "rules": "ppca"}
    state = game.new_state(3, random.Random(1))
    assert (state.rules, state.ppca, state.quirks, state.bot_showdown) == ("ppca", True, True, True)
    assert state.summary()["rules"] == "ppca" and table(3, "seed").summary()["rules"] == "seed"
    with pytest.raises(ValueError, match="not one of seed, ppca"):
        Holdem(rules="PPCA")
    with pytest.raises(ValueError, match="ppca rules imply bot_showdown"):
        Holdem(rules="ppca", bot_showdown=0)
    with pytest.raises(ValueError, match="ppca rules imply seed_quirks"):
        Holdem(rules="ppca", seed_quirks=0)
    # referee check's hooks still pose every kind of line, the bot showdown included.
    assert "show (bot showdown)" in game.line_kinds() and "big blind calls 0" in game.line_kinds()
    assert len(game.check_positions()) == 9


# ============================================================================ point 1: penalties fold


def test_point1_big_blind_check_instead_of_call_zero_is_folded() -> None:
    """Issue point 1, the original server's behaviour: the seed's quirk "大盲注需要跟注 0 个筹码而不是过牌"
    makes a preflop ``check`` by the big blind illegal, and an illegal reply is folded (802
    times in the measured games).  Our default rules call 0 for it instead."""
    state = table(3)
    play(state, "call", "call")
    assert state.free_call and "reply call" in state.illegal(2, wire.CHECK)
    reply(state, "check")
    assert state.folded[2] and request(state).history[0][-1] == (2, "f", 0)
    assert state.summary()["hands"] == [] and state._faults == [[2, "illegal"]]
    seed = table(3, "seed")
    play(seed, "call", "call")
    reply(seed, "check")
    assert not seed.folded[2] and request(seed).history[0][-1] == (2, "c", 0)


@pytest.mark.parametrize("verdict", [Verdict.TIMEOUT, Verdict.PROTOCOL, Verdict.CRASH])
def test_point1_every_penalty_folds_even_when_checking_is_free(verdict: Verdict) -> None:
    """Issue point 1, the original server's behaviour: any bad reply is folded, even where a free
    check was possible (our default checks).  A timeout or a dead bot is treated alike."""
    state = table(3)
    play(state, "call", "call", "call")  # to the flop; seat 1 (left of the dealer) acts first
    assert state.street == 1 and state.to_act() == (1,) and state.to_call == 0
    state.penalize(1, verdict)
    assert state.folded[1] and request(state).status[1] == "F"
    seed = table(3, "seed")
    play(seed, "call", "call", "call")
    seed.penalize(1, verdict)
    assert not seed.folded[1] and request(seed).history[1] == ((1, "k", 0),)


# ============================================================================ point 2: pots


def test_point2_pots_by_level_list_every_contributor() -> None:
    """Issue point 2, the original server's behaviour ("pot I has A chips contributed by p q …"):
    a pot per contribution level, listing every contributor, folded ones included.  The
    ``pots`` field keeps its syntax; under ppca it lists contributors, not eligible seats."""
    state = table(3)  # dealer 0, small blind 1, big blind 2
    play(state, "raise 8", "fold", "call")  # seat 0 to 10, the small blind folds, the big blind calls
    req = request(state)
    assert req.round == "flop" and req.pots == ((3, (0, 1, 2)), (18, (0, 2)))
    assert req.pot_total == 21
    seed = table(3, "seed")
    play(seed, "raise 8", "fold", "call")
    assert request(seed).pots == ((21, (0, 2)),)  # ours: eligible seats, levels merged


def test_point2_pot_whose_contributors_all_folded_goes_back_to_them() -> None:
    """Issue point 2, the original server's behaviour: a pot whose contributors all folded goes
    back to them (our default gives it to the pot below).  Possible only after folds when
    checking was free: here the two players who bet the flop fold the turn, leaving the
    short stack, all-in preflop, alone."""
    for rules, stacks, pots, wins in (
        ("ppca", (980, 980, 60), ((60, ((2, 60),)), (20, ((0, 10), (1, 10)))), [0, 0, 1]),
        ("seed", (970, 970, 80), ((80, ((2, 80),)),), [0, 0, 1]),
    ):
        state = table(3, rules, chips=[1000, 1000, 20])
        play(state, "call", "call", "raise 18", "call", "call")  # the big blind all-in for 20
        play(state, "raise 10", "call")  # the flop: seats 1 and 0 put in 10 each
        req = request(state)
        assert req.round == "turn" and req.pots == ((60, (0, 1, 2)), (20, (0, 1)))
        play(state, "fold", "fold")
        result = last_result(state)
        assert (result.stacks, result.pots) == (stacks, pots), rules
        # Chips given back are not a hand won.
        assert [t["hands_won"] for t in state.tallies()] == wins


def _tie_two_rounds(rules: str, dealer: int) -> HoldemState:
    """Seats 0 and 1 tie (a straight); the same three contributors in two rounds: 15 and 9."""
    state = table(3, rules, chips=100, first_dealer=dealer)
    rig(state, {0: "TC3D", 1: "TD3H", 2: "KS4H"}, "6C7D8H9S2C")
    play(state, "call", "call", "raise 3", "call", "call")  # preflop pot 15
    play(state, "raise 3", "call", "call")  # flop pot 9
    return state


def test_point2_pots_of_different_rounds_are_not_merged() -> None:
    """Issue point 2, the seed over the server: the original merges a level into the previous pot
    when the contributor lists match, even across rounds, but the seed's pots() says
    "不同轮贡献者相同的彩池不合并" (seed section 2.2): each round's pot splits on its own,
    so each has its odd chip."""
    state = _tie_two_rounds("ppca", dealer=2)
    assert request(state).pots == ((15, (0, 1, 2)), (9, (0, 1, 2)))
    for _ in range(6):
        play(state, "check")
    show_best(state)
    result = last_result(state)
    assert result.pots == ((15, ((0, 8), (1, 7))), (9, ((0, 5), (1, 4))))
    assert result.won == (13, 11, 0)  # merged (the server) it would be 12, 12


# ============================================================================ point 3: the odd chip


@pytest.mark.parametrize(
    ("dealer", "ppca_first", "seed_first"),
    [(0, 0, 1), (1, 1, 0), (2, 0, 0)],
)
def test_point3_odd_chip_counting_from_the_dealer_inclusive(
    dealer: int, ppca_first: int, seed_first: int
) -> None:
    """Issue point 3, the original server's behaviour for the seed's "余数被分给该彩池胜者中顺时针方向最靠近庄家的一个":
    the first winner clockwise counting from the dealer, inclusive: a dealer sharing the pot
    gets the odd chip.  (Our default counts from the dealer's left, the dealer last.)"""
    for rules, first in (("ppca", ppca_first), ("seed", seed_first)):
        state = table(3, rules, chips=100, first_dealer=dealer)
        rig(state, {0: "TC3D", 1: "TD3H", 2: "KS4H"}, "6C7D8H9S2C")
        big = state.bb_seat
        play(state, "call", "call")
        assert state.to_act() == (big,)
        play(state, "raise 3", "call", "call")  # everyone at 5: one pot of 15
        for _ in range(9):
            play(state, "check")
        show_best(state)
        won = last_result(state).won
        assert won[2] == 0 and won[first] == 8 and won[1 - first] == 7, (rules, dealer, won)


# ============================================================================ point 4: the shown five


def _short_stack_showdown(rules: str) -> HoldemState:
    """Seat 2 all-in preflop for 5; seat 0 folds the flop to seat 1's bet: seat 1 is the only
    contributor of the second pot still in the hand; seats 1 and 2 show down."""
    state = table(3, rules, chips=[1000, 1000, 5])
    rig(state, {0: "QSQH", 1: "ASAH", 2: "KSKH"}, "2C3D8H9SJC")
    play(state, "raise 18", "call", "call")  # seat 0 to 20, seat 1 calls, seat 2 calls all-in for 5
    assert request(state).pots == ((15, (0, 1, 2)), (30, (0, 1)))
    play(state, "raise 10", "fold")  # the flop: seat 1 bets, seat 0 folds
    assert state.phase == SHOWING and state.to_act() == (1,)
    return state


def test_point4_invalid_five_ranks_lowest_but_beats_folded_contributors() -> None:
    """Issue point 4, the original server's behaviour (seed section 2.2: showdown() "返回 AI 决定展示的 5 张牌"):
    the five cards shown count; an invalid five ranks below every valid hand, yet still
    wins a pot whose other contributors all folded."""
    state = _short_stack_showdown("ppca")
    reply(state, "AS AH QS 3D 8H")  # the queen of spades is seat 0's: invalid
    play(state, "KS KH 2C 3D 8H")
    result = last_result(state)
    assert result.shown == ((1, (), ()), (2, wire.parse_cards("KSKH"), wire.parse_cards("KSKH2C3D8H")))
    # Seat 2's kings take the main pot from the invalid aces; the aces keep the pot of 30
    # that only they and the folded seat 0 contributed to, and their uncalled flop bet of
    # 10 comes back as a pot of its own (issue 24 E: Game::bet_loop's pot loop).
    assert result.pots == ((15, ((2, 15),)), (30, ((1, 30),)), (10, ((1, 10),)))
    assert result.stacks == (980, 1010, 15)
    assert state.summary()["hands"][0]["faults"] == [[1, "illegal"]]


def test_point4_the_shown_five_counts_not_the_best() -> None:
    """Issue point 4 / seed showdown(): a valid but weaker five is what is compared."""
    state = _short_stack_showdown("ppca")
    play(state, "2C 3D 8H 9S JC", "KS KH 2C 3D 8H")  # the aces show only the board
    assert last_result(state).pots == ((15, ((2, 15),)), (30, ((1, 30),)), (10, ((1, 10),)))
    state = _short_stack_showdown("ppca")
    state.penalize(1, Verdict.TIMEOUT)
    state.penalize(2, Verdict.TIMEOUT)  # both invalid: equal, the main pot splits
    result = last_result(state)
    # Seat 1: first from dealer 0.
    assert result.pots == ((15, ((1, 8), (2, 7))), (30, ((1, 30),)), (10, ((1, 10),)))


# ============================================================================ point 5: the first dealer


def test_point5_first_dealer_is_part_of_the_seeded_deal() -> None:
    """Issue point 5: the original's first dealer is seat 2 at 3, 6 and 9 seats and seat 0
    heads-up (unseeded); the ppca rules draw it from the game's seeded RNG, uniformly among
    the seats, after the deck's seed: the same rng deals the same cards in both rule sets."""
    counts = Counter()
    for seed in range(900):
        state = HoldemState(9, random.Random(seed), rules="ppca")
        rng = random.Random(seed)
        rng.getrandbits(64)
        assert state.dealer == rng.randrange(9)
        counts[state.dealer] += 1
        if seed < 30:
            assert HoldemState(9, random.Random(seed), rules="ppca").dealer == state.dealer
            default = HoldemState(9, random.Random(seed))
            assert default.dealer == 0 and default.board == state.board
    # Uniform: each of 9 seats about 100 times (chi-square, 8 degrees of freedom, p = 0.001: 26.1).
    assert sum((c - 100) ** 2 / 100 for c in counts.values()) < 26.1 and len(counts) == 9
    assert HoldemState(2, random.Random(5), rules="ppca", first_dealer=1).dealer == 1  # tests may fix it


# ============================================================================ point 6: all-in players


def test_point6_all_in_players_are_not_asked() -> None:
    """Issue point 6: the original asks all-in players to act and folds them on a bad reply; the
    ppca rules do not copy it (seed: a player all-in has nothing left to bet)."""
    state = table(3, chips=[1000, 1000, 20])
    play(state, "call", "call", "raise 18", "call", "call")  # the big blind all-in preflop
    asked = []
    while state.phase != SHOWING:
        (seat,) = state.to_act()
        asked.append(seat)
        play(state, "check")
    assert 2 not in asked and len(asked) == 6
    # At the showdown the all-in player shows like everyone; the server asks in seat order
    # (Game::showdown walks its player_list), not from the dealer's left.
    assert state.to_act() == (0,)
    show_best(state)


# ============================================================================ whole games


def test_random_games_keep_their_invariants() -> None:
    """Random play with random penalties: every request parses, the pots and bets account for
    every chip, contributors cover the pot, chips are conserved (asserted by the rules)."""
    rng = random.Random(7)
    for seed in range(24):
        n = 2 + seed % 8
        state = HoldemState(n, random.Random(seed), rules="ppca", chips=rng.choice((1000, 60)))
        while not state.is_terminal():
            state.drain_events()
            (seat,) = state.to_act()
            if state.phase == SHOWING:
                if rng.random() < 0.2:
                    state.penalize(seat, Verdict.ILLEGAL)
                else:
                    hole = state.hole[seat]
                    assert hole is not None
                    state.apply(seat, tuple(rng.sample((*hole, *state.board), 5)))
                continue
            req = wire.parse_request(state.request(seat))
            assert req.pot_total + sum(req.stacks) == sum(state.start_chips)
            for amount, contributors in req.pots:
                assert contributors and amount % len(contributors) == 0
            k = rng.random()
            if k < 0.1:
                state.penalize(seat, Verdict.TIMEOUT)
            elif "raise" in req.legal and k < 0.35:
                state.apply(seat, rng.choice((req.min_raise, req.max_raise)))
            elif k < 0.45:
                state.apply(seat, wire.FOLD)
            else:
                state.apply(seat, wire.CALL if "call" in req.legal else wire.CHECK)
        assert sum(state.chips) == sum(state.start_chips)


@pytest.mark.slow
def test_cli_match_with_the_ppca_rules(tmp_path: Path) -> None:
    """End to end: ``referee match --rules ppca`` with three sample players, a few games."""
    bots = [
        f"{BOT_PYTHON} {PLAYERS / 'always_call.py'}",
        f"{BOT_PYTHON} {PLAYERS / 'hand_strength.py'}",
        f"{BOT_PYTHON} {PLAYERS / 'random_player.py'} 4",
    ]
    options = ["--game", "holdem", "--games", "3", "--seed", "5", "--no-pin", "--rules", "ppca"]
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "referee.cli",
            "match",
            *bots,
            *options,
            "--json",
            str(tmp_path / "r.json"),
            "--log",
            str(tmp_path / "log.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["games_played"] == 3 and len(result["players"]) == 3
    assert result["options"] == {"rules": "ppca"}
    records = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    summaries = [r["summary"] for r in records if "summary" in r]
    assert len(summaries) == 3
    for summary in summaries:
        assert (summary["rules"], summary["seed_quirks"], summary["bot_showdown"]) == ("ppca", 1, 1)
        assert summary["hands"] and any(h["shown"] for h in summary["hands"])
        assert sum(summary["final_chips"]) == 3000


# ============================================================================ issue 24: the original, hand for hand
#
# Sources: the original server's code (zzy7896321/holdem, read, not copied): server/Game.h
# (Game::run, bet_loop, bet, check, fold, showdown, declare_winner, get_bet_from) and
# server/Server.h (Server::start_game).  Each test names the function it follows.


def narrated(state: HoldemState, seat: int = 0) -> list[str]:
    """The PPCA sentences told to ``seat`` since the last call (the ``narrate`` switch)."""
    return [
        e.line[5:-1].decode() for e in state.drain_events() if e.seat == seat and e.line.startswith(b"ppca ")
    ]


def test_issue24_raise_when_every_other_player_is_all_in() -> None:
    """Game::bet: nothing stops a raise when no one can answer it (the engine's default rules
    refuse it: "every other player is all-in or folded").  The excess is a pot of one,
    narrated at the round's end and paid back (Game::bet_loop, Game::declare_winner)."""
    state = table(2, chips=[1000, 30], narrate=True)  # heads-up: dealer 0 posts the big blind
    assert (state.sb_seat, state.bb_seat) == (1, 0)
    play(state, "raise 28")  # seat 1 (small blind) all-in: to 30
    req = request(state)
    assert state.to_act() == (0,) and req.to_call == 28 and "raise" in req.legal
    seed = table(2, "seed", chips=[1000, 30])
    play(seed, "raise 28")
    assert "raise" not in request(seed).legal  # our default: nobody could answer it
    narrated(state)
    play(state, "raise 50")  # seat 0 puts in 78: 30 called, 50 nobody can answer
    lines = narrated(state)
    assert lines[:3] == [
        "player 0 bets 78",
        "pot 0 has 60 chips contributed by 0 1",
        "pot 1 has 50 chips contributed by 0",
    ]
    assert lines[3] == "round ends"
    # The next rounds still say seat 0's chips without the 50 (the server pays it back at the end).
    assert "player 0 has 920 chips" in lines
    while state.phase == SHOWING:
        reply(state, "x")  # both invalid: the main pot is split
    result = last_result(state)
    assert result.pots == ((60, ((0, 30), (1, 30))), (50, ((0, 50),)))
    assert result.stacks == (1000, 30)
    assert [t["hands_won"] for t in state.tallies()] == [1, 1]  # the pot of one is not a win


def test_issue24_raise_facing_a_short_all_in_is_taken() -> None:
    """Game::bet has no rule about reopening the betting: after a short all-in, a player who
    already acted may raise again (2 of the issue's 54 hands; the default rules refuse)."""
    for rules, can_raise in (("ppca", True), ("seed", False)):
        state = table(3, rules, chips=[1000, 1000, 25])  # dealer 0, sb 1, bb 2
        play(state, "raise 18", "call")  # seat 0 to 20, seat 1 calls
        play(state, "raise 5")  # the big blind all-in to 25: short of a full raise of 18
        assert state.to_act() == (0,)
        assert ("raise" in request(state).legal) == can_raise, rules


def test_issue24_every_preflop_check_folds() -> None:
    """Game::check folds a check whenever ``is_pre_flop_round()``, also when the top bet is
    not the big blind because the big blind was all-in short (15 of the issue's hands;
    the default rules let such a check stand).  The free call of 0 is ``call``."""
    state = table(3, chips=[1000, 1000, 1])  # the big blind posts 1 of its 2
    play(state, "call")  # seat 0 calls 1
    assert state.to_act() == (1,) and state.to_call == 0 and state.free_call
    assert ",".join(request(state).legal) == "fold,call,raise"
    assert "folds every check before the flop" in state.illegal(1, wire.CHECK)
    reply(state, "check")
    assert state.folded[1]
    seed = table(3, "seed", chips=[1000, 1000, 1])
    play(seed, "call")
    assert seed.illegal(1, wire.CHECK) is None  # ours: nothing to call, a check


def test_issue24_postflop_bet_0_is_a_check_said_twice() -> None:
    """Game::bet with amount 0 and no bet yet after the flop calls Game::check ("player p
    checks") and then says "player p bets 0" as well; both count as a check."""
    state = table(3, narrate=True)
    play(state, "call", "call", "call")
    narrated(state)
    assert state.street == 1 and state.to_act() == (1,)
    play(state, "call")  # the dialect's ``bet 0``
    assert narrated(state) == ["player 1 checks", "player 1 bets 0"]
    assert request(state).history[1] == ((1, "k", 0),)
    play(state, "check")
    assert narrated(state) == ["player 2 checks"]


def test_issue24_narration_of_a_hand_to_a_showdown() -> None:
    """The sentences of one hand, each as the server words it: the participants on one line
    (Game::run: ``oss << ' ' << player``), per-round new pots numbered after the earlier
    ones (Game::bet_loop), the showdown asked in seat order and told best first with the
    characters read and the HAND_* number (Game::showdown), sharers in descending seat
    order (Game::declare_winner's ``std::greater``), and no ``game over`` after a hand."""
    state = table(3, chips=100, narrate=True)  # dealer 0, sb 1, bb 2
    start = narrated(state)
    rig(state, {0: "TC3D", 1: "TD3H", 2: "KS4H"}, "6C7D8H9S2C")
    assert start[:7] == [
        "game starts",
        "number of players is 3",
        "0 1 2",
        "small blind is 1",
        "dealer is 0",
        "player 1 blind bet 1",
        "player 2 blind bet 2",
    ]
    assert [x[:10] for x in start[7:9]] == ["hole card "] * 2  # its own two cards only
    assert start[9:] == [
        "round starts",
        "player 0 has 100 chips",
        "player 1 has 99 chips",
        "player 2 has 98 chips",
    ]
    play(state, "call", "call", "raise 3", "call", "call")  # everyone at 5
    preflop = narrated(state)
    end = preflop.index("round ends")
    assert preflop[end - 1 : end + 4] == [
        "pot 0 has 15 chips contributed by 0 1 2",
        "round ends",
        "flop card 6 C",
        "flop card 7 D",
        "flop card 8 H",
    ]
    play(state, "raise 3", "call", "call")  # the flop: 3 each
    flop = narrated(state)
    assert flop[flop.index("round ends") - 1] == "pot 1 has 9 chips contributed by 0 1 2"
    for _ in range(6):
        play(state, "check")
    assert state.phase == SHOWING and state.to_act() == (0,)
    play(state, "T C 9 S 8 H 7 D 6 C")  # seat 0: a ten-high straight
    play(state, "TD9S8H7D6C")  # seat 1: the same straight, no spaces
    reply(state, "K S 4 H")  # seat 2: read as KS 4H 4H 4H 4H, invalid
    told = narrated(state)
    assert told[told.index("start showdown") + 1 : told.index("game starts")] == [
        "player 0 shows T C 9 S 8 H 7 D 6 C, which is 5",
        "player 1 shows T D 9 S 8 H 7 D 6 C, which is 5",
        "player 2 shows K S 4 H 4 H 4 H 4 H, which is 0",
        "declare winner",
        "pot 0 is shared by 2 players",
        "player 1 gets 7 chips",
        "player 0 gets 8 chips",  # the odd chip: the dealer, counting from the dealer
        "pot 1 is shared by 2 players",
        "player 1 gets 4 chips",
        "player 0 gets 5 chips",
    ]


def test_issue24_game_over_once_at_the_end_of_the_game() -> None:
    """Server::start_game broadcasts ``game over`` once, after the last hand (the client exits
    on it); a hand ends with its payout."""
    state = HoldemState(2, random.Random(4), rules="ppca", narrate=True, chips=[30, 30], first_dealer=0)
    told = []
    while not state.is_terminal():
        told += narrated(state)
        if state.phase == SHOWING:
            reply(state, "A S K D")
        else:
            play(state, f"raise {request(state).max_raise}" if "raise" in request(state).legal else "call")
    told += narrated(state)
    assert told.count("game over") == 1 and told[-1] == "game over"
    assert told.count("game starts") == state.hand_no >= 1


@pytest.mark.parametrize(
    ("answer", "referee_reply", "folded"),
    [
        # Game::get_bet_from: the first word, then ``iss >> bet`` for ``bet``.
        ("check", "check", None),
        ("fold", "fold", None),
        ("check now please", "check", None),
        ("  fold\r", "fold", None),
        ("bet 10", "call", None),  # the amount to call
        ("bet 25", "raise 15", None),
        ("bet 10abc", "call", None),  # istream stops at the first non-digit
        ("bet +10", "call", None),
        ("bet x", "fold-below", None),  # no digits: 0, below the call
        ("bet", None, "without an amount"),  # never read: undefined on the server, folded here
        ("bet -2", "check", None),  # the server's code for a check
        ("bet -1", None, "negative"),
        ("bet 99999999999", "raise 2147483637", None),  # clamped to INT_MAX
        ("bet 4", None, "less than the 10"),
        ("raise 5", None, "anything but check, fold or bet"),
        ("call", None, "anything but check, fold or bet"),
        ("Check", None, "anything but check, fold or bet"),
        ("", None, "anything but check, fold or bet"),
    ],
)
def test_issue24_answers_read_as_the_server_reads_them(
    answer: str, referee_reply: str | None, folded: str | None
) -> None:
    """The dialect's reading of an answer to ``action`` (protocol.holdem_ppca.decode_action)
    follows Game::get_bet_from and the start of Game::bet, facing 10 to call."""
    from protocol import holdem_ppca as ppca

    legal = [b"fold", b"call", b"raise"]
    if referee_reply == "fold-below":
        referee_reply, folded = None, "less than the 10"
    if folded is None:
        assert ppca.decode_action(answer.encode(), 10, legal) == referee_reply.encode()
    else:
        with pytest.raises(ppca.Folded, match=folded):
            ppca.decode_action(answer.encode(), 10, legal)


@pytest.mark.parametrize(
    ("answer", "chars"),
    [
        # Game::showdown: five times ``iss >> rank >> suit``, chars after white space.
        ("A S K D Q H J C T S", "ASKDQHJCTS"),
        ("AS KD QH JC TS", "ASKDQHJCTS"),
        ("ASKDQHJCTS", "ASKDQHJCTS"),
        ("A S K D", "ASKDKDKDKD"),  # the variables keep what they last held
        ("A S K", "ASKSKSKSKS"),
        ("a s k d q h j c t s extra", "askdqhjcts"),  # as received: lower case is no card
        ("", "??????????"),  # nothing read: ours is ``?`` (the server's was uninitialised)
    ],
)
def test_issue24_showdown_answers_read_char_by_char(answer: str, chars: str) -> None:
    from protocol import holdem_ppca as ppca

    assert ppca.show_chars(answer.encode()) == chars.encode()


# Whole hands of the original server, worked out by hand from server/Game.h (bet_loop's
# turn order and end, bet, check, fold, the pot loop, showdown, declare_winner): the
# players' answers in turn, each as the dialect reads it; the pots paid (amount, then
# (seat, chips) in seat order) and the stacks after the hand.
REPLAYED_HANDS = [
    pytest.param(
        # Heads-up: seat 1 (left of the dealer) posts the small blind and acts first in
        # every round; the dealer's call of 0 preflop is bet 0; the turn's bet folds seat 0;
        # the bet nobody called is a pot of one, its bettor's again.
        2,
        [100, 100],
        0,
        None,
        ["bet 1", "bet 0", "check", "check", "bet 10", "fold"],
        ((4, ((1, 4),)), (10, ((1, 10),))),
        (98, 102),
        id="heads-up-fold-on-the-turn",
    ),
    pytest.param(
        # Three seats, dealer 2: seat 0 small blind, seat 1 big blind, seat 2 first.  Seat 2
        # raises to 6, seat 0 folds, seat 1 calls; the flop's bet 0 and check; seat 1's
        # turn bet of 20 is folded to: per-round pots, the folded small blind in pot 0.
        3,
        [100, 100, 100],
        2,
        None,
        ["bet 6", "fold", "bet 4", "bet 0", "check", "bet 20", "fold"],
        ((3, ((1, 3),)), (10, ((1, 10),)), (20, ((1, 20),))),
        (99, 107, 94),
        id="three-seats-fold-to-a-turn-bet",
    ),
    pytest.param(
        # Dealer 0: seat 1 posts the small blind (1), seat 2 the big blind, short: its one
        # chip, all-in.  Seat 0 calls 1; the small blind's preflop check folds it
        # (Game::check).  Nobody can bet after that; seats 0 and 2 show: the queens beat the
        # ace high shown (the five shown count: seat 0 could have shown a straight).
        3,
        [100, 100, 1],
        0,
        ("ASKS", "2C3D", "QHQD", "7C8C9HJSTH"),
        ["bet 1", "check", "AS KS JS TH 9H", "QH QD JS TH 9H"],
        ((3, ((2, 3),)),),
        (99, 99, 3),
        id="preflop-check-folds-and-a-short-big-blind",
    ),
    pytest.param(
        # Seat 1 all-in for 30 preflop; seat 0 raises anyway (nobody can answer): 30 called,
        # 70 a pot of one.  Seat 0 shows an invalid five and still gets its 70 back; seat 1's
        # valid hand takes the main pot.
        2,
        [100, 30],
        0,
        ("2C7D", "KHKD", "3S4S9CJDQC"),
        ["bet 29", "bet 98", "2C 7D 3S 4S 5S", "KH KD QC JD 9C"],
        ((60, ((1, 60),)), (70, ((0, 70),))),
        (70, 60),
        id="raise-nobody-answers-and-an-invalid-five",
    ),
]


@pytest.mark.parametrize(("n", "chips", "dealer", "cards", "answers", "pots", "stacks"), REPLAYED_HANDS)
def test_issue24_hands_replayed_from_the_servers_rules(
    n, chips, dealer, cards, answers, pots, stacks
) -> None:
    from protocol import holdem_ppca as ppca

    state = table(n, chips=chips, first_dealer=dealer)
    if cards is not None:
        *holes, board = cards
        rig(state, {s: holes[i] for i, s in enumerate(sorted(state.order))}, board)
    for answer in answers:
        if state.phase == SHOWING:
            reply(state, answer)
            continue
        req = request(state)
        try:
            text = ppca.decode_action(answer.encode(), req.to_call, [x.encode() for x in req.legal]).decode()
        except ppca.Folded:
            text = "fold"
        reply(state, text)
    result = last_result(state)
    assert (result.pots, result.stacks) == (pots, stacks)
