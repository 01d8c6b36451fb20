"""Network agents (``tttlab.agents.network``): greedy play from the network's outputs with
ties kept, search at play time, outputs averaged over the board's symmetries, and the batched
policy that the judges ask for. Their files: tests/io/test_networkfile.py; the forward pass:
tests/agents/test_forward.py."""

from __future__ import annotations

import numpy as np
import pytest

from tttlab.agents.forward import Architecture, encode, forward
from tttlab.agents.network import NetworkAgent
from tttlab.game import DEFAULT, Geometry, Position


def random_network(
    geometry: Geometry = DEFAULT,
    algorithm: str = "alphazero",
    seed: int = 0,
    symmetrized: bool = False,
    conv: tuple[int, ...] = (),
) -> NetworkAgent:
    head = "q" if algorithm == "dqn" else "policy-value"
    architecture = Architecture(
        geometry.cells,
        (16, 8),
        head,
        symmetrized=symmetrized,
        conv=conv,
        columns=geometry.cols if conv else 0,
    )
    rng = np.random.default_rng(seed)
    params = {
        name: rng.normal(size=shape).astype(np.float32)
        for name, shape in architecture.shapes().items()
    }
    return NetworkAgent(algorithm, geometry, architecture, params)


def test_ties_are_kept_and_illegal_moves_never_chosen() -> None:
    agent = random_network()
    for name in agent.params:
        agent.params[name][:] = 0.0  # every logit equal: every legal move ties
    position = Position.from_string("X.O/.X./..O")
    probabilities = agent.move_probabilities(position)
    assert sorted(probabilities) == list(position.legal_moves)
    assert len(set(probabilities.values())) == 1


def test_search_finds_the_win_a_blank_network_does_not_know() -> None:
    agent = random_network()
    for name in agent.params:
        agent.params[name][:] = 0.0  # uniform priors, value 0 everywhere
    position = Position.from_string("XX./OO./...")  # X wins at cell 2
    assert len(agent.move_probabilities(position)) == len(position.legal_moves)
    assert agent.with_search(50).move_probabilities(position) == {2: 1.0}


@pytest.mark.parametrize(("board", "algorithm"), [("4x4k4", "alphazero"), ("3x4k3", "dqn")])
def test_a_symmetrized_network_answers_every_image_of_a_position_alike(
    board: str, algorithm: str
) -> None:
    """Its outputs move with the board under each symmetry (the plain network's do not),
    and without ``symmetrized`` they are the plain network's own."""
    geometry = Geometry.parse(board)
    plain = random_network(geometry, algorithm, seed=5)
    symmetrized = random_network(geometry, algorithm, seed=5, symmetrized=True)
    rng = np.random.default_rng(2)
    boards = rng.integers(0, 3, size=(40, geometry.cells))
    movers = rng.integers(1, 3, size=40)
    scores, values = symmetrized.outputs(boards, movers)
    for perm in geometry.symmetries[1:]:
        moved, moved_values = symmetrized.outputs(boards[:, perm], movers)
        np.testing.assert_allclose(moved, scores[:, perm], rtol=1e-5, atol=1e-6)
        if values is not None:
            assert moved_values is not None
            np.testing.assert_allclose(moved_values, values, rtol=1e-5, atol=1e-6)
    own, _ = plain.outputs(boards, movers)
    x = encode(boards, movers)
    np.testing.assert_array_equal(own, forward(plain.architecture, plain.params, x)[0])
    # the plain network's outputs on each image, moved back to the cells they speak for:
    # not its own outputs (so it is not symmetric), and their mean is the symmetrized one
    images = [
        plain.outputs(boards[:, perm], movers)[0][:, np.argsort(perm)]
        for perm in geometry.symmetries
    ]
    assert max(np.abs(image - own).max() for image in images[1:]) > 1e-2
    np.testing.assert_allclose(scores, np.mean(images, axis=0), rtol=1e-5, atol=1e-6)


def test_exact_evaluation_matches_position_by_position() -> None:
    """The batched policy matrix equals asking the agent position by position."""
    from tttlab.agents.base import policy_matrix
    from tttlab.game import Player, state_space

    geometry = Geometry(3, 3, 3)
    agent = random_network(geometry, seed=7)
    space = state_space(geometry)
    for side in (Player.X, Player.O):
        batched = policy_matrix(agent, space, side)
        rows = np.flatnonzero(~space.terminal & (space.to_move == int(side)))
        for i in rows[::7]:
            one = agent.move_probabilities(space.position(int(i)))
            expected = np.zeros(geometry.cells)
            for move, p in one.items():
                expected[move] = p
            np.testing.assert_allclose(batched[i], expected)
        assert batched.sum() == pytest.approx(len(rows))
        assert batched.shape == (space.size, geometry.cells)
