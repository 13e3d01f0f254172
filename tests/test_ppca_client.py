"""The PPCA test client (tests/ppca_client.py) parses as the original client does.

The scripts are written by hand from the ORIGINAL server's sending side (zzy7896321/holdem,
server/Game.h ``run``, ``bet_loop``, ``bet``, ``check``, ``fold``, ``showdown``,
``declare_winner``; server/Server.h ``start_game``; server/Session.h ``handle_login``): a
table of three, alice (seat 0) is the client, bob (1) and carol (2) are played by the
script.  The client must finish them with the chip view the server has.  The same scripts
in the referee's old style (issue 24, points A–E) must make it fail where the original
client (client/client.cpp, client/main.cpp) fails, with its message.
"""

from __future__ import annotations

import copy
import re

import pytest
import trio
from ppca_client import (
    BET,
    CHECKED,
    EOF_EXCEPTION,
    EXIT_ABORT,
    EXIT_END,
    EXIT_ERROR,
    EXIT_EXCEPTION,
    IStream,
    PpcaClient,
    State,
    Transcript,
    play,
    scan,
    show_best,
)

Script = list[tuple[str, str]]  # (">" server line | "<" client line, text)

FIVE = [("A", "S"), ("K", "S"), ("Q", "S"), ("J", "D"), ("T", "D")]

# Session.h handle_login: `login NAME_<game_num>_<player_num>`; Server.h start_game: the
# names one a line, `player list end`, `initial chips = N`.
LOGIN: Script = [
    ("<", "login alice"),
    (">", "login alice_0_0"),
    (">", "alice_0_0"),
    (">", "bob_0_1"),
    (">", "carol_0_2"),
    (">", "player list end"),
    (">", "initial chips = 1000"),
]

# Hand 1, carol the dealer: alice posts the small blind, bob the big one; preflop starts at
# carol (Game.h bet_loop: dealer_in_list + 3).  The flop: bob's `bet 0` with nothing bet is
# a check AND a bet of 0 (Game.h bet: `check(player)`, then `broadcast("player %d bets %d")`).
# The turn's pot has pot 1's contributors: Game.h merges it and numbers it pot 1 again.
HAND_1: Script = [
    (">", "game starts"),
    (">", "number of players is 3"),
    (">", "0 1 2"),  # Game.h run: the ids on one line, `oss << ' ' << player`
    (">", "small blind is 1"),
    (">", "dealer is 2"),
    (">", "player 0 blind bet 1"),
    (">", "player 1 blind bet 2"),
    (">", "hole card A S"),
    (">", "hole card K S"),
    (">", "round starts"),
    (">", "player 0 has 999 chips"),
    (">", "player 1 has 998 chips"),
    (">", "player 2 has 1000 chips"),
    (">", "player 2 bets 2"),
    (">", "action"),
    ("<", "bet 1"),  # CALL
    (">", "player 0 bets 1"),
    (">", "player 1 bets 0"),
    (">", "pot 0 has 6 chips contributed by 0 1 2"),
    (">", "round ends"),
    (">", "flop card 2 H"),
    (">", "flop card J D"),
    (">", "flop card 9 C"),
    (">", "round starts"),
    (">", "player 0 has 998 chips"),
    (">", "player 1 has 998 chips"),
    (">", "player 2 has 998 chips"),
    (">", "action"),
    ("<", "check"),  # CHECK
    (">", "player 0 checks"),
    (">", "player 1 checks"),
    (">", "player 1 bets 0"),
    (">", "player 2 bets 50"),
    (">", "action"),
    ("<", "bet 150"),  # RAISE 100
    (">", "player 0 bets 150"),
    (">", "player 1 folds"),
    (">", "player 2 bets 100"),
    (">", "pot 1 has 300 chips contributed by 0 2"),  # only the round's new level
    (">", "round ends"),
    (">", "turn card Q S"),
    (">", "round starts"),
    (">", "player 0 has 848 chips"),
    (">", "player 1 has 998 chips"),  # folded, still listed (every id of player_list)
    (">", "player 2 has 848 chips"),
    (">", "action"),
    ("<", "bet 100"),  # RAISE 100
    (">", "player 0 bets 100"),
    (">", "player 2 bets 100"),
    (">", "pot 1 has 200 chips contributed by 0 2"),  # merged into pot 1: the new slice's chips
    (">", "round ends"),
    (">", "river card T D"),
    (">", "round starts"),
    (">", "player 0 has 748 chips"),
    (">", "player 1 has 998 chips"),
    (">", "player 2 has 748 chips"),
    (">", "action"),
    ("<", "check"),  # CHECK
    (">", "player 0 checks"),
    (">", "player 2 checks"),
    (">", "round ends"),
    (">", "start showdown"),
    (">", "showdown"),
    ("<", "A S K S Q S J D T D "),  # client.cpp showdown_loop: `oss << r << ' ' << s << ' '`
    # Game.h showdown: best first, `, which is <HAND_STRING index>`
    (">", "player 0 shows A S K S Q S J D T D, which is 5"),
    (">", "player 2 shows 9 D 9 H 9 C Q S J D, which is 4"),
    (">", "declare winner"),
    (">", "pot 0 is shared by 1 players"),
    (">", "player 0 gets 6 chips"),
    (">", "pot 1 is shared by 1 players"),
    (">", "player 0 gets 500 chips"),
]
HAND_1_DECISIONS = [("CALL", 0), ("CHECK", 0), ("RAISE", 100), ("RAISE", 100), ("CHECK", 0)]

