"""The replay page: one HTML file that holds everything it shows.

The records go in as gzip-compressed JSON, base64 in a ``<script>`` of an inert type
(a 1000-game Yahtzee match is 10.6 MB of JSON lines, 0.76 MB compressed); the browser
inflates them with ``DecompressionStream``, which needs nothing from the network.  The
page's Content-Security-Policy allows its own inline script and style and nothing else:
no fetch, no image, no font, so it shows the same from ``file://``, a web server or an
e-mail client, and a record cannot make it load anything.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from importlib import resources

from referee import __version__
from referee.replay.sources import Source

_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"


def _asset(name: str) -> str:
    return (resources.files("referee.replay") / "assets" / name).read_text(encoding="utf-8")


def _script(text: str) -> str:
    # "</script" inside a script would end it early: the only sequence to break.
    return text.replace("</script", "<\\/script")


def renderer_script(game: str) -> str:
    """The game's renderer, or "" when it has none (the viewer's generic one draws it)."""
    name = f"{game.replace('-', '_')}.js"
    try:
        return _asset(name)
    except FileNotFoundError:
        return ""


def page(source: Source, first: int = 0) -> str:
    """The whole page for ``source``'s games, opening on game ``first`` (an index)."""
    meta = {
        "game": source.game,
        "title": source.title,
        "subtitle": f"referee {__version__} replay · {len(source.records)} games",
        "first": first,
    }
    data = json.dumps({"meta": meta, "games": source.records}, separators=(",", ":"), ensure_ascii=False)
    packed = base64.b64encode(gzip.compress(data.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")
    renderer = renderer_script(source.game)
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(source.title)}</title>",
            f"<style>{_asset('viewer.css')}</style>",
            "</head><body><p>Loading the replay…</p>",
            f'<script id="replay-data" type="application/octet-stream">{packed}</script>',
            f"<script>{_script(_asset('viewer.js'))}</script>",
            f"<script>{_script(renderer)}</script>" if renderer else "",
            "<script>RefereeReplay.start().catch((e) => { document.body.textContent = "
            "'This replay cannot be shown: ' + e; console.error(e); });</script>",
            "</body></html>",
        ]
    )
