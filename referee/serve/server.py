"""``referee serve``: tables of remote players, over TCP.

Players connect (``referee connect``, or any program speaking :mod:`protocol.relay`),
say who they are (a token from the organiser's ``--tokens`` file; no token on a
loopback-only server), and wait in a lobby.  Whenever ``table_size`` of them are
waiting, the longest-waiting ones are seated at a new table: a normal
:class:`~referee.match.Match` of ``games`` games, every seat a
:class:`~referee.seats.remote.RemoteSeat`, so the rules, verdicts and records are those
of a local match.  When the table's match ends, its players still connected go back to
the lobby.  Each table is written to the results store in ``out`` as it is played
(a match keyed ``table-0001`` …), with its game log beside it (``tables/``), so
``referee replay`` and the store's readers work on it as on a tournament's matches.

Every wait is bounded: a login within :data:`LOGIN_S`, each answer within the seat's
limit plus the network allowance; a player that misbehaves is cut off with the verdict
a local bot would get, and the table plays on (the game's rule for a dead bot).
"""

from __future__ import annotations

import contextlib
import functools
import hmac
import random
import re
import ssl
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import trio

from protocol import relay
from referee.core.botspec import BotSpec
from referee.core.limits import Limits, LimitsOverride
from referee.core.records import MatchRecord
from referee.games import get as get_game
from referee.match import Match, MatchConfig, MatchSpec
from referee.seats import ppca as ppca_seat
from referee.seats.remote import NETWORK_ALLOWANCE_S, Client, RemoteSeat
from referee.sinks.files import write_atomically
from referee.tournament.report import notes_markdown
from referee.tournament.sink import StoreSink
from referee.tournament.standings import collect_notes
from referee.tournament.store import Store

#: Seconds a new connection has to say ``hello``.
LOGIN_S = 10.0
#: Longest ``hello`` line.
HELLO_MAX = 512


class ServeConfig(msgspec.Struct, frozen=True, kw_only=True):
    """What a server plays (stored with its results)."""

    #: Tells a server's store from a tournament's.
    kind: str = "serve"
    game: str
    table_size: int
    games: int
    seed: int
    options: dict[str, Any] = {}
    limits: LimitsOverride | None = None
    allowance_s: float = NETWORK_ALLOWANCE_S
    #: Stop after this many tables have been played (``None``: until stopped).
    tables: int | None = None
    #: ``relay`` (protocol.relay: ``referee connect``), or ``ppca``: the PPCA 2014
    #: Hold'em server's own protocol, for its original clients (one game a table).
    dialect: str = "relay"
    #: Tables fixed in advance (player names each), played as soon as all of a table's
    #: players are connected and free; ``None``: tables of whoever waits, first come.
    schedule: list[list[str]] | None = None


class TableResult(msgspec.Struct):
    table: int
    players: list[str]
    record: MatchRecord
    #: Wall seconds the table's match took (its bots' starts included).
    seconds: float = 0.0


def load_tokens(path: Path) -> dict[str, str]:
    """``token -> name`` from a file of ``NAME TOKEN`` (or ``NAME,TOKEN``) lines; ``#`` comments."""
    tokens: dict[str, str] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].replace(",", " ").strip()
        if not line:
            continue
        words = line.split()
        if len(words) != 2 or not relay.NAME.fullmatch(words[0]) or len(words[1]) < 8:
            raise ValueError(
                f"{path}:{number}: expected 'NAME TOKEN' (NAME of A-Z a-z 0-9 _ . -, a token of 8+ characters)"
            )
        name, token = words
        if token in tokens:
            raise ValueError(f"{path}:{number}: this token is also {tokens[token]}'s")
        if name in tokens.values():
            raise ValueError(f"{path}:{number}: {name} has two tokens")
        tokens[token] = name
    if not tokens:
        raise ValueError(f"{path}: no tokens")
    return tokens


def server_tls(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))
    return context