# Hand 2, alice the dealer: alice raises, both fold.  Game.h bet_loop's pots: one per
# contribution level; alice's uncalled 20 is a pot of her own, paid back in
# declare_winner like any other.
HAND_2: Script = [
    (">", "game starts"),
    (">", "number of players is 3"),
    (">", "0 1 2"),
    (">", "small blind is 1"),
    (">", "dealer is 0"),
    (">", "player 1 blind bet 1"),
    (">", "player 2 blind bet 2"),
    (">", "hole card 7 D"),
    (">", "hole card 2 C"),
    (">", "round starts"),
    (">", "player 0 has 1254 chips"),
    (">", "player 1 has 997 chips"),
    (">", "player 2 has 746 chips"),
    (">", "action"),
    ("<", "bet 22"),  # RAISE 20
    (">", "player 0 bets 22"),
    (">", "player 1 folds"),
    (">", "player 2 folds"),
    (">", "pot 0 has 3 chips contributed by 0 1 2"),
    (">", "pot 1 has 2 chips contributed by 0 2"),
    (">", "pot 2 has 20 chips contributed by 0"),
    (">", "round ends"),
    (">", "declare winner"),  # no flop: all but one folded
    (">", "pot 0 is shared by 1 players"),
    (">", "player 0 gets 3 chips"),
    (">", "pot 1 is shared by 1 players"),
    (">", "player 0 gets 2 chips"),
    (">", "pot 2 is shared by 1 players"),
    (">", "player 0 gets 20 chips"),
]
HAND_2_DECISIONS = [("RAISE", 20)]

# Hand 3's start, bob the dealer: carol posts the small blind, alice the big one.
HAND_3_START: Script = [
    (">", "game starts"),
    (">", "number of players is 3"),
    (">", "0 1 2"),
    (">", "small blind is 1"),
    (">", "dealer is 1"),
    (">", "player 2 blind bet 1"),
    (">", "player 0 blind bet 2"),
    (">", "hole card 3 C"),
    (">", "hole card 3 H"),
    (">", "round starts"),
    (">", "player 0 has 1255 chips"),
    (">", "player 1 has 997 chips"),
    (">", "player 2 has 745 chips"),
]

#: Server.h start_game: `game over` once, after the game's last hand (here the second).
GAME: Script = [*LOGIN, *HAND_1, *HAND_2, (">", "game over")]
DECISIONS = HAND_1_DECISIONS + HAND_2_DECISIONS


