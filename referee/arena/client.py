"""``referee submit URL FILE --token T``: upload a bot and print its check report.

Standard library only (urllib): a multipart POST to ``/api/submissions``, then
``/api/submissions/ID`` polled until the submission is done.
"""

from __future__ import annotations

import json
import mimetypes
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path


class SubmitError(Exception):
    """The upload failed; one line."""


def _request(url: str, token: str, data: bytes | None = None, content_type: str | None = None) -> dict:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(
        url, data=data, headers=headers, method="POST" if data is not None else "GET"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            reason = json.loads(exc.read()).get("error", "")
        except ValueError:
            reason = ""
        raise SubmitError(f"{exc.code} {exc.reason}: {reason}".rstrip(": ")) from None
    except (urllib.error.URLError, OSError) as exc:
        raise SubmitError(f"{url}: {getattr(exc, 'reason', exc)}") from None


def multipart(path: Path) -> tuple[bytes, str]:
    boundary = f"----referee{secrets.token_hex(12)}"
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    name = path.name.replace('"', "_").replace("\r", "_").replace("\n", "_")
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        f"Content-Type: {kind}\r\n\r\n"
    ).encode()
    body = head + path.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def submit(base: str, path: Path, token: str) -> dict:
    body, content_type = multipart(path)
    return _request(base.rstrip("/") + "/api/submissions", token, body, content_type)


def wait(
    base: str, sid: int, token: str, timeout_s: float, tick: Callable[[dict], None] | None = None
) -> dict:
    deadline = time.monotonic() + timeout_s
    last_state = None
    while True:
        data = _request(f"{base.rstrip('/')}/api/submissions/{sid}", token)
        if tick is not None and data["state"] != last_state:
            tick(data)
            last_state = data["state"]
        if data["done"] or time.monotonic() > deadline:
            return data
        time.sleep(1.0)


def report(data: dict) -> str:
    """The check report as text: each step's outcome, the checklist with its hints."""
    lines = [
        f"submission {data['id']}: {data['outcome'] or data['state']} — {data['summary'] or ''}".rstrip(" —")
    ]
    steps = data.get("steps") or {}
    for name in ("unpack", "build", "check"):
        step = steps.get(name)
        if step is None:
            continue
        lines.append(f"{name}: {step.get('outcome')}: {step.get('summary')}")
        if name == "build" and step.get("outcome") != "ok":
            log = "\n".join(x for x in (step.get("log_head"), step.get("log_tail")) if x)
            lines += ["  " + line for line in log.splitlines()[-20:]]
        for item in step.get("items", []) if name == "check" else []:
            lines.append(
                f"  {item.get('status', '').upper():4} {item.get('title', ''):14} {item.get('figure', '')}"
            )
            if item.get("hint") and item.get("status") != "pass":
                lines.append(f"       hint: {item['hint']}")
    if data.get("bot"):
        lines.append(f"on the ladder as bot {data['bot']}")
    return "\n".join(lines)
