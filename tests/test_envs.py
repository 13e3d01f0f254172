"""referee.envs: every game as a PettingZoo AEC environment, checked by PettingZoo's own
``api_test`` and ``seed_test``, and against the referee's rules it wraps."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

import numpy as np
from pettingzoo.test import api_test, seed_test

from referee import games
from referee.core.seeding import deal_seed
from referee.envs import RefereeEnv, env
from referee.games.random_play import play_out
from referee.match.schedule import schedule

ROOT = Path(__file__).resolve().parents[1]

#: The two warnings PettingZoo's api_test gives every environment whose observation is
#: a dict with an action mask, unless it is one of PettingZoo's own (listed by name).
DICT_OBSERVATION = ("Observation is not a NumPy array", "Observation space for each agent probably")

#: Option variants with spaces of their own (the bot showdown's 21 extra actions...).
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "holdem": [{"bot_showdown": 1}, {"rules": "ppca"}],
    "bidding-wars": [{"cards": 4}],
}


def _cases() -> list[Any]:
    cases = []
    for name, cls in games.available().items():
        for seats in sorted({cls.seats.low, cls.seats.default, cls.seats.high}):
            cases.append(pytest.param(name, {"seats": seats}, id=f"{name}-{seats}"))
        for options in VARIANTS.get(name, []):
            tag = ",".join(f"{k}={v}" for k, v in options.items())
            cases.append(pytest.param(name, options, id=f"{name}-{tag}"))
    return cases


CASES = _cases()


def _random_episode(e: RefereeEnv, rng: random.Random) -> dict[str, float]:
    """One episode of masked random actions; each agent's return."""
    e.reset()
    returns = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        returns[agent] += reward
        assert e.observation_space(agent).contains(obs)
        if terminated or truncated:
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return returns


@pytest.mark.parametrize(("name", "kwargs"), CASES)
def test_pettingzoo_api_test(name: str, kwargs: dict[str, Any]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(name, seed=1, **kwargs), num_cycles=1000)
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION)]
    assert unexpected == []


@pytest.mark.parametrize(("name", "kwargs"), CASES)
def test_pettingzoo_seed_test(name: str, kwargs: dict[str, Any]) -> None:
    seed_test(lambda: env(name, **kwargs), num_cycles=1000)


@pytest.mark.parametrize(("name", "kwargs"), CASES)
def test_episodes_are_the_referees_games(name: str, kwargs: dict[str, Any]) -> None:
    """Each episode is a deal of ``referee match --seed``: replaying its replies through a
    fresh state of that deal's seed gives the same lines and scores as the rewards."""
    e = env(name, seed=5, **kwargs)
    rng = random.Random(0)
    match_seeds = [s.seed for s in schedule(5, 4, e.seats, duplicate=False)]
    for deal in range(4):
        returns = _random_episode(e, rng)
        assert e.deal == deal
        assert returns == {f"player_{s}": score for s, score in enumerate(e.game_state.scores())}
        replies: dict[int, list[bytes]] = {}
        for seat, kind, line in e._lines:
            if kind == "reply":
                replies.setdefault(seat, []).append(line)
        game = games.get(name)(**{k: v for k, v in kwargs.items() if k != "seats"})
        state = game.new_deal(e.seats, match_seeds[deal])
        assert match_seeds[deal] == deal_seed(5, deal)
        played = play_out(state, lambda _state, seat, replies=replies: replies[seat].pop(0))
        assert all(not left for left in replies.values())
        assert state.scores() == e.game_state.scores() and state.summary() == e.game_state.summary()
        assert [x for x in played.lines if x[1] != "reply"] == [x for x in e._lines if x[1] != "reply"]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(games.available()))
def test_many_episodes(name: str) -> None:
    """Random episodes: observations in their space, returns summing as the game's scores,
    ``infos`` carrying scores and ranks at the end."""
    e = env(name, seed=9)
    rng = random.Random(1)
    for _ in range(30):
        _random_episode(e, rng)
        assert not e.agents and e.game_state.is_terminal()


def test_illegal_actions_take_the_games_penalty() -> None:
    """An action outside the mask is judged as an illegal reply: dice poker folds."""
    e = env("dice-poker", seed=3)
    e.reset()
    assert e.agent_selection == "player_0"
    obs, *_ = e.last()
    assert obs["action_mask"].tolist() == [1, 1]
    e.step(5)  # no such action
    assert all(e.terminations.values())
    _, reward, terminated, _, info = e.last()
    assert terminated and reward == -1.0 and "illegal" in info
    assert e.game_state.summary()["penalty"] == [0, "illegal"]
    assert e.infos["player_1"]["scores"] == [-1.0, 1.0]


def test_simultaneous_moves_are_applied_jointly() -> None:
    """Bidding Wars: the second seat chooses against the state before the step; the
    turn is played when both have chosen."""
    e = env("bidding-wars", seed=4, cards=5)
    e.reset()
    state = e.game_state
    assert e.agent_selection == "player_0"
    first_line = state.request(1)
    e.step(4)  # card 5
    assert e.agent_selection == "player_1" and state.turn == 0 and state.request(1) == first_line
    assert not e.observe("player_0")["action_mask"].any()  # chosen: nothing left to decide
    obs, *_ = e.last()
    assert obs["action_mask"].tolist() == [1, 1, 1, 1, 1]
    e.step(0)  # card 1
    assert state.turn == 1 and state.history == [(state.deck[0], 5, 1)]
    assert e.agent_selection == "player_0"
    assert any(line.startswith("reveal") for line in e.infos["player_1"]["told"])
    # An illegal card in a joint step forfeits the game, as in a match.
    e.step(4)  # card 5 again: not in the hand any more
    e.step(1)
    assert all(e.terminations.values()) and e.game_state.summary()["forfeited_by"] == [0]


def test_spaces() -> None:
    e = env("liars-dice", seats=3)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    assert e.action_space("player_1").n == 1 + 25 * 3
    assert e.observation_space("player_0")["observation"].shape == (11 + 3 * 3,)
    assert str(e) == "referee_liars_dice"
    with pytest.raises(ValueError, match="seats"):
        env("yahtzee", seats=3)
    with pytest.raises(ValueError, match="no option"):
        env("yahtzee", cards=3)


def test_render() -> None:
    e = env("yahtzee", seed=2, render_mode="ansi")
    e.reset()
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    text = e.render()
    assert text is not None and "player_0 <-" in text and "player_0 ->" in text
    e.close()


@pytest.mark.slow
def test_the_documented_training_loop_runs() -> None:
    """docs/envs.md's training loop runs as written and learns to beat random play."""
    text = (ROOT / "docs" / "envs.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code is not None
    done = subprocess.run(
        [sys.executable, "-c", code.group(1)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert done.returncode == 0, done.stderr
    chips = [float(x) for x in re.findall(r"([+-][0-9.]+) chips", done.stdout)]
    assert len(chips) == 2 and all(c > 0 for c in chips), done.stdout