def run(
    script: Script, decisions: list[tuple[str, int]] = DECISIONS, **options
) -> tuple[Transcript, list[str], int]:
    """Feed the script's server lines to the client (then the end of the connection).

    Returns its transcript, the lines it sent, and how many server lines were left unread.
    """
    queue = list(decisions)
    client = PpcaClient("alice", lambda state, round_name: queue.pop(0), show=lambda st: FIVE, **options)
    sent = client.start()
    unread = 0
    for way, text in script:
        if way == ">":
            if client.done:
                unread += 1
            else:
                sent += client.feed(text)
    client.eof()
    return client.transcript(), sent, unread


def replies(script: Script) -> list[str]:
    return [text for way, text in script if way == "<"]


def edit(script: Script, old: str, new: list[str], nth: int = 0) -> Script:
    """The script with the ``nth`` server line ``old`` replaced by the lines ``new``."""
    hits = [i for i, (way, text) in enumerate(script) if way == ">" and text == old]
    i = hits[nth]
    return [*script[:i], *((">", line) for line in new), *script[i + 1 :]]


def test_a_game_as_the_original_server_sends_it_is_played_to_the_end() -> None:
    # client.cpp Client::loop, main.cpp: `game over` -> LOOP_END -> exit 0.
    t, sent, unread = run(GAME)
    assert t.clean, t.why()
    assert (t.exit_status, t.errors, t.warnings, unread) == (EXIT_END, [], [], 0)
    assert sent == replies(GAME)
    assert t.name == "alice_0_0" and t.state.my_id == 0 and t.hands == 2
    assert t.final_chips == [1257, 997, 746]  # the server's chips after hand 2
    # receive_winner: won_chips per pot, all_chips_won_in_last_game net of contributions
    assert t.state.won_chips == [[(0, 3)], [(0, 2)], [(0, 20)]]
    assert t.state.all_chips_won_in_last_game == [3, -1, -2]
    # Sent: only `check`, `fold`, `bet N` and the five cards (issue 24, point F).
    assert all(re.fullmatch(r"check|fold|bet [0-9]+|(?:[2-9TJQKA] [SHDC] ){5}", line) for line in t.sent[1:])


def test_the_state_the_player_sees() -> None:
    """Client::bet_loop's bookkeeping as the player's Query reads it at each decision."""
    seen: list[tuple[str, State]] = []
    queue = list(DECISIONS)

    def decide(state: State, round_name: str) -> tuple[str, int]:
        seen.append((round_name, copy.deepcopy(state)))
        return queue.pop(0)

    client = PpcaClient("alice", decide, show=lambda st: FIVE)
    client.start()
    for way, text in GAME:
        if way == ">":
            client.feed(text)
    assert client.transcript().clean
    (r0, pre), (r1, flop1), (r2, flop2), (r3, turn), _, (r5, hand2) = seen
    assert (r0, r1, r2, r3, r5) == ("preflop", "flop", "flop", "turn", "preflop")
    # receive_round_init_msgs: the blinds are bets; blind = the small blind posted
    assert pre.bet_sequence == [(0, 1), (1, 2), (2, 2)] and pre.current_bets == [1, 2, 2]
    assert (pre.blind, pre.last_raise_amount, pre.dealer, pre.player_list) == (1, 0, 2, [0, 1, 2])
    assert pre.hole_cards == [("A", "S"), ("K", "S")] and not pre.out_of_game
    # a new round: current bets and bet_sequence cleared, not the folded status
    assert flop1.bet_sequence == [] and flop1.current_bets == [0, 0, 0] and flop1.chips == [998] * 3
    assert [(p.chips, p.contributors) for p in flop1.pots] == [(2, [0, 1, 2])]
    # `player 1 checks` + `player 1 bets 0`: checked, then a bet of 0 (status BET)
    assert flop2.bet_sequence == [(1, 0), (2, 50)] and flop2.player_status[1] == BET
    assert flop2.player_status[0] == CHECKED and flop2.last_raise_amount == 50
    assert [(p.chips, p.contributors) for p in turn.pots] == [(2, [0, 1, 2]), (150, [0, 2])]
    assert turn.player_status[1] == "FOLDED" and turn.community_cards[-1] == ("Q", "S")
    # hand 2 (the blinds were posted); the last hand's shows and wins are still
    # there (clear_single_game_stat runs after the betting rounds)
    assert hand2.chips == [1254, 997, 746] and hand2.pots == [] and hand2.round == 2
    assert [h.player for h in hand2.hands] == [0, 2] and hand2.won_chips == [[(0, 6)], [(0, 500)]]


