"""Remote play: ``referee serve`` seats bots that connect over TCP (issue 15, docs/remote.md).

The server runs in the test's own trio loop on a loopback port; honest players are
:class:`~referee.seats.remote_client.Relay`s running real sample bots, hostile ones are raw
streams that stall, disconnect mid-hand, flood or lie about who they are.  The table
must end with the verdicts a local bot would get, and the other players unharmed.
"""

from __future__ import annotations

import os
import re
import ssl
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from protocol import relay
from referee.core.botspec import resolve
from referee.core.limits import LimitsOverride
from referee.seats.process import sandbox
from referee.seats.remote_client import ConnectError, LineReader, Relay, open_stream
from referee.serve import server as server_module
from referee.serve.server import ServeConfig, Server, load_tokens
from referee.tournament.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

ROOT = Path(__file__).resolve().parents[1]
HOLDEM = ROOT / "sample_players" / "holdem"
LIMITS = LimitsOverride(startup_s=5.0, decision_s=0.3)


async def start_server(nursery: trio.Nursery, tmp_path: Path, **kwargs) -> tuple[Server, int]:
    config = ServeConfig(
        game=kwargs.pop("game", "holdem"),
        table_size=kwargs.pop("table_size", 3),
        games=kwargs.pop("games", 1),
        seed=7,
        limits=kwargs.pop("limits", LIMITS),
        allowance_s=kwargs.pop("allowance_s", 0.2),
        tables=kwargs.pop("tables", 1),
        options=kwargs.pop("options", {}),
    )
    server = Server(config, out=tmp_path / "served", **kwargs)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    nursery.start_soon(server.run, listeners)
    return server, port


async def honest(port: int, bot: str, name: str, token: str | None = None) -> str:
    spec = resolve(bot)
    player = Relay(spec, layer=sandbox.choose("auto"))
    stream = await open_stream("127.0.0.1", port, None)
    try:
        return await player.run(stream, name, token)
    finally:
        await stream.aclose()


class Raw:
    """A client written by hand, speaking the relay protocol (or not)."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.reader = LineReader(stream)

    @classmethod
    async def connect(cls, port: int, name: str, token: str | None = None) -> Raw:
        raw = cls(await open_stream("127.0.0.1", port, None))
        await raw.stream.send_all(relay.hello(name, token))
        return raw

    async def next(self) -> tuple[str, bytes]:
        line = await self.reader.line()
        return ("", b"") if line is None else relay.split(line)


def passive(act_line: bytes) -> bytes:
    """A legal Hold'em reply: call when there is a call, else check."""
    words = act_line.split()
    return b"call" if b"call" in words[words.index(b"legal") + 1].split(b",") else b"check"


def record_of(server: Server):
    assert len(server.results) == 1, server.results
    return {p.name: p for p in server.results[0].record.players}


async def test_a_nine_seat_holdem_table_of_remote_bots(tmp_path):
    """Nine relays, one table of the seed's size (seed 003: tables of 8-9 over TCP): the
    game is played to its end and lands in the store like a tournament's match."""
    bots = ["always_call.py", "hand_strength.py", "random_player.py"] * 3
    async with trio.open_nursery() as nursery:
        server, port = await start_server(
            nursery, tmp_path, table_size=9, limits=LimitsOverride(decision_s=2)
        )
        async with trio.open_nursery() as players:
            for i, bot in enumerate(bots):
                players.start_soon(honest, port, str(HOLDEM / bot), f"p{i}")
    players_of = record_of(server)
    assert sorted(players_of) == [f"p{i}" for i in range(9)]
    record = server.results[0].record
    assert record.completed and record.games_played == 1
    assert all(not p.forfeits for p in players_of.values()), {n: p.forfeits for n, p in players_of.items()}
    assert sum(p.mean_score for p in players_of.values()) == pytest.approx(0)  # chips move, none appear
    assert all(p.decisions > 0 for p in players_of.values() if p.mean_score != -1000)
    with Store.read(tmp_path / "served") as store:
        assert store.done_keys() == ["table-0001"]
        assert store.game_count("table-0001") == 1
    assert (tmp_path / "served" / "tables" / "table-0001.jsonl").stat().st_size > 0


