"""``referee serve --dialect ppca``: the PPCA 2014 Hold'em server's own protocol (issue 15).

The clients are :mod:`tests.ppca_client`, written apart from the server from the
protocol's description (docs/remote.md, "The PPCA dialect"; reference.md §5): it checks
every line it receives (its own turn order, pots and hand evaluator) and raises on any
deviation.  The games are the ``ppca`` rules of Hold'em (docs/protocols/holdem.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import trio

from referee.core.limits import LimitsOverride
from referee.remote.server import ServeConfig, Server
from tests import ppca_client

LIMITS = LimitsOverride(startup_s=3.0, decision_s=0.3)


async def table(tmp_path: Path, players: list[dict], seed: int = 11) -> tuple[Server, list]:
    """One table of ``len(players)`` PPCA clients; each dict: play()'s keyword arguments."""
    config = ServeConfig(
        game="holdem", table_size=len(players), games=1, seed=seed, limits=LIMITS, allowance_s=0.2, tables=1,
        dialect="ppca",
    )  # fmt: skip
    server = Server(config, out=tmp_path / "served")
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    transcripts: list = [None] * len(players)

    async def one(i: int, options: dict) -> None:
        transcripts[i] = await ppca_client.play("127.0.0.1", port, options.pop("name"), **options)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server.run, listeners)
        async with trio.open_nursery() as clients:
            for i, options in enumerate(players):
                clients.start_soon(one, i, dict(options))
                # First come, first seated: the next logs in once this one is in the lobby.
                with trio.fail_after(10):
                    while len(server._seen) <= i:
                        await trio.sleep(0.005)
    return server, transcripts


def chips_of(server: Server) -> dict[str, float]:
    return {p.name: 1000 + p.mean_score for p in server.results[0].record.players}


@pytest.mark.parametrize("seats", [3, 9])
async def test_a_table_of_original_clients_plays_a_whole_game(tmp_path, seats):
    """Clients that log in, follow every broadcast and answer `action` and `showdown`
    play the seed's game of 27 hands (or until one player has every chip) without a
    single line the protocol does not allow; their own count of the chips agrees with
    the referee's record."""
    names = [f"p{i}" for i in range(seats)]
    server, transcripts = await table(tmp_path, [{"name": n} for n in names])
    record = server.results[0].record
    assert record.completed and record.games_played == 1
    assert {p.name: p.forfeits for p in record.players} == {n: {} for n in names}
    for i, transcript in enumerate(transcripts):
        assert transcript.name == f"{names[i]}_1_{i}", transcript.name  # login NAME_<table>_<id>
        assert transcript.hands >= 1 and not transcript.disconnected
    referee_chips = chips_of(server)
    for i, transcript in enumerate(transcripts):
        assert list(transcript.final_chips) == [referee_chips[n] for n in names], (i, transcript.final_chips)


async def test_stalling_vanishing_and_illegal_clients_are_folded_and_the_table_plays_on(tmp_path):
    """The original server folded an illegal reply and had no clock; ours folds the
    illegal reply too (the ppca rules), gives a stalling client `timeout` and a vanished
    one `crash` — each folded — and the others play to the end, still seeing a protocol
    they can check line by line."""
    server, transcripts = await table(
        tmp_path,
        [
            {"name": "honest"},
            {"name": "staller", "stall_at": 3},
            {"name": "vanisher", "disconnect_at": 2},
            {"name": "checker", "bad_reply_at": 1, "bb_call_zero": False},
            {"name": "other"},
        ],
        seed=4,
    )
    record = server.results[0].record
    assert record.completed
    by_name = {p.name: p for p in record.players}
    assert by_name["honest"].forfeits == {} and by_name["other"].forfeits == {}
    assert set(by_name["staller"].forfeits) == {"timeout"}
    assert set(by_name["vanisher"].forfeits) == {"crash"}
    assert by_name["checker"].forfeits.get("illegal", 0) >= 1
    assert transcripts[2].disconnected
    folds = [
        line for d, line in transcripts[0].lines if d == "recv" and re.fullmatch(r"player [1-3] folds", line)
    ]
    assert folds, "the faults were told to the others as folds"


async def serve_ppca(nursery: trio.Nursery, tmp_path: Path, table_size: int) -> tuple[Server, int]:
    """A PPCA-dialect server of one table, serving in ``nursery``: (it, its port)."""
    config = ServeConfig(game="holdem", table_size=table_size, games=1, seed=1, tables=1, dialect="ppca")
    server = Server(config, out=tmp_path / "served")
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    nursery.start_soon(server.run, listeners)
    return server, listeners[0].socket.getsockname()[1]


async def test_a_bad_login_is_refused_in_one_line(tmp_path):
    async with trio.open_nursery() as nursery:
        _, port = await serve_ppca(nursery, tmp_path, table_size=2)
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(b"hello there\n")
        answer = await stream.receive_some(200)
        assert answer == b"refused expected: login NAME\n"
        nursery.cancel_scope.cancel()


async def test_logins_at_once_get_names_and_seat_ids_of_their_own(tmp_path):
    """The answer to a login is awaited before the client joins the lobby: logins that
    arrive together must still each get a name and a seat id of their own (the seed's
    ``login NAME_<table>_<id>``; a name already taken gets a suffix)."""
    async with trio.open_nursery() as nursery:
        server, port = await serve_ppca(nursery, tmp_path, table_size=9)
        streams = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(4)]
        for stream in streams:  # all sent before the server reads any
            await stream.send_all(b"login same\n")
        answers = []
        with trio.fail_after(10):
            for stream in streams:
                answer = b""
                while not answer.endswith(b"\n"):
                    answer += await stream.receive_some(200)
                answers.append(answer.decode().split()[1])
        names = [a.rsplit("_", 2)[0] for a in answers]
        ids = sorted(int(a.rsplit("_", 1)[1]) for a in answers)
        assert len(set(names)) == 4 and "same" in names, answers
        assert ids == [0, 1, 2, 3], answers
        assert sorted(server.clients) == sorted(names)
        nursery.cancel_scope.cancel()
