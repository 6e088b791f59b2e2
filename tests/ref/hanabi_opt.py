#!/usr/bin/env python3
"""tests/ref/hanabi_opt.py: the optimum of tiny Hanabi (OpenSpiel's
tiny_hanabi, default payoffs), written apart from envs/ as the reference
tests/check_teams.c checks envs/hanabi.c against.

Every joint deterministic policy is enumerated: seat 0 maps its card to an
action (3^2 policies), seat 1 maps its card and seat 0's action to an
action (3^6). A policy's value is the payoff averaged over the four
equally likely deals. Prints three lines, e.g.

    optimum 10
    optimal 9
    blind 8

the best value, how many joint policies reach it, and the best value when
seat 1 ignores seat 0's action (no signalling). Exact integer arithmetic:
the value times 4 is a sum of payoffs.
"""
import itertools

# The payoff string of OpenSpiel's tiny_hanabi.cc (the Bayesian Action
# Decoder paper's matrix): index ((c0 * 2 + c1) * 3 + a0) * 3 + a1.
PAYOFF = [int(x) for x in (
    "10;0;0;4;8;4;10;0;0;"
    "0;0;10;4;8;4;0;0;10;"
    "0;0;10;4;8;4;0;0;0;"
    "10;0;0;4;8;4;10;0;0").split(";")]
CARDS, ACTIONS = 2, 3


def payoff(c0, c1, a0, a1):
    return PAYOFF[((c0 * CARDS + c1) * ACTIONS + a0) * ACTIONS + a1]


def value4(pol0, pol1):
    """Four times the expected payoff: pol0[c0], pol1[(c1, a0)]."""
    total = 0
    for c0 in range(CARDS):
        for c1 in range(CARDS):
            a0 = pol0[c0]
            total += payoff(c0, c1, a0, pol1[(c1, a0)])
    return total


def main():
    keys1 = [(c1, a0) for c1 in range(CARDS) for a0 in range(ACTIONS)]
    best, count, blind = None, 0, None
    for acts0 in itertools.product(range(ACTIONS), repeat=CARDS):
        for acts1 in itertools.product(range(ACTIONS), repeat=len(keys1)):
            pol1 = dict(zip(keys1, acts1))
            v = value4(acts0, pol1)
            if best is None or v > best:
                best, count = v, 0
            if v == best:
                count += 1
            if all(pol1[(c1, a)] == pol1[(c1, 0)]
                   for c1 in range(CARDS) for a in range(ACTIONS)):
                blind = v if blind is None else max(blind, v)
    fmt = lambda v4: ("%d" % (v4 // 4)) if v4 % 4 == 0 else "%.17g" % (v4 / 4)
    print("optimum", fmt(best))
    print("optimal", count)
    print("blind", fmt(blind))


if __name__ == "__main__":
    main()
