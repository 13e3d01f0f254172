"""The arena's web application (Starlette): the JSON API under ``/api/`` and the pages.

Who is asking: an ``Authorization: Bearer TOKEN`` header (the API, ``referee submit``)
or the session cookie a token login set (the pages; their forms and the page's own
requests carry the session's CSRF token).  Requests for other hosts than the server's
are refused (``TrustedHostMiddleware``), bodies past the upload cap are cut off with 413
before they are read whole, and every page has a Content-Security-Policy.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from referee.arena import intake, ladder, pages, views
from referee.arena.context import Arena
from referee.arena.tokens import csrf_ok

SESSION = "arena_session"
LOGIN_CSRF = "arena_login_csrf"
_CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
_REPLAY_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'"


class BodyLimit:
    """Refuse a request body over ``limit`` bytes: at once from its Content-Length, or as
    soon as the bytes read pass it (a chunked body)."""

    def __init__(self, app, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.limit
                except ValueError:
                    too_big = True
                if too_big:
                    await _plain(send, 413, b"request body too large\n")
                    return
        seen = 0

        async def limited():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await _plain(send, 413, b"request body too large\n")


class _TooLarge(Exception):
    pass


async def _plain(send, status: int, body: bytes) -> None:
    await send(
        {"type": "http.response.start", "status": status, "headers": [(b"content-type", b"text/plain")]}
    )
    await send({"type": "http.response.body", "body": body})


_R = TypeVar("_R", bound=Response)


def _headers(response: _R, csp: str = _CSP) -> _R:
    response.headers["Content-Security-Policy"] = csp
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-store"
    return response


def act(arena: Arena, action: str, fields: dict) -> str | None:
    """A TA's action; an error line, or None when done."""
    store = arena.store
    try:
        if action in ("pause", "resume"):
            with store.tx() as conn:
                store.set_meta(conn, "paused", "1" if action == "pause" else "0")
        elif action == "disqualify":
            reason = str(fields.get("reason") or "disqualified by the TA")[:200]
            with store.tx() as conn:
                conn.execute(
                    "UPDATE students SET disqualified = ? WHERE id = ? AND role = 'student'",
                    (reason, int(fields["student"])),
                )
        elif action == "requalify":
            with store.tx() as conn:
                conn.execute(
                    "UPDATE students SET disqualified = NULL WHERE id = ?", (int(fields["student"]),)
                )
        elif action == "unbench":
            with store.tx() as conn:
                conn.execute(
                    "UPDATE bots SET benched = NULL, wall_stops = 0 WHERE id = ?", (int(fields["bot"]),)
                )
        elif action == "rerun-submission":
            with store.tx() as conn:
                conn.execute(
                    "UPDATE submissions SET state = 'queued', outcome = NULL, summary = NULL, step = NULL, "
                    "steps = '{}', finished = NULL WHERE id = ? AND state = 'done' AND bot_id IS NULL",
                    (int(fields["submission"]),),
                )
            arena.wake_intake()
        elif action == "rerun-match":
            mid = int(fields["match"])
            with store.tx() as conn:
                state = conn.execute("SELECT state FROM matches WHERE id = ?", (mid,)).fetchone()
                if state is None or state[0] not in ("done", "failed"):
                    return "only a done or failed match is rerun"
                if state[0] == "done":  # its games are taken back, whole, before it is played again
                    record = json.loads(
                        conn.execute("SELECT record FROM matches WHERE id = ?", (mid,)).fetchone()[0]
                    )
                    for p in record["players"]:
                        conn.execute(
                            "UPDATE bots SET games = games - ?, matches = matches - 1 WHERE id = ?",
                            (p["games"], int(p["name"][1:])),
                        )
                    conn.execute("DELETE FROM games WHERE match_id = ?", (mid,))
                # A failed match's charge, if it was stopped at the wall limit, is taken back
                # with it (a bench stays until the TA unbenches): the replay charges anew.
                conn.execute(
                    "UPDATE bots SET wall_stops = max(wall_stops - 1, 0) WHERE id IN "
                    "(SELECT bot_id FROM forfeits WHERE match_id = ? AND verdict = ?)",
                    (mid, ladder.WALL_VERDICT),
                )
                conn.execute("DELETE FROM forfeits WHERE match_id = ?", (mid,))
                conn.execute(
                    "UPDATE matches SET state = 'queued', record = NULL, error = NULL WHERE id = ?",
                    (mid,),
                )
        else:
            return f"no action {action!r}"
    except (KeyError, ValueError, TypeError):
        return "missing or bad fields"
    arena.wake_ladder()
    return None