def test_the_pot_merged_by_the_server_is_merged_and_the_shows_are_recorded() -> None:
    # client.cpp bet_loop: `pot_id + 1 == pots.size()` merges; showdown_loop's sscanf
    t, _, _ = run([*LOGIN, *HAND_1, (">", "game over")], HAND_1_DECISIONS)
    assert t.clean, t.why()
    assert [(p.chips, p.contributors, p.amount()) for p in t.state.pots] == [
        (2, [0, 1, 2], 6),
        (250, [0, 2], 500),
    ]
    assert [(h.player, h.kind, h.hand[0]) for h in t.state.hands] == [(0, 5, ("A", "S")), (2, 4, ("9", "D"))]
    assert t.final_chips == [1254, 998, 748]


def test_an_invalid_five_is_shown_with_kind_0() -> None:
    # Game.h showdown prints an invalid five as received, `, which is 0` (HAND_INVALID)
    script = edit(
        [*LOGIN, *HAND_1, (">", "game over")],
        "player 2 shows 9 D 9 H 9 C Q S J D, which is 4",
        ["player 2 shows 9 D 9 H 9 C Q S Q S, which is 0"],
    )
    t, _, _ = run(script, HAND_1_DECISIONS)
    assert t.clean, t.why()
    assert [(h.player, h.kind) for h in t.state.hands] == [(0, 5), (2, 0)]


def test_lines_the_showdown_loop_ignores() -> None:
    # client.cpp showdown_loop: an empty line, an `s…`/`d…` line other than `showdown` /
    # `declare winner`, and a line starting with another letter are skipped.
    extra = ["", "starting", "done", "x y z", "start showdown"]
    t, _, _ = run(edit(GAME, "declare winner", [*extra, "declare winner"]))
    assert t.clean, t.why()


def test_the_default_player_shows_its_best_five() -> None:
    # Player::showdown (ours): the best five of the seven
    state = State(hole_cards=[("A", "S"), ("K", "S")])
    state.community_cards = [("2", "H"), ("J", "D"), ("9", "C"), ("Q", "S"), ("T", "D")]
    assert sorted(show_best(state)) == sorted(FIVE)


# --------------------------------------------------------------------------- the referee's old style


def test_a_participants_one_per_line() -> None:
    """Issue 24 A.  client.cpp receive_round_init_msgs: `iss >> player_list[i]` reads the ids
    from ONE line; the next line is taken for `small blind is %d` (an error that does not
    return), the one after for `dealer is %d` (an error that does)."""
    t, sent, unread = run(edit(GAME, "0 1 2", ["0", "1", "2"]))
    assert t.exit_status == EXIT_ERROR
    assert t.errors == [
        (10, "[ERROR] unexpected message, expecting the amount of small blind."),
        (11, "[ERROR] unexpected message, expecting dealer."),
    ]
    assert t.received[9:11] == ["1", "2"]
    assert sent == ["login alice"] and unread > 0


def test_a_participants_one_per_line_heads_up() -> None:
    """Issue 24 A with two players: the dealer line is read where the small blind is."""
    script = edit(edit(GAME, "0 1 2", ["0", "1"]), "number of players is 3", ["number of players is 2"])
    t, _, _ = run(script)
    assert t.error_texts == [
        "[ERROR] unexpected message, expecting the amount of small blind.",
        "[ERROR] unexpected message, expecting dealer.",
    ]
    assert t.received[t.errors[1][0] - 1] == "small blind is 1"