async def test_a_stalling_and_a_vanishing_player_cost_only_themselves(tmp_path):
    """A player that stops answering gets ``timeout`` (then is stopped as hung), one that
    disconnects mid-hand gets ``crash``: the same verdicts as local bots, and the table
    plays on to its end with the honest player unharmed."""

    async def staller(port: int) -> None:
        raw = await Raw.connect(port, "staller")
        asked = 0
        while True:
            kind, line = await raw.next()
            if kind in ("", "bye"):
                return
            if kind == "start":
                await raw.stream.send_all(b"started\n")
            elif kind == "ask":
                asked += 1
                if asked == 1:  # one answer (never a first answer: that would be `startup`)
                    await raw.stream.send_all(relay.reply(1000, passive(line)))

    async def vanisher(port: int) -> None:
        raw = await Raw.connect(port, "vanisher")
        asked = 0
        while True:
            kind, line = await raw.next()
            if kind == "start":
                await raw.stream.send_all(b"started\n")
            elif kind == "ask":
                asked += 1
                if asked == 3:
                    await raw.stream.aclose()  # gone in the middle of a hand
                    return
                await raw.stream.send_all(relay.reply(1000, passive(line)))
            elif kind in ("", "bye"):
                return

    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, tmp_path)
        async with trio.open_nursery() as players:
            players.start_soon(staller, port)
            players.start_soon(vanisher, port)
            players.start_soon(honest, port, str(HOLDEM / "always_call.py"), "honest")
    players_of = record_of(server)
    assert server.results[0].record.completed
    assert players_of["honest"].forfeits == {}
    assert set(players_of["staller"].forfeits) == {"timeout"}
    assert "hung" in str(players_of["staller"].forfeit_details) or "still no answer" in str(
        players_of["staller"].forfeit_details
    )
    assert set(players_of["vanisher"].forfeits) == {"crash"}
    assert "disconnected" in players_of["vanisher"].forfeit_details[0].detail


async def test_a_wrong_token_a_flood_and_garbage_are_turned_away(tmp_path, monkeypatch):
    """Only the organiser's tokens play; a client that floods or sends garbage is cut
    off with the ``protocol`` verdict; a silent connection is dropped after the login
    allowance.  None of it stops the table of the others."""
    monkeypatch.setattr(server_module, "LOGIN_S", 0.5)
    tokens_file = tmp_path / "tokens.txt"
    tokens_file.write_text("# name token\nalice aaaaaaaa1\nbob,bbbbbbbb2\nflood cccccccc3\n")
    tokens = load_tokens(tokens_file)

    async def flooder(port: int) -> None:
        raw = await Raw.connect(port, "whoever", "cccccccc3")
        kind, _ = await raw.next()
        assert kind == "welcome"
        while True:
            kind, line = await raw.next()
            if kind == "start":
                await raw.stream.send_all(b"started\n")
            elif kind == "ask":
                try:
                    await raw.stream.send_all(relay.reply(10, passive(line)) * 100)
                except trio.BrokenResourceError:
                    return
            elif kind in ("", "bye"):
                return

    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, tmp_path, tokens=tokens)
        wrong = await Raw.connect(port, "alice", "nottheone")
        assert await wrong.next() == ("refused", b"unknown token")
        assert await wrong.next() == ("", b"")  # and closed
        garbage = await open_stream("127.0.0.1", port, None)
        await garbage.send_all(b"GET / HTTP/1.1\r\n\r\n")
        assert relay.split(await LineReader(garbage).line() or b"")[0] == "refused"
        silent = await open_stream("127.0.0.1", port, None)
        with trio.fail_after(3):
            assert relay.split(await LineReader(silent).line() or b"")[0] == "refused"
        async with trio.open_nursery() as players:
            players.start_soon(flooder, port)
            players.start_soon(honest, port, str(HOLDEM / "always_call.py"), "alice", "aaaaaaaa1")
            players.start_soon(honest, port, str(HOLDEM / "hand_strength.py"), "bob", "bbbbbbbb2")
    players_of = record_of(server)
    assert set(players_of) == {"alice", "bob", "flood"}  # named by their tokens
    assert set(players_of["flood"].forfeits) == {"protocol"}
    first = players_of["flood"].forfeit_details[0].detail
    assert "when nothing was asked" in first or "flooding" in first, first
    assert players_of["alice"].forfeits == {} and players_of["bob"].forfeits == {}


