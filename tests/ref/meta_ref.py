#!/usr/bin/env python3
"""tests/ref/meta_ref.py: references for the two-role meta-solvers of
payoff/, written apart from them (numpy and scipy, nothing of the C code),
as tests/check_bimatrix.c and tests/check_alpharank.c check them.

    meta_ref.py bimatrix SEED COUNT
        COUNT random games (entries uniform in [-1, 1], sizes cycling
        through SIZES), each with ALL its Nash equilibria by support
        enumeration: for every pair of supports of equal size (a random
        game is nondegenerate, so an equilibrium's supports have equal
        sizes), solve the indifference equations with numpy.linalg and
        keep the solutions that are probabilities and leave no better
        reply outside the support. A nondegenerate game has an odd number
        of equilibria: the script checks that and fails otherwise.

    meta_ref.py zerosum SEED COUNT
        COUNT random zero-sum games (B = -A) and their value, by
        scipy.optimize.linprog (the row player's LP).

    meta_ref.py alpharank SEED
        Random 2- and 3-population games at alpha 0.1, 1 and 10 and the
        multi-population α-Rank of each (Omidshafiei et al. 2019): the
        transition matrix over pure profiles built entry by entry (one
        population changes strategy; eta = 1 / sum_k (n_k - 1); Fermi
        fixation rho = (1 - e^{-alpha d}) / (1 - e^{-m alpha d}), d the
        mutant's payoff minus the resident's in that population), and its
        stationary distribution from numpy.linalg.lstsq on (C^T - I) pi = 0,
        sum pi = 1.

Output, one record per game, numbers as Python's repr (they read back
exactly with strtod):

    game M N | A a00 a01 ... | B b00 ... | eq x0 .. x(M-1) y0 .. y(N-1)
    (one eq line per equilibrium) | end
    zgame M N | A ... | value v | end
    case K ALPHA POP | n n0 n1 .. | tab k v0 v1 ... (one per population)
    | pi p0 p1 ... (profiles, row-major, last population fastest)
    | marg ... (population 0's strategies first) | end

where | is a new line.
"""
import itertools
import sys

import numpy as np
from scipy.optimize import linprog

SIZES = [(2, 2), (2, 3), (3, 2), (3, 3), (1, 4), (4, 1), (2, 5), (4, 3),
         (4, 4), (5, 5), (3, 6), (6, 6)]
TOL = 1e-12


def fmt(v):
    return " ".join(repr(float(a)) for a in v)


def solve_side(M, rows, cols):
    """The mixture on cols making every row of M[rows, cols] earn the same,
    and that payoff: [M -1; 1 0] [p; v] = [0; 1]. None when singular."""
    k = len(rows)
    S = np.zeros((k + 1, k + 1))
    S[:k, :k] = M[np.ix_(rows, cols)]
    S[:k, k] = -1
    S[k, :k] = 1
    rhs = np.zeros(k + 1)
    rhs[k] = 1
    try:
        sol = np.linalg.solve(S, rhs)
    except np.linalg.LinAlgError:
        return None
    return sol[:k], sol[k]


def equilibria(A, B):
    """All Nash equilibria of the nondegenerate bimatrix game (A, B)."""
    m, n = A.shape
    out = []
    for k in range(1, min(m, n) + 1):
        for I in itertools.combinations(range(m), k):
            for J in itertools.combinations(range(n), k):
                ys = solve_side(A, list(I), list(J))
                xs = solve_side(B.T, list(J), list(I))
                if ys is None or xs is None:
                    continue
                (yJ, v), (xI, u) = ys, xs
                if (yJ <= TOL).any() or (xI <= TOL).any():
                    continue
                x = np.zeros(m)
                y = np.zeros(n)
                x[list(I)] = xI
                y[list(J)] = yJ
                if (A @ y).max() > v + 1e-10 or (x @ B).max() > u + 1e-10:
                    continue
                out.append((x, y))
    return out


def cmd_bimatrix(seed, count):
    rng = np.random.default_rng(seed)
    for g in range(count):
        m, n = SIZES[g % len(SIZES)]
        A = rng.uniform(-1, 1, (m, n))
        B = rng.uniform(-1, 1, (m, n))
        eqs = equilibria(A, B)
        if len(eqs) % 2 != 1:
            sys.exit("meta_ref: game %d (%dx%d) has %d equilibria: not "
                     "nondegenerate" % (g, m, n, len(eqs)))
        print("game %d %d" % (m, n))
        print("A", fmt(A.ravel()))
        print("B", fmt(B.ravel()))
        for x, y in eqs:
            print("eq", fmt(x), fmt(y))
        print("end")


