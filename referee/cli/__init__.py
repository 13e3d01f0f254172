"""The ``referee`` command (:mod:`.main`) and what only the command line needs."""

from referee.cli.commands import main

__all__ = ["main"]
