"""``python -m referee`` is the ``referee`` command; :func:`run` is also its console script."""

import gc
import sys


def run() -> None:
    """The command, with the collector off while it starts: the imports make ~35,000
    objects that live as long as the process, which the collector would only walk again
    and again (~10-20 ms of a match's start here).  :func:`referee.cli.main` freezes
    them once the command is parsed and turns the collector back on."""
    gc.disable()
    if sys.argv[1:2] == ["match"]:
        # The sandbox probe a match waits for (~30-40 ms, a supervisor's start-up on
        # another core) begins before the command's other imports, which hide it.
        from referee.seats.process import sandbox

        sandbox.probe_ahead()
    from referee.cli import main

    sys.exit(main())


if __name__ == "__main__":
    run()
