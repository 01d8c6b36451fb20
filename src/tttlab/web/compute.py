"""The work behind the web API that touches agents or a stranger's code, run in worker
processes (see :mod:`tttlab.web.pool`) so that it can be ended: a move, values, an
evaluation, an arena, the list of mistakes, the grading of an uploaded exercise. Every
function takes and returns plain JSON values; a refusal is an :class:`ApiError` with an
HTTP status and one line."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tttlab import api
from tttlab.agents import BUILTIN, Agent, make_agent
from tttlab.errors import TttlabError
from tttlab.evaluation import evaluate_seats, mistake_report
from tttlab.game import Geometry, Player, Position, estimate_positions
from tttlab.io import AgentFileError, FileAgent, check_board, load_agent_file
from tttlab.limits import SERVER_TABLE_CANDIDATES
from tttlab.render import board_svg

__all__ = ["CALLS", "ApiError", "state"]

#: A file's version: its modification time (ns) and size.
Version = tuple[int, int]
#: Search depth forced on minimax for boards above 12 cells.
WEB_MINIMAX_DEPTH = 3


class ApiError(TttlabError):
    """A refusal: an HTTP status and one line for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def state(position: Position) -> dict[str, Any]:
    outcome = position.outcome
    line = None
    if outcome is not None and outcome.winner is not None:
        won = int(outcome.winner)
        line = next(
            list(ln) for ln in position.geometry.lines if all(position.cells[i] == won for i in ln)
        )
    return {
        "position": position.to_string(),
        "board": position.geometry.name,
        "to_move": None if outcome else position.to_move.name,
        "result": None
        if outcome is None
        else ("draw" if outcome.winner is None else outcome.winner.name),
        "winning_line": line,
    }


