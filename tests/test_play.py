"""``referee play`` (issue 14): a person plays against bots at the terminal.

The human seat is driven through a pseudo-terminal with pexpect, as a person would drive
it: read the moves offered, type a key.  One full game of each of the five games against
the game's reference player (always the first move offered), an illegal move refused
with the rule's message and asked again, and the engine's judge hook itself (it says
exactly what a bot's forfeit would say).
"""

from __future__ import annotations

import os
import re
import sys

import pytest
import trio

from referee import games
from referee.core.botspec import BotSpec
from referee.match import Match, MatchConfig
from referee.seats.inprocess import InProcessSeat
from referee.sinks.collect import Collector

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

pexpect = pytest.importorskip("pexpect")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The prompt, with the time left: "Your move (5:00 left) > ".
PROMPT = r"Your move \((?:\d+:\d\d|\d+ s|no limit) left\) > "
#: A row of the moves offered: the key, an argument's placeholder if any, what it does.
MOVE_ROW = re.compile(r"^(\S+)(?: ([A-Z][A-Z ]*?))?  +\S", re.MULTILINE)


def _spawn(*args: str) -> pexpect.spawn:
    # No colours (plain text to match), and wide: rich takes a dumb terminal for 80 columns.
    env = dict(os.environ, TERM="dumb", COLUMNS="200", LINES="60")
    env.pop("NO_COLOR", None)
    return pexpect.spawn(
        sys.executable,
        ["-m", "referee", "play", *args],
        cwd=ROOT,
        env=env,
        encoding="utf-8",
        dimensions=(60, 200),
        timeout=30,
    )


def _first_move(screen: str) -> str:
    """The key of the first move offered (one that takes no argument) on the screen."""
    block = screen.rsplit("Your moves:", 1)[1]
    for match in MOVE_ROW.finditer(block):
        if not match.group(2):
            return match.group(1)
    raise AssertionError(f"no move offered in {block!r}")


def _play_out(child: pexpect.spawn) -> tuple[str, int]:
    """Answer every prompt with the first move offered until the game ends; the output
    and how many moves were made."""
    seen = []
    moves = 0
    while child.expect([PROMPT, pexpect.EOF]) == 0:
        seen.append(child.before)
        child.sendline(_first_move(child.before))
        moves += 1
        assert moves < 400, "the game does not end"
    seen.append(child.before)
    child.close()
    assert child.exitstatus == 0, "".join(seen)[-3000:]
    return "".join(seen), moves


@pytest.mark.parametrize(
    ("game", "extra", "board"),
    [
        ("yahtzee", [], "Yahtzee — roll 1 of 3"),
        ("dice-poker", [], "Your die:"),
        ("bidding-wars", ["--cards", "5"], "Prizes to come"),
        ("liars-dice", [], "Your dice:"),
        ("holdem", [], "Your cards:"),
    ],
)
def test_a_whole_game_at_the_terminal(game, extra, board):
    child = _spawn("--game", game, "--seed", "3", *extra)
    out, moves = _play_out(child)
    assert moves >= 1
    assert board in out and "Your moves:" in out
    assert "Game 1 is over" in out
    assert re.search(r"You (win!|lose|.*draw)|A draw", out), out[-2000:]
    assert f"{game}: 1 game, seed 3" in out  # the match's result at the end
    assert "A bot sending this would forfeit" not in out  # every offered move was legal
    assert "forfeit (" not in out and "forfeits (" not in out


def test_an_illegal_move_is_refused_with_the_rules_message_and_asked_again():
    child = _spawn("--game", "bidding-wars", "--cards", "5", "--seed", "1", "--think", "60")
    child.expect(PROMPT)
    child.sendline("99")
    child.expect(r"A bot sending this would forfeit: card 99 is not in your hand \(cards are 1\.\.5\)")
    child.expect(PROMPT)  # asked again, with the clock still running
    child.sendline("five")
    child.expect(r"A bot sending this would forfeit: reply is not a card number: 'five'")
    child.expect(PROMPT)
    child.sendline("h")  # not a key: sent as typed, judged as a bot's reply
    child.expect(r"would forfeit: reply is not a card number: 'h'")
    child.expect(PROMPT)
    child.sendline("1")
    out, _ = _play_out(child)
    assert "Game 1 is over" in out


