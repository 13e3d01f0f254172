"""``referee arena`` in a real browser (issue 29): headless Chromium over the DevTools
protocol (tests/browser.py, as the replay tests drive it) logs in with a token, uploads
a bot through the page's file input, watches its check pass live, finds the bot on the
leaderboard and opens one of its replays — with no console error on any page (the
pages' Content-Security-Policy included)."""

from __future__ import annotations

import json
import time

import pytest

from tests.arena_helpers import SAMPLES, Server, init
from tests.browser import CHROMIUM, Browser

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no chromium (.ci/run installs it)")
    b = Browser()
    yield b
    b.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    base = tmp_path_factory.mktemp("arena-browser")
    folder = base / "course"
    tokens = init(folder, ["ann", "ben"])
    server = Server(folder).start()
    yield {"folder": folder, "tokens": tokens, "server": server, "base": base}
    server.stop()


def _set_file(b: Browser, selector: str, path: str) -> None:
    """Choose ``path`` in the file input ``selector``, as a user would (DOM.setFileInputFiles)."""
    found = b._call("Runtime.evaluate", expression=f"document.querySelector({json.dumps(selector)})")
    b._call("DOM.setFileInputFiles", files=[path], objectId=found["result"]["objectId"])


def _text(b: Browser, selector: str) -> str:
    return b.eval(f"(document.querySelector({json.dumps(selector)}) || {{}}).textContent || ''")


def test_a_student_logs_in_uploads_and_watches_the_ladder(browser, served):
    url, tokens = served["server"].url, served["tokens"]
    b = browser
    # A wrong token is refused on the page.
    b.open(f"{url}/login", ready="!!document.getElementById('token')")
    b.eval(
        "document.getElementById('token').value = 'arena-nope-nope'; document.getElementById('login').click()"
    )
    deadline = time.monotonic() + 30
    while "not valid" not in _text(b, "#error"):
        assert time.monotonic() < deadline, "no error shown for a wrong token"
        time.sleep(0.1)
    assert b.errors == ["Failed to load resource: the server responded with a status of 403 ()"], b.errors
    b.errors.clear()  # that refusal's 403, expected
    # Log in: the token in the form, the session cookie set, the student's page.
    b.open(f"{url}/login", ready="!!document.getElementById('token')")
    b.eval(
        f"document.getElementById('token').value = {json.dumps(tokens['ann'])};"
        "document.getElementById('login').click()"
    )
    deadline = time.monotonic() + 30
    while not b.eval("!!document.getElementById('file')"):
        assert time.monotonic() < deadline, f"not logged in: {_text(b, 'body')[:300]}"
        time.sleep(0.1)
    assert "ann" in _text(b, "h1")
    assert not b.eval("document.cookie.includes('arena_session')")  # HttpOnly: not readable by scripts
    # Upload a bot through the file input and the form.
    bot = served["base"] / "my_bot.py"
    bot.write_text((SAMPLES / "bid_prize.py").read_text())
    _set_file(b, "#file", str(bot))
    b.eval("document.getElementById('upload').click()")
    deadline = time.monotonic() + 30
    while not b.eval("!!document.getElementById('submission')"):
        assert time.monotonic() < deadline, f"no submission page: {_text(b, 'body')[:300]}"
        time.sleep(0.1)
    # Watch the check pass live: the page's own script refreshes the steps.
    seen_states = set()
    deadline = time.monotonic() + 300
    # The outcome is read once a turn: read twice, it could change to "ok" in between.
    while (outcome := _text(b, "#outcome")) != "ok":
        seen_states.add(_text(b, "#state"))
        assert outcome in ("…", ""), f"the check did not pass: {_text(b, '#steps')[:2000]}"
        assert time.monotonic() < deadline, f"the check did not end within 300 s: {seen_states}"
        time.sleep(0.2)
    assert _text(b, "#state") == "done"
    statuses = b.eval("[...document.querySelectorAll('#checklist td:first-child')].map(td => td.textContent)")
    assert statuses and set(statuses) == {"pass"}, statuses
    assert b.eval("!!document.getElementById('bot-link')")
    bot_href = b.eval("document.getElementById('bot-link').getAttribute('href')")
    # The leaderboard: ann's row (highlighted as hers) gets a rating once her placement is played.
    deadline = time.monotonic() + 300
    while True:
        b.open(f"{url}/leaderboard", ready="!!document.getElementById('leaderboard')")
        row = b.eval("(document.querySelector('#leaderboard tr.you') || {}).textContent || ''")
        if "±" in row:
            break
        assert time.monotonic() < deadline, f"ann's bot was not rated within 300 s: {row!r}"
        time.sleep(1.0)
    assert row.startswith("1") and "ann" in row, row
    assert "ben" not in _text(b, "#leaderboard")  # anonymised: ben is an alias, and has no bot
    # Her bot's page, a match, and its replay in the replay viewer.
    b.open(f"{url}{bot_href}", ready="!!document.getElementById('recent')")
    replay = b.eval("(document.querySelector('#recent a.replay') || {}).href || ''")
    assert replay.endswith("/replay"), _text(b, "#recent")
    seconds = b.open(replay, timeout=30)
    assert seconds < 10
    assert b.eval("document.body.innerText.length") > 100
    assert not b.errors, b.errors
    # Logging out ends the session: the pages go back to the login form.
    b.open(f"{url}/", ready="!!document.getElementById('logout')")
    b.eval("document.getElementById('logout').click()")
    deadline = time.monotonic() + 30
    while not b.eval("!!document.getElementById('token')"):
        assert time.monotonic() < deadline, "not logged out"
        time.sleep(0.1)
    b.open(f"{url}/leaderboard", ready="!!document.getElementById('token')")
