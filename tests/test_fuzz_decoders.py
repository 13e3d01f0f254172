"""Every registered game's reply decoder against arbitrary input (issue 4).

Whatever line a bot sends, ``state.decode(seat, reply)`` returns an action or raises
:class:`~referee.core.verdict.ProtocolError`, never anything else, and
``state.illegal(seat, action)`` then returns None or a reason string without raising; an
action it calls legal applies without raising.  So the referee turns any reply into a
protocol or illegal verdict (the match layer catches exactly ProtocolError) and never
falls over itself.

The games come from :func:`referee.games.available`, so games added later are covered
without touching this file.  Inputs: random bytes, huge integers written out (past 64
bits and past the 4300-digit int() guard), empty and whitespace lines, any unicode text
as UTF-8, and "near misses": a few tokens drawn from the game's own vocabulary (the
words of its first request line and the string constants of its protocol module) mixed
with numbers, which reach far deeper into a decoder than random bytes do.
"""

from __future__ import annotations

import random
import re
import sys
import types
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from referee import games
from referee.core.verdict import ProtocolError, Verdict
from referee.games import GameState

GAMES = sorted(games.available())
SEED = 0


def fresh_state(name: str) -> tuple[GameState, int]:
    """A new game with the default seat count, and the first seat to act."""
    cls = games.get(name)
    state = cls().new_state(cls.seats.default, random.Random(SEED))
    return state, state.to_act()[0]


def vocabulary(name: str) -> tuple[list[bytes], list[bytes], list[bytes]]:
    """Words the game's replies are made of, found without knowing the game.

    Returns (leaders, keywords, other words).  Leaders: the first word of each line of
    code in its protocol module's docstring (the ``literal`` spans and indented lines,
    where the grammar of every message is written), which is how line-based replies
    start.  Keywords: every word of that code, the tokens of its first request, and its
    short string constants.  Other words: the rest of that docstring's prose.
    """
    state, seat = fresh_state(name)
    keywords = set(state.request(seat).split())
    leaders: set[bytes] = set()
    prose: set[bytes] = set()
    rules = sys.modules[type(state).__module__]
    for value in list(vars(rules).values()):
        if not (isinstance(value, types.ModuleType) and value.__name__.startswith("protocol.")):
            continue
        doc = value.__doc__ or ""
        code = re.findall(r"``(.+?)``", doc) + re.findall(r"^ {4,}(\S.*)$", doc, re.M)
        keywords.update(w.encode() for line in code for w in re.findall(r"[A-Za-z]{2,12}", line))
        leaders.update(m.group().encode() for line in code if (m := re.match(r"[A-Za-z]{2,12}\b", line)))
        prose.update(w.encode() for w in re.findall(r"\b[a-z]{2,12}\b", doc))
        for constant in vars(value).values():
            if isinstance(constant, str) and constant.isascii():
                constant = constant.encode()
            if isinstance(constant, bytes) and 0 < len(constant) <= 24:
                keywords.update(re.split(rb"[\s,]+", constant.strip()))
    keywords.discard(b"")
    return sorted(leaders or keywords), sorted(keywords), sorted(prose - keywords)


def numbers() -> st.SearchStrategy[bytes]:
    """Integers as text: small, 64-bit edges, and thousands of digits."""
    return st.one_of(
        st.integers(-3, 20).map(lambda n: str(n).encode()),
        st.integers(-(2**70), 2**70).map(lambda n: str(n).encode()),
        st.sampled_from([b"0", b"-0", b"00", b"+1", b"1_000", b"0x10", b"1e9", b"9" * 19, b"-" + b"9" * 19]),
        st.tuples(st.sampled_from([b"", b"-", b"+"]), st.text("0123456789", min_size=19, max_size=4500)).map(
            lambda parts: parts[0] + parts[1].encode()
        ),
    )


