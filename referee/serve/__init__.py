"""``referee serve``: the server that seats bots connecting over TCP at its tables and
plays matches and tournaments with them (:mod:`.server`; docs/remote.md).

It sits above tournaments (a served round robin keeps its results in the tournament
store).  The other end and the connection itself are seats-level code:
:class:`referee.seats.remote.RemoteSeat` is the seat a remote player takes,
:mod:`referee.seats.remote_client` is ``referee connect`` (a local bot relayed to a
server), :mod:`referee.seats.remote_wire` the socket path both use; the lines are
:mod:`protocol.relay`'s."""
