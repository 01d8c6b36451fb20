"""Agent files: round trip, atomic and deterministic writes, and every bad-file case."""

from __future__ import annotations

import contextlib
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from tests.io.archives import header, npy, rewrite
from tttlab.game import Geometry, Player, Position
from tttlab.io import AgentFileError, load_agent_file, save_agent
from tttlab.learners import Trainer, default_config


def _trained(algorithm: str = "q", episodes: int = 2_000, seed: int = 0) -> Trainer:
    trainer = Trainer(default_config(algorithm, episodes, seed))
    trainer.run()
    return trainer


def _save(trainer: Trainer, path: Path) -> Path:
    return save_agent(
        path,
        trainer.agent(),
        episodes=trainer.done,
        seed=trainer.config.seed,
        hyperparameters=trainer.config.header(),
    )


@pytest.mark.parametrize("algorithm", ["td", "q", "sarsa", "expected-sarsa", "double-q"])
def test_round_trip(tmp_path: Path, algorithm: str) -> None:
    trainer = _trained(algorithm)
    path = _save(trainer, tmp_path / "agent.npz")
    agent = load_agent_file(path)
    assert agent.algorithm == algorithm
    assert agent.seats == (Player.X, Player.O)
    assert agent.meta["episodes"] == 2_000
    for name, table in trainer.tables.items():
        assert np.array_equal(agent.tables[name], table)
    p = Position.from_string("X...O....")
    assert agent.move_probabilities(p) == trainer.agent().move_probabilities(p)
    # numpy reads it too, without pickle
    with np.load(path, allow_pickle=False) as data:
        assert json.loads(str(data["header"]))["format"] == "tttlab-agent"


def test_same_run_same_bytes_and_no_temp_files(tmp_path: Path) -> None:
    a = _save(_trained(seed=5), tmp_path / "a.npz")
    b = _save(_trained(seed=5), tmp_path / "b.npz")
    c = _save(_trained(seed=6), tmp_path / "c.npz")
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.npz", "b.npz", "c.npz"]


def test_overwrite_replaces_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "agent.npz"
    _save(_trained(seed=1), path)
    _save(_trained("td", seed=2), path)
    assert load_agent_file(path).algorithm == "td"


def test_save_into_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(AgentFileError, match="does not exist"):
        _save(_trained(), tmp_path / "nope" / "agent.npz")


def _good(tmp_path: Path) -> Path:
    return _save(_trained(), tmp_path / "good.npz")


def _with_header(source: Path, target: Path, **fields: object) -> Path:
    changed = {**header(source), **fields}
    return rewrite(source, target, {"header.npy": npy(np.array(json.dumps(changed)))})


def test_missing_empty_and_folder(tmp_path: Path) -> None:
    with pytest.raises(AgentFileError, match="no agent file"):
        load_agent_file(tmp_path / "missing.npz")
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    with pytest.raises(AgentFileError, match="is empty"):
        load_agent_file(empty)
    with pytest.raises(AgentFileError, match="not a file"):
        load_agent_file(tmp_path)


def test_truncated(tmp_path: Path) -> None:
    good = _good(tmp_path)
    for keep in (10, len(good.read_bytes()) // 2, len(good.read_bytes()) - 30):
        cut = tmp_path / f"cut{keep}.npz"
        cut.write_bytes(good.read_bytes()[:keep])
        with pytest.raises(AgentFileError):
            load_agent_file(cut)


def test_corrupted_data_fails_checksum(tmp_path: Path) -> None:
    good = _good(tmp_path)
    with np.load(good) as data:
        q = data["Q"].copy()
    q[0, 0, 4] += 1.0
    bad = rewrite(good, tmp_path / "bad.npz", {"Q.npy": npy(q)})
    with pytest.raises(AgentFileError, match="checksum"):
        load_agent_file(bad)


def test_flipped_bytes_never_escape_as_other_errors(tmp_path: Path) -> None:
    good = _good(tmp_path).read_bytes()
    rng = np.random.default_rng(0)
    for trial in range(300):
        data = bytearray(good)
        for pos in rng.integers(0, len(data), size=int(rng.integers(1, 6))):
            data[int(pos)] ^= int(rng.integers(1, 256))
        if rng.random() < 0.2:
            data = data[: int(rng.integers(1, len(data)))]
        path = tmp_path / f"flip{trial}.npz"
        path.write_bytes(bytes(data))
        # Either it loads (the flip hit slack bytes) or it fails with the one error type.
        with contextlib.suppress(AgentFileError):
            load_agent_file(path)


class _Boom:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("pickle executed",))


