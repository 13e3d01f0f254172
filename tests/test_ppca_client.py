"""The PPCA test client (tests/ppca_client.py) against a scripted fake server.

The script is one heads-up hand written by hand from docs/remote.md ("The PPCA dialect"):
alice (seat 0, our client) and bob (seat 1, played by the script), bob the dealer, so
alice posts the small blind and acts first in every round (the seed's quirk 1); bob's
preflop option is the big blind's "call 0" (``bet 0``).  A corrupted copy of the script
must make the client raise ProtocolViolation at the corrupted line.
"""

from __future__ import annotations

import copy

import pytest
import trio
from ppca_client import ProtocolViolation, State, Transcript, play

FIVE = "<five>"  # the client's showdown reply: checked as a set of cards

HEADER = [
    ("<", "login alice"),
    (">", "login alice_0_0"),
    (">", "alice_0_0"),
    (">", "bob_0_1"),
    (">", "player list end"),
    (">", "initial chips = 1000"),
    (">", "game starts"),
    (">", "number of players is 2"),
    (">", "0"),
    (">", "1"),
    (">", "small blind is 1"),
    (">", "dealer is 1"),
    (">", "player 0 blind bet 1"),
    (">", "player 1 blind bet 2"),
    (">", "hole card A S"),
    (">", "hole card K S"),
    (">", "round starts"),
    (">", "player 0 has 999 chips"),
    (">", "player 1 has 998 chips"),
    (">", "action"),
    ("<", "bet 1"),  # alice calls 1
    (">", "player 0 bets 1"),
    (">", "player 1 bets 0"),  # bob, the big blind, calls 0
    (">", "pot 0 has 4 chips contributed by 0 1"),
    (">", "round ends"),
    (">", "flop card 2 H"),
    (">", "flop card J D"),
    (">", "flop card 9 C"),
    (">", "round starts"),
    (">", "player 0 has 998 chips"),
    (">", "player 1 has 998 chips"),
    (">", "action"),
    ("<", "check"),
    (">", "player 0 checks"),
    (">", "player 1 bets 10"),
    (">", "action"),
]

SHOWDOWN_HAND = [
    *HEADER,
    ("<", "bet 10"),  # alice calls 10
    (">", "player 0 bets 10"),
    (">", "pot 0 has 4 chips contributed by 0 1"),
    (">", "pot 1 has 20 chips contributed by 1 0"),
    (">", "round ends"),
    (">", "turn card Q S"),
    (">", "round starts"),
    (">", "player 1 has 988 chips"),
    (">", "player 0 has 988 chips"),
    (">", "action"),
    ("<", "check"),
    (">", "player 0 checks"),
    (">", "player 1 checks"),
    (">", "pot 0 has 4 chips contributed by 0 1"),
    (">", "pot 1 has 20 chips contributed by 0 1"),
    (">", "round ends"),
    (">", "river card T D"),
    (">", "round starts"),
    (">", "player 0 has 988 chips"),
    (">", "player 1 has 988 chips"),
    (">", "action"),
    ("<", "check"),
    (">", "player 0 checks"),
    (">", "player 1 checks"),
    (">", "pot 0 has 4 chips contributed by 0 1"),
    (">", "pot 1 has 20 chips contributed by 0 1"),
    (">", "round ends"),
    (">", "start showdown"),
    (">", "showdown"),
    ("<", FIVE),
    (">", "player 0 shows A S K S Q S J D T D which is straight"),
    (">", "player 1 shows 9 D 9 H 9 C Q S J D which is three of a kind"),
    (">", "declare winner"),
    (">", "pot 0 is shared by 1 players"),
    (">", "player 0 gets 4 chips"),
    (">", "pot 1 is shared by 1 players"),
    (">", "player 0 gets 20 chips"),
    (">", "game over"),
]

# Alice's third action is `check` facing bob's 10 (bad_reply_at=3): the server folds her.
# Bob's uncalled 10 goes back; the flop made no pot, and this server lists only the new
# pots of each round (the other reading the client accepts), so the flop lists none.
FOLDED_HAND = [
    *HEADER,
    ("<", "check"),
    (">", "player 0 folds"),
    (">", "round ends"),
    (">", "declare winner"),
    (">", "pot 0 is shared by 1 players"),
    (">", "player 1 gets 4 chips"),
    (">", "game over"),
]