class Server:
    """The lobby and the tables (module docstring)."""

    def __init__(
        self,
        config: ServeConfig,
        *,
        out: Path,
        tokens: dict[str, str] | None = None,
        say: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.config = config
        self.out = out
        self.tokens = tokens
        self.say = say
        if config.dialect not in ("relay", "ppca"):
            raise ValueError(f"dialect {config.dialect!r}: relay or ppca")
        if config.dialect == "ppca":
            # The seed's own server: one game of Hold'em a table, its rules (issue 15).
            if config.game != "holdem" or config.games != 1 or config.options.get("rules", "ppca") != "ppca":
                raise ValueError("the ppca dialect plays holdem, one game a table, with the ppca rules")
            config = msgspec.structs.replace(config, options={**config.options, "rules": "ppca"})
            self.config = config
        self.game_cls = get_game(config.game)
        self.game_cls(**config.options)  # options checked now, not at the first table
        #: The players of the schedule, if there is one: no one else is let in.
        self._field = {x for table in config.schedule for x in table} if config.schedule is not None else None
        for table in config.schedule or ():
            if len(table) not in self.game_cls.seats or len(set(table)) != len(table):
                raise ValueError(f"a scheduled table of {', '.join(table)}: not a table of {config.game}")
        self.limits: Limits = self.game_cls.limits.merged(config.limits)
        self.clients: dict[str, Client] = {}
        #: Players seated at a table now: a reconnection goes back to its table.
        self._at_table: set[str] = set()
        #: Everyone who connected in this run, by name (their last connection).
        self._seen: dict[str, Client] = {}
        self.lobby: list[Client] = []
        #: Names whose login is being answered (:meth:`_welcoming`).
        self._logging_in: set[str] = set()
        self.results: list[TableResult] = []
        self._lobby_changed = trio.Event()
        self._next_table = 1
        #: PPCA login names being sent (``_login_ppca``): taken, as the lobby's are.
        self._logins_in_flight: set[str] = set()
        self.store: Store | None = None

    # ------------------------------------------------------------------ running

    async def run(self, listeners: Sequence[trio.abc.Listener[Any]]) -> list[TableResult]:
        """Serve until ``config.tables`` tables are played (or forever); then say
        ``bye`` to everyone and return the tables' results."""
        self.out.mkdir(parents=True, exist_ok=True)
        # What decides results is stored (a later serve into the folder must match it);
        # how many tables this run plays is not.
        stored = {k: v for k, v in msgspec.to_builtins(self.config).items() if k != "tables"}
        self.store = Store.open(self.out, stored, seed=self.config.seed)
        self._next_table = len(self.store.match_keys()) + 1
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(trio.serve_listeners, self._handle, list(listeners))
                try:
                    await self._seat_tables()
                finally:
                    # Also when stopped (Ctrl-C): tell everyone, give them a moment to go.
                    with trio.CancelScope(shield=True):
                        for client in list(self.clients.values()):
                            client.send(relay.message("bye", "the server is done"))
                        with trio.move_on_after(2):
                            while any(c.connected for c in self.clients.values()):
                                await trio.sleep(0.02)
                    nursery.cancel_scope.cancel()
        finally:
            self.store.close()
        return self.results

    async def _seat_tables(self) -> None:
        if self.config.schedule is not None:
            await self._seat_scheduled(self.config.schedule)
            return
        wanted = self.config.tables
        async with trio.open_nursery() as tables:
            started = 0
            while wanted is None or started < wanted:
                self.lobby = [c for c in self.lobby if c.connected]
                if len(self.lobby) < self.config.table_size:
                    self._lobby_changed = trio.Event()
                    await self._lobby_changed.wait()
                    continue
                seated, self.lobby = (
                    self.lobby[: self.config.table_size],
                    self.lobby[self.config.table_size :],
                )
                for client in seated:
                    self._at_table.add(client.name)
                number = self._next_table
                self._next_table += 1
                started += 1
                tables.start_soon(self._table, number, seated)

    async def _seat_scheduled(self, schedule: list[list[str]]) -> None:
        """Table n of the schedule is ``table-n`` (its seed too): a table already in the
        store is not played again, so serving again into the same folder resumes."""
        assert self.store is not None
        done = set(self.store.done_keys())
        pending = [(n, names) for n, names in enumerate(schedule, 1) if f"table-{n:04d}" not in done]
        self.store.discard_unfinished()
        async with trio.open_nursery() as tables:
            while pending:
                self.lobby = [c for c in self.lobby if c.connected]
                waiting = {c.name: c for c in self.lobby}
                ready = next(((n, names) for n, names in pending if all(x in waiting for x in names)), None)
                if ready is None:
                    self._lobby_changed = trio.Event()
                    await self._lobby_changed.wait()
                    continue
                pending.remove(ready)
                number, names = ready
                seated = [waiting[x] for x in names]
                self.lobby = [c for c in self.lobby if c.name not in names]
                for client in seated:
                    self._at_table.add(client.name)
                tables.start_soon(self._table, number, seated)

    def _wake(self) -> None:
        self._lobby_changed.set()

    # ------------------------------------------------------------------ one connection

    async def _handle(self, stream: trio.abc.Stream) -> None:
        client, buffered = await self._login(stream)
        if client is None:
            return
        self.clients[client.name] = client
        self._seen[client.name] = client
        if client.name not in self._at_table:  # else: back at its table (a reconnection)
            self.lobby.append(client)
        self._wake()
        self.say(f"{client.name} connected ({len(self.lobby)} waiting)")
        try:
            await client.run(buffered)
        finally:
            if self.clients.get(client.name) is client:
                del self.clients[client.name]
            self.say(f"{client.name} left: {client.gone or 'disconnected'}")
            self._wake()

    async def _login(self, stream: trio.abc.Stream) -> tuple[Client | None, bytes]:
        buf = b""
        with trio.move_on_after(LOGIN_S):
            try:
                if isinstance(stream, trio.SSLStream):
                    await stream.do_handshake()
                while b"\n" not in buf and len(buf) <= HELLO_MAX:
                    chunk = await stream.receive_some(HELLO_MAX)
                    if not chunk:
                        break
                    buf += chunk
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                buf = b""
        line, _, rest = buf.partition(b"\n")
        if not _ or len(line) > HELLO_MAX:
            await self._refuse(stream, f"no {'login' if self.ppca else 'hello'} within {LOGIN_S:g} s")
            return None, b""
        if self.ppca:
            return await self._login_ppca(stream, line.rstrip(b"\r"), rest)
        try:
            kind, words = relay.split(line)
            if kind != "hello":
                raise relay.RelayError("the first line must be: hello VERSION NAME TOKEN")
            version, name, token = relay.parse_hello(words)
        except relay.RelayError as exc:
            await self._refuse(stream, str(exc))
            return None, b""
        if version != relay.VERSION:
            await self._refuse(
                stream, f"relay protocol {version} is not spoken here (this server speaks {relay.VERSION})"
            )
            return None, b""
        if self.tokens is not None:
            owner = next((n for t, n in self.tokens.items() if token and hmac.compare_digest(t, token)), None)
            if owner is None:
                await self._refuse(stream, "unknown token")
                return None, b""
            name = owner
        if self._field is not None and name not in self._field:
            await self._refuse(stream, f"{name} is not in this server's schedule")
            return None, b""
        old = self.clients.get(name)
        if (old is not None and old.connected) or name in self._logging_in:
            await self._refuse(stream, f"{name} is already connected")
            return None, b""
        with self._welcoming(name), trio.move_on_after(LOGIN_S):
            try:
                await stream.send_all(relay.welcome(name, self.config.game, msgspec.to_builtins(self.limits)))
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                return None, b""
        return Client(name, stream, self.limits.max_line_bytes), rest

    async def _login_ppca(
        self, stream: trio.abc.Stream, line: bytes, rest: bytes
    ) -> tuple[Client | None, bytes]:
        """``login NAME`` → ``login NAME_<game>_<id>``, as ``Session::handle_login``
        answers: NAME is the rest of the line, as sent; ``<game>`` counts the tables from
        0 and ``<id>`` the logins of that table from 0 (its seat there: first come, first
        seated).  The record's name is NAME made a token, with a suffix when taken."""
        # NAME is printable ASCII, as every line of a PPCA client (it is sent back to the table).
        if not line.startswith(b"login ") or not line[6:].strip() or ppca_seat.UNPRINTABLE.search(line):
            await self._refuse(stream, "expected: login NAME")
            return None, b""
        raw = line[6:].decode("ascii")
        wanted = re.sub(r"[^A-Za-z0-9_.-]", "_", raw.strip())[:32] or "player"
        name, n = wanted, 1
        while name in self.clients or name in self._at_table or name in self._logging_in:
            n += 1
            name = f"{wanted}-{n}"
        # Logins still being answered are ahead of this one in the lobby.
        waiting = sum(1 for c in self.lobby if c.connected) + len(self._logging_in)
        size = self.config.table_size
        game, seat = self._next_table - 1 + waiting // size, waiting % size
        taken = {c.login for c in self.lobby if c.connected} | set(self._logins_in_flight)
        while f"{raw}_{game}_{seat}" in taken:  # someone ahead left the lobby: ids stay unique
            seat += 1
        client = Client(name, stream, self.limits.max_line_bytes, parse=ppca_seat.parse_client_line)
        client.login = f"{raw}_{game}_{seat}"
        self._logins_in_flight.add(client.login)
        try:
            with self._welcoming(name), trio.fail_after(LOGIN_S):
                await stream.send_all(b"login %s\n" % client.login.encode())
        except (trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return None, b""
        finally:
            self._logins_in_flight.discard(client.login)
        return client, rest

    @contextlib.contextmanager
    def _welcoming(self, name: str) -> Iterator[None]:
        """``name`` counts as taken while the answer to its login is sent: the client is
        registered only after that await (by the caller, with no checkpoint in between),
        so two logins at once must not both take a name, or a PPCA seat id."""
        self._logging_in.add(name)
        try:
            yield
        finally:
            self._logging_in.discard(name)

    @property
    def ppca(self) -> bool:
        return self.config.dialect == "ppca"

    @staticmethod
    async def _refuse(stream: trio.abc.Stream, why: str) -> None:
        with trio.move_on_after(2):
            try:
                await stream.send_all(relay.message("refused", why))
                await stream.aclose()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass

    # ------------------------------------------------------------------ one table

    async def _table(self, number: int, seated: list[Client]) -> None:
        config = self.config
        key = f"table-{number:04d}"
        order = list(seated)
        rng = random.Random(f"{config.seed}/{number}")
        if not self.ppca:  # the PPCA server seated players in the order they logged in
            rng.shuffle(order)
        by_name = {c.name: c for c in order}
        specs = [BotSpec(name=c.name, argv=["(remote)"], home=str(self.out)) for c in order]
        tables_dir = self.out / "tables"
        tables_dir.mkdir(exist_ok=True)
        match_config = MatchConfig(
            game=config.game,
            games=config.games,
            seed=rng.getrandbits(63),
            sandbox="none",
            limits=config.limits,
            options=config.options,
            keep_going=True,
            log_path=str(tables_dir / f"{key}.jsonl"),
        )
        spec = MatchSpec(bots=specs, config=match_config)

        def seat(
            spec: BotSpec, limits: Limits, *, stderr_path: Path | None, cpu_budget_s: float | None
        ) -> RemoteSeat:
            # A player who reconnected since the table began plays on over the new connection.
            client = self.clients.get(spec.name) or by_name[spec.name]
            kind = ppca_seat.PpcaSeat if self.ppca else RemoteSeat
            return kind(client, limits, config.allowance_s)

        assert self.store is not None
        sink = StoreSink(self.store, key, spec)
        game = self.game_cls(**config.options)
        if self.ppca:
            game.narrate = True  # type: ignore[attr-defined]  # Holdem: the PPCA server's sentences
            await self._ppca_preamble(order)
        match = Match(game, specs, match_config, seat_factory=seat, sinks=[sink])
        self.say(f"{key}: {', '.join(c.name for c in order)}")
        started = trio.current_time()
        try:
            record = await match.run()
        finally:
            for client in order:
                if self.ppca:  # the original server's game was the connection's whole life
                    client.drop("the game is over")
                self._at_table.discard(client.name)
                current = self.clients.get(client.name)  # the same, or a reconnection
                if current is not None and current.connected:
                    self.lobby.append(current)
            self._wake()
        seconds = trio.current_time() - started
        self.results.append(TableResult(number, [c.name for c in order], record, seconds))
        self.say(f"{key} over: {table_line(record)}")
        self.write_standings()

    async def _ppca_preamble(self, order: list[Client]) -> None:
        """What a PPCA client is told when its table fills: every name, and the chips."""
        from referee.games.holdem import STARTING_CHIPS

        names = b"".join(b"%s\n" % c.login.encode() for c in order)
        text = names + b"player list end\ninitial chips = %d\n" % STARTING_CHIPS
        for client in order:
            await client.send_now(text)

    def write_standings(self) -> None:
        """``standings.md``: every finished table of this store (earlier runs' too), by
        player; and the network figures of the players connected in this run."""
        assert self.store is not None
        rows: dict[str, dict[str, float]] = {}
        records = self.store.match_records().values()
        for record in records:
            for p in record.players:
                row = rows.setdefault(
                    p.name, dict.fromkeys(("tables", "games", "score", "wins", "forfeits"), 0)
                )
                row["tables"] += 1
                row["games"] += p.games
                row["score"] += p.mean_score * p.games
                row["wins"] += p.wins
                row["forfeits"] += sum(p.forfeits.values())
        lines = [
            f"# {self.config.game}: tables played by `referee serve`",
            "",
            "| rank | player | tables | games | mean score | wins | forfeits | network ms (mean / max) |",
            "|---:|---|---:|---:|---:|---:|---:|---|",
        ]
        order = sorted(rows, key=lambda n: (-rows[n]["score"] / max(rows[n]["games"], 1), n))
        for rank, name in enumerate(order, 1):
            row = rows[name]
            client = self.clients.get(name) or self._seen.get(name)
            network = "{:.2f} / {:.2f}".format(*client.network()) if client is not None else "-"
            mean = row["score"] / max(row["games"], 1)
            lines.append(
                f"| {rank} | {name} | {row['tables']:.0f} | {row['games']:.0f} | {mean:+.3f} | "
                f"{row['wins']:.0f} | {row['forfeits']:.0f} | {network} |"
            )
        lines += notes_markdown(collect_notes((r.players for r in records), order))
        write_atomically(str(self.out / "standings.md"), ("\n".join(lines) + "\n").encode(), durable=False)


def table_line(record: MatchRecord) -> str:
    """``alice 1.2 (W3 L1), bob -1.2 (W1 L3)`` — mean score and wins per player."""
    parts = []
    for player in record.players:
        parts.append(f"{player.name} {player.mean_score:+.3g} (W{player.wins} L{player.losses})")
    return ", ".join(parts)


def serve_listeners(port: int, bind: str, tls: ssl.SSLContext | None) -> Callable[[], Any]:
    """The listeners' opener for ``bind:port`` (``port`` 0: any free one)."""
    if tls is not None:
        return functools.partial(trio.open_ssl_over_tcp_listeners, port, tls, host=bind)
    return functools.partial(trio.open_tcp_listeners, port, host=bind)