def test_a_pickle_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "evil.npz"
    path.write_bytes(pickle.dumps(_Boom()))
    with pytest.raises(AgentFileError, match="not a tttlab agent file"):
        load_agent_file(path)
    assert "pickle executed" not in capsys.readouterr().out


def test_object_arrays_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _good(tmp_path)
    evil = np.empty(1, dtype=object)
    evil[0] = _Boom()
    for member in ("header.npy", "Q.npy", "ids.npy"):
        bad = rewrite(good, tmp_path / f"obj-{member}.npz", {member: npy(evil, allow_pickle=True)})
        with pytest.raises(AgentFileError, match="Python objects"):
            load_agent_file(bad)
    assert "pickle executed" not in capsys.readouterr().out


def test_wrong_version_and_format(tmp_path: Path) -> None:
    good = _good(tmp_path)
    with pytest.raises(AgentFileError, match="format version 99"):
        load_agent_file(_with_header(good, tmp_path / "v.npz", format_version=99))
    with pytest.raises(AgentFileError, match="format field"):
        load_agent_file(_with_header(good, tmp_path / "f.npz", format="other"))
    with pytest.raises(AgentFileError, match="wrong type"):
        load_agent_file(_with_header(good, tmp_path / "t.npz", episodes="many"))
    with pytest.raises(AgentFileError, match="unknown algorithm"):
        load_agent_file(_with_header(good, tmp_path / "a.npz", algorithm="magic"))
    with pytest.raises(AgentFileError, match="bad seats"):
        load_agent_file(_with_header(good, tmp_path / "s.npz", seats=["Z"]))
    with pytest.raises(AgentFileError, match="negative"):
        load_agent_file(_with_header(good, tmp_path / "n.npz", episodes=-1))
    no_json = rewrite(good, tmp_path / "j.npz", {"header.npy": npy(np.array("{not json"))})
    with pytest.raises(AgentFileError, match="not JSON"):
        load_agent_file(no_json)


def test_wrong_geometry(tmp_path: Path) -> None:
    good = _good(tmp_path)
    with pytest.raises(AgentFileError, match="agent for 3x3k3, not 3x4k3"):
        load_agent_file(good, Geometry(3, 4, 3))
    # A header that claims another board: the arrays no longer fit it.
    lie = _with_header(good, tmp_path / "lie.npz", board="2x2k2")
    with pytest.raises(AgentFileError, match="shape"):
        load_agent_file(lie)


def test_shapes_checked_before_reading(tmp_path: Path) -> None:
    good = _good(tmp_path)
    huge_header = npy(np.zeros((1, 5478, 9)))
    # Claim an enormous shape in the array header, with no data behind it.
    claimed = huge_header.replace(b"(1, 5478, 9)", b"(1, 5478, 99999999)")
    bad = rewrite(good, tmp_path / "huge.npz", {"Q.npy": claimed})
    with pytest.raises(AgentFileError, match="shape"):
        load_agent_file(bad)
    missing = rewrite(good, tmp_path / "missing.npz", {"Q.npy": None})
    with pytest.raises(AgentFileError, match="missing"):
        load_agent_file(missing)
    extra = rewrite(good, tmp_path / "extra.npz", {"V.npy": npy(np.zeros((2, 5478)))})
    with pytest.raises(AgentFileError, match="unexpected"):
        load_agent_file(extra)
    wrong_dtype = rewrite(
        good, tmp_path / "dtype.npz", {"Q.npy": npy(np.zeros((1, 5478, 9), dtype=np.int64))}
    )
    with pytest.raises(AgentFileError, match="dtype"):
        load_agent_file(wrong_dtype)


def test_non_finite_values(tmp_path: Path) -> None:
    trainer = _trained()
    trainer.tables["Q"][0, 0, 0] = np.nan
    path = _save(trainer, tmp_path / "nan.npz")
    with pytest.raises(AgentFileError, match="non-finite"):
        load_agent_file(path)
