"""The process seat: a bot as a sandboxed child process speaking lines on stdin/stdout.

:mod:`.bot` is the seat itself (the clock and the verdicts), made of :mod:`.child` (the
process tree in its jail: spawn, kill, reap, CPU, memory and files), :mod:`.lines` (its
stdin and stdout as lines with deadlines), :mod:`.stderr` (its stderr, kept and quoted)
and :mod:`.slow` (what each slow answer was made of); :mod:`.fastpath` is the
per-decision write/read in C (``_fastpath.c``);
:mod:`.job` is a one-shot command in the same sandbox (grading's builds);
:mod:`.monitor` samples and enforces CPU and memory; :mod:`.sandbox` builds the
isolation layers.
"""

from referee.seats.process.bot import BotProcess

__all__ = ["BotProcess"]
