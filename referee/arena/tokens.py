"""Tokens, sessions and CSRF (docs/arena.md, "Security").

A token is ``arena-<id>-<secret>``: the id (8 hex digits) finds the row, the secret
(32 random bytes, URL-safe base64) is checked against its scrypt hash with a constant-time
compare.  Only the hash and its salt are stored; the TA's ``tokens.csv`` is written once,
at ``referee arena init``.  A verified token is remembered in memory (by its SHA-256)
so an API call costs one scrypt per token per server run, not one per request.

A browser session is a random id in an ``HttpOnly; SameSite=Strict`` cookie; the store
holds its SHA-256, the student and the session's CSRF token, which every form carries.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time

from referee.arena.store import Store

_TOKEN = re.compile(r"^arena-([0-9a-f]{8})-([A-Za-z0-9_-]{43})$")
#: scrypt's cost: tokens are 256 random bits, so the hash need not be slow to resist
#: guessing; it keeps a stolen store from handing out working tokens.
_N, _R, _P = 2**12, 8, 1
SESSION_S = 14 * 24 * 3600.0


def new_token() -> tuple[str, str, bytes, bytes]:
    """A fresh token: (token, its id, salt, hash)."""
    token_id = secrets.token_hex(4)
    secret = secrets.token_urlsafe(32)
    salt = secrets.token_bytes(16)
    return f"arena-{token_id}-{secret}", token_id, salt, _hash(secret, salt)


def _hash(secret: str, salt: bytes) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)


class Tokens:
    """Who a token or a session cookie is: ``(student id, role)`` or None."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._known: dict[bytes, tuple[int, str]] = {}

    def who(self, token: str | None) -> tuple[int, str] | None:
        if not token:
            return None
        key = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        found = self._known.get(key)
        if found is not None:
            # Disqualification does not revoke a token; a token's row never changes.
            return found
        match = _TOKEN.match(token)
        if match is None:
            return None
        row = self.store.one(
            "SELECT id, role, token_salt, token_hash FROM students WHERE token_id = ?", match.group(1)
        )
        if row is None or not hmac.compare_digest(_hash(match.group(2), row[2]), row[3]):
            return None
        self._known[key] = (row[0], row[1])
        return row[0], row[1]

    # ------------------------------------------------------------------ sessions

    def open_session(self, student: int) -> tuple[str, str]:
        """A new session for ``student``: (cookie value, CSRF token)."""
        sid = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(24)
        with self.store.tx() as conn:
            conn.execute(
                "INSERT INTO sessions (sid_hash, student_id, csrf, expires) VALUES (?, ?, ?, ?)",
                (_sid_hash(sid), student, csrf, time.time() + SESSION_S),
            )
        return sid, csrf

    def session(self, sid: str | None) -> tuple[int, str, str] | None:
        """(student id, role, CSRF token) of a live session, or None."""
        if not sid or len(sid) > 100:
            return None
        row = self.store.one(
            "SELECT s.student_id, st.role, s.csrf, s.expires FROM sessions s "
            "JOIN students st ON st.id = s.student_id WHERE s.sid_hash = ?",
            _sid_hash(sid),
        )
        if row is None or row[3] < time.time():
            return None
        return row[0], row[1], row[2]

    def close_session(self, sid: str | None) -> None:
        if sid:
            with self.store.tx() as conn:
                conn.execute("DELETE FROM sessions WHERE sid_hash = ?", (_sid_hash(sid),))


def _sid_hash(sid: str) -> str:
    return hashlib.sha256(sid.encode("utf-8", "surrogatepass")).hexdigest()


def csrf_ok(expected: str, given: object) -> bool:
    return isinstance(given, str) and hmac.compare_digest(expected.encode(), given.encode())