async def _server(listener: trio.SocketListener, script: list[tuple[str, str]], got: list[str]) -> None:
    """Send the script's ``>`` lines; at each ``<`` read one line of the client's into ``got``."""
    stream = await listener.accept()
    async with stream:
        buffer = b""
        for way, text in script:
            try:
                if way == ">":
                    await stream.send_all(text.encode() + b"\n")
                    continue
                while b"\n" not in buffer:
                    data = await stream.receive_some(4096)
                    if not data:
                        return
                    buffer += data
            except trio.BrokenResourceError:
                return
            line, _, buffer = buffer.partition(b"\n")
            got.append(line.decode())


async def run(script: list[tuple[str, str]], **options) -> tuple[Transcript | ProtocolViolation, list[str]]:
    """Play the script against ``play``; returns its transcript (or violation) and what it sent."""
    got: list[str] = []
    with trio.fail_after(2):
        (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listener.socket.getsockname()[1]
        async with listener, trio.open_nursery() as nursery:
            nursery.start_soon(_server, listener, script, got)
            try:
                result: Transcript | ProtocolViolation = await play(
                    "127.0.0.1", port, "alice", max_hands=1, **options
                )
            except ProtocolViolation as exc:
                result = exc
    return result, got


def expected_replies(script: list[tuple[str, str]]) -> list[str]:
    return [text for way, text in script if way == "<"]


async def test_showdown_hand() -> None:
    result, got = await run(SHOWDOWN_HAND)
    assert isinstance(result, Transcript), result
    five = got.pop(expected_replies(SHOWDOWN_HAND).index(FIVE))
    tokens = five.split(" ")
    assert {f"{r}{s}" for r, s in zip(tokens[0::2], tokens[1::2], strict=True)} == {
        "AS",
        "KS",
        "QS",
        "JD",
        "TD",
    }
    assert got == [r for r in expected_replies(SHOWDOWN_HAND) if r != FIVE]
    assert result.name == "alice_0_0"
    assert result.final_chips == [1012, 988]
    assert result.hands == 1
    assert result.total_corrections == 0
    assert result.sent == [*got, five]
    assert [line for way, line in result.lines if way == "recv"] == [t for w, t in SHOWDOWN_HAND if w == ">"]
    state = result.state
    assert state.names == ["alice_0_0", "bob_0_1"] and state.my_id == 0 and state.initial_chips == 1000
    assert state.hole_cards == [("A", "S"), ("K", "S")] and len(state.community_cards) == 5
    assert [(p.chips, set(p.contributors)) for p in state.pots] == [(4, {0, 1}), (20, {0, 1})]
    assert state.won_chips_in_pots == [[(0, 4)], [(0, 20)]]
    assert state.chips_won_in_last_game == [24, 0]
    assert [(h.player, h.category) for h in state.hands] == [(0, "straight"), (1, "three of a kind")]


async def test_policy_state_and_corrections() -> None:
    seen: list[State] = []

    def policy(state: State) -> tuple[str, int]:
        seen.append(copy.deepcopy(state))
        if state.to_call == 0:
            return ("CALL", 0)  # nothing to call: the stock client checks
        return ("RAISE", 1) if state.round == "preflop" else ("CALL", 0)  # below the minimum: a call

    result, got = await run(SHOWDOWN_HAND, policy=policy)
    assert isinstance(result, Transcript), result
    assert got[:6] == expected_replies(SHOWDOWN_HAND)[:6]
    assert result.corrections == {"raise-below-minimum": 1, "call-to-check": 3}
    preflop, flop_first, flop_facing = seen[:3]
    assert (preflop.to_call, preflop.min_raise, preflop.max_raise) == (1, 2, 998)
    assert preflop.bets == [(0, 1), (1, 2)] and preflop.dealer == 1 and preflop.blind == 1
    assert (flop_first.round, flop_first.to_call, flop_first.chips) == ("flop", 0, [998, 998])
    assert flop_facing.current_bets == [0, 10]
    assert (flop_facing.to_call, flop_facing.can_raise, flop_facing.min_raise, flop_facing.max_raise) == (
        10,
        True,
        10,
        988,
    )


async def test_bad_reply_is_folded() -> None:
    result, got = await run(FOLDED_HAND, bad_reply_at=3)
    assert isinstance(result, Transcript), result
    assert got == expected_replies(FOLDED_HAND)
    assert result.final_chips == [998, 1002]


async def test_disconnect_and_stall() -> None:
    result, got = await run(SHOWDOWN_HAND, disconnect_at=2)
    assert isinstance(result, Transcript) and result.disconnected
    assert got == ["login alice", "bet 1"]  # then EOF: the client closed at its second action
    # Stalled at its third action the client sends nothing more; the server folds it.
    stalled = HEADER + FOLDED_HAND[len(HEADER) + 1 :]
    result, got = await run(stalled, stall_at=3)
    assert isinstance(result, Transcript), result
    assert got == ["login alice", "bet 1", "check"] and result.final_chips == [998, 1002]


def corrupt(script: list[tuple[str, str]], old: str, new: str | None, nth: int = 0) -> list[tuple[str, str]]:
    """The script with the ``nth`` server line ``old`` replaced by ``new`` (None: removed)."""
    hits = [i for i, (way, text) in enumerate(script) if way == ">" and text == old]
    i = hits[nth]
    return script[:i] + ([(">", new)] if new is not None else []) + script[i + 1 :]


GETS_4, GETS_20 = "player 0 gets 4 chips", "player 0 gets 20 chips"
SHOWS_1 = "player 1 shows 9 D 9 H 9 C Q S J D which is three of a kind"
POT_0, POT_1 = "pot 0 has 4 chips contributed by 0 1", "pot 1 has 20 chips contributed by 0 1"

#: (name, edits (old line, new line or None to remove it, which occurrence), reason, the line at fault)
CORRUPTIONS = [
    ("bets by a player not to act", [("player 1 bets 10", "player 0 bets 10", 0)], "is to act", None),
    ("a hole card repeated", [("hole card K S", "hole card A S", 0)], "twice", None),
    ("a card of one token", [("hole card K S", "hole card KS", 0)], "expected 'hole card", None),
    ("a rank that is not one", [("flop card 2 H", "flop card 1 H", 0)], "not a card", None),
    ("a card dealt twice", [("turn card Q S", "turn card K S", 0)], "already dealt", None),
    ("wrong chips behind", [("player 0 has 998 chips", "player 0 has 997 chips", 0)], "chips behind", None),
    ("an unknown line", [("round ends", "round ended", 0)], "expected", None),
    ("a stray carriage return", [("game starts", "game starts\r", 0)], "expected 'game starts'", None),
    ("a wrong pot", [(POT_1, "pot 1 has 22 chips contributed by 0 1", 0)], "pot 1 has 20 chips", None),
    ("a pot skipped", [(POT_0, None, 2)], "pot 0 is due", POT_1),
    ("a pot left out", [(POT_1, None, 0)], "pots left out", "round ends"),
    ("the big blind checks, not calls 0", [("player 1 bets 0", "player 1 checks", 0)], "illegal", None),
    ("a raise below the minimum", [("player 1 bets 10", "player 1 bets 1", 0)], "illegal", None),
    (
        "a wrong category",
        [(SHOWS_1, SHOWS_1.replace("three of a kind", "flush"), 0)],
        "three of a kind",
        None,
    ),
    ("a pot overpaid", [(GETS_4, "player 0 gets 5 chips", 0)], "only 4", None),
    ("the wrong winner", [(GETS_20, "player 1 gets 20 chips", 0)], "goes to [0]", None),
    (
        "a pot unpaid",
        [("pot 1 is shared by 1 players", None, 0), (GETS_20, None, 0)],
        "not paid",
        "game over",
    ),
]


@pytest.mark.parametrize(
    ("edits", "why", "at"), [c[1:] for c in CORRUPTIONS], ids=[c[0] for c in CORRUPTIONS]
)
async def test_violations(edits: list[tuple[str, str | None, int]], why: str, at: str | None) -> None:
    script = SHOWDOWN_HAND
    for old, new, nth in edits:
        script = corrupt(script, old, new, nth)
    result, _ = await run(script)
    assert isinstance(result, ProtocolViolation), result
    assert why in result.why, result
    assert result.line == (at or edits[0][1])
    received = [text for way, text in script if way == ">"]
    assert received[result.line_number - 1] == result.line
    assert result.transcript is not None and result.transcript.received == received[: result.line_number]


async def test_connection_closed_mid_hand() -> None:
    cut = SHOWDOWN_HAND.index((">", "turn card Q S"))
    result, _ = await run(SHOWDOWN_HAND[:cut])
    assert isinstance(result, ProtocolViolation) and "middle of a hand" in result.why
    assert (
        result.line == "" and result.line_number == sum(1 for way, _ in SHOWDOWN_HAND[:cut] if way == ">") + 1
    )
