"""The agent that plays an MDP's solution (``tttlab.planning.agent``): its evaluation is the
MDP's value (the MDP: tests/planning/test_build.py; its solution:
tests/planning/test_iteration.py)."""

from __future__ import annotations

import pytest

from tests.planning.helpers import G, mdp_of
from tttlab.agents import make_agent
from tttlab.evaluation import evaluate_seats
from tttlab.game import Player
from tttlab.planning import mdp_agent, value_iteration


@pytest.mark.parametrize(
    ("seat", "win", "score"), [(Player.X, 191 / 192, 191 / 192), (Player.O, None, 874 / 945)]
)
def test_solved_agent_evaluates_to_the_mdp_value(
    seat: Player, win: float | None, score: float
) -> None:
    mdp = mdp_of(seat)
    agent = mdp_agent(mdp, value_iteration(mdp))
    report = evaluate_seats(agent, G)[seat.name]
    assert report.win - report.loss == pytest.approx(score, abs=1e-12)
    if win is not None:
        assert report.win == pytest.approx(win, abs=1e-12)
        assert report.loss == 0.0


def test_o_policy_takes_risks_minimax_never_takes() -> None:
    mdp = mdp_of(Player.O)
    agent = mdp_agent(mdp, value_iteration(mdp))
    report = evaluate_seats(agent, G)["O"]
    assert report.worst_case == -1  # it can be beaten by a player who knows it
    assert report.optimal_share < 1.0
    minimax = evaluate_seats(make_agent("minimax", G), G)["O"]
    assert minimax.worst_case == 0
    assert report.win - report.loss > minimax.win - minimax.loss
