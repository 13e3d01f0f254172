"""CPU per decision (issue 16: "Timeouts are the one machine-dependent outcome: record each
decision's CPU and wall time, flag matches with decisions near the limit").

An answer that takes 80 % of the decision limit or more, and every timeout, is kept with
the CPU the bot's process tree used meanwhile: near the wall time, the bot was computing;
far below it, it was waiting (for a core on a busy machine, or on anything else).  The
figure comes from the bot's cgroup where it has one (root here), else from its processes'
clock ticks; CI runs this file as an ordinary user too.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from tests.test_notes import ROOT, dice_poker_cup, referee

pytestmark = pytest.mark.e2e

#: Bidding Wars, bidding the prize; the 3rd bid of its first game computes for 0.85 s of
#: CPU, of its second game sleeps 0.85 s, of its third computes for 3 s (past the 1 s
#: limit: a timeout).  Each takes ≥ 80 % of the limit, so each is kept whether or not a
#: loaded machine turns it into a timeout, and a timeout costs only its own game.
BOT = textwrap.dedent(
    """\
    import sys, time
    sys.path.insert(0, {root!r})
    from protocol import bidding_wars as wire

    def compute(seconds):
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass

    games = bids = 0
    for line in sys.stdin.buffer:
        if line.startswith(b"end"):
            games += 1
            bids = 0
        if not line.startswith(b"bid "):
            continue
        bids += 1
        if bids == 3:
            (lambda: compute(0.85), lambda: time.sleep(0.85), lambda: compute(3.0))[games % 3]()
        sys.stdout.buffer.write(wire.encode_bid(wire.parse_request(line).prize))
        sys.stdout.flush()
    """
)


@pytest.mark.slow
def test_slow_answers_and_timeouts_say_how_much_cpu_they_used(tmp_path: Path) -> None:
    bot = tmp_path / "slow.py"
    bot.write_text(BOT.format(root=str(ROOT)))
    summary = tmp_path / "summary.json"
    done = referee(
        "match",
        f"{sys.executable} {bot}",
        f"{sys.executable} {ROOT / 'sample_players/bidding_wars/bid_prize.py'}",
        *["--game", "bidding-wars", "--games", "3", "--cards", "8", "--seed", "2"],
        *["--decision-timeout", "1", "--json", str(summary)],
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # The table says each timeout's CPU, and whether the bot was computing (a range when
    # a loaded machine made the 0.85 s computation a timeout too: the two are grouped).
    table = " ".join(done.stdout.split())  # rich wraps long lines
    assert re.search(
        r"no reply in time \(limit 1 s\); it used [0-9.]+(–[0-9.]+)? s of CPU meanwhile \((not )?computing\)",
        table,
    ), table
    # ("the slowest answered: …" follows, unless a loaded machine made every one a timeout.)
    assert "answers took 80% of the decision limit or more (timeouts included)" in table
    (me,) = [p for p in json.loads(summary.read_text())["players"] if p["name"] == "slow"]
    details = me["slow_answer_details"]
    assert me["slow_answers"] == len(details), me
    # Three slow answers — or four when a loaded machine made the first computation a
    # timeout: the bot computes on into its next game, and the first answer there waits
    # for the rest of it (seen in CI: 978 ms, of which 291 ms of CPU).
    assert len(details) == 3 or (len(details) == 4 and details[0].get("timeout")), details
    # Every one took ≥ 80 % of the 1 s limit, and never used more CPU than wall time
    # (allowing for the cgroup's and the clock ticks' rounding).
    for answer in details:
        assert answer["wall_ms"] >= 800 and answer["cpu_ms"] <= answer["wall_ms"] + 20, answer
    computed, slept, timed_out = details[0], details[-2], details[-1]
    # The first computed: most of its time was CPU (all of it, on an idle machine). Made
    # a timeout by a loaded machine, it had what the machine gave it within the second,
    # bounded as the third's below (250 ms seen beside the suite's three workers on two cores).
    assert computed["cpu_ms"] >= (100 if computed.get("timeout") else 300), computed
    # The second slept: nearly no CPU for as long a wait — unless a loaded machine made the
    # first computation a timeout: the bot then computes on into the next game (it reads
    # nothing meanwhile), and the rest of that CPU can fall in this wait (seen beside four
    # workers on two cores: 383 ms).
    if not computed.get("timeout"):
        assert slept["cpu_ms"] <= 100, slept
    # The third timed out while computing: how long it was waited for, and its CPU (all
    # of it on an idle machine; beside the suite's other worker CI measured 142 ms).
    assert timed_out["timeout"] and timed_out["wall_ms"] >= 1000 and timed_out["cpu_ms"] >= 100, timed_out
    assert me["forfeits"]["timeout"] >= 1
    assert all("(limit 1 s); it used " in f["detail"] for f in me["forfeit_details"]), me
    assert me["max_decision_cpu_ms"] is not None


#: Dice poker (its bots live for the whole tournament): the second request of the first
#: opponent it meets takes 0.85 s (asleep; a process's first answer carries its start-up
#: and is counted apart); nothing else is slow.
POOLED = textwrap.dedent(
    """\
    import sys, time
    sys.path.insert(0, {root!r})
    from protocol import dice_poker as wire

    first_op = None
    asked = 0
    for line in sys.stdin.buffer:
        message = wire.parse_message(line)
        op = line.split()[0]
        if first_op is None:
            first_op = op
        if message.is_request and op == first_op:
            asked += 1
            if asked == 2:
                time.sleep(0.85)
        sys.stdout.buffer.write(wire.encode_reply(wire.RAISE if message.is_request else 0))
        sys.stdout.flush()
    """
)


@pytest.mark.slow
def test_a_tournament_long_process_reports_each_matchs_own_slowest_answer(tmp_path: Path) -> None:
    """One process lent to two matches: the slow answer belongs to the first match only
    (each match's maximum and slow answers are its own, not the process's so far)."""
    from referee.tournament.store import Store

    out = dice_poker_cup(tmp_path, "pooled", POOLED.format(root=str(ROOT)), games=30)
    with Store.read(out) as store:
        mine = [
            r.player("pooled")
            for r in store.match_records().values()
            if "pooled" in [p.name for p in r.players]
        ]
        flagged = [detail for _, _, bot, _, detail in store.events("near-limit") if bot == "pooled"]
    slow = [f for f in mine if f.slow_answers]
    assert len(mine) == 2 and len(slow) == 1, mine
    (other,) = [f for f in mine if not f.slow_answers]
    assert slow[0].max_decision_us >= 800_000 and len(slow[0].slow_answer_details) == 1
    assert slow[0].slow_answer_details[0].cpu_ms is not None and slow[0].slow_answer_details[0].cpu_ms < 100
    assert other.max_decision_us < 800_000 and other.slow_answer_details == []
    assert len(flagged) == 1 and "ms wall /" in flagged[0], flagged


def test_timeouts_that_differ_only_in_their_cpu_are_shown_together() -> None:
    from referee.core.verdict import cpu_note, split_cpu_note
    from referee.tournament.report import _same_detail

    detail = "no reply in time (limit 1 s)"
    assert split_cpu_note(detail + cpu_note(0.964)) == (detail, 0.964)
    assert split_cpu_note(detail) == (detail, None)
    assert _same_detail(detail + cpu_note(0.5)) == _same_detail(detail + cpu_note(0.9)) == detail
