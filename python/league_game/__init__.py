"""league_game: serve a game written in Python (1 to 8 seats, any payoff) to a
league (net/game.proto; docs/games.md).

Write a subclass of Game, then call serve(YourGame) in the script that
`env.serve` runs:

    from league_game import Game, serve

    class Nim(Game):
        name = "nim"
        players = 3          # seats 0..2: the agents
        num_actions = 3
        obs_shape = (16,)
        max_steps = 32
        ...

    if __name__ == "__main__":
        serve(Nim)

The API follows PettingZoo's AEC games (possible_agents, agent_selection,
observation_space / action_space per agent, observe, action_mask or
legal_actions, step, returns per agent); python/examples/kuhn.py is an
N-player game. The package needs Debian's python3-protobuf; its game_pb2
module is generated from net/game.proto by `make`.
"""

from .game import Box, Discrete, Game
from .server import serve, Server, selfplay_steps_per_s

__all__ = ["Box", "Discrete", "Game", "serve", "Server",
           "selfplay_steps_per_s"]