def build_app(arena: Arena, *, hosts: list[str], secure: bool) -> Starlette:
    """The application for ``arena``, answering to ``hosts``; ``secure``: served over TLS
    (the cookies are then ``Secure``)."""

    def bearer(request: Request) -> views.Viewer | None:
        auth = request.headers.get("authorization", "")
        if auth[:7].lower() == "bearer ":
            return arena.tokens.who(auth[7:].strip())
        return None

    def session(request: Request) -> tuple[views.Viewer, str] | None:
        found = arena.tokens.session(request.cookies.get(SESSION))
        if found is None:
            return None
        return (found[0], found[1]), found[2]

    def api_viewer(request: Request, *, writing: bool = False) -> views.Viewer | None:
        viewer = bearer(request)
        if viewer is not None:
            return viewer
        found = session(request)
        if found is None:
            return None
        if writing and not csrf_ok(found[1], request.headers.get("x-csrf-token")):
            return None
        return found[0]

    def error(status: int, message: str) -> JSONResponse:
        return _headers(JSONResponse({"error": message}, status_code=status))

    def ok(data: object, status: int = 200) -> JSONResponse:
        return _headers(JSONResponse(data, status_code=status))

    def api(handler: Callable[[Request, views.Viewer], Awaitable[Response]], *, writing: bool = False):
        async def endpoint(request: Request) -> Response:
            viewer = api_viewer(request, writing=writing)
            if viewer is None:
                return error(401, "a valid token is needed: Authorization: Bearer TOKEN")
            try:
                return await handler(request, viewer)
            except views.NotFound:
                return error(404, "not found")

        return endpoint

    def admin_only(handler):
        async def inner(request: Request, viewer: views.Viewer) -> Response:
            if not views.is_admin(viewer):
                return error(404, "not found")
            return await handler(request, viewer)

        return inner

    def _int(request: Request, key: str) -> int:
        try:
            return int(request.path_params[key])
        except (KeyError, ValueError):
            raise views.NotFound from None

    async def _upload(request: Request, viewer: views.Viewer) -> tuple[int | None, str | None, int]:
        if viewer[1] == "admin":
            return None, "the TA's token does not submit bots", 403
        try:
            intake.check_allowed(arena, viewer[0])
            form = await request.form(max_files=1, max_fields=5)
        except intake.Refused as exc:
            return None, exc.reason, exc.status
        except Exception as exc:  # a malformed multipart body
            return None, f"not a multipart form: {exc}", 400
        try:
            upload = form.get("file")
            if upload is None or isinstance(upload, str):
                return None, "the form needs a field 'file' holding the upload", 400
            try:
                sid = intake.accept(arena, viewer[0], upload.filename, upload.file)
            except intake.Refused as exc:
                return None, exc.reason, exc.status
            return sid, None, 201
        finally:
            await form.close()

    # ------------------------------------------------------------------ API

    async def post_submission(request: Request, viewer: views.Viewer) -> Response:
        sid, reason, status = await _upload(request, viewer)
        if sid is None:
            return error(status, reason or "refused")
        return ok({"id": sid, "url": f"/api/submissions/{sid}", "page": f"/submissions/{sid}"}, 201)

    async def get_submission(request: Request, viewer: views.Viewer) -> Response:
        return ok(views.submission(arena, viewer, _int(request, "id")))

    async def get_me(request: Request, viewer: views.Viewer) -> Response:
        return ok(views.me(arena, viewer))

    async def get_leaderboard(request: Request, viewer: views.Viewer) -> Response:
        return ok(views.leaderboard(arena, viewer))

    async def get_bot(request: Request, viewer: views.Viewer) -> Response:
        return ok(views.bot(arena, viewer, _int(request, "id")))

    async def get_game(request: Request, viewer: views.Viewer) -> Response:
        return ok(views.game(arena, viewer, _int(request, "id")))

    async def admin_students(request: Request, viewer: views.Viewer) -> Response:
        return ok({"students": views.admin_students(arena), "matches": views.admin_matches(arena)})

    async def admin_action(request: Request, viewer: views.Viewer) -> Response:
        try:
            body = await request.json()
        except ValueError:
            body = {}
        result = act(arena, request.path_params["action"], body if isinstance(body, dict) else {})
        return error(400, result) if result else ok({"done": True})

    # ------------------------------------------------------------------ pages

    def page_viewer(request: Request) -> tuple[views.Viewer, str, str] | None:
        found = session(request)
        if found is None:
            return None
        viewer, csrf = found
        name = arena.store.row("SELECT name FROM students WHERE id = ?", viewer[0])[0]
        return viewer, csrf, name

    def html(text: str, status: int = 200) -> Response:
        return _headers(HTMLResponse(text, status_code=status))

    def to_login() -> Response:
        return RedirectResponse("/login", status_code=303)

    def page(render: Callable[[Request, views.Viewer, str, str], Response]):
        async def endpoint(request: Request) -> Response:
            found = page_viewer(request)
            if found is None:
                return to_login()
            viewer, csrf, name = found
            try:
                return render(request, viewer, csrf, name)
            except views.NotFound:
                return html(pages.layout("Not found", "<p>Nothing here.</p>", user=name, csrf=csrf), 404)

        return endpoint

    def form_page(handler):
        async def endpoint(request: Request) -> Response:
            found = page_viewer(request)
            if found is None:
                return to_login()
            viewer, csrf, _name = found
            form = await request.form(max_files=1, max_fields=10)
            try:
                if not csrf_ok(csrf, form.get("csrf")):
                    return html(pages.layout("Refused", "<p>The form is stale: reload the page.</p>"), 403)
                return await handler(request, viewer, form)
            finally:
                await form.close()

        return endpoint

    async def login_form(request: Request) -> Response:
        token = secrets.token_urlsafe(24)
        response = html(pages.login(token))
        response.set_cookie(LOGIN_CSRF, token, httponly=True, samesite="strict", secure=secure, max_age=3600)
        return response

    async def login(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=5)
        given, cookie = form.get("csrf"), request.cookies.get(LOGIN_CSRF)
        if not cookie or not csrf_ok(cookie, given):
            return html(pages.login(cookie or "", "The form is stale: reload the page."), 403)
        found = arena.tokens.who(str(form.get("token") or "").strip())
        if found is None:
            return html(pages.login(cookie, "That token is not valid."), 403)
        sid, _ = arena.tokens.open_session(found[0])
        response = RedirectResponse("/admin" if found[1] == "admin" else "/", status_code=303)
        response.set_cookie(
            SESSION, sid, httponly=True, samesite="strict", secure=secure, max_age=14 * 24 * 3600
        )
        response.delete_cookie(LOGIN_CSRF)
        return response

    async def logout(request: Request, viewer: views.Viewer, form) -> Response:
        arena.tokens.close_session(request.cookies.get(SESSION))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(SESSION)
        return response

    def home(request, viewer, csrf, name) -> Response:
        if views.is_admin(viewer):
            return RedirectResponse("/admin", status_code=303)
        return html(pages.home(views.me(arena, viewer), csrf))

    async def upload(request: Request, viewer: views.Viewer, form) -> Response:
        # The form is read already (for its CSRF field): take the file from it.
        if viewer[1] == "admin":
            return html(pages.layout("Refused", "<p>The TA's token does not submit bots.</p>"), 403)
        item = form.get("file")
        if item is None or isinstance(item, str) or not item.filename:
            return html(pages.layout("Upload", "<p class=bad>Choose a file first.</p>"), 400)
        try:
            sid = intake.accept(arena, viewer[0], item.filename, item.file)
        except intake.Refused as exc:
            return html(pages.layout("Upload refused", f"<p class=bad>{pages.e(exc.reason)}</p>"), exc.status)
        return RedirectResponse(f"/submissions/{sid}", status_code=303)

    def submission_page(request, viewer, csrf, name) -> Response:
        sub = views.submission(arena, viewer, _int(request, "id"))
        return html(pages.submission(sub, name, csrf, views.is_admin(viewer)))

    def submission_fragment(request, viewer, csrf, name) -> Response:
        sub = views.submission(arena, viewer, _int(request, "id"))
        return ok(
            {k: sub[k] for k in ("state", "outcome", "summary", "done", "bot")}
            | {"steps_html": pages.steps_html(sub)}
        )

    def leaderboard_page(request, viewer, csrf, name) -> Response:
        return html(pages.leaderboard(views.leaderboard(arena, viewer), name, csrf, views.is_admin(viewer)))

    def bot_page(request, viewer, csrf, name) -> Response:
        return html(
            pages.bot(views.bot(arena, viewer, _int(request, "id")), name, csrf, views.is_admin(viewer))
        )

    def game_page(request, viewer, csrf, name) -> Response:
        return html(
            pages.game(views.game(arena, viewer, _int(request, "id")), name, csrf, views.is_admin(viewer))
        )

    def replay_page(request, viewer, csrf, name) -> Response:
        from referee.replay.page import page as replay
        from referee.replay.sources import ReplayError, load

        data = views.game(arena, viewer, _int(request, "id"))
        if data["replay"] is None:
            raise views.NotFound
        try:
            source = load(Path(arena.folder / "logs" / f"m{data['id']}.jsonl"), arena.game)
        except ReplayError:
            raise views.NotFound from None
        return _headers(HTMLResponse(replay(source)), _REPLAY_CSP)

    def admin_page(request, viewer, csrf, name) -> Response:
        if not views.is_admin(viewer):
            raise views.NotFound
        return html(
            pages.admin(
                views.admin_students(arena), views.admin_matches(arena), arena.store.paused, name, csrf
            )
        )

    async def admin_form(request: Request, viewer: views.Viewer, form) -> Response:
        if not views.is_admin(viewer):
            return html(pages.layout("Not found", "<p>Nothing here.</p>"), 404)
        result = act(
            arena, request.path_params["action"], {k: v for k, v in form.items() if isinstance(v, str)}
        )
        if result:
            return html(pages.layout("Refused", f"<p class=bad>{pages.e(result)}</p>"), 400)
        return RedirectResponse("/admin", status_code=303)

    async def script(request: Request) -> Response:
        return _headers(Response(pages.SCRIPT, media_type="text/javascript"))

    routes = [
        Route("/api/submissions", api(post_submission, writing=True), methods=["POST"]),
        Route("/api/submissions/{id}", api(get_submission)),
        Route("/api/me", api(get_me)),
        Route("/api/leaderboard", api(get_leaderboard)),
        Route("/api/bots/{id}", api(get_bot)),
        Route("/api/games/{id}", api(get_game)),
        Route("/api/admin/students", api(admin_only(admin_students))),
        Route("/api/admin/{action}", api(admin_only(admin_action), writing=True), methods=["POST"]),
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", form_page(logout), methods=["POST"]),
        Route("/", page(home)),
        Route("/upload", form_page(upload), methods=["POST"]),
        Route("/submissions/{id}", page(submission_page)),
        Route("/submissions/{id}/fragment", page(submission_fragment)),
        Route("/leaderboard", page(leaderboard_page)),
        Route("/bots/{id}", page(bot_page)),
        Route("/games/{id}", page(game_page)),
        Route("/games/{id}/replay", page(replay_page)),
        Route("/admin", page(admin_page)),
        Route("/admin/{action}", form_page(admin_form), methods=["POST"]),
        Route("/static/arena.js", script),
    ]
    limit = int(arena.config.upload.max_mib * 1024 * 1024) + 64 * 1024
    app = Starlette(routes=routes, middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)])
    return BodyLimit(app, limit)  # type: ignore[return-value]
