"""Statistics on results: what a standings table needs to be trusted.

Pure functions on counts and arrays (numpy/scipy), no I/O; the tournament's
readers (:mod:`referee.tournament.standings`) and the CLI feed them.

* :mod:`~referee.stats.intervals` — means with t-intervals, normal quantiles, and how
  many games or deals a question needs;
* :mod:`~referee.stats.bradley_terry` — two-seat ratings: a Bradley–Terry fit on the Elo
  scale with bootstrap intervals, rank ranges and likelihood of superiority;
* :mod:`~referee.stats.plackett_luce` — multi-seat ratings from placements;
* :mod:`~referee.stats.sprt` — the sequential probability ratio test, trinomial and
  pentanomial (fastchess's normalized-Elo model).
"""