def test_the_person_may_sit_anywhere_and_leave_with_ctrl_d():
    child = _spawn("--game", "liars-dice", "--seat", "1", "--seed", "5", "--games", "3")
    child.expect("You are seat 1")
    child.expect(PROMPT)
    assert re.search(r"1 \(you\)", child.before)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "You forfeit (crash): left the game (end of input)" in child.before
    assert "Your moves:" not in child.before  # not asked again: the match ends there
    assert "liars-dice: 0 games, seed 5" in child.before
    assert "Stopped: the player left (end of input)" in child.before


def test_a_person_out_of_time_gets_the_timeout_verdict():
    child = _spawn("--game", "dice-poker", "--seed", "2", "--think", "1")
    child.expect(r"Your move \(1 s left\) > ")
    child.expect(pexpect.EOF)  # no key pressed: the deal is folded for the person
    child.close()
    assert child.exitstatus == 0
    assert "Time is up" in child.before
    assert "You forfeit (timeout): no reply in time (limit 1 s)" in child.before
    assert "Game 1 is over" in child.before


def test_ctrl_c_stops_cleanly():
    child = _spawn("--game", "yahtzee", "--seed", "7", "--games", "2")
    child.expect(PROMPT)
    child.sendline("13")
    child.expect(PROMPT)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "yahtzee: 0 games, seed 7" in child.before and "Stopped: interrupted by SIGINT" in child.before


def test_usage_errors():
    child = _spawn("--game", "yahtzee", "--seat", "2")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2 and "--seat 2: this game has seats 0 to 1" in child.before


# ---------------------------------------------------------------------------- the engine's hook


class Judged(InProcessSeat):
    """An in-process seat that asks the match's judge about each reply before sending it."""

    wants_judge = True
    verdicts: list[tuple[bytes, str | None]]

    async def request(self, line: bytes) -> bytes:
        assert self.judge is not None, "the match sets the judge before every request"
        reply = await super().request(line)
        self.verdicts.append((reply, self.judge(reply)))
        return reply


def _judged_match(game: str, replies: list[str], **options):
    """A game between a seat that answers ``replies`` in turn (with the judge's word on
    each) and one that always answers legally; the judged answers and the forfeits."""
    verdicts: list[tuple[bytes, str | None]] = []
    answers = iter(replies)

    def scripted(line: str) -> str:
        return next(answers)

    def fine(line: str) -> str:
        if game == "bidding-wars":
            return line.split()[line.split().index("hand") + 1]  # the lowest card in hand
        return "24"  # Yahtzee: chance (when open, which is all this test needs)

    factory = InProcessSeat.factory({"judged": scripted, "other": fine})

    def make(spec, limits, *, stderr_path, cpu_budget_s):
        seat = factory(spec, limits, stderr_path=stderr_path, cpu_budget_s=cpu_budget_s)
        if spec.name == "judged":
            judged = Judged(seat.decide, limits)
            judged.verdicts = verdicts
            return judged
        return seat

    collector = Collector()
    specs = [BotSpec(name=n, argv=["(in process)"], home=".") for n in ("judged", "other")]
    config = MatchConfig(game=game, games=1, seed=1, pin=False, options=options)
    trio.run(Match(games.get(game)(**options), specs, config, seat_factory=make, sinks=[collector]).run)
    return verdicts, [f.detail for bot, f in collector.forfeits if bot == "judged"]


@pytest.mark.parametrize(
    ("game", "replies", "options"),
    [
        ("yahtzee", ["24", "64"], {}),  # turn by turn: a legal placement, then an illegal one
        ("yahtzee", ["x"], {}),  # a reply that does not parse
        ("bidding-wars", ["1", "9"], {"cards": 5}),  # simultaneous moves: legal, then illegal
        ("bidding-wars", ["five"], {"cards": 5}),
    ],
)
def test_the_judge_says_what_a_bots_forfeit_says(game, replies, options):
    verdicts, forfeits = _judged_match(game, replies, **options)
    assert [reply for reply, _ in verdicts] == [r.encode() for r in replies]
    assert verdicts[0][1] is None or len(replies) == 1
    # The faulty reply's judgement is the forfeit's detail, word for word.
    assert forfeits == [verdicts[-1][1]] and forfeits[0]


def test_process_seats_are_not_judged():
    from referee.seats import Seat
    from referee.seats.human import HumanSeat
    from referee.seats.process.bot import BotProcess

    assert Seat.wants_judge is False and BotProcess.wants_judge is False and HumanSeat.wants_judge is True
