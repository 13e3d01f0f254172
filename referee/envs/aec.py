"""The PettingZoo AEC environment over any game of :mod:`referee.games`.

Nothing here knows a game: the rules are the game's own ``GameState`` (the referee's,
not a copy), and the spaces come from its enumeration (``action_count``,
``legal_actions``, ``action_index``, ``observation_bounds``, ``observation``; see
:mod:`referee.games.base`).  docs/envs.md describes the spaces of each game.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from referee import games
from referee.core.seeding import SEEDS, deal_seeder
from referee.core.verdict import Verdict
from referee.games.base import GameState
from referee.games.random_play import play_step

#: How many of the latest lines ``render()`` shows.
RENDER_LINES = 12


class RefereeEnv(AECEnv):
    """One game of ``name`` per episode, its seats the agents ``player_0 .. player_{n-1}``.

    * **Observation** of an agent: ``{"observation": float32 vector, "action_mask": int8
      vector}``.  The vector is the game's encoding of the last request line that agent
      was sent (zeros before its first); the mask marks the agent's legal action indices
      now (all zeros when it has no decision to make).  Information lines (a challenge's
      reveal, a hand's result) are not in it: ``infos[agent]["told"]`` lists those
      told to the agent since it last acted.
    * **Action**: an index in ``Discrete(action_count)``, the game's numbering.  An index
      the mask does not allow is judged as the match judges an illegal reply: the game's
      penalty for ``illegal`` (a fold, a lost die, a forfeit), noted in
      ``infos[agent]["illegal"]``.
    * **Rewards**: 0 until the game ends, then each seat's ``scores()`` (chips, points,
      1 for the winner of Liar's Dice).  Every agent terminates together when the game is
      over; ``infos[agent]`` then holds ``scores`` and ``ranks``.  No truncation: every
      game ends by its rules.
    * **Simultaneous moves** (Bidding Wars): the seats of the step choose one after the
      other, each seeing the state before the step; the step is played (``apply_joint``)
      once the last has chosen.
    * **Seeds**: ``reset(seed=s)`` plays deal 0 of a ``referee match --seed s``, and each
      later ``reset()`` without a seed the match's next deal (``referee.core.seeding``);
      the first ``reset()`` uses the constructor's ``seed``, or a random one.
      ``deal`` is the episode's deal number, ``game_state`` its ``GameState``.
    """

    # PettingZoo's AECEnv declares metadata an instance attribute; these are the class's
    # defaults, and __init__ gives each instance its own (with the game's name).
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "is_parallelizable": False}  # noqa: RUF012

    def __init__(
        self,
        name: str,
        seed: int | None = None,
        *,
        seats: int | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        self.game = games.get(name)(**options)
        n = self.game.seats.default if seats is None else seats
        if n not in self.game.seats:
            raise ValueError(f"{name} is played by {self.game.seats.wanted()} seats, not {n}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}"
            )
        self.metadata = {**self.metadata, "name": f"referee_{name.replace('-', '_')}"}
        self.render_mode = render_mode
        self.seats = n
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self._seat = {agent: s for s, agent in enumerate(self.possible_agents)}
        # The spaces depend on the game's options and seat count only: read off one state.
        probe = self.game.new_state(n, random.Random(0))
        self.action_count = probe.action_count()
        low, high = probe.observation_bounds()
        self._low = np.asarray(low, dtype=np.float32)
        self._high = np.asarray(high, dtype=np.float32)
        self._blank = np.zeros(len(low), dtype=np.float32)
        self._observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(self._low, self._high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (self.action_count,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self._action_spaces = {agent: spaces.Discrete(self.action_count) for agent in self.possible_agents}
        self._match_seed = seed
        self._next_deal = 0
        self._seed_of: Callable[[int], int] | None = None
        self.game_state: GameState | None = None

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    # ------------------------------------------------------------------ episodes

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._match_seed, self._seed_of = seed, None
        if self._seed_of is None:
            if self._match_seed is None:
                self._match_seed = secrets.randbelow(SEEDS)
            if not 0 <= self._match_seed < SEEDS:
                raise ValueError(f"a seed is a whole number below 2**64, not {self._match_seed}")
            self._seed_of = deal_seeder(self._match_seed)
            self._next_deal = 0
        #: The deal of this episode: game ``deal`` of ``referee match --seed match_seed``.
        self.deal = self._next_deal
        self._next_deal += 1
        self.game_state = self.game.new_deal(self.seats, self._seed_of(self.deal))
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._lines: list[tuple[int, str, bytes]] = []
        self._seen: list[np.ndarray] = [self._blank] * self.seats
        #: The decision due of each seat to act: action index -> decoded action.
        self._legal: dict[int, dict[int, Any]] = {}
        #: The step's choices so far (a simultaneous step's seats choose in turn): seat ->
        #: action, or the verdict instead.
        self._chosen: dict[int, Any] = {}
        self._advance()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        mask = np.zeros(self.action_count, dtype=np.int8)
        legal = self._legal.get(seat)
        if legal:
            mask[list(legal)] = 1
        return {"observation": self._seen[seat].copy(), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.game_state is not None
        seat = self._seat[agent]
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        # What the agent was told and its last illegal action: seen in last(), gone now.
        self.infos[agent] = {}
        index = int(action)
        decoded = self._legal[seat].get(index, Verdict.ILLEGAL)
        if decoded is Verdict.ILLEGAL:
            self.infos[agent]["illegal"] = f"action {index} is not legal now (see the action mask)"
            self._lines.append((seat, "fault", b"illegal action %d" % index))
        else:
            self._lines.append((seat, "reply", self.game_state.encode(seat, decoded)))
        del self._legal[seat]  # its decision is made: its mask is all zeros until the next
        self._chosen[seat] = decoded
        if len(self._chosen) == len(self.game_state.to_act()):  # the step's last seat
            chosen, self._chosen = self._chosen, {}
            play_step(self.game_state, chosen)
        self._advance()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _advance(self) -> None:
        """Take in the lines told, then select the next seat to decide, or end the game."""
        state = self.game_state
        assert state is not None
        for event in state.drain_events():
            self._lines.append((event.seat, "tell", event.line))
            info = self.infos.get(self.possible_agents[event.seat])
            if info is not None:
                info.setdefault("told", []).append(event.line.decode("ascii", "replace").rstrip("\n"))
        if state.is_terminal():
            self._legal = {}
            scores, ranks = state.scores(), state.ranks()
            for agent in self.agents:
                seat = self._seat[agent]
                self.rewards[agent] = float(scores[seat])
                self.terminations[agent] = True
                self.infos[agent].update(scores=list(scores), ranks=list(ranks))
            self.agent_selection = self.agents[0]
            return
        # The first seat of to_act() that has not chosen yet (a simultaneous step's
        # seats are asked in turn, each against the state before the step).
        seat = next(s for s in state.to_act() if s not in self._chosen)
        if seat not in self._legal:
            line = state.request(seat)
            self._lines.append((seat, "ask", line))
            self._seen[seat] = np.asarray(state.observation(line), dtype=np.float32)
            self._legal[seat] = {state.action_index(seat, a): a for a in state.legal_actions(seat)}
        self.agent_selection = self.possible_agents[seat]

    # ------------------------------------------------------------------ the rest

    def render(self) -> str | None:
        """The latest lines of the game: requests, replies and information lines."""
        if self.render_mode is None:
            return None
        arrows = {"ask": "<-", "tell": "<-", "reply": "->", "fault": "!!"}
        text = "\n".join(
            f"player_{seat} {arrows[kind]} {line.decode('ascii', 'replace').rstrip()}"
            for seat, kind, line in self._lines[-RENDER_LINES:]
        )
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.game_state = None

    def __str__(self) -> str:
        return str(self.metadata["name"])


def env(name: str, seed: int | None = None, **kwargs: Any) -> RefereeEnv:
    """The AEC environment of game ``name`` (see :class:`RefereeEnv`); ``kwargs`` are
    ``seats``, ``render_mode`` and the game's options (``cards=13``, ``rules="ppca"``...)."""
    return RefereeEnv(name, seed, **kwargs)
