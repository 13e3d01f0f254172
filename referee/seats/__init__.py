"""Seats: how a match reaches its participants (see :mod:`referee.seats._abc`)."""

from referee.seats._abc import Seat, SeatFactory, SeatUsage, notes_usage

__all__ = ["Seat", "SeatFactory", "SeatUsage", "notes_usage"]
