"""``referee arena``: a course's competition as a service (docs/arena.md).

One idea a module: :mod:`.config` (arena.toml), :mod:`.store` (the SQLite store and its
schema), :mod:`.tokens` (tokens, sessions, CSRF), :mod:`.intake` (an upload: unpack,
build and check through the grading pieces), :mod:`.ladder` (the scheduler: who plays
whom, matches through the tournament's executors), :mod:`.rating` (ratings from the
store, refreshed as games arrive), :mod:`.views` (what the API and the pages show, and to
whom), :mod:`.web` (the Starlette application), :mod:`.pages` (its HTML),
:mod:`.service` (``arena serve``: Hypercorn, the intake and the ladder in one trio run),
:mod:`.freeze` (the deadline: into ``referee grade``), :mod:`.client` (``referee submit``).
"""
