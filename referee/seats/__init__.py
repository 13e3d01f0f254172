"""Seats: how a match reaches its participants (see :mod:`referee.seats._abc`)."""

from referee.seats._abc import Seat, SeatFactory, SeatUsage

__all__ = ["Seat", "SeatFactory", "SeatUsage"]
