"""Sinks: where a match's records go (the interface is :mod:`referee.sinks._abc`).

:mod:`.gamelog` the ``--log`` JSON lines, :mod:`.summary` the ``--json`` summary,
:mod:`.export` game formats such as PHH, :mod:`.progress` the progress display,
:mod:`.collect` records kept in memory, :mod:`.files` atomic writes and path checks.
"""
