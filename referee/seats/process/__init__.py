"""The process seat: a bot as a sandboxed child process speaking lines on stdin/stdout.

:mod:`.bot` is the seat itself (spawn, line I/O with deadlines, kill and sweep);
:mod:`.monitor` samples and enforces CPU and memory; :mod:`.sandbox` builds the
isolation layers; :mod:`.fastpath` is the per-decision write/read in C (``_fastpath.c``).
"""

from referee.seats.process.bot import BotProcess

__all__ = ["BotProcess"]