def test_b_game_over_after_every_hand_ends_the_client() -> None:
    """Issue 24 B.  client.cpp Client::loop: `game over` -> LOOP_END; main.cpp returns 0.
    The client leaves after hand 1, whatever follows."""
    script = [*LOGIN, *HAND_1, (">", "game over"), *HAND_2, (">", "game over")]
    t, sent, unread = run(script)
    assert t.exit_status == EXIT_END and t.errors == []
    assert t.hands == 1 and t.final_chips == [1254, 998, 748]
    assert unread == sum(1 for way, _ in HAND_2 if way == ">") + 1
    assert sent == replies([*LOGIN, *HAND_1])


@pytest.mark.parametrize(
    "line",
    [
        "player 2 shows 9 D 9 H 9 C Q S J D which is three of a kind",
        "player 2 shows 9 D 9 H 9 C Q S J D, which is three of a kind",
        "player 2 shows nothing valid",
    ],
)
def test_c_showdown_lines_without_the_comma_and_number(line: str) -> None:
    """Issue 24 C.  client.cpp showdown_loop: `sscanf(msg, "player %d shows %c … %c, which
    is %d")` must assign 12 values."""
    t, _, _ = run(edit(GAME, "player 2 shows 9 D 9 H 9 C Q S J D, which is 4", [line]))
    assert t.exit_status == EXIT_ERROR
    assert t.errors == [
        (t.received.index(line) + 1, "[ERROR] unexpected message, expecting player's showdown")
    ]


def test_d_pots_resent_from_pot_0() -> None:
    """Issue 24 D.  client.cpp bet_loop: a `pot 0` line when the client holds two pots is a
    new pot (only `pot_id + 1 == pots.size()` merges); receive_winner then wants six pots."""
    script = edit(
        GAME,
        "pot 1 has 300 chips contributed by 0 2",
        ["pot 0 has 6 chips contributed by 0 1 2", "pot 1 has 300 chips contributed by 0 2"],
    )
    resent = ["pot 0 has 6 chips contributed by 0 1 2", "pot 1 has 500 chips contributed by 0 2"]
    script = edit(script, "pot 1 has 200 chips contributed by 0 2", resent)
    script = edit(script, "round ends", [*resent, "round ends"], nth=3)  # the river's
    t, _, _ = run(script)
    assert t.exit_status == EXIT_ERROR
    assert t.error_texts == ["[ERROR] unexpected message, expecting winner of pot 2"]
    assert t.received[t.errors[0][0] - 1] == "game starts"  # hand 2 read as pot 2's winner
    assert len(t.state.pots) == 6


def test_d_a_pot_beyond_the_next_is_an_error() -> None:
    # client.cpp bet_loop: `(size_t) pot_id > pots.size()`
    t, _, _ = run(
        edit(GAME, "pot 1 has 300 chips contributed by 0 2", ["pot 2 has 300 chips contributed by 0 2"])
    )
    assert t.error_texts == ["[ERROR] unexpected message, pot_id > pot.size()"]


def test_d_the_last_pot_renumbered_must_merge() -> None:
    # client.cpp bet_loop / pot.h Pot::merge: other contributors cannot be merged
    t, _, _ = run(
        edit(GAME, "pot 1 has 200 chips contributed by 0 2", ["pot 1 has 300 chips contributed by 0 1 2"])
    )
    assert t.error_texts == ["[ERROR] the pots should be able to be merged"]


