"""A seat whose player speaks the PPCA 2014 Hold'em server's protocol (``referee serve
--dialect ppca``; docs/remote.md, "The PPCA dialect").

The rules narrate the hand (:mod:`protocol.holdem_ppca`, the ``narrate`` switch of
:class:`~referee.games.holdem.Holdem`); this seat passes those sentences on and drops
the referee's own information lines.  A betting request becomes ``action``, a
showdown request ``showdown``.  The client's answer to ``action`` is read as the original
server reads it (:func:`protocol.holdem_ppca.decode_action`): ``check``, ``fold`` or
``bet N`` becomes the referee's reply, which the rules then judge — under the ppca rules
anything illegal folds, as on the original server — and what the server folds outright
(another word, a negative bet, a bet below the call) is folded here with a ``protocol``
or ``illegal`` verdict that says so.  A showdown answer goes to the rules as it came:
they read it character by character, as the server did.  Timeouts, disconnects
and floods get the verdicts of :class:`~referee.seats.remote.RemoteSeat`: the original
server had no time limits and died with a dropped socket; this one does neither.

Sentences are sent in batches: at the end of a round, of a hand (the referee's own
``result`` line, dropped here, marks it), and before a request, so a table of nine costs
a write per client per round, not per action.
"""

from __future__ import annotations

import re

import trio

from protocol import holdem_ppca as ppca
from protocol import relay
from referee.core.verdict import BotFault, Verdict
from referee.seats.remote import RemoteSeat

#: What a PPCA client's line (its login included) may not hold: it is printable ASCII.
UNPRINTABLE = re.compile(rb"[^\x20-\x7e]")
#: The sentence after which the batch is sent (and any line of the referee's own).
_FLUSH_AFTER = b"round ends\n"


def parse_client_line(line: bytes) -> tuple[str, bytes]:
    """Every line of a PPCA client is an answer (``line``); printable ASCII only."""
    if line.endswith(b"\r"):
        line = line[:-1]
    if UNPRINTABLE.search(line):
        raise relay.RelayError(f"a line that is not printable ASCII: {line[:40]!r}")
    return "line", line


class PpcaSeat(RemoteSeat):
    REPLY = "line"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._batch: list[bytes] = []
        #: Two late answers in a row: folded from then on without being asked.  Unlike a
        #: hung bot it is not stopped: it still hears the table (dead seats are told
        #: nothing), and the original server never dropped a silent player.
        self._hung = False
        #: Why the server would have folded the last answer outright (``decode_action``).
        self._folded: BotFault | None = None

    @property
    def description(self) -> str:
        return "remote, PPCA 2014 client (its own machine)"

    async def start(self, nursery: trio.Nursery) -> None:
        # The client has been running since it logged in: nothing to start.
        self._require_connection()
        self._started = True

    async def tell(self, line: bytes, expects_reply: bool = False) -> None:
        if self.death is not None:
            return
        if not line.startswith(ppca.PREFIX):
            # The referee's own result lines (the narration has said it all) end a hand.
            await self._flush()
            return
        sentence = line[len(ppca.PREFIX) :]
        self._batch.append(sentence)
        if sentence == _FLUSH_AFTER:
            await self._flush()

    async def request(self, line: bytes) -> bytes:
        if self._hung:
            await self._flush()
            raise BotFault(Verdict.TIMEOUT, "it stopped answering: folded without being asked")
        reply = await super().request(line)
        if self._folded is not None:
            fault, self._folded = self._folded, None
            raise fault
        return reply

    def _late(self, first: bool, limit: float) -> bytes:
        detail = f"no answer within {limit:g} s (the limit + the network's {self.allowance_s:g} s)"
        if self._owed:
            self._hung = True
            detail += "; still no answer to the previous request: folded from now on without being asked"
        else:
            self._owed += 1  # its late answer is dropped
        raise BotFault(Verdict.TIMEOUT, detail)

    def _prompt(self, line: bytes) -> bytes:
        batch, self._batch = self._batch, []
        return b"".join(batch) + (b"showdown\n" if line.startswith(b"show ") else b"action\n")

    def _answer(self, line: bytes, rest: bytes, rtt_ns: int) -> tuple[int, bytes]:
        if line.startswith(b"show "):
            return rtt_ns, rest  # the rules read it as the server did
        words = line.split()
        to_call = int(words[words.index(b"tocall") + 1])
        legal = words[words.index(b"legal") + 1].split(b",")
        try:
            return rtt_ns, ppca.decode_action(rest, to_call, legal)
        except ppca.Folded as exc:
            # A bet the server refused is illegal; a word it does not know, or a bet
            # without an amount, does not parse.
            verdict = Verdict.ILLEGAL if exc.bet else Verdict.PROTOCOL
            self._folded = BotFault(verdict, str(exc), reply=rest)
            return rtt_ns, b"fold"

    def kill(self, verdict: Verdict, detail: str) -> None:
        self._die(verdict, detail)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with trio.CancelScope(shield=True):
            await self._flush()

    async def _flush(self) -> None:
        if self._batch and self.client.connected:
            batch, self._batch = self._batch, []
            await self.client.send_now(b"".join(batch))