def replies(name: str) -> st.SearchStrategy[bytes]:
    leaders, keywords, prose = vocabulary(name)
    small = st.integers(-2, 20).map(lambda n: str(n).encode())
    # After a leading word, mostly small numbers: the arguments of most replies.
    token = st.one_of(
        small,
        small,
        small,
        st.sampled_from(keywords),
        numbers(),
        st.sampled_from(prose or keywords),
        st.binary(min_size=1, max_size=4),
    )
    # Mostly single spaces, as a bot would write them; sometimes something odd.
    separator = st.sampled_from([b" "] * 6 + [b"  ", b"\t", b"", b",", b"\r", b"\n"])
    near_miss = st.tuples(
        st.sampled_from(leaders) | st.sampled_from(keywords) | small,
        st.lists(st.tuples(separator, token), max_size=6),
        st.sampled_from([b"", b"", b"", b" ", b"\r", b"\t"]),
    ).map(lambda parts: parts[0] + b"".join(s + t for s, t in parts[1]) + parts[2])
    # Well formed but for the values: a leading word and a few small numbers.
    plausible = st.tuples(st.sampled_from(leaders), st.lists(small, max_size=4)).map(
        lambda parts: b" ".join([parts[0], *parts[1]])
    )
    return st.one_of(
        plausible,
        plausible,
        near_miss,
        near_miss,
        st.binary(max_size=300),
        numbers(),
        st.text(" \t\r\n\x0b\x0c\x00", max_size=12).map(str.encode),
        st.text(max_size=80).map(lambda s: s.encode("utf-8", "surrogatepass")),
    )


def check(name: str, state: GameState, seat: int, reply: bytes) -> None:
    """The property: decode, then illegal, then (if legal) apply on a fresh copy."""
    try:
        action: Any = state.decode(seat, reply)
    except ProtocolError as exc:
        assert str(exc), f"{name}: a ProtocolError without a reason for {reply[:80]!r}"
        return
    reason = state.illegal(seat, action)
    assert reason is None or isinstance(reason, str), f"{name}: illegal() returned {reason!r}"
    if reason is None:
        game, first = fresh_state(name)
        actors = game.to_act()
        if len(actors) > 1:  # a simultaneous step is applied whole (the others time out)
            game.apply_joint({first: action}, {s: Verdict.TIMEOUT for s in actors if s != first})
        else:
            game.apply(first, action)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_decoder_returns_an_action_or_raises_protocol_error(name: str) -> None:
    state, seat = fresh_state(name)

    @settings(
        max_examples=300,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(reply=replies(name))
    @example(reply=b"")
    @example(reply=b" \t\r")
    @example(reply=b"\xff\xfe")
    @example(reply=b"9" * 4301)  # past int()'s default limit on digits
    @example(reply=b"-" + b"9" * 5000)
    @example(reply="\u0663".encode())  # a unicode digit: int() takes it, the wire must not
    def property_holds(reply: bytes) -> None:
        check(name, state, seat, reply)

    property_holds()


def test_every_registered_game_is_fuzzed() -> None:
    """A sanity check on discovery: the five seed games are there (more may be added)."""
    assert {"yahtzee", "dice-poker", "bidding-wars", "liars-dice"} <= set(GAMES)


def grid(leaders: list[bytes]) -> list[bytes]:
    """Every leading word (or none) with up to three numbers from -1 to 9, and each such
    line also with a trailing space, tab or carriage return."""
    values = [str(n).encode() for n in range(-1, 10)]
    lines: list[bytes] = []
    for head in [*leaders, b""]:
        args: list[list[bytes]] = [[]]
        for _ in range(3):
            args += [[*a, v] for a in args if len(a) == len(args[-1]) for v in values]
        for a in args:
            line = b" ".join([head, *a]) if head else b" ".join(a)
            lines += [line, line + b" ", line + b"\t", line + b"\r"]
    return lines


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_decoder_on_a_grid_of_plausible_replies(name: str) -> None:
    """Exhaustive where random generation is thin: well-formed lines with small values."""
    state, seat = fresh_state(name)
    leaders, _, _ = vocabulary(name)
    for reply in grid(leaders):
        check(name, state, seat, reply)