def test_e_an_uncalled_bet_returned_silently_fires_the_chip_assertion() -> None:
    """Issue 24 E.  Without `pot 2 has 20 chips contributed by 0` and its payout the client
    never gets its 20 back: at hand 3's `player 0 has 1255 chips` client.cpp bet_loop's
    `assert(chips[player_id] == num_chips)` fires (1235 != 1255) and the process aborts."""
    silent = [line for line in HAND_2 if line[1] != "pot 2 has 20 chips contributed by 0"]
    silent = silent[:-2]  # nor `pot 2 is shared by 1 players` / `player 0 gets 20 chips`
    script = [*LOGIN, *HAND_1, *silent, *HAND_3_START, (">", "action"), ("<", "bet 0")]
    t, _, _ = run(script, [*DECISIONS, ("CALL", 0)])
    assert t.exit_status == EXIT_ABORT
    assert t.errors == [
        (
            len(t.received),
            "client: client.cpp: Client::bet_loop: Assertion `chips[player_id] == num_chips' failed.",
        )
    ]
    assert t.received[-1] == "player 0 has 1255 chips" and t.final_chips[0] == 1235
    # The release build (-DNDEBUG) goes on with its count 20 chips short.
    t, _, _ = run(script, [*DECISIONS, ("CALL", 0)], asserts=False)
    assert t.final_chips == [1235, 997, 745]
    assert (t.exit_status, t.error_texts) == (EXIT_EXCEPTION, [EOF_EXCEPTION])
    # With the server's own lines the assertion holds.
    t, _, _ = run([*LOGIN, *HAND_1, *HAND_2, *HAND_3_START, (">", "action")], [*DECISIONS, ("CALL", 0)])
    assert t.final_chips == [1255, 997, 745] and t.error_texts == [EOF_EXCEPTION]


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ("login alice_0_0", "welcome alice_0_0", "[ERROR] login is not confirmed"),
        ("initial chips = 1000", "initial chips: 1000", "[ERROR] unexpected message, expecting initial chips"),
        ("game starts", "game begins", '[ERROR] unexpected message, expecting "game starts", or "game over".'),
        ("number of players is 3", "players 3", "[ERROR] unexpected message, expecting participants."),
        ("player 1 blind bet 2", "player 1 bets 2", "[ERROR] unexpected message, expecting big blind."),
        ("hole card K S", "hole card", "[ERROR] unexcepted message, expecting hole card 2."),
        ("flop card J D", "flop cards J D", "[ERROR] unexpected message, expecting flop card."),
        ("turn card Q S", "turn starts", "[ERROR] unexpected message, expecting turn card."),
        ("turn card Q S", "the turn card Q S", "[ERROR] unexpected message, expecting round starts"),
        ("player 2 has 998 chips", "player 2 has chips", "[ERROR] unexpected message, expecting player's number of chips"),
        ("player 2 bets 50", "player 7 bets 50", "[ERROR] unexpected message, player id 7 is out of range"),
        ("player 2 bets 50", "player 2 raises 50", "[ERROR] unexpected message, unknown action raises"),
        ("player 2 bets 50", "player 2 calls", "[ERROR] unexpected message, unknown action calls"),
        ("player 2 bets 50", "player 2 bets all", "[ERROR] unexpected message, bet amount 0 < 0"),
        ("player 2 bets 50", "player 2", "[ERROR] unexpected message, action not found"),
        ("player 2 bets 50", "carol bets 50", "[ERROR] unexpected message, expecting players' bets"),
        ("player 2 bets 50", "", "[ERROR] unexpected message, expecting players' bets or pot summary"),
        ("pot 1 has 300 chips contributed by 0 2", "pot 1 has 300 chips contributed by", "[ERROR] unexpected message, expecting contributor list"),
        ("pot 1 has 300 chips contributed by 0 2", "pot 1 holds 300 chips", "[ERROR] unexpected message, expecting 'has'"),
        ("pot 1 has 300 chips contributed by 0 2", "pot 1 has 300 chips from 0 2", "[ERROR] unexpected message, expecting 'chips contributed by'"),
        ("start showdown", "showdown starts", "[ERROR] unexpected message, expecting start showdown"),
        ("pot 1 is shared by 1 players", "pot 0 is shared by 1 players", "[ERROR] unexpected message, expecting winner of pot 1"),
        ("player 0 gets 500 chips", "player 0 wins 500 chips", "[ERROR] unexpected messag,e expecting winner of pot 1"),
    ],
)  # fmt: skip
def test_each_error_of_the_original(old: str, new: str, error: str) -> None:
    # client.cpp: each ERR_OUTPUT of Client::Client, loop, receive_round_init_msgs,
    # bet_loop, showdown_loop, receive_winner, at the line that makes it
    script = edit(GAME, old, [new])
    t, _, _ = run(script)
    if error == "[ERROR] login is not confirmed" or "initial chips" in error:
        assert t.error_texts == [error, "[ERROR] Unable to initialize the client."]  # main.cpp
    else:
        assert t.error_texts == [error]
    assert t.exit_status == EXIT_ERROR
    assert t.received[t.errors[0][0] - 1] == new