class _Agents:
    """Loads agents once and keeps them; only names from the list are ever opened.

    An agent file is known by its version (name, modification time, size): a file that is
    deleted and trained again under the same name is a new version, read afresh, and its
    old version (with its evaluation) is forgotten. A file that fails to load is remembered
    as failing, per version. Built-in agents are kept per board.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder.resolve() if folder is not None else None
        self._builtins: dict[tuple[str, Geometry], Agent] = {}
        self._files: dict[str, tuple[Version, FileAgent | str]] = {}
        self._lock = threading.Lock()

    def version(self, name: str) -> Version | None:
        """The version of a listed file right now (None for a built-in name); 404 if there
        is no such agent."""
        if name in BUILTIN:
            return None
        path = self.files().get(name)
        if path is None:
            raise ApiError(404, f"unknown agent {name!r}")
        stat = path.stat()
        return (stat.st_mtime_ns, stat.st_size)

    def _file(self, name: str, path: Path) -> FileAgent | str:
        """The agent in a listed file, or why it cannot be used (naming the file as the
        client knows it, never by its path on this machine)."""
        stat = path.stat()
        version = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            known = self._files.get(name)
        if known is not None and known[0] == version:
            return known[1]
        loaded: FileAgent | str
        try:
            loaded = load_agent_file(path)
        except AgentFileError as error:
            loaded = str(error).replace(str(path), name)
        with self._lock:
            self._files[name] = (version, loaded)
        return loaded

    def files(self) -> dict[str, Path]:
        if self.folder is None or not self.folder.is_dir():
            return {}
        found = {}
        for path in sorted(self.folder.glob("*.npz")):
            real = path.resolve()
            # Symlinks that lead out of the folder are not offered (nor opened).
            if real.parent == self.folder and real.is_file():
                found[path.name] = real
        return found

    def listing(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = [
            {"name": name, "kind": "builtin", "board": None, "seats": ["X", "O"], "algorithm": None}
            for name in BUILTIN
        ]
        for name, path in self.files().items():
            agent = self._file(name, path)
            if isinstance(agent, str):
                continue  # a bad file is left out of the list rather than breaking it
            items.append(
                {
                    "name": name,
                    "kind": "file",
                    "board": agent.geometry.name,
                    "seats": [s.name for s in agent.seats],
                    "algorithm": agent.algorithm,
                }
            )
        return items

    def get(self, name: str, geometry: Geometry) -> Agent:
        if name in BUILTIN:
            key = (name, geometry)
            with self._lock:
                found = self._builtins.get(key)
            if found is None:
                found = self._builtin(name, geometry)
                with self._lock:
                    self._builtins[key] = found
            return found
        path = self.files().get(name)
        if path is None:
            raise ApiError(404, f"unknown agent {name!r}")
        agent = self._file(name, path)
        if isinstance(agent, str):
            raise ApiError(400, agent)
        try:
            check_board(agent.geometry, name, geometry)
        except AgentFileError as error:
            raise ApiError(400, str(error)) from None
        return agent

    @staticmethod
    def _builtin(name: str, geometry: Geometry) -> Agent:
        if name == "perfect" and estimate_positions(geometry) > SERVER_TABLE_CANDIDATES:
            raise ApiError(
                400,
                f"perfect needs the full solution of {geometry.name}, "
                "which this server does not build; try minimax",
            )
        depth = WEB_MINIMAX_DEPTH if geometry.cells > 12 else None
        return make_agent(name, geometry, depth=depth)


_agents: dict[str | None, _Agents] = {}
#: Exact evaluations, by folder, agent, its file's version and board.
_evaluations: dict[tuple[str | None, str, Version | None, str], dict[str, Any]] = {}


def _folder(folder: str | None) -> _Agents:
    if folder not in _agents:
        _agents[folder] = _Agents(None if folder is None else Path(folder))
    return _agents[folder]


def _setup(folder: str | None, name: str, board: str, position: str) -> tuple[Agent, Position]:
    geometry = Geometry.parse(board)
    found = Position.from_string(position, geometry)
    if found.is_terminal:
        raise ApiError(409, f"the game is over ({found.outcome})")
    return _folder(folder).get(name, geometry), found


def _tables(geometry: Geometry, what: str) -> None:
    if estimate_positions(geometry) > SERVER_TABLE_CANDIDATES:
        raise ApiError(400, f"{what} of {geometry.name} is too large for this server")


def call_agents(folder: str | None) -> list[dict[str, Any]]:
    return _folder(folder).listing()


def call_move(folder: str | None, agent: str, board: str, position: str) -> dict[str, Any]:
    player, found = _setup(folder, agent, board, position)
    try:
        values = player.move_values(found)
        # Ties resolved by a generator seeded from the position: the same request always
        # gets the same answer, whichever worker serves it.
        chosen = player.select_move(found, np.random.default_rng(found.id))
    except ValueError as error:
        raise ApiError(409, str(error)) from None
    return {
        **state(found.apply(chosen)),
        "move": chosen,
        "values": None if values is None else {str(k): float(v) for k, v in values.items()},
    }


def call_values(folder: str | None, agent: str, board: str, position: str) -> dict[str, Any]:
    player, found = _setup(folder, agent, board, position)
    try:
        values = player.move_values(found)
    except ValueError:
        values = None  # e.g. an agent trained for the other seat has no opinion here
    return {"values": None if values is None else {str(k): float(v) for k, v in values.items()}}


def call_evaluate(folder: str | None, agent: str, board: str) -> dict[str, Any]:
    geometry = Geometry.parse(board)
    _tables(geometry, "exact evaluation")
    agents = _folder(folder)
    key = (folder, agent, agents.version(agent), geometry.name)
    if key not in _evaluations:
        for old in [k for k in _evaluations if k[:2] == key[:2]]:
            del _evaluations[old]  # an earlier version of the same file
        player = agents.get(agent, geometry)
        reports = evaluate_seats(player, geometry)
        _evaluations[key] = {seat: r.as_json() for seat, r in reports.items()}
    return _evaluations[key]


def call_arena(
    folder: str | None, agents: list[str], board: str, games: int, seed: int
) -> dict[str, Any]:
    geometry = Geometry.parse(board)
    players = [_folder(folder).get(name, geometry) for name in agents]
    return api.arena(players, geometry, games=games, seed=seed, names=agents).to_dict()


def call_mistakes(
    folder: str | None, agent: str, board: str, seat: str, limit: int
) -> dict[str, Any]:
    geometry = Geometry.parse(board)
    _tables(geometry, "the exact list of mistakes")
    player = _folder(folder).get(agent, geometry)
    side = Player.parse(seat)
    if side not in getattr(player, "seats", (Player.X, Player.O)):
        raise ApiError(409, f"{agent} does not play {side.name}")
    report, total, found = mistake_report(player, geometry, side, limit)
    return {
        "agent": agent,
        "board": geometry.name,
        "seat": side.name,
        "optimal_share": report.optimal_share,
        "decision_positions": report.decision_positions,
        "total": total,
        "mistakes": [
            {
                **m.as_json(),
                # The one drawing of a board: the agent's losing moves and the right ones.
                "svg": board_svg(
                    Position.from_string(m.position, geometry),
                    marks={**{r: "right" for r in m.right}, **{w: "loses" for w in m.wrong}},
                ),
            }
            for m in found
        ],
    }


def call_exact(board: str, position: str) -> dict[str, Any]:
    """The exact value of each legal move for the side to move (+1 win, 0 draw, −1 loss)."""
    geometry = Geometry.parse(board)
    _tables(geometry, "the exact solution")
    found = Position.from_string(position, geometry)
    if found.is_terminal:
        raise ApiError(409, f"the game is over ({found.outcome})")
    # The perfect agent's values are the game's value after each move, for the mover.
    perfect = _folder(None).get("perfect", geometry)
    values = {m: int(v) for m, v in (perfect.move_values(found) or {}).items()}
    return {"value": max(values.values()), "values": {str(m): v for m, v in values.items()}}


def call_check(source: str, name: str, only: list[str], seconds: float) -> dict[str, Any]:
    """Grade an uploaded exercise file in a box of its own, as ``ttt check --json`` does,
    each first counterexample drawn. Never without a box: the code is a stranger's."""
    from tttlab.usercode import box
    from tttlab.usercode.grading import check_path

    contained = box.isolation()
    if not contained.boxed:
        raise ApiError(503, f"this server runs no uploaded code: {contained.describe}")
    try:
        text = source.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(400, "the file is not text (a lone surrogate in it)") from None
    with tempfile.TemporaryDirectory(prefix="ttt-lab-check-") as folder:
        path = Path(folder) / name
        path.write_bytes(text)
        report = check_path(path, time_limit=seconds, only=tuple(only), isolation="required")
    data = {**report.as_json(), "file": name}
    for check in data["checks"].values():
        example = check["example"]
        if example is not None and example["board"]:
            example["svg"] = board_svg(Position.from_string(example["board"]))
    return data


CALLS: dict[str, Callable[..., Any]] = {
    "check": call_check,
    "agents": call_agents,
    "move": call_move,
    "values": call_values,
    "evaluate": call_evaluate,
    "arena": call_arena,
    "mistakes": call_mistakes,
    "exact": call_exact,
}
