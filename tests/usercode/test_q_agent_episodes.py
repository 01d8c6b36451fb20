"""The truth of the Q-learning and SARSA calls (:mod:`tttlab.usercode.exercises.q_agent_episodes`):
a call's report made here by an independent replay of the text's update is right, over one
episode or several; the same report with one entry nudged, one move swapped, an update of
the other algorithm, an episode that does not start from the empty board, a mark its Board
wrote wrong, or moves that do not explore is wrong, named where it goes wrong; and marks in
other forms, and a new finished state's row full, empty or left out, are right."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tttlab.usercode.boxside.shapes.q_agent import start
from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises.q_agent_episodes import first_wrong, games

SEED, EPSILON, DISCOUNT, ALPHA, LEAVE = 11, 0.3, 0.9, 0.5, 0.0
ARG = [SEED, EPSILON, DISCOUNT, ALPHA, LEAVE, 1]
ALARM = 1e-6
EMPTY = "000000000"


def _state(board: list[str]) -> str:
    return "".join({".": "0", "X": "1", "O": "2"}[c] for c in board)


def _report(
    algorithm: str,
    game_seed: int,
    greedy: bool = False,
    episodes: int = 1,
    epsilon: float | None = None,
    leave: float = LEAVE,
) -> tuple[list[Any], list[Any]]:
    """Random legal games (or the greedy ones, or ε-greedy ones at ``epsilon``) and the
    report of the text's update along them, computed here (X maximises, O minimises,
    rewards +1 / -1 / 0 from X's side, the reward alone at the end; a state not in the
    table added with its open cells at 0.0): ``(plays, value)`` in the box's answer form."""
    truth = exercise_truth()
    rng = np.random.default_rng(game_seed)
    table, states = start(SEED, leave)
    q = {s: dict(row) for s, row in table.items()}
    known = set(states)
    plays: list[Any] = []
    for _ in range(episodes):
        board = ["."] * 9
        game: list[Any] = []
        while not truth.terminal[truth.where["".join(board)]]:
            i = truth.where["".join(board)]
            mover = truth.to_move[i]
            row = q[_state(board)]
            action = int(rng.choice(truth.legal[i]))
            explores = epsilon is not None and rng.random() < epsilon
            if greedy or (epsilon is not None and not explores):
                action = (max if mover == "X" else min)(row, key=row.__getitem__)
            before = _state(board)
            board[action] = mover
            after = _state(board)
            if after not in known:
                known.add(after)
                q[after] = {c: 0.0 for c in range(9) if after[c] == "0"}
            game.append([before, action, "'1'" if mover == "X" else "'2'", after])
        for k, (before, action, _, after) in enumerate(game):
            if k + 1 == len(game):  # the last move ends the game: the reward alone
                target = float(truth.utility[truth.where["".join(board)]])
            elif algorithm == "qlearning":
                pick = max if after.count("1") == after.count("2") else min
                target = DISCOUNT * pick(q[after].values())
            else:
                target = DISCOUNT * q[after][game[k + 1][1]]
            q[before][action] += ALPHA * (target - q[before][action])
        plays += game
    entries = [
        [s, a, v] for s, row in q.items() for a, v in row.items() if table.get(s, {}).get(a) != v
    ]
    gained = sorted(known - states)
    totals = [len(plays), len(entries), 0, len(gained), 0]
    return plays, [plays, entries, [], gained, [], totals]


@pytest.mark.parametrize("algorithm", ["qlearning", "sarsa"])
def test_an_episode_replayed_apart_is_right_and_any_change_to_it_is_named(algorithm: str) -> None:
    truth = exercise_truth()
    for game_seed in range(12):
        plays, value = _report(algorithm, game_seed)
        assert first_wrong(algorithm, ARG, value, truth, ALARM) is None, game_seed
        entries = value[1]
        state, action, v = entries[0]
        nudged = [[state, action, v + 1e-6], *entries[1:]]
        wrong = first_wrong(algorithm, ARG, [plays, nudged, *value[2:]], truth, ALARM)
        assert wrong is not None
        assert wrong.text.startswith(f"q[{state!r}][{action}] is ")
        swapped = [plays[1], plays[0], *plays[2:]]
        assert first_wrong(algorithm, ARG, [swapped, entries, *value[2:]], truth, ALARM)
        short = plays[:-1]
        totals = [len(short), *value[5][1:]]
        wrong = first_wrong(algorithm, ARG, [short, entries, [], [], [], totals], truth, ALARM)
        assert wrong is not None
        assert wrong.text == f"the episode stopped after {len(short)} moves, before the game ended"


def test_the_other_algorithms_update_is_wrong_on_most_episodes() -> None:
    truth = exercise_truth()
    told = 0
    for game_seed in range(12):
        _, value = _report("sarsa", game_seed)
        told += first_wrong("qlearning", ARG, value, truth, ALARM) is not None
    assert told >= 10


@pytest.mark.parametrize("algorithm", ["qlearning", "sarsa"])
def test_at_epsilon_zero_every_move_must_be_the_movers_greedy_one(algorithm: str) -> None:
    truth = exercise_truth()
    greedy_arg = [SEED, 0.0, DISCOUNT, ALPHA, LEAVE, 1]
    named = 0
    for game_seed in range(6):
        _, value = _report(algorithm, game_seed, greedy=True)
        assert first_wrong(algorithm, greedy_arg, value, truth, ALARM) is None
        _, value = _report(algorithm, game_seed)
        wrong = first_wrong(algorithm, greedy_arg, value, truth, ALARM)
        named += wrong is not None and "is not greedy at epsilon 0" in wrong.text
    assert named >= 5  # a random game is greedy throughout by chance only


