#!/usr/bin/env python3
"""tests/ref/poker_ref.py GAME PLAYERS [vcfr] [ITERS...]: exact NashConv of
N-player Kuhn or Leduc poker, written apart from envs/ as the reference the C
tests check against (tests/check_nplayer.c: kuhn_3p_*,
leduc_3p_uniform_nashconv).

GAME is kuhn or leduc. Without ITERS it prints the uniform policy's NashConv,
e.g. `python3 tests/ref/poker_ref.py kuhn 3` prints "uniform 2.062500000000"
(OpenSpiel's own test value for kuhn_poker(players=3)). With ITERS it runs
CFR+ (regret matching+, alternating updates in seat order, linear averaging
by own reach, the algorithm envs/solvers.c states) and prints the NashConv
of its average policy after each count, e.g.
`python3 tests/ref/poker_ref.py kuhn 3 10 100`. With vcfr before ITERS it
runs vanilla CFR instead (plain regret matching, no clamping of regrets,
uniform averaging by own reach, the same alternating updates), e.g.
`python3 tests/ref/poker_ref.py kuhn 3 vcfr 10 100`.

The rules are read from docs/envs.md (OpenSpiel's N-player kuhn_poker and
leduc_poker). The evaluator is not the C tree's: it walks the public tree
(betting state without cards) once with a weight per full deal of the cards,
and a best responder picks, for each of its information states (own rank,
public rank, betting), the action whose deal-weighted value is largest.
Pure Python, no imports beyond the standard library; leduc 3 takes a few
minutes.
"""
import itertools
import sys

GAME = sys.argv[1]
N = int(sys.argv[2])
PLUS = sys.argv[3:4] != ["vcfr"]  # vcfr: vanilla CFR, else CFR+
ITERS = [int(x) for x in sys.argv[3 if PLUS else 4:]]
RANKS = "23456789TJQK"[12 - (N + 1):]

# ---- the rules: a public betting state, cards separate ------------------

if GAME == "kuhn":
    CARDS = N + 1

    def rank(c):
        return c

    def deals():
        return list(itertools.permutations(range(CARDS), N))

    def root():
        return ()

    def actions(h):
        return [0, 1]  # pass, bet

    def bettor(h):
        return h.index(1) if 1 in h else -1

    def is_terminal(h):
        f = bettor(h)
        return len(h) == N if f < 0 else len(h) == f + N

    def mover(h):
        return len(h) % N

    def is_chance(h):
        return False

    def child(h, a):
        return h + (a,)

    def returns(h, d):
        bets = [0] * N
        for k, a in enumerate(h):
            if a == 1:
                bets[k % N] = 1
        pot = N + sum(bets)
        inn = [p for p in range(N) if bets[p]] or list(range(N))
        w = max(inn, key=lambda p: d[p])
        return [(pot if p == w else 0) - 1 - bets[p] for p in range(N)]

    def key(h, d, p):
        return RANKS[d[p]] + "".join("pb"[a] for a in h)

elif GAME == "leduc":
    CARDS = 2 * (N + 1)  # card c has rank c // 2

    def rank(c):
        return c // 2

    def deals():  # N private cards, then the public one
        return list(itertools.permutations(range(CARDS), N + 1))

    # state: (round, seqs, folded, contrib, stakes, raises, calls, cur,
    #         public rank or -1)
    def root():
        return (1, ((), ()), (False,) * N, (1,) * N, 1, 0, 0, 0, -1)

    def remaining(s):
        return sum(1 for f in s[2] if not f)

    def round_done(s):
        rem = remaining(s)
        return (s[5] == 0 and s[6] == rem) or (s[5] > 0 and s[6] == rem - 1)

    def is_terminal(s):
        return remaining(s) == 1 or (s[0] == 2 and round_done(s))

    def is_chance(s):
        return s[7] == -1

    def mover(s):
        return s[7]

    def actions(s):
        acts = []
        if s[4] > s[3][s[7]]:
            acts.append(0)  # fold, only facing a raise
        acts.append(1)
        if s[5] < 2:
            acts.append(2)
        return acts

    def next_seat(folded, after):
        for k in range(1, N + 1):
            p = (after + k) % N
            if not folded[p]:
                return p
        raise AssertionError("no seat")

    def child(s, a):
        rnd, seqs, folded, contrib, stakes, raises, calls, cur, pub = s
        if cur == -1:  # the public card's rank
            return (2, seqs, folded, contrib, stakes, 0, 0,
                    next_seat(folded, N - 1), a)
        seqs = list(seqs)
        seqs[rnd - 1] = seqs[rnd - 1] + (a,)
        seqs = tuple(seqs)
        folded, contrib = list(folded), list(contrib)
        if a == 0:
            folded[cur] = True
        elif a == 1:
            contrib[cur] = stakes
            calls += 1
        else:
            stakes += 2 if rnd == 1 else 4
            contrib[cur] = stakes
            raises += 1
            calls = 0
        t = (rnd, seqs, tuple(folded), tuple(contrib), stakes, raises, calls,
             cur, pub)
        if is_terminal(t):
            return t
        if round_done(t):
            return (2, seqs, t[2], t[3], stakes, 0, 0, -1, -1)
        return (rnd, seqs, t[2], t[3], stakes, raises, calls,
                next_seat(t[2], cur), pub)

    def returns(s, d):
        contrib, folded = s[3], s[2]
        pot = sum(contrib)
        inn = [p for p in range(N) if not folded[p]]
        if len(inn) > 1:
            def hand(p):
                return 100 if rank(d[p]) == rank(d[N]) else rank(d[p])
            best = max(hand(p) for p in inn)
            inn = [p for p in inn if hand(p) == best]
        return [(pot / len(inn) if p in inn else 0) - contrib[p]
                for p in range(N)]

    def key(s, d, p):
        seqs = s[1]
        k = RANKS[rank(d[p])]
        if s[8] >= 0:
            k += RANKS[s[8]]
        k += ":" + "".join("fcr"[a] for a in seqs[0])
        if s[0] == 2:
            k += "/" + "".join("fcr"[a] for a in seqs[1])
        return k

    def chance_ranks():
        return list(range(N + 1))
