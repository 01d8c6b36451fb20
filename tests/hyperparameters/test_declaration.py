"""The hyperparameters are declared once (``tttlab.hyperparameters.declaration``); the command
line, the API's keyword checks, the web lab's list and ``ttt sweep --set`` are derived from that
one declaration, and so are the learners' defaults."""

from __future__ import annotations

import math

import click
import pytest
from fastapi.testclient import TestClient

import tttlab
from tests.cli.helpers import ttt
from tttlab.cli.train_cmd import train_command
from tttlab.errors import ConfigError, TttlabTypeError
from tttlab.hyperparameters import (
    BY_NAME,
    HYPERPARAMETERS,
    LEARNERS,
    NETWORK_LEARNERS,
    RENAMED,
    SCHEDULED,
    TABLE_LEARNERS,
    check_options,
    default_schedule,
    describe,
    for_learner,
)
from tttlab.learners import default_config
from tttlab.learners.kernels import scheduled
from tttlab.schedules import Schedule
from tttlab.sweep import SweepError, parse_sets
from tttlab.web.app import create_app

#: ``ttt train``'s options that are not hyperparameters.
RUN_OPTIONS = {
    "algorithm",
    "episodes",
    "seed",
    "out_path",
    "opponent",
    "side",
    "curve",
    "log_path",
    "events_path",
    "eval_every",
    "checkpoint_every",
    "checkpoint_path",
    "resume_path",
    "board",
    "k",
    "as_json",
}


def _inside(entry: object) -> object:
    """A value inside the declared range that every learner it applies to accepts alone (the
    first choice; else a default)."""
    assert isinstance(entry, type(HYPERPARAMETERS[0]))
    if entry.kind == "choice":
        return entry.choices[0]
    for learner in entry.learners:
        if entry.default(learner) is not None:
            return entry.default(learner)
    return 1 if entry.kind == "integer" else 0.5


def test_every_hyperparameter_is_an_option_of_ttt_train_as_declared() -> None:
    params = {p.name: p for p in train_command.params}
    assert set(params) == RUN_OPTIONS | set(BY_NAME)
    for entry in HYPERPARAMETERS:
        param = params[entry.name]
        assert isinstance(param, click.Option)
        assert entry.option in param.opts
        assert entry.help in (param.help or "")
        if entry.kind == "switch":
            assert param.secondary_opts == ["--no-" + entry.option[2:]]
        elif entry.kind == "choice":
            assert isinstance(param.type, click.Choice)
            assert tuple(param.type.choices) == entry.choices
        elif entry.kind in ("number", "integer"):
            assert isinstance(param.type, click.FloatRange | click.IntRange)
            assert (param.type.min, param.type.max) == (entry.low, entry.high)
            assert param.type.min_open == entry.low_open


@pytest.mark.parametrize("entry", HYPERPARAMETERS, ids=lambda e: e.name)
def test_the_api_checks_applicability_from_the_declaration(entry: object) -> None:
    assert isinstance(entry, type(HYPERPARAMETERS[0]))
    value = _inside(entry)
    for learner in LEARNERS:
        if entry.applies(learner):
            assert check_options(learner, {entry.name: value}) == {entry.name: entry.check(value)}
        elif (learner, entry.name) in RENAMED:
            continue  # a deprecated name: its own test
        else:
            with pytest.raises(ConfigError, match=f"{entry.option} does not apply to {learner}"):
                tttlab.train(learner, episodes=10, progress=False, **{entry.name: value})


@pytest.mark.parametrize("entry", HYPERPARAMETERS, ids=lambda e: e.name)
def test_ranges_and_types_are_the_declarations(entry: object) -> None:
    assert isinstance(entry, type(HYPERPARAMETERS[0]))
    learner = entry.learners[0]
    if entry.kind in ("number", "integer"):
        assert entry.low is not None
        assert entry.high is not None
        for outside in (entry.low - 1, entry.high + 1):
            with pytest.raises(ConfigError, match=entry.option):
                check_options(learner, {entry.name: outside})
        with pytest.raises(tttlab.TttlabError, match=entry.option):
            check_options(learner, {entry.name: math.nan})
        if entry.low_open:
            with pytest.raises(ConfigError):
                check_options(learner, {entry.name: entry.low})
        with pytest.raises(TttlabTypeError):
            check_options(learner, {entry.name: "many"})
    elif entry.kind == "choice":
        with pytest.raises(ConfigError, match="must be one of"):
            check_options(learner, {entry.name: "nonsense"})
    elif entry.kind == "switch":
        with pytest.raises(TttlabTypeError):
            check_options(learner, {entry.name: "yes"})
    else:
        for bad in ("8,x", "0", ",".join(["8"] * 17), "5000"):
            with pytest.raises(ConfigError):
                check_options(learner, {entry.name: bad})


def test_convolutions_may_be_none_where_hidden_layers_may_not() -> None:
    conv = BY_NAME["conv"]
    for learner in NETWORK_LEARNERS:
        assert conv.default(learner) == ()
        for text in ("none", "None", ""):
            assert check_options(learner, {"conv": text}) == {"conv": ()}
        assert check_options(learner, {"conv": "32:32"}) == {"conv": (32, 32)}
        with pytest.raises(ConfigError, match="--hidden must be 1 to 16 layers"):
            check_options(learner, {"hidden": "none"})
    assert conv.argv(()) == ["--conv", "none"]
    assert conv.parse(" none ") == ()
    assert parse_sets(["conv=none,32:32"]) == {"conv": [(), (32, 32)]}
    assert conv.range_text() == "0 to 8 layers of 1 to 256"
    assert BY_NAME["hidden"].range_text() == "1 to 16 layers of 1 to 4096"


