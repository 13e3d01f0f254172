"""Wire formats of the games: one module per game, shared by the referee and Python bots.

Each module turns an observation into the line a bot reads and a bot's reply line into
an action, and nothing more: no rules, no I/O.  Python sample bots import the same
module to parse what the referee sends, so both sides always agree.
"""