async def test_network_time_is_measured_apart_from_thinking(tmp_path):
    """The server's round trip minus the bot's own time is the network's: reported per
    player, and never counted as the bot's decision time."""

    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, tmp_path, game="dice-poker", table_size=2, games=200)
        async with trio.open_nursery() as players:
            for name in ("a", "b"):
                players.start_soon(
                    honest, port, str(ROOT / "sample_players" / "dice_poker" / "always_call.py"), name
                )
            await trio.sleep(0)
            clients = {}
            while len(clients) < 2:
                clients = dict(server.clients)
                await trio.sleep(0.01)
    for client in clients.values():
        mean_ms, max_ms = client.network()
        assert 0 < mean_ms < 50, mean_ms
        assert max_ms >= mean_ms
    for player in record_of(server).values():
        assert player.decisions > 0 and player.mean_decision_us > 0


async def test_a_refused_client_and_a_dead_server_are_one_line_errors(tmp_path):
    async with trio.open_nursery() as nursery:
        tokens = {"zzzzzzzz9": "zed"}
        _, port = await start_server(nursery, tmp_path, tokens=tokens)
        with pytest.raises(ConnectError, match="refused by the server: unknown token"):
            await honest(port, str(HOLDEM / "always_call.py"), "x", "wrong-token")
        nursery.cancel_scope.cancel()
    with pytest.raises(ConnectError, match="cannot connect"):
        await open_stream("127.0.0.1", port, None)


