"""The interface of the C fast path, referee/seats/process/_fastpath.c (its header says
what each result means), for the type checker."""

from referee.seats.process.fastpath import Exchange

#: What fastpath.py checks before it uses :func:`exchange`.
VERSION: int
#: The most answers ``owed`` may count.
MAX_OWED: int

#: One request's write and (soon) read: the signature is fastpath.Exchange's.
exchange: Exchange
