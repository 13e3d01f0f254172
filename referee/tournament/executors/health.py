"""Each worker's figures over a run, and the workers whose timeout rate is out of line
with the others' (docs/cluster.md)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import msgspec


class WorkerHealth(msgspec.Struct):
    matches: int = 0
    decisions: int = 0
    forfeits: dict[str, int] = {}
    #: The core the worker process is pinned to (:class:`CorePinning`), or ``None``.
    core: int | None = None
    #: Why it is not pinned, when it is not (more worker processes than cores…).
    unpinned: str | None = None


def outliers(health: Mapping[str, WorkerHealth], verdict: str = "timeout", z: float = 3.0) -> list[str]:
    """Workers whose rate of ``verdict`` per decision is out of line with the rest: a
    two-proportion z-test of each worker against all the others (|z| > ``z`` and at
    least 5 such forfeits), the way fishtest spots a machine that times out."""
    named = []
    total_f = sum(h.forfeits.get(verdict, 0) for h in health.values())
    total_d = sum(h.decisions for h in health.values())
    for address, h in health.items():
        f, d = h.forfeits.get(verdict, 0), h.decisions
        rest_f, rest_d = total_f - f, total_d - d
        if f < 5 or d == 0 or rest_d == 0:
            continue
        pooled = total_f / total_d
        se = math.sqrt(pooled * (1 - pooled) * (1 / d + 1 / rest_d)) or 1e-12
        if (f / d - rest_f / rest_d) / se > z:
            named.append(address)
    return named
