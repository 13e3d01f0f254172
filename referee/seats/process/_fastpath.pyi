"""The interface of the C fast path, referee/seats/process/_fastpath.c (its header says
what each result means), for the type checker."""

from _typeshed import WriteableBuffer

#: What fastpath.py checks before it uses :func:`exchange`.
VERSION: int

def exchange(
    wfd: int,
    rfd: int,
    line: bytes,
    max_line: int,
    counters: WriteableBuffer | None,
    wait_ns: int,
    owed: int = 0,
    look_first: bool = False,
    /,
) -> bytes | int | tuple[int, bytes]: ...
