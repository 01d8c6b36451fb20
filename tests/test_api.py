"""The Python API (``tttlab.train``, ``evaluate``, ``solve``, ``arena``, ``load``, ``mdp``):
the CLI's figures and files, and one clear error of tttlab's own for bad input."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import json
import pickle
import types
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import tttlab
from tests.cli.helpers import ttt
from tttlab.agents import PerfectAgent
from tttlab.api import TrainedAgent, TrainedNetwork


def strip_seconds(data: dict) -> dict:  # type: ignore[type-arg]
    return {k: v for k, v in data.items() if k != "seconds"}


def test_each_name_means_one_thing() -> None:
    """The API's functions never share a name with a subpackage, so every import form gives
    what it says, and importing a subpackage leaves the functions alone."""
    import tttlab.evaluation as judge_package
    import tttlab.learners.trainer
    import tttlab.planning.build
    import tttlab.solvers as solvers_package
    import tttlab.solvers.table as table_module
    from tttlab.solvers import solve_table

    assert isinstance(solvers_package, types.ModuleType)
    assert isinstance(judge_package, types.ModuleType)
    assert table_module.solve_table is solve_table
    for name in ("train", "evaluate", "solve", "mdp", "arena", "load", "position"):
        assert isinstance(getattr(tttlab, name), types.FunctionType), name
        assert not (Path(tttlab.__file__).parent / name).exists(), name
    assert tttlab.solve("3x3").value == 0
    assert tttlab.learners.trainer.Trainer is not None  # the subpackage is reachable too
    assert tttlab.planning.build.build_mdp is not None


def test_dir_lists_the_api_for_tab_completion() -> None:
    listed = dir(tttlab)
    for name in ("train", "evaluate", "solve", "mdp", "arena", "load", "TttlabError"):
        assert name in listed


def test_monkeypatching_an_api_name_sticks(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(*args: object, **kwargs: object) -> str:
        return "patched"

    monkeypatch.setattr(tttlab, "solve", fake)
    importlib.import_module("tttlab.solvers.summary")  # a subpackage import changes nothing

    assert tttlab.solve("3x3") == "patched"


def test_every_module_imports_by_its_dotted_path() -> None:
    root = Path(tttlab.__file__).parent
    names = [
        "tttlab." + ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        for path in sorted(root.rglob("*.py"))
        if path.name != "__main__.py"
    ]
    assert len(names) > 60
    for name in names:
        module = importlib.import_module(name.removesuffix(".__init__"))
        assert module.__name__ == name.removesuffix(".__init__")


def test_results_are_dataclasses_that_copy_pickle_and_compare() -> None:
    solved = tttlab.solve("3x3")
    assert dataclasses.is_dataclass(solved)
    assert copy.deepcopy(solved) == solved
    assert pickle.loads(pickle.dumps(solved)) == solved
    assert solved.positions == 5478
    assert solved.nodes is None  # a table solve has no search fields
    searched = tttlab.solve("4x4k4", method="search")
    assert searched.positions is None
    assert searched.nodes is not None
    assert pickle.loads(pickle.dumps(searched)).to_dict() == searched.to_dict()
    evaluation = tttlab.evaluate("perfect")
    assert pickle.loads(pickle.dumps(evaluation)) == evaluation
    result = tttlab.arena(["random", "perfect"], games=4, seed=1)
    assert copy.deepcopy(result).to_dict() == result.to_dict()
    solved_mdp = tttlab.mdp()
    again = pickle.loads(pickle.dumps(solved_mdp))
    assert again.to_dict() == solved_mdp.to_dict()
    assert again.value == solved_mdp.value


def test_load_says_what_it_returns_and_file_agents_share_one_surface(tmp_path: Path) -> None:
    table = tttlab.train("q", episodes=2000, seed=0, progress=False)
    # the Python reference's run (and tests/typecheck's): JAX's persistent cache compiles it once
    network = tttlab.train("dqn", episodes=256, seed=0, progress=False, batch=64, updates=2)
    assert isinstance(table, TrainedAgent)
    assert isinstance(network, TrainedNetwork)
    for agent in (table, network):
        path = agent.save(tmp_path / f"{agent.algorithm}.npz")
        loaded = tttlab.load(path)
        assert type(loaded) is type(agent)
        assert loaded.evaluation().to_dict() == agent.evaluation().to_dict()
        assert loaded.save(tmp_path / "again.npz").read_bytes() == path.read_bytes()
        assert "<table" in loaded._repr_html_()
    assert isinstance(tttlab.load("perfect"), PerfectAgent)


@pytest.mark.parametrize("algorithm", ["dqn"])  # the learners share the driver and the file
def test_train_takes_the_network_learners_and_saves_the_clis_file(
    tmp_path: Path, algorithm: str
) -> None:
    small = {"batch": 64, "updates": 2, "hidden": (16,)}
    agent = tttlab.train(algorithm, episodes=128, seed=3, progress=False, **small)
    result = ttt(
        "train",
        algorithm,
        "--episodes",
        "128",
        "--seed",
        "3",
        "--batch",
        "64",
        "--updates",
        "2",
        "--hidden",
        "16",
        "--out",
        str(tmp_path / "cli.npz"),
        "--json",
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert agent.training is not None
    assert agent.training["hyperparameters"] == summary["hyperparameters"]
    assert agent.evaluation().to_dict() == summary["evaluation"]
    assert agent.save(tmp_path / "api.npz").read_bytes() == (tmp_path / "cli.npz").read_bytes()


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
    assert as_o.R.shape == (as_o.states, 9)
    pi = tttlab.mdp(seat="O", opponent="random", method="pi")
    assert abs(pi.value - as_o.value) < 1e-12
    x = tttlab.mdp()
    assert Fraction(x.value).limit_denominator(10_000) == Fraction(191, 192)
    agent = x.agent()
    assert tttlab.evaluate(agent, seat="X").X.win == pytest.approx(191 / 192)  # type: ignore[union-attr]
    result = ttt("mdp", "--as", "O", "--json")
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
    (lambda: tttlab.train("q", episodes=10, simulations=8), ValueError),
    (lambda: tttlab.train("alphazero", episodes=10, epsilon=0.1), ValueError),
    (lambda: tttlab.train("dqn", episodes=10, hidden="8,x"), ValueError),
    (lambda: tttlab.train("dqn", episodes=10, double="yes"), TypeError),
    (lambda: tttlab.train("dqn", episodes=10, opponent="random"), ValueError),
    (lambda: tttlab.evaluate("perfect", board="4x5k4"), ValueError),
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
    with pytest.raises(tttlab.TttlabError) as info:  # one except catches every refusal
        call()
    assert isinstance(info.value, kind)
    assert "\n" not in str(info.value)
    assert str(info.value)


def test_every_error_class_of_tttlab_is_a_tttlab_error() -> None:
    root = Path(tttlab.__file__).parent
    classes = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "__main__.py" or "boxside" in path.parts:
            continue  # the box's own code: standard library only, its errors never leave it
        name = "tttlab." + ".".join(path.relative_to(root).with_suffix("").parts)
        module = importlib.import_module(name.removesuffix(".__init__"))
        classes += [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, Exception)
            and value.__module__ == module.__name__
            and not issubclass(value, Warning)
        ]
    assert len(classes) >= 10
    outside = [c.__qualname__ for c in classes if not issubclass(c, tttlab.TttlabError)]
    # The only exception: the CLI's click error, which click itself turns into exit 2.
    assert outside == ["CommandError"]


def test_a_damaged_agent_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.npz"
    path.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(tttlab.TttlabError, match=r"bad\.npz"):
        tttlab.load(path)


def test_the_typed_user_script_runs(tmp_path: Path) -> None:
    """``tests/typecheck/user_script.py`` is what mypy checks; it must also run."""
    from tests.typecheck.user_script import main

    main(tmp_path)
    assert (tmp_path / "q.npz").exists()