def test_prefix_matches_and_lines_the_original_lets_through() -> None:
    # client.cpp Client::receive(int, fmt): vsscanf succeeds on a prefix; `iss >> int` on
    # the ids reads the first ids of the line; `player 1 checks` alone, a `\r` after a
    # number read with %d
    script = edit(GAME, "small blind is 1", ["small blind is 1 chip"])
    script = edit(script, "0 1 2", ["0 1 2 3"])
    script = edit(script, "player 1 has 998 chips", ["player 1 has 998 chips\r"], nth=1)
    script = edit(script, "player 1 bets 0", [], nth=1)  # the check without its bet 0
    t, _, _ = run(script)
    assert t.clean, t.why()
    # ... but not a `\r` where the whole line is compared
    t, _, _ = run(edit(GAME, "round ends", ["round ends\r"]))
    assert t.error_texts == ["[ERROR] unexpected message, expecting pot summary"]


def test_the_end_of_the_connection_is_an_exception() -> None:
    # IO.h receive: boost::asio::read_until throws at EOF; main.cpp prints it, returns -1
    t, _, _ = run(GAME[:20])
    assert (t.exit_status, t.error_texts) == (EXIT_EXCEPTION, [EOF_EXCEPTION])


def test_login_with_a_player_id() -> None:
    # client.cpp Client::Client: `login NAME_ID` with main's third argument; the id is
    # the index of the confirmed name in the list (receive_names)
    client = PpcaClient("alice", player_id="7")
    assert client.start() == ["login alice_7"]
    for line in ["login alice_7_0_1", "bob_0_0", "alice_7_0_1", "player list end", "initial chips = 5"]:
        client.feed(line)
    assert (client.state.my_id, client.state.chips) == (1, [5, 5])


def test_out_of_game_gets_no_hole_cards() -> None:
    # client.cpp receive_round_init_msgs: `if (!out_of_game)` the hole cards are read.
    # Game.h run: heads-up bob (dealer) and carol; carol folds, her uncalled 1 comes back.
    script = [
        *LOGIN,
        *((">", line) for line in [
            "game starts", "number of players is 2", "1 2", "small blind is 1", "dealer is 1",
            "player 2 blind bet 1", "player 1 blind bet 2", "round starts",
            "player 1 has 998 chips", "player 2 has 999 chips", "player 2 folds",
            "pot 0 has 2 chips contributed by 1 2", "pot 1 has 1 chips contributed by 1", "round ends",
            "declare winner", "pot 0 is shared by 1 players", "player 1 gets 2 chips",
            "pot 1 is shared by 1 players", "player 1 gets 1 chips", "game over",
        ]),
    ]  # fmt: skip
    t, sent, _ = run(script, [])
    assert t.clean, t.why()
    assert t.state.out_of_game and sent == ["login alice"]
    assert t.final_chips == [1000, 1001, 999]


async def _server(listener: trio.SocketListener, script: Script, got: list[str]) -> None:
    """Send the script's ``>`` lines; at each ``<`` read one line of the client's into ``got``."""
    stream = await listener.accept()
    async with stream:
        buffer = b""
        for way, text in script:
            if way == ">":
                await stream.send_all(text.encode() + b"\n")
                continue
            while b"\n" not in buffer:
                data = await stream.receive_some(4096)
                if not data:
                    return
                buffer += data
            line, _, buffer = buffer.partition(b"\n")
            got.append(line.decode())


