"""Only the optional C extension lives here; everything else is in pyproject.toml.

``referee.seats.process._fastpath`` is the per-decision I/O fast path (one write, one
read — after a short bounded wait when the reply is not there yet — the one-line check
and the latency figures in a single call).  It is optional: without a C
compiler the install still succeeds and the referee uses its pure-Python path.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "referee.seats.process._fastpath",
            ["referee/seats/process/_fastpath.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
    ]
)
