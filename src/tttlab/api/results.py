"""The API's results: typed dataclasses that copy, pickle and compare, whose ``to_dict()``
is exactly what the matching command prints with ``--json``, and which draw themselves in
a notebook."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tttlab.evaluation import Pairing, ProofReport, SeatReport, Standing

if TYPE_CHECKING:
    from tttlab.api.agents import TrainedAgent
    from tttlab.planning import MDP, MDPSolution

__all__ = ["ArenaResult", "Curve", "Evaluation", "MDPResult", "Proof", "SolveResult"]


class _Judged:
    """What an evaluation and a proof share: a report for each seat judged (None for a
    seat not asked for)."""

    X: Any
    O: Any

    def _judged(self) -> list[tuple[str, Any]]:
        return [(seat, r) for seat, r in (("X", self.X), ("O", self.O)) if r is not None]

    @property
    def unbeatable(self) -> bool:
        """Worst case 0 or better on every seat judged (a proof's is proved)."""
        return all(r.worst_case >= 0 for _, r in self._judged())

    def _repr_html_(self) -> str:
        from tttlab.api.display import evaluation_html

        judged: Any = self
        return str(evaluation_html(judged))


@dataclass(frozen=True)
class Evaluation(_Judged):
    """Exact metrics per seat, as ``ttt eval --json`` prints them (see ``SeatReport``).

    ``X`` or ``O`` is ``None`` for a seat the agent does not play.

    Examples:
        >>> import tttlab
        >>> evaluation = tttlab.evaluate("random")
        >>> evaluation.X.worst_case, round(evaluation.X.win, 4)
        (-1, 0.5849)
        >>> sorted(evaluation.to_dict())
        ['O', 'X']
    """

    board: str
    agent: str
    X: SeatReport | None
    O: SeatReport | None
    #: The agent is not deterministic: its move probabilities were estimated from samples.
    sampled: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Exactly the JSON of ``ttt eval --json``."""
        mark = {"sampled": True} if self.sampled else {}
        return {seat: {**r.as_json(), **mark} for seat, r in self._judged()}


@dataclass(frozen=True)
class Proof(_Judged):
    """Each seat's worst case proved without a table, as ``ttt eval --prove --json`` prints
    it (see ``ProofReport``); ``X`` or ``O`` is ``None`` for a seat not asked for.

    Examples:
        >>> import tttlab
        >>> proof = tttlab.evaluate("minimax:1", prove=True)
        >>> proof.X.worst_case, proof.O.line, proof.unbeatable
        (0, (4, 0, 3, 2, 5), False)
    """

    board: str
    agent: str
    X: ProofReport | None
    O: ProofReport | None

    def to_dict(self) -> dict[str, Any]:
        """Exactly the JSON of ``ttt eval --prove --json``."""
        return {seat: r.as_json() for seat, r in self._judged()}


@dataclass(frozen=True)
class Curve:
    """A learning curve: the exact metrics at each evaluation point (``--log`` records).

    Examples:
        >>> import tttlab
        >>> agent = tttlab.train("q", episodes=2_000, seed=0, curve=True, eval_every=1_000,
        ...                      progress=False)
        >>> [record["episode"] for record in agent.curve.records]
        [0, 1000, 2000]
    """

    title: str
    records: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    def to_list(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.records]

    def plot(self, path: str | Path) -> Path:
        """Draw the curve to a PNG, as ``--curve`` does."""
        from tttlab.evaluation.curves import plot_curve

        plot_curve(list(self.records), path, self.title)
        return Path(path)

    def _repr_png_(self) -> bytes:
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            return self.plot(Path(folder) / "curve.png").read_bytes()


@dataclass(frozen=True)
class SolveResult:
    """``ttt solve --json`` as attributes: the value, and either every count of the full
    table (``method="table"``) or what the proof search took (``method="search"``); the
    other method's fields are ``None``.

    Examples:
        >>> import tttlab
        >>> table = tttlab.solve("3x3")
        >>> table.terminal, table.game_tree["games"], table.nodes
        (958, 255168, None)
    """

    board: str
    value: int
    method: Literal["table", "search"]
    depth: int | None = None
    positions: int | None = None
    terminal: int | None = None
    terminal_split: dict[str, int] | None = None
    symmetric_positions: int | None = None
    symmetric_nonterminal: int | None = None
    game_tree: dict[str, int] | None = None
    optimal_first_moves: tuple[int, ...] | None = None
    best_first_moves: tuple[int, ...] | None = None
    nodes: int | None = None
    table_entries: int | None = None
    table_slots: int | None = None
    best_move: int | None = None
    seconds: float = 0.0

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SolveResult:
        names = {f.name for f in fields(cls)}
        values: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in names
        }
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """Exactly the JSON of ``ttt solve --json``."""
        return {
            f.name: list(value) if isinstance(value, tuple) else value
            for f in fields(self)
            if (value := getattr(self, f.name)) is not None
        }

    def _repr_html_(self) -> str:
        from tttlab.api.display import mapping_html

        return mapping_html(f"Solved {self.board}", self.to_dict())


@dataclass(frozen=True)
class ArenaResult:
    """A round robin's results: ``to_dict()`` is ``ttt arena --json``.

    Examples:
        >>> import tttlab
        >>> result = tttlab.arena(["minimax", "random"], games=4, seed=0)
        >>> [(p["x"], p["o"]) for p in result.to_dict()["pairings"]]
        [('minimax', 'random'), ('random', 'minimax')]
    """

    board: str
    games: int
    seed: int
    pairings: tuple[Pairing, ...]
    standings: dict[str, Standing]

    def to_dict(self) -> dict[str, Any]:
        return {
            "board": self.board,
            "games": self.games,
            "seed": self.seed,
            "pairings": [p.as_json() for p in self.pairings],
            "standings": {
                name: {
                    "win": s.win,
                    "draw": s.draw,
                    "loss": s.loss,
                    "points": s.points,
                    "as_x": dict(zip(("win", "draw", "loss"), s.by_side["X"], strict=True)),
                    "as_o": dict(zip(("win", "draw", "loss"), s.by_side["O"], strict=True)),
                }
                for name, s in self.standings.items()
            },
        }

    def _repr_html_(self) -> str:
        from tttlab.api.display import arena_html

        return arena_html(self)


@dataclass(frozen=True, eq=False)
class MDPResult:
    """The game against a fixed opponent as a solved MDP: ``P`` (one sparse matrix per
    action), ``R``, the values and the policy; ``to_dict()`` is ``ttt mdp --json``.

    Examples:
        >>> import tttlab
        >>> as_o = tttlab.mdp(seat="O")
        >>> as_o.states, len(as_o.P), as_o.R.shape
        (292, 9, (292, 9))
    """

    board: str
    seat: str
    opponent: str
    method: str
    gamma: float
    rewards: str
    soft_constraint: bool
    value: float
    states: int
    decision_states: int
    symmetric: bool
    iterations: int
    residual: float
    seconds: float
    mdp: MDP = field(repr=False)
    solution: MDPSolution = field(repr=False)
    #: What :meth:`agent` makes of the policy, the API's table agent: given by
    #: :func:`tttlab.mdp`, so that the results need not import the agents.
    agent_type: type[TrainedAgent] = field(repr=False)

    @property
    def P(self) -> Any:  # noqa: N802 - the textbook name
        return self.mdp.P

    @property
    def R(self) -> Any:  # noqa: N802 - the textbook name
        return self.mdp.R

    def agent(self) -> TrainedAgent:
        """The optimal policy as an agent (``ttt mdp --out``)."""
        from tttlab.planning import mdp_agent

        keys = ("method", "gamma", "rewards", "seat", "opponent", "soft_constraint")
        header = {key: getattr(self, key) for key in keys}
        policy = mdp_agent(self.mdp, self.solution, {"hyperparameters": header})
        return self.agent_type.wrap(policy)

    def to_dict(self) -> dict[str, Any]:
        """Exactly the JSON of ``ttt mdp --json``."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.repr}

    def _repr_html_(self) -> str:
        from tttlab.api.display import mapping_html

        return mapping_html("MDP", self.to_dict())
