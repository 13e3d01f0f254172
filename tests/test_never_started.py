"""Issue 25, item 3: bots that never start are not ranked as winners.  A deal no seat
made a legal decision in counts for nobody; a bot that answered no request is listed
last, apart, with why and its stderr's tail; the tournament warns and exits 3."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLES
from test_tournament import py, referee

pytestmark = pytest.mark.e2e

CANNOT_START = """#!/usr/bin/env python3
import sys
sys.stderr.write("Traceback (most recent call last):\\n  File 'bot.py', line 3\\n")
sys.stderr.write("ModuleNotFoundError: No module named 'protocol'\\n")
sys.exit(1)
"""


@pytest.mark.slow
def test_a_folder_of_bots_that_cannot_start_exits_3_with_them_listed_last(tmp_path):
    folder = tmp_path / "submissions"
    folder.mkdir()
    for name in ("crash_a", "crash_b", "crash_c"):
        bot = folder / f"{name}.py"
        bot.write_text(CANNOT_START)
        bot.chmod(0o755)
    out = tmp_path / "t"
    done = referee(
        "tournament", str(folder), py(SAMPLES / "dice_poker" / "always_call.py"), "--game", "dice-poker",
        "--games", "200", "--seed", "4", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 3, done.stdout[-3000:] + done.stderr[-3000:]
    assert "warning: crash_a never started" in done.stderr
    data = json.loads((out / "standings.json").read_text())
    rows = data["rows"]
    assert rows[0]["bot"] == "always_call" and rows[0]["never_started"] is None
    assert [r["bot"] for r in rows[1:]] == ["crash_a", "crash_b", "crash_c"]
    for row in rows[1:]:
        assert row["never_started"] and "No module named 'protocol'" in row["stderr_tail"]
        assert row["rank"] == 2
        # Deals between two of them counted for nobody: no wins from each other's forfeits.
        assert row["wins"] == 0
    md = (out / "standings.md").read_text()
    assert "## Never started" in md and md.count("(never started)") == 3


def test_a_copied_sample_player_finds_protocol_anywhere_in_the_checkout(tmp_path):
    """Run by an interpreter without the referee installed (``-S``: no site-packages,
    from a directory outside the project), a sample player copied two levels deeper
    into the checkout still finds ``protocol`` (it used to look exactly two levels up)."""
    root = SAMPLES.parent
    deep = root / ".test-copies" / f"{os.getpid()}" / "deeper"
    deep.mkdir(parents=True)
    try:
        for sample in ("dice_poker/threshold.py", "bidding_wars/random.py"):
            copy = deep / Path(sample).name
            copy.write_text((SAMPLES / sample).read_text())
            done = subprocess.run(
                [sys.executable, "-S", str(copy)],
                input="",
                capture_output=True,
                text=True,
                cwd=tmp_path,
                timeout=60,
            )
            assert done.returncode == 0, done.stderr
    finally:
        for f in deep.iterdir():
            f.unlink()
        deep.rmdir()
        deep.parent.rmdir()
        if not any((root / ".test-copies").iterdir()):
            (root / ".test-copies").rmdir()
