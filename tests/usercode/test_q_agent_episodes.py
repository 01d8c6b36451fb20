"""The truth of one Q-learning or SARSA episode (:mod:`tttlab.usercode.exercises.q_agent_episodes`):
an episode's report made here by an independent replay of the text's update is right, and
the same report with one entry nudged, one move swapped or an update of the other algorithm
is wrong, named at the entry."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tttlab.usercode.boxside.shapes.q_agent import start
from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises.q_agent_episodes import first_wrong

SEED, EPSILON, DISCOUNT, ALPHA, LEAVE = 11, 0.3, 0.9, 0.5, 0.0
ARG = [SEED, EPSILON, DISCOUNT, ALPHA, LEAVE]


def _state(board: list[str]) -> str:
    return "".join({".": "0", "X": "1", "O": "2"}[c] for c in board)


def _report(algorithm: str, game_seed: int, greedy: bool = False) -> tuple[list[Any], list[Any]]:
    """A random legal game (or the greedy one) and the report of the text's update along it,
    computed here
    (X maximises, O minimises, rewards +1 / -1 / 0 from X's side, the reward alone at the
    end): ``(plays, value)`` in the box's answer form."""
    truth = exercise_truth()
    rng = np.random.default_rng(game_seed)
    table, _ = start(SEED, LEAVE)
    q = {s: dict(row) for s, row in table.items()}
    board = ["."] * 9
    plays: list[Any] = []
    while True:
        i = truth.where["".join(board)]
        if truth.terminal[i]:
            break
        mover = truth.to_move[i]
        action = int(rng.choice(truth.legal[i]))
        if greedy:  # the mover's best under q as it is now (the state's row is not updated yet)
            row = q[_state(board)]
            action = (max if mover == "X" else min)(row, key=row.__getitem__)
        plays.append([_state(board), action, "1" if mover == "X" else "2"])
        board[action] = mover
    changed: dict[tuple[str, int], float] = {}
    for k, (before, action, _) in enumerate(plays):
        after = plays[k + 1][0] if k + 1 < len(plays) else None
        if after is None:  # the last move ends the game: the reward alone
            j = truth.where["".join(board)]
            target = float(truth.utility[j])
        elif algorithm == "qlearning":
            x_moves = after.count("1") == after.count("2")
            pick = max if x_moves else min
            target = DISCOUNT * pick(q[after].values())
        else:
            target = DISCOUNT * q[after][plays[k + 1][1]]
        q[before][action] += ALPHA * (target - q[before][action])
        changed[(before, action)] = q[before][action]
    entries = [[s, a, v] for (s, a), v in changed.items()]
    return plays, [plays, entries, [], [], [], [len(plays), len(entries), 0, 0, 0]]


@pytest.mark.parametrize("algorithm", ["qlearning", "sarsa"])
def test_an_episode_replayed_apart_is_right_and_any_change_to_it_is_named(algorithm: str) -> None:
    truth = exercise_truth()
    for game_seed in range(12):
        plays, value = _report(algorithm, game_seed)
        assert first_wrong(algorithm, ARG, value, truth) is None, game_seed
        entries = value[1]
        state, action, v = entries[0]
        nudged = [[state, action, v + 1e-6], *entries[1:]]
        wrong = first_wrong(algorithm, ARG, [plays, nudged, *value[2:]], truth)
        assert wrong is not None
        assert wrong.text.startswith(f"q[{state!r}][{action}] is ")
        swapped = [plays[1], plays[0], *plays[2:]]
        assert first_wrong(algorithm, ARG, [swapped, entries, *value[2:]], truth) is not None
        short = plays[:-1]
        totals = [len(short), *value[5][1:]]
        wrong = first_wrong(algorithm, ARG, [short, entries, [], [], [], totals], truth)
        assert wrong is not None
        assert wrong.text == f"the episode stopped after {len(short)} moves, before the game ended"


def test_the_other_algorithms_update_is_wrong_on_most_episodes() -> None:
    truth = exercise_truth()
    told = 0
    for game_seed in range(12):
        _, value = _report("sarsa", game_seed)
        told += first_wrong("qlearning", ARG, value, truth) is not None
    assert told >= 10


@pytest.mark.parametrize("algorithm", ["qlearning", "sarsa"])
def test_at_epsilon_zero_every_move_must_be_the_movers_greedy_one(algorithm: str) -> None:
    truth = exercise_truth()
    greedy_arg = [SEED, 0.0, DISCOUNT, ALPHA, LEAVE]
    named = 0
    for game_seed in range(6):
        _, value = _report(algorithm, game_seed, greedy=True)
        assert first_wrong(algorithm, greedy_arg, value, truth) is None
        _, value = _report(algorithm, game_seed)
        wrong = first_wrong(algorithm, greedy_arg, value, truth)
        named += wrong is not None and "is not greedy at epsilon 0" in wrong.text
    assert named >= 5  # a random game is greedy throughout by chance only
