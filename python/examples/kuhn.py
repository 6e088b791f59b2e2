#!/usr/bin/env python3
"""N-player Kuhn poker written in Python and served to a league: an
example of a game of more than two seats (docs/games.md). By OpenSpiel's
N-player rules:

- players N (the param `players`, 2..8; default 3), a deck of N + 1 cards
  0 .. N (0 the lowest); each player antes 1 and gets one card;
- seats act in turn from seat 0 with 0 = pass (check, or fold once
  someone bet) or 1 = bet (bet 1, or call a bet);
- while nobody bet, a pass moves on; when all N passed, the highest card
  takes the pot of N;
- once a seat bet, every other seat, in turn after it, passes (folds) or
  bets (calls), once; then the highest card among the seats that bet
  takes the pot;
- returns: the pot less what a seat put in for the winner, minus what it
  put in for the others (zero-sum).

The observation of seat p, 6N - 1 floats: the seat one-hot (N), its own
card one-hot (N + 1), then the betting so far, one slot of [pass, bet]
per action (at most 2N - 1 actions). With 2 players it is the built-in
kuhn's encoding.

Its text, as the built-in kuhn's: describe(seat) shows the seat its card
(the ranks ending in K: J Q K for 2 players), the pot and the moves so
far; action_name names pass and bet "check" and "bet" until someone bet,
then "fold" and "call". `league play human random random --remote ADDR`
shows them to a human, who types the names.

Run by hand:  python3 python/examples/kuhn.py --listen 127.0.0.1:7401
(env.params: {players: 4} for four seats).
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from league_game import Box, Game, serve  # noqa: E402

PASS, BET = 0, 1
RANKS = "23456789TJQK"


def move_name(action, bet_before):
    """A move's name: check/bet while nobody bet, then fold/call."""
    if action == BET:
        return "call" if bet_before else "bet"
    return "fold" if bet_before else "check"


class Kuhn(Game):
    name = "kuhn_py"
    num_actions = 2

    def __init__(self, players="3"):
        try:
            n = int(players)
        except ValueError:
            n = 0
        if not 2 <= n <= 8:
            raise ValueError("players: expected 2..8, got %r" % (players,))
        self.players = n
        self.obs_shape = (n + (n + 1) + 2 * (2 * n - 1),)
        self.max_steps = 2 * n - 1

    def observation_space(self, agent):
        return Box(self.obs_shape)

    def reset(self, seed):
        n = self.players
        self.cards = random.Random(seed).sample(range(n + 1), n)
        self.history = []      # actions in order
        self.put = [1] * n     # chips in the pot, by seat
        self.bettor = -1       # the first seat that bet
        self.mover = 0

    @property
    def agent_selection(self):
        return self.mover

    @property
    def terminated(self):
        n, h = self.players, self.history
        if self.bettor < 0:
            return len(h) == n
        # every seat after the bettor answered once
        return len(h) == self.bettor + n

    def observe(self, agent):
        n = self.players
        o = [0.0] * self.obs_shape[0]
        o[agent] = 1.0
        o[n + self.cards[agent]] = 1.0
        base = n + n + 1
        for i, a in enumerate(self.history):
            o[base + 2 * i + a] = 1.0
        return o

    def action_mask(self, agent):
        return [1, 1]

    def step(self, action):
        seat = self.mover
        self.history.append(action)
        if action == BET:
            self.put[seat] += 1
            if self.bettor < 0:
                self.bettor = seat
        self.mover = (seat + 1) % self.players

    def returns(self):
        n = self.players
        if self.bettor < 0:
            live = range(n)
        else:
            live = [p for p in range(n) if self.put[p] == 2]
        winner = max(live, key=lambda p: self.cards[p])
        pot = sum(self.put)
        return [(pot if p == winner else 0) - self.put[p] for p in range(n)]

    def describe(self, agent):
        n = self.players
        card = RANKS[12 - (n + 1) + self.cards[agent]]
        lines = ["kuhn poker, %d players: you are seat %d" % (n, agent),
                 "your card: %s" % card,
                 "pot: %d (you put in %d)" % (sum(self.put), self.put[agent])]
        moves, bet = [], False
        for i, a in enumerate(self.history):
            moves.append("seat%d %s" % (i % n, move_name(a, bet)))
            bet = bet or a == BET
        lines.append("moves: " + (", ".join(moves) if moves else "none yet"))
        if self.terminated:
            lines.append("hand over: your return %+g" % self.returns()[agent])
        return "\n".join(lines)

    def action_name(self, agent, action):
        return move_name(action, self.bettor >= 0)


if __name__ == "__main__":
    serve(Kuhn)