@pytest.mark.parametrize("algorithm", ["qlearning", "sarsa"])
def test_several_episodes_each_from_the_empty_board(algorithm: str) -> None:
    """Three episodes replayed apart are right, the table carried from one to the next
    (greedy moves at ε = 0 included, chosen from the table as the earlier episodes left
    it); the same moves with the board not reset, an episode missing, or one too many
    are named."""
    truth = exercise_truth()
    arg = [SEED, 0.0, DISCOUNT, ALPHA, 0.25, 3]
    plays, value = _report(algorithm, 5, greedy=True, episodes=3, leave=0.25)
    assert first_wrong(algorithm, arg, value, truth, ALARM) is None
    moves, wrong = games(plays, 3, truth)
    assert wrong is None
    assert [m.episode for m in moves if m.first] == [1, 2, 3]
    starts = [k for k, m in enumerate(moves) if m.first]
    second = starts[1]
    ended = plays[second - 1][3]
    stale = [*plays[:second], [ended, *plays[second][1:]], *plays[second + 1 :]]
    wrong = first_wrong(algorithm, arg, [stale, *value[1:]], truth, ALARM)
    assert wrong is not None
    assert wrong.text.startswith("episode 2 of 3 did not start from an empty board")
    one = plays[:second]
    wrong = first_wrong(algorithm, arg, [one, *value[1:5], [len(one), *value[5][1:]]], truth, ALARM)
    assert wrong is not None
    assert wrong.text.startswith("3 episodes asked for, 1 played")
    two = [*arg[:5], 2]
    wrong = first_wrong(algorithm, two, value, truth, ALARM)
    assert wrong is not None
    assert wrong.text.startswith(f"move {starts[2] + 1} (cell ")
    assert "came after the 2 episodes ended" in wrong.text


def test_marks_are_judged_by_what_the_board_wrote() -> None:
    """Marks given as ints or bools are right when the Board wrote the mover's digit; a
    Board that wrote the wrong one is named at the move."""
    truth = exercise_truth()
    plays, value = _report("qlearning", 3)
    other = [[b, a, {"'1'": "True", "'2'": "False"}[m], after] for b, a, m, after in plays]
    assert first_wrong("qlearning", ARG, [other, *value[1:]], truth, ALARM) is None
    before, action, _, after = plays[1]
    wrote = after[:action] + "1" + after[action + 1 :]
    wrong_mark = [plays[0], [before, action, "2", wrote], *plays[2:]]
    wrong = first_wrong("qlearning", ARG, [wrong_mark, *value[1:]], truth, ALARM)
    assert wrong is not None
    assert wrong.text.startswith("move 2 was played as 2; '2' moves there")
    assert "wrote '1' there" in wrong.text
    garbled = [plays[0], [before, action, "'2'", ["g", "None"]], *plays[2:]]
    wrong = first_wrong("qlearning", ARG, [garbled, *value[1:]], truth, ALARM)
    assert wrong is not None
    assert "left the state None" in wrong.text


def test_a_new_finished_states_row_may_be_full_empty_or_left_out() -> None:
    truth = exercise_truth()
    arg = [SEED, EPSILON, DISCOUNT, ALPHA, 0.6, 1]
    found = 0
    for game_seed in range(40):
        plays, value = _report("qlearning", game_seed, leave=0.6)
        last = plays[-1][3]
        row = [e for e in value[1] if e[0] == last]
        if last not in value[3] or len(row) < 2:
            continue  # the finished state was in the table, or has one open cell at most
        found += 1
        assert first_wrong("qlearning", arg, value, truth, ALARM) is None
        others = [e for e in value[1] if e[0] != last]
        totals = [value[5][0], len(others), *value[5][2:]]
        empty = [plays, others, [], value[3], [], totals]  # an empty row, or none at all
        assert first_wrong("qlearning", arg, empty, truth, ALARM) is None
        unlisted = [plays, others, [], [s for s in value[3] if s != last], [], totals]
        assert first_wrong("qlearning", arg, unlisted, truth, ALARM) is None
        partial = [plays, [*others, row[0]], [], value[3], [], totals]
        wrong = first_wrong("qlearning", arg, partial, truth, ALARM)
        assert wrong is not None
        assert wrong.text.startswith(f"q[{last!r}][{row[1][1]}] is missing, expected 0.0")
        hidden = [plays, value[1], [], [s for s in value[3] if s != last], [], value[5]]
        wrong = first_wrong("qlearning", arg, hidden, truth, ALARM)
        assert wrong is not None
        assert wrong.text == f"{last!r} was added to q but not to states"
    assert found >= 3


@pytest.mark.parametrize("algorithm", ["qlearning", "sarsa"])
def test_the_moves_of_many_episodes_must_explore_at_their_share(algorithm: str) -> None:
    """Forty ε-greedy episodes pass the shares' test; the same number played greedily
    (a SARSA whose next action is best_action's) is named, with the likeliest departure."""
    truth = exercise_truth()
    arg = [SEED, 0.5, DISCOUNT, ALPHA, LEAVE, 40]
    _, value = _report(algorithm, 8, episodes=40, epsilon=0.5)
    assert first_wrong(algorithm, arg, value, truth, ALARM) is None
    _, value = _report(algorithm, 8, greedy=True, episodes=40)
    wrong = first_wrong(algorithm, arg, value, truth, ALARM)
    assert wrong is not None
    assert wrong.text.startswith("the moves do not follow the epsilon-greedy shares at epsilon 0.5")
    assert "much too greedy" in wrong.text
    _, value = _report(algorithm, 8, episodes=40)  # uniformly random moves: too random
    wrong = first_wrong(algorithm, arg, value, truth, ALARM)
    assert wrong is not None
    assert "too random" in wrong.text
