"""``referee check BOT --game NAME``: does a bot keep the rules every match relies on?

A student runs it before a tournament.  It plays a few short games between the bot and
the game's reference player (a sample player that never faults), poses every kind of
line the game has, and makes a checklist::

    startup        it started and gave its first answer within the startup allowance
    answers        it answered every request, with a line that parses
    extra output   it printed nothing but its answers
    legal moves    the rules allowed every move
    decision time  no answer came late (max and 99th percentile against the limit)
    memory         its peak resident memory stayed under the cap
    exit on EOF    once its input closed after the games, it exited by itself, status 0
    coverage       every kind of line the game has was posed at least once

One module a step: ``plan`` (the matches: a phase per seat count, positions placed so
the bot sits where they want it), ``observe`` (:class:`~referee.check.observe.CheckProcess`,
the bot's process recording what verdicts do not say), ``run`` (playing the phases and
collecting the faults: :func:`~referee.check.run.play`), ``judge`` (the checklist, one
function an item), ``report`` (the text, the JSON and the exit status), ``opponents``
(the reference players) and ``figures`` (how numbers are written).  The command line
(``referee/cli/check.py``) parses the arguments and prints; grading runs the command.

Verdicts mean exactly what they mean in ``referee match``: the games are played by a
:class:`~referee.match.Match` with the same limits, sandbox and penalties (``recover``
on, so that one crash does not end the check).

Rare lines (a Yahtzee joker needs a second Yahtzee in one game) would not reliably come
up in a few random games, so each game module supplies positions set up where they
happen (:meth:`~referee.games.base.Game.check_positions`), a classifier for its lines
(:meth:`~referee.games.base.Game.kinds_of_line`) and its reference player
(:attr:`~referee.games.base.Game.check_opponent`).  This package knows no game: a new
game gets a full check by implementing those three.
"""
