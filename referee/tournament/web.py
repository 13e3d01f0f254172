"""``referee tournament … --live [PORT]``: the tournament as a page in a browser.

A small HTTP server (the standard library's: three read-only routes need no framework)
runs beside the tournament, in a thread of its own, and reads the results store the way
``referee standings`` does (:meth:`Store.read`, no lock: the tournament keeps writing).
So the page can never slow or stop the tournament, and what it shows is what is stored.

Routes:

``/``
    the page: standings, the crosstable, running matches, recent forfeits and the done
    matches, redrawn every two seconds from ``/state.json`` (its own script, inline);
``/state.json``
    the standings as ``standings.json`` has them (without ratings: a bootstrap takes a
    second), the matches running and done, at most once a second from the store;
``/replay/KEY.html``
    the replay of a done match (:mod:`referee.replay`), when the tournament writes its
    games' records (``--game-logs``).

It is read-only and, by default, bound to 127.0.0.1.  It shows what ``standings.json``
holds (names, results, forfeits with the bots' replies) and nothing of the machine: no
paths, no commands, no configuration.  A request whose ``Host`` is not this machine's
loopback name is refused, so a web page elsewhere cannot read it through DNS rebinding.
"""

from __future__ import annotations

import datetime
import functools
import http.server
import re
import threading
import time
from pathlib import Path

import msgspec

from referee.tournament import standings
from referee.tournament.store import Store, StoreError

#: How often the page asks for a new state, and the longest the server keeps one.
REFRESH_S = 2.0
_STATE_TTL_S = 1.0
_KEY = re.compile(r"[A-Za-z0-9_.-]{1,200}")
_PAGE_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'"


