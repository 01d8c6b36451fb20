"""Train two agents by self-play, then play a person: all of it at import, as in the course."""

from Agent import Agent
from Environment import Environment, get_state_hash_and_winner, initialV_o, initialV_x

env = Environment()
triples = get_state_hash_and_winner(env)
p1, p2 = Agent(), Agent()
p1.setV(initialV_x(env, triples))
p1.set_symbol(env.x)
p2.setV(initialV_o(env, triples))
p2.set_symbol(env.o)

for episode in range(100000):
    env = Environment()
    player = p1
    while not env.game_over():
        player.take_action(env)
        state = env.get_state()
        p1.update_state_history(state)
        p2.update_state_history(state)
        player = p2 if player is p1 else p1
    p1.update(env)
    p2.update(env)

while True:
    move = input("Enter coordinates i,j for your next move (i,j=0..2): ")
