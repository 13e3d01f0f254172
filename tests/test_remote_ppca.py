"""``referee serve --dialect ppca``: the PPCA 2014 Hold'em server's own protocol (issue 15).

The clients are :mod:`tests.ppca_client`, a double of the original PPCA client
(client/client.cpp of zzy7896321/holdem) that parses every line as the original does and
fails where it fails (issue 24): a client that finishes cleanly, with its own chip count
equal to the referee's record, is what the original client needs.  The games are the
``ppca`` rules of Hold'em (docs/protocols/holdem.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import trio

from referee.core.limits import LimitsOverride
from referee.serve.server import ServeConfig, Server
from tests import ppca_client

pytestmark = pytest.mark.e2e

#: The clients share the server's event loop, so on a loaded machine a prompt one may take
#: a while: 0.3 s (plus the 0.2 s allowance) was once too short (a timeout in a suite run).
LIMITS = LimitsOverride(startup_s=3.0, decision_s=1.0)
#: For tables whose clients never stall, where a longer limit costs nothing.
ROOMY = LimitsOverride(startup_s=10.0, decision_s=3.0)


async def table(
    tmp_path: Path, players: list[dict], seed: int = 11, limits: LimitsOverride = LIMITS
) -> tuple[Server, list]:
    """One table of ``len(players)`` PPCA clients; each dict: play()'s keyword arguments (and ``name``)."""
    config = ServeConfig(
        game="holdem", table_size=len(players), games=1, seed=seed, limits=limits, allowance_s=0.2, tables=1,
        dialect="ppca",
    )  # fmt: skip
    server = Server(config, out=tmp_path / "served")
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    transcripts: list = [None] * len(players)

    async def one(i: int, options: dict) -> None:
        transcripts[i] = await ppca_client.play("127.0.0.1", port, options.pop("name"), **options)

    # The clients read until the server closes: a server that never finishes fails the test.
    with trio.fail_after(120):
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


def check_first() -> ppca_client.DecideFn:
    """A player whose first decision is CHECK (sent as ``check`` even facing a bet or
    preflop, which the server folds), then CALL."""
    decisions = 0

    def decide(state: ppca_client.State, round_name: str) -> tuple[str, int]:
        nonlocal decisions
        decisions += 1
        return ("CHECK", 0) if decisions == 1 else ("CALL", 0)

    return decide


def chips_of(server: Server) -> dict[str, float]:
    return {p.name: 1000 + p.mean_score for p in server.results[0].record.players}


@pytest.mark.slow
@pytest.mark.parametrize("seats", [3, 9])
async def test_a_table_of_original_clients_plays_a_whole_game(tmp_path, seats):
    """Original clients (the double) log in, follow every broadcast, answer `action` and
    `showdown`, and play the seed's game of 27 hands (or until one player has every chip)
    to its one `game over` without an error or a failed chip assertion; their own count
    of the chips agrees with the referee's record."""
    names = [f"p{i}" for i in range(seats)]
    server, transcripts = await table(tmp_path, [{"name": n} for n in names], limits=ROOMY)
    record = server.results[0].record
    assert record.completed and record.games_played == 1
    assert {p.name: p.forfeits for p in record.players} == {n: {} for n in names}
    for i, transcript in enumerate(transcripts):
        # Session.h handle_login: NAME_<game_num>_<player_num>, both from 0
        assert transcript.name == f"{names[i]}_0_{i}", transcript.name
        assert transcript.clean, (i, transcript.why())
        assert transcript.hands >= 1 and not transcript.disconnected
    referee_chips = chips_of(server)
    for i, transcript in enumerate(transcripts):
        assert list(transcript.final_chips) == [referee_chips[n] for n in names], (i, transcript.final_chips)


@pytest.mark.slow
async def test_stalling_vanishing_and_illegal_clients_are_folded_and_the_table_plays_on(tmp_path):
    """The original server folded an illegal reply and had no clock; ours folds the
    illegal reply too (the ppca rules), gives a stalling client `timeout` and a vanished
    one `crash` — each folded — and the others play to the end as original clients can:
    cleanly, with the referee's chip count."""
    server, transcripts = await table(
        tmp_path,
        [
            {"name": "honest"},
            {"name": "staller", "stall_at": 3},
            {"name": "vanisher", "disconnect_at": 2},
            {"name": "checker", "decide": check_first()},
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
    assert transcripts[2].disconnected and transcripts[1].stalled
    referee_chips = chips_of(server)
    names = ["honest", "staller", "vanisher", "checker", "other"]
    for i in (0, 3, 4):
        assert transcripts[i].clean, (names[i], transcripts[i].why())
        assert transcripts[i].final_chips == [referee_chips[n] for n in names], names[i]
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
    arrive together must still each get a login name and a seat id of their own (the
    seed's ``login NAME_<game>_<id>``, Session.h handle_login: NAME as sent, numbered
    from 0), and the record a name of its own (a name already taken gets a suffix)."""
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
        assert sorted(answers) == [f"same_0_{i}" for i in range(4)], answers
        assert len(server.clients) == 4 and "same" in server.clients, sorted(server.clients)
        nursery.cancel_scope.cancel()
