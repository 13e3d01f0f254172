"""Tournaments: a whole competition, from the field to the standings (docs/tournaments.md).

Read in this order: :mod:`.formats` (pure schedulers), :mod:`.config` and :mod:`.plan`
(what is played, stage by stage), :mod:`.store` and :mod:`.sink` (every game into SQLite),
:mod:`.runner` (the parent's loop) and :mod:`.workers` (the executors), :mod:`.worker`
(a worker process), :mod:`.pool` and :mod:`.session` (bots that live for the whole
tournament), :mod:`.standings`, :mod:`.report` and :mod:`.live` (what users see).
"""
