"""Network agent files (alphazero, dqn): same format, same checks, no JAX needed to load."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import numpy as np
import pytest

from tests.io import archives
from tests.io.archives import npy, write
from tttlab.agents import AgentError
from tttlab.agents.network import Architecture, NetworkAgent, encode, forward
from tttlab.game import DEFAULT, Geometry, Position
from tttlab.io import (
    AgentFileError,
    file_agent,
    load_agent_file,
    save_agent,
)
from tttlab.learners import Trainer, default_config


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


def _save(agent: NetworkAgent, path: Path) -> Path:
    return save_agent(path, agent, episodes=10, seed=3, hyperparameters={"hidden": [16, 8]})


@pytest.mark.parametrize("algorithm", ["alphazero", "dqn"])
@pytest.mark.parametrize(
    ("board", "symmetrized", "conv"),
    [
        ("3x3k3", False, ()),
        ("3x3k3", True, ()),
        ("4x4k4", False, ()),
        ("5x5k4", True, ()),
        ("3x4k3", False, (3, 2)),
        ("5x5k4", True, (4,)),
    ],
)
def test_round_trip_plays_the_same(
    tmp_path: Path, algorithm: str, board: str, symmetrized: bool, conv: tuple[int, ...]
) -> None:
    geometry = Geometry.parse(board)
    agent = random_network(geometry, algorithm, symmetrized=symmetrized, conv=conv)
    path = _save(agent, tmp_path / "net.npz")
    loaded = load_agent_file(path)
    assert isinstance(loaded, NetworkAgent)
    assert loaded.architecture == agent.architecture
    # unsymmetrized files say nothing of it, as files did before it was named; so with
    # convolutions, which files of perceptrons alone do not mention
    network = archives.header(path)["network"]
    assert ("symmetrized" in network) == symmetrized  # type: ignore[operator]
    assert network.get("conv", []) == list(conv)  # type: ignore[union-attr]
    assert ("columns" in network) == bool(conv)  # type: ignore[operator]
    for name, array in agent.params.items():
        np.testing.assert_array_equal(loaded.params[name], array)
    rng = np.random.default_rng(1)
    position = Position.initial(geometry)
    while not position.is_terminal:
        assert loaded.move_probabilities(position) == agent.move_probabilities(position)
        position = position.apply(agent.select_move(position, rng))
    assert _save(agent, tmp_path / "again.npz").read_bytes() == path.read_bytes()


def test_ties_are_kept_and_illegal_moves_never_chosen() -> None:
    agent = random_network()
    for name in agent.params:
        agent.params[name][:] = 0.0  # every logit equal: every legal move ties
    position = Position.from_string("X.O/.X./..O")
    probabilities = agent.move_probabilities(position)
    assert sorted(probabilities) == list(position.legal_moves)
    assert len(set(probabilities.values())) == 1


def test_search_suffix(tmp_path: Path) -> None:
    path = _save(random_network(), tmp_path / "az.npz")
    searching = file_agent(f"{path}:25")
    assert isinstance(searching, NetworkAgent)
    assert searching.simulations == 25
    assert searching.name == "az.npz:25"
    position = Position.from_string("XX./OO./...")
    assert set(searching.move_probabilities(position)) <= set(position.legal_moves)
    for bad in (f"{path}:x", f"{path}:0"):
        with pytest.raises(AgentError):
            file_agent(bad)
    table = tmp_path / "q.npz"
    save_agent(
        table, Trainer(default_config("q", 1)).agent(), episodes=1, seed=0, hyperparameters={}
    )
    with pytest.raises(AgentError, match="only network agents"):
        file_agent(f"{table}:10")
    dqn = _save(random_network(algorithm="dqn"), tmp_path / "dqn.npz")
    with pytest.raises(AgentError, match="policy-and-value"):
        file_agent(f"{dqn}:10")


def test_search_finds_the_win_a_blank_network_does_not_know() -> None:
    agent = random_network()
    for name in agent.params:
        agent.params[name][:] = 0.0  # uniform priors, value 0 everywhere
    position = Position.from_string("XX./OO./...")  # X wins at cell 2
    assert len(agent.move_probabilities(position)) == len(position.legal_moves)
    assert agent.with_search(50).move_probabilities(position) == {2: 1.0}


def test_damage_is_one_error(tmp_path: Path) -> None:
    good = _save(random_network(), tmp_path / "good.npz")
    members = archives.members(good)
    weight = np.load(good)["torso.0.weight"]

    cases: dict[str, dict[str, bytes]] = {}
    changed = weight.copy()
    changed[0, 0] += 1
    cases["checksum"] = {**members, "torso.0.weight.npy": npy(changed)}
    cases["shape"] = {**members, "torso.0.weight.npy": npy(weight[:, :-1])}
    cases["dtype"] = {**members, "torso.0.weight.npy": npy(weight.astype(np.int32))}
    nan = weight.copy()
    nan[0, 0] = np.nan
    header = archives.header(good)
    cases["missing"] = {k: v for k, v in members.items() if k != "policy.bias.npy"}
    cases["extra"] = {**members, "surprise.npy": npy(np.zeros(3, np.float32))}
    cases["state without checkpoint"] = {**members, "state.000.npy": npy(np.zeros(3))}
    for field, value in (
        ("network", {"kind": "conv"}),
        ("network", {"kind": "mlp", "cells": 9, "hidden": [], "head": "policy-value"}),
        ("network", {"kind": "mlp", "cells": 16, "hidden": [16, 8], "head": "policy-value"}),
        ("network", {"kind": "mlp", "cells": 9, "hidden": [16, 8], "head": "q"}),
        ("network", {"kind": "mlp", "cells": 9, "hidden": ["16"], "head": "policy-value"}),
        ("network", {**header["network"], "perspective": "x"}),  # x is for q heads only
        ("network", {**header["network"], "perspective": "o"}),
        ("network", {**header["network"], "perspective": 1}),
        ("network", {**header["network"], "symmetrized": "yes"}),
        ("network", {**header["network"], "conv": ["4"], "columns": 3}),
        ("network", {**header["network"], "conv": 4, "columns": 3}),
        ("network", {**header["network"], "conv": [4]}),  # no board width
        ("network", {**header["network"], "conv": [4], "columns": 2}),  # 2 does not divide 9
        ("network", {**header["network"], "conv": [4], "columns": "3"}),
        ("network", {**header["network"], "conv": [0], "columns": 3}),
        ("network", {**header["network"], "conv": [4] * 9, "columns": 3}),
        ("network", {**header["network"], "columns": 3}),  # a width without convolutions
        ("network", {**header["network"], "conv": [4], "columns": 3}),  # not its arrays
        ("algorithm", "muzero"),
    ):
        changed_header = {**header, field: value}
        cases[f"{field}={value}"] = {
            **members,
            "header.npy": npy(np.array(json.dumps(changed_header))),
        }
    for label, content in cases.items():
        path = write(tmp_path / f"{len(label)}-{abs(hash(label))}.npz", content)
        with pytest.raises(AgentFileError):
            load_agent_file(path)
        assert label  # each case raised

    # Non-finite values with a matching checksum are still refused.
    agent = random_network()
    agent.params["value.bias"][0] = np.inf
    with pytest.raises(AgentFileError, match="non-finite"):
        load_agent_file(_save(agent, tmp_path / "inf.npz"))


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


@pytest.mark.parametrize("slice_of", [None, 7])
def test_a_convolution_is_scipys_correlation_of_the_planes(
    slice_of: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each convolution layer computes, per output channel, the sum over input planes of
    scipy's 2-D correlation with a 3×3 kernel (zero beyond the edges), plus the bias, then
    the ReLU: read through a perceptron and a policy head that pass the last layer's single
    plane through as the logits, on a board that is not square; also when the batch of 20
    is cut into slices of 7 boards (the last one short)."""
    from scipy.signal import correlate2d

    from tttlab.agents import network

    if slice_of is not None:  # patches of 7 boards × 12 cells × 9 places × 3 channels
        monkeypatch.setattr(network, "_PATCH_ENTRIES", slice_of * 12 * 9 * 3)

    geometry = Geometry.parse("3x4k3")
    cells, rows, cols = geometry.cells, geometry.rows, geometry.cols
    architecture = Architecture(cells, (cells,), "policy-value", conv=(3, 1), columns=cols)
    rng = np.random.default_rng(7)
    params = {n: rng.normal(size=s).astype(np.float32) for n, s in architecture.shapes().items()}
    params["torso.0.weight"] = np.eye(cells, dtype=np.float32)  # the plane, unchanged
    params["torso.0.bias"] = np.zeros(cells, np.float32)
    params["policy.weight"] = np.eye(cells, dtype=np.float32)
    params["policy.bias"] = np.zeros(cells, np.float32)
    boards = rng.integers(0, 3, size=(20, cells))
    movers = rng.integers(1, 3, size=20)
    logits, _ = forward(architecture, params, encode(boards, movers))

    def layer(planes: list[np.ndarray], i: int) -> list[np.ndarray]:
        weight, bias = params[f"conv.{i}.weight"], params[f"conv.{i}.bias"]
        # weight[out, j * planes + p]: patch place j = 3 * (dr + 1) + (dc + 1), plane p
        kernels = weight.reshape(len(weight), 3, 3, len(planes))
        return [
            np.maximum(
                sum(correlate2d(x, k[:, :, p], mode="same") for p, x in enumerate(planes)) + b,
                0.0,
            )
            for k, b in zip(kernels, bias, strict=True)
        ]

    for board, mover, found in zip(boards, movers, logits, strict=True):
        grid = board.reshape(rows, cols)
        planes = [(grid == mover).astype(float), (grid == 3 - mover).astype(float)]
        (last,) = layer(layer(planes, 0), 1)
        np.testing.assert_allclose(found, last.reshape(-1), rtol=1e-5, atol=1e-5)