else:
    sys.exit("GAME: kuhn or leduc")

DEALS = deals()
P_DEAL = 1.0 / len(DEALS)

# ---- evaluation over the public tree ------------------------------------

def walk(s, idx, w, pol, br):
    """Values per deal (dict deal index -> value of seat br, or a list of
    every seat's values when br is None) of public state s over the deals
    idx, each reached with weight w[k] (chance x the others' play; br's own
    choices are its best responses)."""
    if is_terminal(s):
        if br is None:
            return {k: returns(s, DEALS[k]) for k in idx}
        return {k: returns(s, DEALS[k])[br] for k in idx}
    if is_chance(s):
        out = {}
        for r in chance_ranks():
            sub = [k for k in idx if rank(DEALS[k][N]) == r]
            if sub:
                out.update(walk(child(s, r), sub, w, pol, br))
        return out
    p = mover(s)
    acts = actions(s)
    if p != br:
        out = {k: (0.0 if br is not None else [0.0] * N) for k in idx}
        for a in acts:
            pr = {k: pol(key(s, DEALS[k], p), acts)[a] for k in idx}
            sub = [k for k in idx if pr[k] > 0]
            if not sub:
                continue
            w2 = {k: w[k] * pr[k] for k in sub}
            v = walk(child(s, a), sub, w2, pol, br)
            for k in sub:
                if br is None:
                    out[k] = [x + pr[k] * y for x, y in zip(out[k], v[k])]
                else:
                    out[k] += pr[k] * v[k]
        return out
    vals = {a: walk(child(s, a), idx, w, pol, br) for a in acts}
    groups = {}
    for k in idx:
        groups.setdefault(key(s, DEALS[k], p), []).append(k)
    out = {}
    for g in groups.values():
        best = max(acts, key=lambda a: sum(w[k] * vals[a][k] for k in g))
        for k in g:
            out[k] = vals[best][k]
    return out


def nashconv(pol):
    idx = list(range(len(DEALS)))
    w = {k: P_DEAL for k in idx}
    v = walk(root(), idx, w, pol, None)
    value = [sum(P_DEAL * v[k][p] for k in idx) for p in range(N)]
    total = 0.0
    for p in range(N):
        b = walk(root(), idx, w, pol, p)
        total += sum(P_DEAL * b[k] for k in idx) - value[p]
    return total


def uniform(k, acts):
    return {a: 1.0 / len(acts) for a in acts}

# ---- CFR+ (or vanilla CFR) over histories (deal, public state) -----------

regret, avg, frozen = {}, {}, {}


def strat(k, acts):
    r = frozen.get(k)
    if r is None:
        return uniform(k, acts)
    s = sum(max(r[a], 0.0) for a in acts)
    return {a: (max(r[a], 0.0) / s if s > 0 else 1.0 / len(acts))
            for a in acts}


def cfr(s, d, me, pi_me, pi_opp, t):
    if is_terminal(s):
        return returns(s, d)[me]
    if is_chance(s):
        r = rank(d[N])
        return cfr(child(s, r), d, me, pi_me, pi_opp, t)
    p = mover(s)
    acts = actions(s)
    k = key(s, d, p)
    st = strat(k, acts)
    if p != me:
        return sum(st[a] * cfr(child(s, a), d, me, pi_me, pi_opp * st[a], t)
                   for a in acts)
    q = {a: cfr(child(s, a), d, me, pi_me * st[a], pi_opp, t) for a in acts}
    v = sum(st[a] * q[a] for a in acts)
    r = regret.setdefault(k, {a: 0.0 for a in acts})
    g = avg.setdefault(k, {a: 0.0 for a in acts})
    for a in acts:
        r[a] += pi_opp * (q[a] - v)
        g[a] += t * pi_me * st[a]
    return v


def avg_policy(k, acts):
    g = avg.get(k)
    s = sum(g.values()) if g else 0.0
    return {a: (g[a] / s if s > 0 else 1.0 / len(acts)) for a in acts}


if not ITERS:
    print("uniform %.12f" % nashconv(uniform), flush=True)
t = 0
for target in ITERS:
    while t < target:
        t += 1
        for me in range(N):
            frozen.clear()
            frozen.update({k: dict(r) for k, r in regret.items()})
            for d in DEALS:
                cfr(root(), d, me, 1.0, P_DEAL, t if PLUS else 1)
            for r in regret.values() if PLUS else ():
                for a in r:
                    if r[a] < 0:
                        r[a] = 0.0
    print(target, "%.12f" % nashconv(avg_policy), flush=True)
