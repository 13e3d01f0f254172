"""Replays (issue 14): one self-contained HTML page per match or game, from the game
records a match logs (``--log``), a tournament keeps (``--game-logs``) or a grading run
copies into a student's folder.

:mod:`.sources` finds and reads the records; :mod:`.page` writes the page: the records
as gzip-compressed JSON inside it, the common viewer (``assets/viewer.js``: controls,
timeline, verdicts) and the game's renderer (``assets/<game>.js``).  Nothing is fetched
when the page is opened: it works from ``file://`` and as an e-mail attachment.
"""
