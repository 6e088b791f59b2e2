#!/usr/bin/env python3
"""tests/ref/liars_cfr.py FACES ITERS...: CFR+ on envs/liars.c's one-die
Liar's Dice, written apart from envs/ as the reference its test checks
against (tests/check_eval.c, liars_dice_cfr_plus_keeps_converging).

The same algorithm as envs/solvers.c (regret matching+, alternating
updates, linear averaging by own reach, every branch walked) over the same
rules, in plain Python with its own exact best response; prints the
NashConv of the average policy after each of ITERS iterations, e.g.
`python3 tests/ref/liars_cfr.py 3 10 100` prints "10 0.095705" and
"100 0.001380" (about a minute).
"""
import sys, itertools
F = int(sys.argv[1]); ITERS = [int(x) for x in sys.argv[2:]]
B = 2 * F; LIAR = B
def legal(h):
    first = h[-1] + 1 if h else 0
    acts = list(range(first, B))
    if h: acts.append(LIAR)
    return acts
def ret(d, h):  # returns for player 0
    bid = h[-2]; q, f = bid // F + 1, bid % F
    cnt = (d[0] == f) + (d[1] == f)
    bidder = (len(h) - 2) % 2
    w = bidder if cnt >= q else 1 - bidder
    return 1.0 if w == 0 else -1.0
def key(d, h, p): return (d[p], tuple(h))
regret = {}; avg = {}
frozen = {}
def strat(k, acts):
    r = frozen.get(k)
    if r is None: return {a: 1/len(acts) for a in acts}
    s = sum(max(r[a], 0) for a in acts)
    return {a: (max(r[a], 0)/s if s > 0 else 1/len(acts)) for a in acts}
def walk(d, h, me, pi_me, pi_opp, w):
    if h and h[-1] == LIAR:
        v = ret(d, h); return v if me == 0 else -v
    p = len(h) % 2; acts = legal(h); k = key(d, h, p); s = strat(k, acts)
    if p != me:
        return sum(s[a] * walk(d, h + [a], me, pi_me, pi_opp * s[a], w) for a in acts)
    q = {a: walk(d, h + [a], me, pi_me * s[a], pi_opp, w) for a in acts}
    v = sum(s[a] * q[a] for a in acts)
    r = regret.setdefault(k, {a: 0.0 for a in acts})
    g = avg.setdefault(k, {a: 0.0 for a in acts})
    for a in acts:
        r[a] += pi_opp * (q[a] - v)
        g[a] += w * pi_me * s[a]
    return v
def avg_strat(k, acts):
    g = avg.get(k); s = sum(g.values()) if g else 0
    return {a: (g[a]/s if s > 0 else 1/len(acts)) for a in acts}
def nashconv():
    # exact best response of each player against avg policy
    tot = 0.0
    for me in (0, 1):
        # group by infostate of me: value of each action given opp's reach
        # BR via recursion over infostates: compute for each of me's infosets
        # the counterfactual values; do it by building per-(die_me, h) sums.
        memo = {}
        def br_val(dm, h):
            # value for me at public history h given my die dm, summing over
            # opponent die with its reach under avg policy (unnormalised)
            kk = (dm, tuple(h))
            if kk in memo: return memo[kk]
            if h and h[-1] == LIAR:
                v = 0.0
                for do in range(F):
                    d = (dm, do) if me == 0 else (do, dm)
                    rr = reach_opp(do, h)
                    x = ret(d, h); v += rr * (x if me == 0 else -x) / F
                memo[kk] = v; return v
            p = len(h) % 2; acts = legal(h)
            if p == me:
                v = max(br_val(dm, h + [a]) for a in acts)
            else:
                v = sum(br_val(dm, h + [a]) for a in acts)
            memo[kk] = v; return v
        rcache = {}
        def reach_opp(do, h):
            kk = (do, tuple(h))
            if kk in rcache: return rcache[kk]
            r = 1.0
            for i in range(len(h)):
                if i % 2 != me:
                    acts = legal(h[:i])
                    k = (do, tuple(h[:i]))
                    r *= avg_strat(k, acts)[h[i]]
            rcache[kk] = r; return r
        brv = sum(br_val(dm, []) for dm in range(F)) / F
        # value of avg vs avg for me
        def val(d, h):
            if h and h[-1] == LIAR:
                x = ret(d, h); return x if me == 0 else -x
            p = len(h) % 2; acts = legal(h); s = avg_strat((d[p], tuple(h)), acts)
            return sum(s[a] * val(d, h + [a]) for a in acts)
        v = sum(val(d, []) for d in itertools.product(range(F), repeat=2)) / F / F
        tot += brv - v
    return tot
t = 0
for target in ITERS:
    while t < target:
        t += 1
        for me in (0, 1):
            frozen.clear(); frozen.update({k: dict(r) for k, r in regret.items()})
            for d in itertools.product(range(F), repeat=2):
                walk(d, [], me, 1.0, 1.0/(F*F), t)
            for k, r in regret.items():
                for a in r:
                    if r[a] < 0: r[a] = 0.0
    print(target, "%.12f" % nashconv(), flush=True)