def test_serve_and_connect_from_the_command_line(tmp_path):
    """The commands as a class uses them: a server, two `referee connect`s, the table's
    results printed and stored; serve refuses to listen off loopback without TLS."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    referee = [sys.executable, "-m", "referee"]
    off = subprocess.run(
        [*referee, "serve", "--game", "holdem", "--bind", "0.0.0.0", "--out", str(tmp_path / "x")],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert off.returncode == 2 and "--cert and --key" in off.stderr and len(off.stderr.splitlines()) == 1
    server = subprocess.Popen(
        [*referee, "serve", "--game", "dice-poker", "--games", "30", "--tables", "1", "--port", "0",
         "--out", str(tmp_path / "served")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        assert "serving dice-poker at 127.0.0.1:" in first, first
        port = first.split("127.0.0.1:")[1].split(";")[0]
        bots = ["always_call.py", "threshold.py"]
        clients = [
            subprocess.Popen(
                [*referee, "connect", f"127.0.0.1:{port}", str(ROOT / "sample_players" / "dice_poker" / b)],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                stdin=subprocess.DEVNULL,
            )
            for b in bots
        ]
        outs = [c.communicate(timeout=60)[0] for c in clients]
        rest = server.communicate(timeout=30)[0]
    finally:
        server.kill()
    assert all(c.returncode == 0 for c in clients), outs
    for out in outs:
        said = re.search(r"the server is done .*; (\d+) decisions, 0 faults", out)
        assert said and 15 <= int(said.group(1)) <= 30, out  # one per deal, but a fold ends it
    assert server.returncode == 0, rest
    assert "table-0001 over: " in rest and "1 table played" in rest


async def test_tls_off_loopback_checks_the_server(tmp_path):
    """A server reachable from other machines speaks TLS: a client that trusts its
    certificate plays; one that does not is refused at the handshake, in one line."""
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(server_context)
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)
    config = ServeConfig(game="dice-poker", table_size=2, games=20, seed=3, tables=1, limits=LIMITS)
    server = Server(config, out=tmp_path / "served")
    listeners = await trio.open_ssl_over_tcp_listeners(0, server_context, host="127.0.0.1")
    port = listeners[0].transport_listener.socket.getsockname()[1]
    bot = resolve(str(ROOT / "sample_players" / "dice_poker" / "always_call.py"))

    async def player(name: str, context: ssl.SSLContext) -> str:
        stream = await open_stream("127.0.0.1", port, context)
        return await Relay(bot, layer=sandbox.choose("auto")).run(stream, name, None)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server.run, listeners)
        with pytest.raises(ConnectError, match=r"cannot connect: .*CERTIFICATE_VERIFY_FAILED"):
            await player("stranger", ssl.create_default_context())
        async with trio.open_nursery() as players:
            players.start_soon(player, "a", client_context)
            players.start_soon(player, "b", client_context)
    assert server.results[0].record.completed


async def test_a_player_who_reconnects_plays_on_at_the_next_game(tmp_path):
    """A dropped player who comes back under the same name is restarted for the table's
    next game (the disconnect cost them the rest of the first), and is not seated at a
    second table meanwhile."""

    async def passive_player(raw: Raw, stop_after: int | None) -> int:
        asked = 0
        while True:
            kind, line = await raw.next()
            if kind == "start":
                await raw.stream.send_all(b"started\n")
            elif kind == "ask":
                asked += 1
                if asked == stop_after:
                    await raw.stream.aclose()
                    return asked
                await raw.stream.send_all(relay.reply(1000, passive(line)))
            elif kind == "stop":
                await raw.stream.send_all(relay.stopped(0, 0))
            elif kind in ("", "bye"):
                return asked

    async def comes_back(port: int) -> None:
        await passive_player(await Raw.connect(port, "back"), stop_after=3)
        # At once: the first game (27 hands of two callers) is still being played.
        raw = await Raw.connect(port, "back")
        assert (await raw.next())[0] == "welcome"
        await passive_player(raw, stop_after=None)

    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, tmp_path, games=2, tables=1)
        async with trio.open_nursery() as players:
            players.start_soon(comes_back, port)
            players.start_soon(honest, port, str(HOLDEM / "always_call.py"), "x")
            players.start_soon(honest, port, str(HOLDEM / "always_call.py"), "y")
    record = server.results[0].record
    back = record_of(server)["back"]
    assert record.completed and record.games_played == 2
    assert back.forfeits.get("crash", 0) >= 1 and back.restarts == 1, back
    assert back.decisions > 2  # it answered in the second game too


async def test_a_round_robin_of_remote_players_resumes_where_it_stopped(tmp_path):
    """A schedule fixed in advance (`--round-robin`): every pair plays once, tables as
    soon as both players are free; a stranger is turned away; serving again into the
    same folder plays only what is not done (here: nothing)."""
    schedule = [["a", "b"], ["a", "c"], ["b", "c"]]
    bot = str(ROOT / "sample_players" / "dice_poker" / "always_call.py")

    def server() -> Server:
        config = ServeConfig(
            game="dice-poker",
            table_size=2,
            games=10,
            seed=5,
            limits=LIMITS,
            allowance_s=0.2,
            schedule=schedule,
        )
        return Server(config, out=tmp_path / "served")

    first = server()
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(first.run, listeners)
        with pytest.raises(ConnectError, match="not in this server's schedule"):
            await honest(port, bot, "stranger")
        async with trio.open_nursery() as players:
            for name in "abc":
                players.start_soon(honest, port, bot, name)
    assert sorted(r.table for r in first.results) == [1, 2, 3]
    assert [sorted(r.players) for r in sorted(first.results, key=lambda r: r.table)] == schedule
    again = server()
    with trio.fail_after(5):  # nothing left to play: it ends at once
        await again.run(await trio.open_tcp_listeners(0, host="127.0.0.1"))
    assert again.results == []
    with Store.read(tmp_path / "served") as store:
        assert sorted(store.done_keys()) == ["table-0001", "table-0002", "table-0003"]


async def test_two_hellos_of_one_name_at_once_let_one_in(tmp_path):
    """A name is one player: a second connection under a name already connected is
    refused, and so is one whose hello arrives while the first is still being welcomed
    (the welcome is awaited before the client is registered)."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, tmp_path, table_size=9)
        streams = [await open_stream("127.0.0.1", port, None) for _ in range(3)]
        for stream in streams:  # all sent before the server reads any
            await stream.send_all(relay.hello("twin", None))
        with trio.fail_after(10):
            kinds = sorted([relay.split(await LineReader(s).line() or b"")[0] for s in streams])
        assert kinds == ["refused", "refused", "welcome"], kinds
        assert list(server.clients) == ["twin"] and [c.name for c in server.lobby] == ["twin"]
        nursery.cancel_scope.cancel()
