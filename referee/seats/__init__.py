"""Seats: how a match reaches its participants (see :mod:`referee.seats._abc`)."""

from referee.seats._abc import SLOW_KEPT, Seat, SeatFactory, SeatUsage, notes_usage

__all__ = ["SLOW_KEPT", "Seat", "SeatFactory", "SeatUsage", "notes_usage"]
