"""The arena's HTML: small server-rendered pages, every value escaped.

The pages load one script of their own (``/static/arena.js``: the live submission
status) and nothing else; the Content-Security-Policy says so.
"""

from __future__ import annotations

import datetime
import html

_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:980px;padding:1em;color:#222}
nav a{margin-right:1em} table{border-collapse:collapse;width:100%} td,th{border-bottom:1px solid #ddd;
padding:.3em .5em;text-align:left} .ok{color:#080} .bad{color:#b00} .pending{color:#a60}
code,pre{background:#f4f4f4;padding:.1em .3em} pre{padding:.5em;overflow:auto;white-space:pre-wrap}
form.inline{display:inline} .you{background:#ffc}
"""


def e(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def when(ts: float | None) -> str:
    if ts is None:
        return ""
    return datetime.datetime.fromtimestamp(ts, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def layout(
    title: str, body: str, *, user: str | None = None, csrf: str | None = None, admin: bool = False
) -> str:
    nav = ""
    if user is not None:
        nav = (
            '<nav><a href="/">My bot</a><a href="/leaderboard">Leaderboard</a>'
            + ('<a href="/admin">Admin</a>' if admin else "")
            + f'<form class="inline" method="post" action="/logout"><input type="hidden" name="csrf" '
            f'value="{e(csrf)}"><button id="logout">Log out {e(user)}</button></form></nav>'
        )
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_STYLE}</style>'
        f'<script src="/static/arena.js" defer></script></head><body>{nav}<h1>{e(title)}</h1>{body}</body></html>'
    )


def login(csrf: str, error: str | None = None) -> str:
    err = f'<p class="bad" id="error">{e(error)}</p>' if error else ""
    body = (
        f'{err}<form method="post" action="/login"><input type="hidden" name="csrf" value="{e(csrf)}">'
        '<label>Token <input type="password" name="token" id="token" size="70" autocomplete="off"></label> '
        '<button id="login">Log in</button></form>'
    )
    return layout("Arena: log in", body)


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _lineup(g: dict) -> str:
    def one(p: dict) -> str:
        score = f" ({p['mean_score']:.2f})" if "mean_score" in p else ""
        return e(p["name"]) + score

    return " vs ".join(one(p) for p in g["players"])


def _replay_link(g: dict) -> str:
    return f'<a class="replay" href="{e(g["replay"])}">replay</a>' if g["replay"] else ""


def _subs(s: dict) -> str:
    return "; ".join(f"#{x['id']} {e(x['outcome'] or x['state'])}" for x in s["submissions"][:5])


def _cls(outcome: str | None) -> str:
    return "pending" if outcome is None else ("ok" if outcome == "ok" else "bad")


def home(me: dict, csrf: str) -> str:
    rows = "".join(
        f'<tr><td><a href="/submissions/{s["id"]}">#{s["id"]}</a></td><td>{e(when(s["created"]))}</td>'
        f'<td>{e(s["filename"])}</td><td class="{_cls(s["outcome"])}">{e(s["outcome"] or s["state"])}</td>'
        f"<td>{e(s['summary'])}</td></tr>"
        for s in me["submissions"]
    )
    active = (
        f'<p>Your bot on the ladder: <a id="active-bot" href="/bots/{me["active_bot"]}">bot {me["active_bot"]}</a></p>'
        if me["active_bot"]
        else "<p>You have no bot on the ladder yet.</p>"
    )
    upload = (
        '<form method="post" action="/upload" enctype="multipart/form-data">'
        f'<input type="hidden" name="csrf" value="{e(csrf)}">'
        '<input type="file" name="file" id="file"> <button id="upload">Upload</button></form>'
        "<p>A single source file, a .zip or a .tar(.gz): it is unpacked, built and checked by "
        "<code>referee check</code>, then plays on the ladder.</p>"
    )
    table = (
        f"<table><tr><th>#</th><th>when</th><th>file</th><th>outcome</th><th>summary</th></tr>{rows}</table>"
    )
    return layout(f"Arena: {me['student']}", active + upload + "<h2>Submissions</h2>" + table,
                  user=me["student"], csrf=csrf, admin=me["role"] == "admin")  # fmt: skip


def submission(sub: dict, user: str, csrf: str, admin: bool) -> str:
    body = (
        f'<div id="submission" data-id="{sub["id"]}">'
        f"<p>File <code>{e(sub['filename'])}</code>, {sub['size']} bytes, uploaded {e(when(sub['created']))}.</p>"
        f'<p>State: <b id="state">{e(sub["state"])}</b> · outcome: <b id="outcome" class="{_cls(sub["outcome"])}">'
        f'{e(sub["outcome"] or "…")}</b></p><p id="summary">{e(sub["summary"])}</p>'
        f'<div id="steps">{steps_html(sub)}</div></div>'
    )
    return layout(f"Submission #{sub['id']}", body, user=user, csrf=csrf, admin=admin)


def steps_html(sub: dict) -> str:
    """The step records as HTML (also what the live script swaps in: it fetches the page
    fragment rather than building HTML itself)."""
    steps = sub.get("steps") or {}
    parts = []
    for name in ("unpack", "build", "check"):
        step = steps.get(name)
        if step is None:
            parts.append(
                f'<h3>{name}</h3><p class="pending">{"waiting" if sub["state"] != "done" else "not run"}</p>'
            )
            continue
        parts.append(
            f'<h3>{name}: <span class="{_cls(step.get("outcome"))}">{e(step.get("outcome"))}</span></h3>'
        )
        parts.append(f"<p>{e(step.get('summary'))}</p>")
        if name == "build":
            log = "\n".join(x for x in (step.get("log_head"), step.get("log_tail")) if x)
            if log:
                parts.append(f"<pre>{e(log)}</pre>")
        if name == "check":
            items = "".join(
                f'<tr><td class="{"ok" if i.get("status") == "pass" else "bad"}">{e(i.get("status"))}</td>'
                f"<td>{e(i.get('title'))}</td><td>{e(i.get('figure'))}"
                + (f"<br><i>hint: {e(i.get('hint'))}</i>" if i.get("hint") else "")
                + "</td></tr>"
                for i in step.get("items", [])
            )
            if items:
                parts.append(f'<table id="checklist">{items}</table>')
    bot = sub.get("bot")
    if bot:
        parts.append(f'<p>On the ladder as <a id="bot-link" href="/bots/{bot}">bot {bot}</a>.</p>')
    return "".join(parts)


def leaderboard(board: dict, user: str, csrf: str, admin: bool) -> str:
    rows = []
    for s in board["students"]:
        if s["status"] == "playing":
            rating = f"{s['rating']:.1f} ± {s['plus_minus']:.1f}"
            ranks = f"{s['rank_range'][0]}–{s['rank_range'][1]}"
            what = f'<a href="/bots/{s["bot"]}">bot {s["bot"]}</a>'
        elif s["status"] == "benched":
            rating, ranks = "", ""
            what = f'<a href="/bots/{s["bot"]}">bot {s["bot"]}</a> <span class="bad">{e(s["reason"])}</span>'
        elif s["status"] == "placing":
            rating, ranks = "placing…", ""
            what = f'<a href="/bots/{s["bot"]}">bot {s["bot"]}</a>'
        else:
            last = s.get("last_submission")
            rating, ranks = "", ""
            what = e(s["status"]) + (
                f": {e(last['outcome'] or last['state'])} — {e(last['cause'])}" if last else ""
            )
        rows.append(
            f'<tr class="{"you" if s["you"] else ""}"><td>{s.get("rank", "")}</td><td>{e(s["student"])}</td>'
            f"<td>{rating}</td><td>{ranks}</td><td>{s.get('games', '')}</td><td>{what}</td></tr>"
        )
    house = "".join(
        f"<tr><td>{e(h['name'])}</td><td>{_num(h['rating'])}</td><td>{h['games']}</td></tr>"
        for h in board["house"]
    )
    body = (
        f"<p>{board['matches']} matches · ratings: {e(board['method'])}, 95 % intervals"
        + (" · <b>paused</b>" if board["paused"] else "")
        + '</p><table id="leaderboard"><tr><th>rank</th><th>student</th><th>rating</th><th>rank range</th>'
        f"<th>games</th><th>bot</th></tr>{''.join(rows)}</table>"
        f"<h2>House bots</h2><table><tr><th>bot</th><th>rating</th><th>games</th></tr>{house}</table>"
    )
    return layout("Leaderboard", body, user=user, csrf=csrf, admin=admin)


def bot(data: dict, user: str, csrf: str, admin: bool) -> str:
    rating = (
        "not rated yet"
        if data["rating"] is None
        else f"{data['rating']:.1f} [{data['low']:.1f}, {data['high']:.1f}]"
    )
    games = "".join(
        f'<tr><td><a href="/games/{g["id"]}">#{g["id"]}</a></td><td>{e(g["kind"])}</td><td>{e(g["state"])}</td>'
        f"<td>{_lineup(g)}</td><td>{_replay_link(g)}</td></tr>"
        for g in data["recent"]
    )
    forfeits = "".join(
        f"<tr><td>#{f['match']}</td><td>{e(f['game'])}</td><td>{e(f['verdict'])}</td><td>{e(f.get('detail', ''))}</td></tr>"
        for f in data["forfeits"]
    )
    body = (
        f"<p>Rating {rating} · {data['games']} games in {data['matches']} matches"
        + (" · <b>active</b>" if data["active"] else " · replaced")
        + (f' · <b class="bad" id="benched">{e(data["benched"])}</b>' if data.get("benched") else "")
        + "</p><h2>Recent matches</h2>"
        f'<table id="recent"><tr><th>match</th><th>kind</th><th>state</th><th>players (mean score)</th><th></th></tr>{games}</table>'
        f"<h2>Forfeits</h2><table><tr><th>match</th><th>game</th><th>verdict</th><th>detail</th></tr>{forfeits}</table>"
    )
    return layout(data["name"], body, user=user, csrf=csrf, admin=admin)


def game(data: dict, user: str, csrf: str, admin: bool) -> str:
    players = "".join(
        f'<tr><td><a href="/bots/{p["bot"]}">{e(p["name"])}</a></td><td>{p.get("wins", "")}</td>'
        f"<td>{p.get('losses', '')}</td><td>{p.get('draws', '')}</td><td>{p.get('mean_score', '')}</td>"
        f"<td>{p.get('forfeits', '')}</td><td>{'<pre>' + e(p['stderr_tail']) + '</pre>' if p.get('stderr_tail') else ''}</td></tr>"
        for p in data["players"]
    )
    replay = f'<p><a id="replay" href="{data["replay"]}">Watch the replay</a></p>' if data["replay"] else ""
    body = (
        f"<p>{e(data['kind'])} match, {data['games']} games, seed {data['seed']}, state {e(data['state'])}"
        + (f" — {e(data['error'])}" if data["error"] else "")
        + f"</p>{replay}<table><tr><th>bot</th><th>W</th><th>L</th><th>D</th><th>mean score</th>"
        f"<th>forfeits</th><th>stderr (your bot only)</th></tr>{players}</table>"
    )
    return layout(f"Match #{data['id']}", body, user=user, csrf=csrf, admin=admin)


def admin(students: list[dict], matches: list[dict], paused: bool, user: str, csrf: str) -> str:
    def form(action: str, label: str, **fields: object) -> str:
        hidden = "".join(f'<input type="hidden" name="{k}" value="{e(v)}">' for k, v in fields.items())
        return (
            f'<form class="inline" method="post" action="/admin/{action}"><input type="hidden" name="csrf" '
            f'value="{e(csrf)}">{hidden}<button>{e(label)}</button></form>'
        )

    rows = "".join(
        f"<tr><td>{e(s['name'])}</td><td>{e(s['alias'])}</td><td>{s['active_bot'] or ''}</td>"
        f"<td>{_subs(s)}</td>"
        f"<td>{e(s['disqualified'] or '')}</td><td>"
        + (form("requalify", "requalify", student=s["id"]) if s["disqualified"]
           else form("disqualify", "disqualify", student=s["id"], reason="disqualified by the TA"))
        + (form("rerun-submission", "recheck last", submission=s["submissions"][0]["id"]) if s["submissions"] else "")
        + "</td></tr>"
        for s in students
    )  # fmt: skip
    mrows = "".join(
        f"<tr><td><a href='/games/{m['id']}'>#{m['id']}</a></td><td>{e(m['kind'])}</td><td>{e(m['state'])}</td>"
        f"<td>{e(m['bots'])}</td><td>{e(m['error'] or '')}</td><td>"
        + (form("rerun-match", "rerun", match=m["id"]) if m["state"] in ("done", "failed") else "")
        + "</td></tr>"
        for m in matches
    )
    body = (
        (
            "<p><b>The ladder is paused.</b> " + form("resume", "resume")
            if paused
            else "<p>" + form("pause", "pause")
        )
        + "</p><h2>Students</h2><table><tr><th>name</th><th>alias</th><th>bot</th><th>submissions</th>"
        f"<th>disqualified</th><th></th></tr>{rows}</table><h2>Matches</h2><table>{mrows}</table>"
    )
    return layout("Arena: the TA's page", body, user=user, csrf=csrf, admin=True)


SCRIPT = """
// The live status of a submission: its step records, refreshed until it is done.
(function () {
  var box = document.getElementById('submission');
  if (!box) return;
  var id = box.getAttribute('data-id');
  function tick() {
    fetch('/submissions/' + id + '/fragment', {credentials: 'same-origin'}).then(function (r) {
      return r.ok ? r.json() : null;
    }).then(function (d) {
      if (!d) return;
      document.getElementById('state').textContent = d.state;
      var o = document.getElementById('outcome');
      o.textContent = d.outcome || '…';
      o.className = d.outcome === null ? 'pending' : (d.outcome === 'ok' ? 'ok' : 'bad');
      document.getElementById('summary').textContent = d.summary || '';
      document.getElementById('steps').innerHTML = d.steps_html;
      if (!d.done) setTimeout(tick, 700);
    });
  }
  tick();
})();
"""