def zero_sum_value(A):
    """max_x min_j (x A)_j by linprog: variables (x, v), minimise -v
    subject to v - (x A)_j <= 0, sum x = 1, x >= 0."""
    m, n = A.shape
    c = np.zeros(m + 1)
    c[m] = -1
    A_ub = np.hstack([-A.T, np.ones((n, 1))])
    A_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(n), A_eq=A_eq, b_eq=[1],
                  bounds=[(0, None)] * m + [(None, None)], method="highs")
    if res.status != 0:
        sys.exit("meta_ref: linprog failed: %s" % res.message)
    return -res.fun


def cmd_zerosum(seed, count):
    rng = np.random.default_rng(seed)
    for g in range(count):
        m, n = SIZES[g % len(SIZES)]
        A = rng.uniform(-1, 1, (m, n))
        print("zgame %d %d" % (m, n))
        print("A", fmt(A.ravel()))
        print("value", repr(float(zero_sum_value(A))))
        print("end")


def fixation(d, alpha, pop):
    if d == 0:
        return 1.0 / pop
    u = alpha * d
    return np.expm1(-u) / np.expm1(-pop * u)


def alpharank_multi(tabs, ns, alpha, pop):
    """Stationary distribution over profiles and the marginals."""
    N = int(np.prod(ns))
    eta = 1.0 / sum(k - 1 for k in ns)
    C = np.zeros((N, N))
    for s in range(N):
        prof = np.unravel_index(s, ns)  # C order: the last index fastest
        for k, nk in enumerate(ns):
            for t in range(nk):
                if t == prof[k]:
                    continue
                q = list(prof)
                q[k] = t
                r = np.ravel_multi_index(q, ns)
                d = tabs[k].ravel()[r] - tabs[k].ravel()[s]
                C[s, r] = eta * fixation(d, alpha, pop)
        C[s, s] = 1 - C[s].sum()
    M = np.vstack([C.T - np.eye(N), np.ones((1, N))])
    rhs = np.zeros(N + 1)
    rhs[N] = 1
    pi = np.linalg.lstsq(M, rhs, rcond=None)[0]
    if np.abs(pi @ C - pi).max() > 1e-13 or pi.min() < -1e-13:
        sys.exit("meta_ref: stationary solve inaccurate")
    grid = pi.reshape(ns)
    marg = []
    for k in range(len(ns)):
        axes = tuple(a for a in range(len(ns)) if a != k)
        marg.extend(grid.sum(axis=axes))
    return pi, np.array(marg)


def cmd_alpharank(seed):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (2, 5), (4, 4), (2, 3, 2), (3, 3, 3), (2, 2, 4)]
    # alpha and the population size: the payoffs lie in [0, 1], so the
    # largest fixation exponent (m - 1) alpha is 4.9, 9 and 10, which
    # keeps the chain well conditioned for a dense solve (a nearly
    # reducible chain would test numpy's accuracy, not the C code's)
    settings = [(0.1, 50), (1.0, 10), (10.0, 2)]
    for ns in shapes:
        for alpha, pop in settings:
            tabs = [rng.uniform(0, 1, ns) for _ in ns]
            pi, marg = alpharank_multi(tabs, list(ns), alpha, pop)
            print("case %d %r %d" % (len(ns), alpha, pop))
            print("n", " ".join(str(k) for k in ns))
            for k, t in enumerate(tabs):
                print("tab", k, fmt(t.ravel()))
            print("pi", fmt(pi))
            print("marg", fmt(marg))
            print("end")


def main(argv):
    if len(argv) >= 4 and argv[1] == "bimatrix":
        cmd_bimatrix(int(argv[2]), int(argv[3]))
    elif len(argv) >= 4 and argv[1] == "zerosum":
        cmd_zerosum(int(argv[2]), int(argv[3]))
    elif len(argv) >= 3 and argv[1] == "alpharank":
        cmd_alpharank(int(argv[2]))
    else:
        sys.exit("usage: meta_ref.py bimatrix SEED COUNT | zerosum SEED "
                 "COUNT | alpharank SEED")


if __name__ == "__main__":
    main(sys.argv)
