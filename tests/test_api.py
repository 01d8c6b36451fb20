"""The Python API (``tttlab.train``, ``evaluate``, ``solve``, ``arena``, ``load``, ``mdp``):
the CLI's figures and files, and one clear error of tttlab's own for bad input."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import tttlab
from tests.cli.helpers import ttt
from tttlab.api import TrainedAgent


def strip_seconds(data: dict) -> dict:  # type: ignore[type-arg]
    return {k: v for k, v in data.items() if k != "seconds"}


def test_the_package_keeps_its_functions_beside_the_subpackages() -> None:
    import tttlab.evaluate.exact
    import tttlab.mdp.build
    import tttlab.solve.table
    import tttlab.train.learners
    from tttlab.solve import solve as table_solve

    assert callable(tttlab.train)
    assert callable(tttlab.evaluate)
    assert callable(tttlab.solve)
    assert callable(tttlab.mdp)
    assert tttlab.solve is not table_solve
    assert tttlab.solve("3x3").value == 0


def test_train_then_evaluate_equals_ttt_train_json(tmp_path: Path) -> None:
    agent = tttlab.train("td", board="3x3", episodes=8000, seed=3, progress=False)
    result = ttt(
        "train",
        "td",
        "--episodes",
        "8000",
        "--seed",
        "3",
        "--out",
        str(tmp_path / "cli.npz"),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    assert tttlab.evaluate(agent).to_dict() == json.loads(result.stdout)["evaluation"]
    # ... and the same file, byte for byte
    agent.save(tmp_path / "api.npz")
    assert (tmp_path / "api.npz").read_bytes() == (tmp_path / "cli.npz").read_bytes()


def test_hyperparameters_and_curve() -> None:
    agent = tttlab.train(
        "q",
        episodes=4000,
        seed=1,
        alpha=0.3,
        epsilon_end=0.0,
        epsilon_schedule="linear",
        curve=True,
        eval_every=1000,
        progress=False,
    )
    assert agent.meta["hyperparameters"]["alpha"] == {"kind": "constant", "start": 0.3, "end": None}
    assert agent.meta["hyperparameters"]["epsilon"]["kind"] == "linear"
    assert agent.curve is not None
    assert [r["episode"] for r in agent.curve.records] == [0, 1000, 2000, 3000, 4000]
    last = agent.curve.records[-1]
    assert last["X"] == tttlab.evaluate(agent).to_dict()["X"]
    assert agent.curve._repr_png_()[:4] == b"\x89PNG"


def test_evaluate_names_files_and_seats(tmp_path: Path) -> None:
    perfect = tttlab.evaluate("perfect")
    assert perfect.X is not None
    assert perfect.O is not None
    assert perfect.X.worst_case == perfect.O.worst_case == 0
    assert perfect.unbeatable
    random_x = tttlab.evaluate("random", seat="X")
    assert random_x.O is None
    assert random_x.X is not None
    assert Fraction(random_x.X.win).limit_denominator(10_000) == Fraction(737, 1260)
    result = ttt("eval", "perfect", "--json")
    assert perfect.to_dict() == json.loads(result.stdout)
    html = perfect._repr_html_()
    assert "<table" in html
    assert "worst case" in html


def test_save_load_round_trip(tmp_path: Path) -> None:
    agent = tttlab.train("sarsa", episodes=3000, seed=0, progress=False)
    path = agent.save(tmp_path / "s.npz")
    loaded = tttlab.load(path)
    assert isinstance(loaded, TrainedAgent)
    for name in agent.tables:
        assert np.array_equal(agent.tables[name], loaded.tables[name])
    assert tttlab.evaluate(loaded).to_dict() == tttlab.evaluate(agent).to_dict()
    assert "<table" in loaded._repr_html_()
    assert tttlab.load("mcts:50").name.startswith("mcts")


def test_solve_equals_ttt_solve_json() -> None:
    for args, board in (([], "3x3"), (["--board", "3x4"], "3x4k3")):
        result = ttt("solve", *args, "--json")
        assert strip_seconds(tttlab.solve(board).to_dict()) == strip_seconds(
            json.loads(result.stdout)
        )
    solved = tttlab.solve("3x3")
    assert solved.positions == 5478
    assert solved.game_tree["games"] == 255_168
    assert tttlab.solve("4x4k4", method="search").value == 0


def test_arena_equals_ttt_arena_json(tmp_path: Path) -> None:
    agent = tttlab.train("q", episodes=2000, seed=0, progress=False)
    path = agent.save(tmp_path / "q.npz")
    result = ttt("arena", "random", "perfect", str(path), "--games", "20", "--seed", "5", "--json")
    api = tttlab.arena(["random", "perfect", str(path)], games=20, seed=5)
    assert api.to_dict() == json.loads(result.stdout)
    assert "<table" in api._repr_html_()


def test_mdp_against_random() -> None:
    as_o = tttlab.mdp(seat="O", opponent="random")
    assert Fraction(as_o.value).limit_denominator(10_000) == Fraction(874, 945)
    assert len(as_o.P) == 9
    assert as_o.R.shape == (as_o.summary["states"], 9)
    pi = tttlab.mdp(seat="O", opponent="random", method="pi")
    assert abs(pi.value - as_o.value) < 1e-12
    x = tttlab.mdp()
    assert Fraction(x.value).limit_denominator(10_000) == Fraction(191, 192)
    agent = x.agent()
    assert tttlab.evaluate(agent, seat="X").X.win == pytest.approx(191 / 192)  # type: ignore[union-attr]
    result = ttt("solve", "--mdp", "--as", "O", "--json")
    assert strip_seconds(as_o.to_dict()) == strip_seconds(json.loads(result.stdout))


def test_position_draws_itself_as_svg() -> None:
    position = tttlab.position("XXX/OO./...")
    svg = tttlab._position_svg(position)
    assert svg.startswith("<svg")
    assert svg.count('class="win"') == 3


BAD_CALLS = [
    (lambda: tttlab.train("nope"), ValueError),
    (lambda: tttlab.train("q", episodes=0), ValueError),
    (lambda: tttlab.train("q", episodes="many"), TypeError),
    (lambda: tttlab.train("q", episodes=10, alpha=2.0), ValueError),
    (lambda: tttlab.train("q", episodes=10, alpha="high"), ValueError),
    (lambda: tttlab.train("q", episodes=10, beta=0.1), ValueError),
    (lambda: tttlab.train("q", board="9x9", episodes=10), ValueError),
    (lambda: tttlab.train("q", board=3, episodes=10), TypeError),
    (lambda: tttlab.train("q", episodes=10, seed=-1), ValueError),
    (lambda: tttlab.train("q", episodes=10, side="X"), ValueError),
    (lambda: tttlab.evaluate("no-such-agent.npz"), ValueError),
    (lambda: tttlab.evaluate(42), TypeError),  # type: ignore[arg-type]
    (lambda: tttlab.evaluate("perfect", seat="Z"), ValueError),
    (lambda: tttlab.evaluate("perfect", board="6x6k4"), ValueError),
    (lambda: tttlab.solve("0x3"), ValueError),
    (lambda: tttlab.solve("3x3", method="guess"), ValueError),
    (lambda: tttlab.solve("6x6k4", method="table"), ValueError),
    (lambda: tttlab.arena(["random"]), ValueError),
    (lambda: tttlab.arena("random"), TypeError),  # type: ignore[arg-type]
    (lambda: tttlab.arena(["random", "perfect"], games=0), ValueError),
    (lambda: tttlab.load(3.5), TypeError),  # type: ignore[arg-type]
    (lambda: tttlab.mdp(seat="Q"), ValueError),
    (lambda: tttlab.mdp(gamma=0.0), ValueError),
    (lambda: tttlab.mdp(gamma="one"), TypeError),  # type: ignore[arg-type]
    (lambda: tttlab.mdp(method="x"), ValueError),
    (lambda: tttlab.mdp(board="4x4k4"), ValueError),
    (lambda: tttlab.position("XXXX"), ValueError),
    (lambda: tttlab.position(5), TypeError),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("call", "kind"), BAD_CALLS)
def test_bad_input_raises_tttlabs_own_error(call, kind) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(kind) as info:
        call()
    assert type(info.value).__module__.startswith("tttlab"), type(info.value)
    assert "\n" not in str(info.value)
    assert str(info.value)


def test_a_damaged_agent_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.npz"
    path.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(ValueError, match=r"bad\.npz") as info:
        tttlab.load(path)
    assert type(info.value).__module__.startswith("tttlab")
