"""The API's arguments, checked (:mod:`tttlab.api.checks`): bad input to any API function
raises one clear error of tttlab's own, in one line."""

from __future__ import annotations

import pytest

import tttlab

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
