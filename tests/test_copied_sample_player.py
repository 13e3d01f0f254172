"""Issue 25, item 3: "a copied sample player runs wherever it is" — under `referee match`
too, from a folder outside the checkout, by a system Python without the referee
installed (no site-packages: -S), under every sandbox layer this machine has: the
referee names its stdlib-only protocol package in the bot's environment
(REFEREE_PROTOCOL), and the sample player imports it from there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from referee.seats.process import sandbox

ROOT = Path(__file__).resolve().parents[1]
SYSTEM_PYTHON = "/usr/bin/python3"

pytestmark = [
    pytest.mark.skipif(not os.path.exists(SYSTEM_PYTHON), reason="needs /usr/bin/python3"),
    pytest.mark.e2e,
]


def _layers() -> list[str]:
    return [str(layer) for layer in sandbox.Layer if sandbox.problem(layer) is None]


@pytest.fixture(scope="module")
def far() -> Path:
    """Two sample players copied into a fresh folder of /tmp, nothing else beside them."""
    where = Path(tempfile.mkdtemp(prefix="referee-copied-", dir="/tmp"))
    where.chmod(0o755)
    shutil.copy2(ROOT / "sample_players" / "dice_poker" / "threshold.py", where / "mine.py")
    shutil.copy2(ROOT / "sample_players" / "bidding_wars" / "random.py", where / "random.py")
    yield where
    shutil.rmtree(where, ignore_errors=True)


def test_outside_the_checkout_a_system_python_cannot_import_protocol_by_itself(far: Path) -> None:
    """The premise: without the referee's help the copy would not start."""
    done = subprocess.run(
        [SYSTEM_PYTHON, "-S", str(far / "mine.py")], input="", capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode != 0 and "protocol" in done.stderr, done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("layer", _layers())
def test_a_copied_sample_player_plays_under_referee_match_from_tmp(
    far: Path, tmp_path: Path, layer: str
) -> None:
    cases = [
        ("dice-poker", [f"{SYSTEM_PYTHON} -S {far / 'mine.py'}", f"{SYSTEM_PYTHON} -S {far / 'mine.py'} 5"]),
        (
            "bidding-wars",
            [f"{SYSTEM_PYTHON} -S {far / 'random.py'} 1", f"{SYSTEM_PYTHON} -S {far / 'random.py'} 2"],
        ),
    ]
    for game, bots in cases:
        summary = tmp_path / f"{game}.json"
        done = subprocess.run(
            [sys.executable, "-m", "referee", "match", *bots, "--game", game, "--games", "4", "--seed", "3",
             "--sandbox", layer, "--json", str(summary)],
            capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL, cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        players = json.loads(summary.read_text())["players"]
        for player in players:
            assert player["decisions"] > 0 and not player.get("forfeits"), (game, layer, player)
