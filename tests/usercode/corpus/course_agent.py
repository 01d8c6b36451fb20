"""The course's TD agent as a user writes it, in one file: the Environment and the Agent
come from the course folder; the agent is trained by self-play when this file is imported
(a short run, as in a lesson)."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent / "course"))

from Agent import Agent
from Environment import (
    Environment,
    get_state_hash_and_winner,
    initialV_o,
    initialV_x,
)


def make_agent(symbol, initial_values, triples, env):
    made = Agent(eps=0.1)
    made.setV(initial_values(env, triples))
    made.set_symbol(symbol)
    return made


np.random.seed(0)
env = Environment()
triples = get_state_hash_and_winner(env)
agent = make_agent(env.x, initialV_x, triples, env)
other = make_agent(env.o, initialV_o, triples, env)
for _ in range(300):
    env = Environment()
    turn = agent
    while not env.game_over():
        turn.take_action(env)
        for learner in (agent, other):
            learner.update_state_history(env.get_state())
        turn = other if turn is agent else agent
    agent.update(env)
    other.update(env)