async def test_play_over_tcp() -> None:
    """play(): the same client on a connection; it leaves on `game over` (main.cpp)."""
    got: list[str] = []
    queue = list(DECISIONS)
    with trio.fail_after(30):
        (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listener.socket.getsockname()[1]
        async with listener, trio.open_nursery() as nursery:
            nursery.start_soon(_server, listener, GAME, got)
            t = await play("127.0.0.1", port, "alice", lambda st, r: queue.pop(0), show=lambda st: FIVE)
    assert t.clean, t.why()
    assert got == t.sent == replies(GAME)
    assert t.final_chips == [1257, 997, 746]


# --------------------------------------------------------------------------- Client::decide


def _decider(
    current_bets: list[int], chips: list[int], bet_sequence: list[tuple[int, int]], last_raise: int
) -> PpcaClient:
    client = PpcaClient("alice")
    st = client.state
    st.my_id, st.current_bets, st.chips = 0, current_bets, chips
    st.bet_sequence, st.last_raise_amount = bet_sequence, last_raise
    return client


@pytest.mark.parametrize(
    ("decision", "bets", "chips", "sequence", "last_raise", "sent", "warned"),
    [
        (("CHECK", 0), [0, 0], [100, 100], [], 0, "check", False),
        (("CHECK", 0), [0, 10], [100, 90], [(1, 10)], 10, "check", True),  # sent as is
        (("FOLD", 0), [0, 10], [100, 90], [(1, 10)], 10, "fold", False),
        (("CALL", 0), [0, 0], [100, 100], [], 0, "check", True),
        (("CALL", 0), [0, 10], [100, 90], [(1, 10)], 10, "bet 10", False),
        (("CALL", 0), [0, 50], [30, 50], [(1, 50)], 50, "bet 30", False),  # all in
        (("CALL", 0), [2, 2], [98, 98], [(1, 1), (0, 2), (1, 1)], 0, "bet 0", False),  # bb's call 0
        (("RAISE", 0), [0, 0], [100, 100], [], 0, "check", True),
        (("RAISE", -5), [0, 10], [100, 90], [(1, 10)], 10, "bet 10", True),
        (("RAISE", 5), [0, 10], [100, 90], [(1, 10)], 10, "bet 10", True),  # below the last raise
        (("RAISE", 5), [0, 0], [100, 100], [(1, 0)], 10, "bet 0", True),  # after a bet of 0
        (("RAISE", 5), [0, 0], [100, 100], [], 10, "check", True),
        (("RAISE", 10), [0, 10], [100, 90], [(1, 10)], 10, "bet 20", False),
        (("RAISE", 500), [0, 10], [100, 90], [(1, 10)], 10, "bet 100", False),  # all in
        (("RAISE", 5), [0, 10], [15, 90], [(1, 10)], 10, "bet 15", False),  # exactly all in
    ],
)
def test_decide(decision, bets, chips, sequence, last_raise, sent, warned) -> None:
    # client.cpp Client::decide
    client = _decider(bets, chips, sequence, last_raise)
    client.decide(decision, "flop")
    assert client.outbox == [sent]
    assert bool(client.warnings) == warned, client.warnings


def test_the_c_library_readings() -> None:
    # sscanf (Client::receive(int, fmt), showdown_loop) and istringstream (bet_loop)
    assert scan("small blind is %d", "small blind is 5 chips") == (1, [5])
    assert scan("small blind is %d", "1") == (0, [])
    assert scan("small blind is %d", "") == (-1, [])
    assert scan("hole card %c %c", "hole card AS") == (2, ["A", "S"])
    five = "player %d shows %c %c %c %c %c %c %c %c %c %c, which is %d"
    assert scan(five, "player 3 shows 7 D 8 S T C 7 S A D, which is 2")[0] == 12
    assert scan(five, "player 3 shows 7 D 8 S T C 7 S A D, which is high card")[0] == 11
    assert scan(five, "player 3 shows nothing valid")[0] == 11
    iss = IStream("0 x")
    assert (iss.int(9), iss.ok) == (0, True)
    assert (iss.int(9), iss.ok) == (0, False)  # not a number: 0
    assert (iss.int(9), iss.ok) == (9, False)  # failed already: unchanged
    iss = IStream("7  ")
    assert (iss.int(), iss.int(4), iss.ok) == (7, 4, False)  # only spaces left: unchanged
