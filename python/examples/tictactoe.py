#!/usr/bin/env python3
"""Tic-tac-toe written in Python and served to a league (docs/games.md).

Run by `league run configs/python_tictactoe.yaml` (its env.serve), or by
hand:  python3 python/examples/tictactoe.py --listen 127.0.0.1:7400

The observation is the built-in tictactoe's: three planes of 9 cells
(the observer's marks, the opponent's, the empty cells).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from league_game import Game, serve  # noqa: E402

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8),
         (0, 4, 8), (2, 4, 6))


class TicTacToe(Game):
    name = "tictactoe_py"
    num_actions = 9
    obs_shape = (3, 3, 3)
    max_steps = 9

    def reset(self, seed):
        self.cells = [0] * 9  # 0 empty, 1 agent 0's mark, 2 agent 1's
        self.mover = 0
        self.winner = -1
        self.moves = 0

    @property
    def agent_selection(self):
        return self.mover

    @property
    def terminated(self):
        return self.winner >= 0 or self.moves == 9

    def observe(self, agent):
        own, opp = agent + 1, 2 - agent
        c = self.cells
        return ([1.0 if v == own else 0.0 for v in c] +
                [1.0 if v == opp else 0.0 for v in c] +
                [1.0 if v == 0 else 0.0 for v in c])

    def action_mask(self, agent):
        return [1 if v == 0 else 0 for v in self.cells]

    def step(self, action):
        mark = self.mover + 1
        self.cells[action] = mark
        self.moves += 1
        c = self.cells
        for a, b, d in LINES:
            if c[a] == mark and c[b] == mark and c[d] == mark:
                self.winner = self.mover
                break
        self.mover ^= 1

    def returns(self):
        if self.winner < 0:
            return (0.0, 0.0)
        return (1.0, -1.0) if self.winner == 0 else (-1.0, 1.0)


if __name__ == "__main__":
    serve(TicTacToe)