class LiveServer:
    """The live page of the tournament stored in ``out``, served while it runs."""

    def __init__(self, out: Path, port: int = 0, host: str = "127.0.0.1", title: str = "") -> None:
        self.out = Path(out)
        self.title = title
        self._lock = threading.Lock()
        self._cache = standings.Cache()
        self._reader: Store | None = None
        self._state = b""
        self._state_at = 0.0
        self.httpd = http.server.ThreadingHTTPServer((host, port), functools.partial(_Handler, self))
        self.httpd.daemon_threads = True
        address = self.httpd.server_address
        assert isinstance(address, tuple)  # an internet socket's: (host, port, …)
        self.host, self.port = str(address[0]), int(address[1])
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="referee-live", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def __enter__(self) -> LiveServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        with self._lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None

    def state(self) -> bytes:
        """The page's data, at most ``_STATE_TTL_S`` old."""
        with self._lock:
            if time.monotonic() - self._state_at < _STATE_TTL_S and self._state:
                return self._state
            try:
                if self._reader is None:
                    self._reader = Store.read(self.out)
                current = standings.compute(self._reader, self._cache, ratings=False)
                running = self._reader.match_keys("running")
                done = self._reader.done_keys()
            except (StoreError, OSError) as exc:
                return msgspec.json.encode({"error": f"the store cannot be read now: {exc}"})
            logs = self.out / "logs"
            state = {
                "title": self.title,
                "updated": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "standings": current,
                "running": running,
                "done": [{"key": key, "replay": (logs / f"{key}.jsonl").is_file()} for key in done],
            }
            self._state = msgspec.json.encode(state)
            self._state_at = time.monotonic()
            return self._state

    def replay(self, key: str) -> bytes | None:
        """The replay page of a done match, or None when there is none."""
        from referee.replay.page import page
        from referee.replay.sources import ReplayError, load

        log = self.out / "logs" / f"{key}.jsonl"
        if not _KEY.fullmatch(key) or not log.is_file():
            return None
        try:
            return page(load(log)).encode("utf-8")
        except ReplayError:
            return None


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "referee-live"
    #: Seconds a connection may idle: a client that never sends its request must not
    #: hold a thread for the rest of the tournament.
    timeout = 10

    def __init__(self, live: LiveServer, *args: object) -> None:
        self.live = live
        super().__init__(*args)  # type: ignore[arg-type]

    def log_message(self, format: str, *args: object) -> None:
        pass  # the tournament's display is the terminal's; requests are not news

    def _send(self, status: int, body: bytes, kind: str, csp: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        if csp:
            self.send_header("Content-Security-Policy", csp)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _host_ok(self) -> bool:
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0].strip("[]").lower()
        return host in ("127.0.0.1", "localhost", "::1", self.live.host)

    def do_GET(self) -> None:
        if not self._host_ok():
            self._send(403, b"this page is served to this machine only\n", "text/plain; charset=utf-8")
            return
        path = self.path.split("?", 1)[0]
        if path == "/":
            self._send(200, _PAGE.encode("utf-8"), "text/html; charset=utf-8", _PAGE_CSP)
        elif path == "/state.json":
            self._send(200, self.live.state(), "application/json")
        elif path.startswith("/replay/") and path.endswith(".html"):
            body = self.live.replay(path[len("/replay/") : -len(".html")])
            if body is None:
                self._send(404, b"no replay of that match\n", "text/plain; charset=utf-8")
            else:
                self._send(200, body, "text/html; charset=utf-8")
        else:
            self._send(404, b"not found\n", "text/plain; charset=utf-8")

    do_HEAD = do_GET

    def do_POST(self) -> None:
        self._send(405, b"read-only\n", "text/plain; charset=utf-8")

    do_PUT = do_DELETE = do_PATCH = do_POST


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>referee: live tournament</title>
<style>
body { margin:0; font:14px/1.45 system-ui, sans-serif; color:#1d2330; background:#f8f9fb; }
header { padding:10px 16px; background:#fff; border-bottom:1px solid #d0d5dd; }
h1 { font-size:17px; margin:0; } h2 { font-size:14px; margin:0 0 6px; }
.meta { color:#667085; font-size:12px; }
main { display:grid; grid-template-columns:repeat(auto-fit, minmax(420px, 1fr)); gap:12px; padding:12px 16px; }
section { background:#fff; border:1px solid #d0d5dd; border-radius:10px; padding:10px 12px; overflow:auto; }
table { border-collapse:collapse; width:100%; font-size:13px; }
th, td { border-bottom:1px solid #e4e7ec; padding:3px 6px; text-align:left; white-space:nowrap; }
td.n { text-align:right; font-variant-numeric:tabular-nums; }
.bad { color:#c0362c; } .muted { color:#667085; }
a { color:#2f5bd3; }
</style></head><body>
<header><h1 id="title">live tournament</h1><div class="meta" id="meta">loading…</div></header>
<main>
<section><h2>Standings</h2><div id="standings"></div></section>
<section><h2>Crosstable</h2><div id="crosstable"></div></section>
<section><h2>Running matches</h2><div id="running"></div></section>
<section><h2>Recent forfeits</h2><div id="faults"></div></section>
<section><h2>Done matches</h2><div id="done"></div></section>
</main>
<script>
"use strict";
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) el.setAttribute(k, v);
  for (const c of kids.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : String(c));
  return el;
}
function table(head, rows) {
  return h("table", null, h("tr", null, head.map((x) => h("th", null, x))), rows);
}
function num(x, d) { return x === null || x === undefined ? "" : (+x).toFixed(d); }
function draw(s) {
  const st = s.standings, t = st.tournament;
  document.getElementById("title").textContent = s.title || `${t.format} · ${t.game}`;
  document.title = `referee: ${t.format} · ${t.game}`;
  document.getElementById("meta").textContent =
    `${t.stage} · ${t.matches_done} of ${t.matches_total} matches done, ${t.matches_running} running · ` +
    `${t.games_stored} games · updated ${s.updated}`;
  document.getElementById("standings").replaceChildren(table(
    ["#", "bot", "points", "W", "D", "L", "games", "mean score", "forfeits"],
    st.rows.map((r) => h("tr", null, h("td", { class: "n" }, r.rank), h("td", null, r.bot), h("td", { class: "n" }, num(r.points, 1)),
      h("td", { class: "n" }, r.wins), h("td", { class: "n" }, r.draws), h("td", { class: "n" }, r.losses),
      h("td", { class: "n" }, r.games), h("td", { class: "n" }, num(r.mean_score, 2)),
      h("td", { class: "n bad" }, Object.entries(r.forfeits || {}).map(([k, v]) => `${k} ${v}`).join(", "))))));
  const ct = st.crosstable;
  document.getElementById("crosstable").replaceChildren(table(["", ...ct.bots], ct.bots.map((row) =>
    h("tr", null, h("th", null, row), ct.bots.map((col) => {
      const c = (ct.cells[row] || {})[col];
      if (!c) return h("td", { class: "n muted" }, row === col ? "—" : "");
      return h("td", { class: "n" }, ct.kind === "two-seat" ? `${c.wins}-${c.draws}-${c.losses}` : `${c.ahead}-${c.level}-${c.behind}`);
    })))));
  document.getElementById("running").replaceChildren(s.running.length
    ? h("ul", null, s.running.map((k) => h("li", null, k))) : h("span", { class: "muted" }, "none"));
  const faults = st.faults.flatMap((b) => b.details.map((d) => ({ bot: b.bot, ...d }))).slice(-20).reverse();
  document.getElementById("faults").replaceChildren(faults.length ? table(["bot", "verdict", "match", "game", "detail"],
    faults.map((f) => h("tr", null, h("td", null, f.bot), h("td", { class: "bad" }, f.verdict), h("td", null, f.match),
      h("td", { class: "n" }, f.game), h("td", null, f.detail.slice(0, 160))))) : h("span", { class: "muted" }, "none"));
  document.getElementById("done").replaceChildren(s.done.length ? h("ul", null, s.done.slice(-50).reverse().map((d) =>
    h("li", null, d.replay ? h("a", { href: `replay/${encodeURIComponent(d.key)}.html` }, d.key) : d.key)))
    : h("span", { class: "muted" }, "none yet"));
  document.body.dataset.updated = s.updated;
}
async function tick() {
  try {
    const r = await fetch("state.json", { cache: "no-store" });
    const s = await r.json();
    if (s.error) document.getElementById("meta").textContent = s.error; else draw(s);
  } catch (e) {
    document.getElementById("meta").textContent = "the tournament is not answering (it may have finished)";
  }
}
tick();
setInterval(tick, REFRESH_MS);
</script></body></html>
""".replace("REFRESH_MS", str(int(REFRESH_S * 1000)))
