"""`referee tournament --live`: a read-only page of the tournament, served while it runs.

Issue 14: "serves a page on localhost … showing standings, the crosstable, running
matches and recent forfeits, updating as results land, and a link to each finished
match's replay; read-only, bound to 127.0.0.1 by default, no secrets in it"; "The live
page is tested against a running tournament (HTTP fetch of the standings as they
change)."
"""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.browser import CHROMIUM, Browser

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_players" / "yahtzee"


def _get(port: int, path: str, host: str | None = None, method: str = "GET") -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, headers={"Host": host or f"127.0.0.1:{port}"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_the_live_page_follows_a_running_tournament(tmp_path: Path) -> None:
    out = tmp_path / "cup"
    child = subprocess.Popen(
        [sys.executable, "-m", "referee", "tournament", "--game", "yahtzee", str(SAMPLES / "bin/competent"),
         f"{sys.executable} {SAMPLES}/greedy_player.py", f"{sys.executable} {SAMPLES}/random_player.py",
         "--games", "150", "--rounds", "3", "--concurrency", "1", "--seed", "4", "--out", str(out),
         "--quiet", "--live", "0"],  # --live keeps the games' records for the replays
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        port = None
        assert child.stderr is not None
        deadline = time.monotonic() + 30
        while port is None and time.monotonic() < deadline:
            line = child.stderr.readline()
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            port = int(found.group(1)) if found else None
        assert port is not None, "no live page announced"
        if CHROMIUM is not None:  # the page itself, in a browser, while the tournament runs
            browser = Browser()
            try:
                browser.open(f"http://127.0.0.1:{port}/", ready="document.body.dataset.updated")
                rows = browser.eval("document.querySelectorAll('#standings tr').length")
                assert rows == 4  # a header and three bots
                assert browser.errors == []
            finally:
                browser.close()
        # The standings as they change: the games stored grow while matches run.
        seen: list[int] = []
        done_with_replay = None
        while child.poll() is None and time.monotonic() < deadline + 60:
            status, body = _get(port, "/state.json")
            if status == 200:
                state = json.loads(body)
                if "standings" in state:
                    seen.append(state["standings"]["tournament"]["games_stored"])
                    done_with_replay = next(
                        (d["key"] for d in state["done"] if d["replay"]), done_with_replay
                    )
                    if done_with_replay and len(set(seen)) >= 3:
                        break
            time.sleep(0.2)
        assert len(set(seen)) >= 3 and seen == sorted(seen), seen
        assert state["standings"]["rows"] and state["running"] is not None
        # A done match's replay, the page, and nothing else: read-only, this machine only.
        status, body = _get(port, f"/replay/{done_with_replay}.html")
        assert status == 200 and b"replay-data" in body
        assert _get(port, "/replay/..%2f..%2fetc%2fpasswd.html")[0] == 404
        status, page = _get(port, "/")
        assert status == 200 and b"Standings" in page and b"http" not in page.replace(b"http-equiv", b"")
        assert _get(port, "/", host="evil.example:80")[0] == 403
        assert _get(port, "/state.json", method="POST")[0] == 405
        assert str(tmp_path).encode() not in _get(port, "/state.json")[1]  # no paths of this machine
    finally:
        child.wait(timeout=120)
    assert child.returncode == 0