def test_the_web_lab_lists_the_declaration() -> None:
    client = TestClient(create_app(None))
    algorithms = client.get("/api/algorithms").json()["algorithms"]
    assert list(algorithms) == list(LEARNERS)
    for learner, info in algorithms.items():
        assert info["hyperparameters"] == describe(learner)
        assert [h["name"] for h in info["hyperparameters"]] == [
            h.name for h in for_learner(learner)
        ]
        assert info["family"] == ("network" if learner in NETWORK_LEARNERS else "table")


def test_sweep_sets_are_parsed_by_the_declaration() -> None:
    for entry in HYPERPARAMETERS:
        value = _inside(entry)
        if entry.kind == "widths":
            text = ":".join(str(w) for w in value) or "none"  # type: ignore[attr-defined]
        else:
            text = str(value).lower() if entry.kind == "switch" else str(value)
        key = entry.option[2:]
        assert parse_sets([f"{key}={text}"]) == {key: [entry.check(value)]}
        if entry.kind in ("number", "integer"):
            with pytest.raises(SweepError, match=key):
                parse_sets([f"{key}={entry.high + 1}"])  # type: ignore[operator]


def test_the_learners_defaults_are_the_declarations() -> None:
    for learner in TABLE_LEARNERS:
        config = default_config(learner, 10)
        assert config.epsilon == default_schedule(learner, "epsilon")
        assert config.alpha == default_schedule(learner, "alpha")
    pytest.importorskip("jax")
    from tttlab.game import Geometry
    from tttlab.neural.alphazero import AlphaZeroConfig
    from tttlab.neural.dqn import DQNConfig
    from tttlab.neural.ppo import PPOConfig

    for config_class, learner in (
        (AlphaZeroConfig, "alphazero"),
        (DQNConfig, "dqn"),
        (PPOConfig, "ppo"),
    ):
        config = config_class(geometry=Geometry(), episodes=10)
        for entry in for_learner(learner):
            if entry.name.endswith(("_end", "_schedule")):
                continue  # part of a schedule
            if entry.name in SCHEDULED:
                assert getattr(config, entry.name) == default_schedule(learner, entry.name)
            else:
                assert getattr(config, entry.name) == entry.default(learner), entry.name
        declared = {h.name for h in for_learner(learner)} - {"epsilon_end", "epsilon_schedule"}
        assert set(config.header()) == declared  # the header is the declaration, no more
        again = config_class.from_header(Geometry(), 10, 0, config.header())
        assert again.header() == config.header()


def test_one_name_one_meaning_for_the_networks_optimiser_step() -> None:
    """--learning-rate is every network's Adam step; dqn's old --alpha still works, says
    once that it is deprecated, and means the same."""
    pytest.importorskip("jax")
    from tttlab.game import Geometry
    from tttlab.neural.dqn import DQNConfig

    assert all(BY_NAME["learning_rate"].applies(n) for n in NETWORK_LEARNERS)
    assert not any(BY_NAME[n].applies("dqn") for n in ("alpha", "alpha_end", "alpha_schedule"))
    with pytest.warns(FutureWarning, match="--alpha is deprecated for dqn.*--learning-rate"):
        old = DQNConfig(Geometry(), episodes=10, alpha=0.01)
    assert old == DQNConfig(Geometry(), episodes=10, learning_rate=0.01)
    assert old.header()["learning_rate"] == 0.01
    assert "alpha" not in old.header()
    legacy = {**old.header(), "alpha": {"kind": "constant", "start": 0.02, "end": None}}
    del legacy["learning_rate"]  # an agent file written before --learning-rate
    assert DQNConfig.from_header(Geometry(), 10, 0, legacy).learning_rate == 0.02
    with pytest.raises(ConfigError, match="--alpha-end does not apply to dqn"):
        check_options("dqn", {"alpha_end": 0.1})
    with pytest.raises(ConfigError, match="same option"), pytest.warns(FutureWarning):
        check_options("dqn", {"alpha": 0.01, "learning_rate": 0.02})
    both = ttt("train", "dqn", "--alpha", "0.01", "--learning-rate", "0.02", "--out", "x.npz")
    assert both.returncode == 2  # refused before anything is built
    assert both.stderr.count("deprecated") == 1
    assert "same option" in both.stderr


def test_schedules_in_python_equal_the_compiled_ones() -> None:
    for schedule in (
        Schedule("constant", 0.3),
        Schedule("linear", 0.5, 0.05),
        Schedule("exponential", 0.4, 0.01),
    ):
        kind, start, end = schedule.row()
        for t in (0, 1, 37, 99, 100, 150):
            assert schedule.at(t, 101) == pytest.approx(scheduled(int(kind), start, end, t, 101))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["q", "--simulations", "8"], "--simulations does not apply to q"),
        (["alphazero", "--epsilon", "0.1"], "--epsilon does not apply to alphazero"),
        (["td", "--gamma", "0.9"], "--gamma does not apply to td"),
        (
            ["sarsa", "--alpha-schedule", "exponential", "--alpha", "0", "--alpha-end", "0.1"],
            "above 0",
        ),
        (["q", "--epsilon-schedule", "linear"], "needs an end value (--epsilon-end)"),
    ],
)
def test_the_command_line_refuses_in_the_declarations_words(
    args: list[str], words: str, tmp_path: object
) -> None:
    result = ttt("train", *args, "--episodes", "10", "--out", f"{tmp_path}/x.npz")
    assert result.returncode == 2
    assert words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
