"""Network agent files (alphazero, dqn): same format, same checks, no JAX needed to load."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import numpy as np
import pytest

from tests.agents.test_network import random_network
from tests.io import archives
from tests.io.archives import npy, write
from tttlab.agents.network import Architecture, NetworkAgent, encode, forward
from tttlab.game import DEFAULT, Geometry, Position
from tttlab.io import (
    AgentFileError,
    load_agent_file,
    save_agent,
)


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
