"""Remote play: ``referee serve`` (:mod:`.server`) seats bots that connect over TCP,
``referee connect`` (:mod:`.client`) relays a local bot to it; :mod:`.wire` is the
socket path both use.  The seat a remote player takes is
:class:`referee.seats.remote.RemoteSeat`; the lines are :mod:`protocol.relay`'s."""
