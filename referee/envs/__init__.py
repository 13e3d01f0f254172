"""Every game as a PettingZoo AEC environment, on the referee's own rules.

``from referee.envs import env; env("liars-dice", seed=1)`` is one game per episode of
Liar's Dice as the referee plays it, for training agents (docs/envs.md).  It needs the
``envs`` extra (``pip install referee[envs]``: PettingZoo, Gymnasium, NumPy).
"""

from __future__ import annotations

try:
    from referee.envs.aec import RefereeEnv, env
except ModuleNotFoundError as exc:  # pragma: no cover - without the extra
    if exc.name not in ("pettingzoo", "gymnasium"):
        raise
    raise ModuleNotFoundError(
        f"referee.envs needs {exc.name}: pip install 'referee[envs]' (or pettingzoo)", name=exc.name
    ) from exc

__all__ = ["RefereeEnv", "env"]
