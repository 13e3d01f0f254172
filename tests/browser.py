"""Headless Chromium for the tests, over the DevTools protocol.

The replay tests need a real browser: a page must load from ``file://`` with no console
error, and its DOM must show the moves and scores.  ``chromium --dump-dom`` cannot wait
for a page that draws after an asynchronous step, nor report console errors, so this
drives Chromium's remote-debugging websocket (websockets' sync client) directly:
:class:`Browser` opens a tab, :meth:`Browser.open` navigates and waits for the page to
say it is ready, :meth:`Browser.eval` runs JavaScript, and every console error and
uncaught exception is collected in :attr:`Browser.errors`.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from websockets.sync.client import connect

CHROMIUM = next(
    (p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None
)


class Browser:
    def __init__(self) -> None:
        if CHROMIUM is None:
            raise RuntimeError("no chromium on PATH")
        self._profile = tempfile.mkdtemp(prefix="referee-chromium-")
        self._proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-port=0", f"--user-data-dir={self._profile}", "--window-size=1280,900",
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        port_file = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline or self._proc.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not start")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
        page = next(t for t in targets if t.get("type") == "page")
        self._exit = contextlib.ExitStack()
        self._ws = self._exit.enter_context(
            connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10)
        )
        self._ids = itertools.count(1)
        self.errors: list[str] = []
        for method in ("Runtime.enable", "Log.enable", "Page.enable"):
            self._call(method)

    def _note(self, message: dict) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append(
                details.get("exception", {}).get("description") or details.get("text", "exception")
            )
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(
                " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            )
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(params["entry"].get("text", "log error"))

    def _call(self, method: str, timeout: float = 30, **params: object) -> dict:
        ident = next(self._ids)
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self._ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._note(message)

    def eval(self, expression: str) -> object:
        result = self._call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("text", "evaluation failed"))
        return result.get("result", {}).get("value")

    def open(
        self,
        path: Path | str,
        ready: str = "document.body.dataset.ready === '1'",
        timeout: float = 20,
    ) -> float:
        """Navigate to ``path`` (a file, or an http:// URL) and wait until ``ready`` is
        true; the seconds it took."""
        started = time.monotonic()
        url = path if isinstance(path, str) and path.startswith("http") else Path(path).resolve().as_uri()
        self._call("Page.navigate", url=url)
        while not self.eval(f"!!(document.body && ({ready}))"):
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"{path} was not ready within {timeout} s; errors: {self.errors}")
            time.sleep(0.02)
        return time.monotonic() - started

    def screenshot(self, path: Path) -> None:
        data = self._call("Page.captureScreenshot", format="png")["data"]
        Path(path).write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            if hasattr(self, "_exit"):
                self._exit.close()
        finally:
            self._proc.kill()
            self._proc.wait(timeout=10)
            shutil.rmtree(self._profile, ignore_errors=True)
