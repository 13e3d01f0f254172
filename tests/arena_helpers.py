"""Shared by the arena's tests: an arena made, served in a child process, and its API."""

from __future__ import annotations

import contextlib
import io
import json
import signal
import sqlite3
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_players" / "bidding_wars"
CLI = [sys.executable, "-m", "referee.cli.arena"]

CONFIG = """
game = "bidding-wars"
names = "anonymised"
[ladder]
games = 20
placement_matches = 2
refresh_s = 0.5
replicates = 100
[upload]
max_mib = 1
per_hour = 6
pending = 40
concurrency = 2
[check]
games = 4
"""

CRASH = 'import sys\nprint("boom: my secret stderr", file=sys.stderr)\nraise SystemExit(3)\n'
BROKEN_C = "#include <stdio.h>\nint main(void) { this is not C }\n"


def zip_of(files: dict[str, bytes | str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return out.getvalue()


def tar_of(files: dict[str, bytes | str]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as t:
        for name, data in files.items():
            raw = data.encode() if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            info.mode = 0o644
            t.addfile(info, io.BytesIO(raw))
    return out.getvalue()


def init(folder: Path, roster: list[str], config: str = CONFIG) -> dict[str, str]:
    folder.parent.mkdir(parents=True, exist_ok=True)
    (folder.parent / "arena.toml").write_text(config)
    (folder.parent / "roster.csv").write_text("student,email\n" + "".join(f"{s},{s}@uni\n" for s in roster))
    done = subprocess.run(
        [*CLI, "arena", "init", str(folder), "--game", "bidding-wars", "--config",
         str(folder.parent / "arena.toml"), "--roster", str(folder.parent / "roster.csv")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = (folder / "tokens.csv").read_text().splitlines()[1:]
    tokens = dict(row.split(",", 1) for row in rows)
    tokens["__admin__"] = (folder / "admin-token.txt").read_text().strip()
    return tokens


class Server:
    """``referee arena serve DIR --port 0`` in a child process."""

    def __init__(self, folder: Path, concurrency: int = 1) -> None:
        self.folder = folder
        self.concurrency = concurrency
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def start(self) -> Server:
        (self.folder / "serve.json").unlink(missing_ok=True)
        self.log = open(self.folder.parent / "serve.log", "ab")  # noqa: SIM115 (closed by stop)
        self.proc = subprocess.Popen(
            [*CLI, "arena", "serve", str(self.folder), "--port", "0", "--concurrency", str(self.concurrency)],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while not (self.folder / "serve.json").exists():
            assert self.proc.poll() is None, (self.folder.parent / "serve.log").read_text()
            assert time.monotonic() < deadline, "the server did not start within 60 s"
            time.sleep(0.05)
        self.url = json.loads((self.folder / "serve.json").read_text())["url"].rstrip("/")
        return self

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        self.log.close()


def call(
    url: str, token: str | None = None, data: bytes | None = None, headers: dict | None = None,
    method: str | None = None,
) -> tuple[int, dict | str]:  # fmt: skip
    h = dict(headers or {})
    if token:
        h["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, headers=h, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read()
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body.decode(errors="replace")


def upload(server: Server, token: str, filename: str, data: bytes | str) -> tuple[int, dict | str]:
    raw = data.encode() if isinstance(data, str) else data
    boundary = "----arenatest7f3a"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + raw
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return call(f"{server.url}/api/submissions", token, body,
                {"Content-Type": f"multipart/form-data; boundary={boundary}"})  # fmt: skip


def wait_done(server: Server, token: str, sid: int, timeout: float = 240) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        status, data = call(f"{server.url}/api/submissions/{sid}", token)
        assert status == 200, data
        if data["done"]:
            return data
        assert time.monotonic() < deadline, f"submission {sid} not done within {timeout} s: {data['state']}"
        time.sleep(0.5)


def wait_for(predicate, timeout: float, what: str, step: float = 0.5):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(step)


def db(folder: Path) -> sqlite3.Connection:
    return sqlite3.connect(folder / "arena.sqlite", timeout=30)


def good_zip() -> bytes:
    return zip_of({"submission/main.py": (SAMPLES / "bid_prize.py").read_text()})


def weak_tar() -> bytes:
    return tar_of({"main.py": (SAMPLES / "random.py").read_text()})


def upload_too_big(server: Server, token: str, size: int) -> int:
    """An upload past the cap: the server answers 413 before reading it, so the body's
    send may break off; the status is read anyway."""
    import http.client
    import urllib.parse

    parts = urllib.parse.urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    conn.putrequest("POST", "/api/submissions")
    conn.putheader("Authorization", f"Bearer {token}")
    conn.putheader("Content-Type", "multipart/form-data; boundary=xx")
    conn.putheader("Content-Length", str(size))
    conn.endheaders()
    with contextlib.suppress(OSError):
        conn.send(b"x" * size)
    try:
        return conn.getresponse().status
    finally:
        conn.close()
