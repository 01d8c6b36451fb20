"""The play-time search of network agents (Gumbel MuZero without noise, in numpy): what it
finds, hand-checked, and that each position's search is its own whatever the batch. That it
is mctx's search, move for move, is checked in tests/neural/test_gumbel_search.py."""

from __future__ import annotations

import numpy as np

from tests.conftest import movers_of, open_positions
from tttlab.agents.gumbel import CONSIDERED, considered_visits, gumbel_search, play_considered
from tttlab.agents.network import Architecture, NetworkAgent, encode
from tttlab.game import Geometry, Position


def _uniform_but(cell: int):  # type: ignore[no-untyped-def]
    """A 'network' that prefers ``cell`` and values every position at 0."""

    def net(boards: np.ndarray, movers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits = np.zeros((len(boards), boards.shape[1]), np.float32)
        logits[:, cell] = 3.0
        return logits, np.zeros(len(boards), np.float32)

    return net


def _random_network(cells: int, seed: int):  # type: ignore[no-untyped-def]
    """A linear 'network' with random weights: logits and a value in [−1, 1]."""
    rng = np.random.default_rng(seed)
    w_logits = rng.normal(size=(2 * cells, cells)).astype(np.float32)
    w_value = (rng.normal(size=2 * cells) / cells).astype(np.float32)

    def net(boards: np.ndarray, movers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = encode(boards, movers)
        return x @ w_logits, np.clip(x @ w_value, -1.0, 1.0).astype(np.float32)

    return net


def test_sequential_halving_by_hand() -> None:
    """4 moves considered, 8 simulations: each of the 4 once, then the best 2 twice more."""
    assert considered_visits(4, 8) == (0, 0, 0, 0, 1, 1, 2, 2)
    assert considered_visits(1, 3) == (0, 1, 2)


def test_the_search_finds_the_win_and_the_block_the_network_does_not_see() -> None:
    geometry = Geometry()
    win = Position.from_string("XX./OO./...")  # X to move: 2 wins at once
    block = Position.from_string("XX./O../..O")  # O to move: only 2 stops X
    boards = np.array([win.cells, block.cells], dtype=np.int8)
    assert gumbel_search(_uniform_but(7), geometry, boards, 1).actions.tolist() == [7, 7]
    assert gumbel_search(_uniform_but(7), geometry, boards, 16).actions.tolist() == [2, 2]


def test_each_search_is_the_same_alone_or_in_a_batch() -> None:
    """A position's move does not depend on the other positions searched with it."""
    geometry = Geometry.parse("4x4k4")
    net = _random_network(geometry.cells, seed=0)
    batch = open_positions(geometry, 40, seed=0)
    together = gumbel_search(net, geometry, batch, 12)
    for i in range(len(batch)):
        alone = gumbel_search(net, geometry, batch[i : i + 1], 12)
        assert alone.actions[0] == together.actions[i]
        np.testing.assert_array_equal(alone.visits[0], together.visits[i])
    assert together.visits.sum(axis=1).tolist() == [12] * len(batch)


def test_play_time_search_plays_a_move_searched_at_least_twice() -> None:
    geometry = Geometry.parse("4x4k4")
    boards = open_positions(geometry, 100, seed=5)
    net = _random_network(geometry.cells, seed=5)
    movers = movers_of(boards)
    raw = np.argmax(np.where(boards == 0, net(boards, movers)[0], -np.inf), axis=1)
    rows = np.arange(len(boards))
    assert play_considered(32) == CONSIDERED  # training's 32 simulations consider its 16
    for simulations in (1, 2, 3, 4, 8, 16, 64, 200):
        m = play_considered(simulations)
        found = gumbel_search(net, geometry, boards, simulations, m, rescale=False)
        visited = (found.visits > 0).sum(axis=1)
        np.testing.assert_array_equal(visited, np.minimum(m, (boards == 0).sum(axis=1)))
        if simulations >= 4:  # the move played is one searched at least twice
            assert (found.visits[rows, found.actions] >= 2).all()
            if simulations <= 16:  # considering every move (training's 16 here), not so
                every = gumbel_search(net, geometry, boards, simulations, rescale=False)
                assert (every.visits[rows, every.actions] == 1).any()
        else:  # below 4: one move, the policy's favourite, as the raw network plays
            np.testing.assert_array_equal(found.actions, raw)


def test_a_network_agent_with_search_plays_one_move_per_position() -> None:
    geometry = Geometry()
    architecture = Architecture(9, (8,), "policy-value")
    params = {k: np.zeros(s, np.float32) for k, s in architecture.shapes().items()}
    raw = NetworkAgent("alphazero", geometry, architecture, params)  # no preference at all
    agent = raw.with_search(8)
    position = Position.from_string("XX./OO./...")
    assert len(raw.move_probabilities(position)) == 5
    assert agent.move_probabilities(position) == {2: 1.0}
    rows = agent.move_probability_rows(np.array([position.cells]), np.array([1]))
    assert rows.tolist() == [[0, 0, 1, 0, 0, 0, 0, 0, 0]]
    # a trained-looking network: the agent plays its search's move, N // 2 moves considered
    rng = np.random.default_rng(7)
    big = Architecture(16, (16,), "policy-value")
    weights = {k: rng.normal(size=s).astype(np.float32) for k, s in big.shapes().items()}
    searching = NetworkAgent("alphazero", Geometry.parse("4x4k4"), big, weights).with_search(8)
    boards = open_positions(searching.geometry, 50, seed=7)
    movers = movers_of(boards)
    played = searching.move_probability_rows(boards, movers).argmax(axis=1)
    expected = gumbel_search(
        searching._network, searching.geometry, boards, 8, play_considered(8), rescale=False
    )
    np.testing.assert_array_equal(played, expected.actions)
    every = gumbel_search(searching._network, searching.geometry, boards, 8, rescale=False)
    assert (every.actions != played).any()  # not a test of nothing: 16 moves play otherwise