def test_the_x_perspective_round_trips_and_old_files_read_as_mover(tmp_path: Path) -> None:
    mover = random_network(algorithm="dqn", seed=4)
    x_side = NetworkAgent(
        "dqn", DEFAULT, Architecture(9, (16, 8), "q", perspective="x"), mover.params
    )
    loaded = load_agent_file(_save(x_side, tmp_path / "x.npz"))
    assert isinstance(loaded, NetworkAgent)
    assert loaded.architecture.perspective == "x"
    assert archives.header(tmp_path / "x.npz")["network"]["perspective"] == "x"  # type: ignore[index]
    # the same arrays read from X's side: when X moves, the planes are the mover's and
    # the values are the same; when O moves, the planes stay X's and the values negate
    x_moves, o_moves = Position.from_string("XO......."), Position.from_string("X...O..X.")
    assert loaded.move_values(x_moves) == mover.move_values(x_moves)
    raw, _ = forward(x_side.architecture, x_side.params, encode(np.array([o_moves.cells]), [1]))
    o_values = loaded.move_values(o_moves)
    assert o_values is not None
    assert o_values == {m: pytest.approx(-float(raw[0, m])) for m in o_moves.legal_moves}
    assert o_values != mover.move_values(o_moves)
    position = o_moves
    # an old file: no perspective named, so mover
    path = _save(mover, tmp_path / "old.npz")
    members = archives.members(path)
    header = archives.header(path)
    network = dict(header["network"])  # type: ignore[call-overload]
    del network["perspective"]
    old = {**members, "header.npy": npy(np.array(json.dumps({**header, "network": network})))}
    reloaded = load_agent_file(write(tmp_path / "older.npz", old))
    assert isinstance(reloaded, NetworkAgent)
    assert reloaded.architecture.perspective == "mover"
    assert reloaded.move_values(position) == mover.move_values(position)


def test_flipped_bytes_never_escape(tmp_path: Path) -> None:
    good = _save(random_network(), tmp_path / "good.npz").read_bytes()
    rng = np.random.default_rng(0)
    for trial in range(200):
        data = bytearray(good)
        for pos in rng.integers(0, len(data), size=int(rng.integers(1, 6))):
            data[int(pos)] ^= int(rng.integers(1, 256))
        path = tmp_path / f"flip{trial}.npz"
        path.write_bytes(bytes(data))
        with contextlib.suppress(AgentFileError):
            load_agent_file(path)


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
