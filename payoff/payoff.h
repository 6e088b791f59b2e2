/*
 * payoff: who beats whom. A decayed win/draw/loss table over agents
 * (learning players and their frozen snapshots share one dense id space),
 * win rates with a prior, an online Elo beside a maximum-likelihood Elo fit
 * of the whole matrix, the meta-Nash mixture of a zero-sum matrix (an
 * exact LP), the meta-Nash of a two-role general-sum bimatrix
 * (payoff/bimatrix.c), the α-Rank of a symmetric game
 * (payoff/alpharank.c) or of K roles (payoff/alpharank_multi.c) and
 * Plackett-Luce ratings of ranked games of N teams (payoff/plackett.c).
 *
 * Shape: the table lives in memory. Pairs are kept once, as (min, max) in a
 * hash map, so an entry and its mirror can never disagree; reading (b, a)
 * swaps wins and losses. Agents marked with payoff_track() (the learners)
 * also get a dense row of win rates indexed by opponent id, refreshed on
 * every result, so a matchmaking decision reads one array and never touches
 * a hash map or LMDB. Persistence belongs to the caller (players/ writes
 * the dirty pairs in its transactions); this module only encodes and
 * decodes the stored values and loads a table from a transaction.
 *
 * Ids are dense: payoff_add() registers ids 0, 1, 2, ... in order, up to
 * PAYOFF_MAX_AGENTS. Not thread-safe; one owner.
 */
#ifndef LG_PAYOFF_H
#define LG_PAYOFF_H

#include <stddef.h>
#include <stdint.h>

#include "storage/storage.h"
#include "util/util.h"

#define PAYOFF_MAX_AGENTS (1u << 24)
/* Largest matrix side payoff_nash() accepts. */
#define PAYOFF_NASH_MAX 4096

enum payoff_prior {
	PAYOFF_PRIOR_HALF, /* 0.5 below min_games, then (w + d/2) / g */
	PAYOFF_PRIOR_BETA, /* (w + d/2 + s/2) / (g + s), always */
};

struct payoff_opts {
	double decay;          /* per new game of a pair, (0, 1]; 0.99 */
	double min_games;      /* PAYOFF_PRIOR_HALF threshold; 1 */
	int prior;             /* enum payoff_prior */
	double prior_strength; /* s of the beta prior; 1 */
	double elo_k;          /* online Elo K factor; 16 */
};

/* Decayed counts of `a` against `b`, from a's side. */
struct payoff_entry {
	double wins, draws, losses, games;
};

typedef struct payoff payoff;

void payoff_opts_default(struct payoff_opts *o);
/* LG_EINVAL with detail in err when an option is out of range. */
int payoff_opts_check(const struct payoff_opts *o, char *err, size_t errlen);

/* New empty table (o NULL: defaults). LG_ENOMEM, LG_EINVAL. */
int payoff_new(payoff **out, const struct payoff_opts *o);
/* NULL is a no-op. */
void payoff_free(payoff *p);
/* Number of registered agents (the next id payoff_add expects). */
uint32_t payoff_count(const payoff *p);

/* Register agent `id`, which must equal payoff_count() (ids are dense).
 * LG_EINVAL otherwise, LG_EFULL past PAYOFF_MAX_AGENTS, LG_ENOMEM. */
int payoff_add(payoff *p, uint32_t id);
/* Keep a dense win-rate row for agent id (a learner). Idempotent. */
int payoff_track(payoff *p, uint32_t id);
/* The dense row of a tracked agent: row[q] = payoff_win_rate(p, id, q)
 * for every registered q; NULL when id is not tracked. Owned by p; valid
 * until the next payoff_add or payoff_free. */
const double *payoff_row(const payoff *p, uint32_t id);

/*
 * One game of a against b, outcome from a's side: 1 win, 0 draw, -1 loss.
 * The pair's counts decay by opts.decay first, then the outcome is added
 * (so games after n outcomes from empty is (1 - decay^n) / (1 - decay)).
 * a == b is self-play: the outcome of the first seat is counted per game.
 * Updates the online Elo of both (nothing for a == b) and the tracked rows.
 * LG_EINVAL for an unknown id or outcome, LG_ENOMEM.
 */
int payoff_record(payoff *p, uint32_t a, uint32_t b, int outcome);
/* The same with a score s in [0, 1] for a (1 a win, 0 a loss): s goes to
 * a's wins and 1 - s to its losses, so the pair's win rate is the mean
 * score (PSRO's game of expected returns). a != b. LG_EINVAL. */
int payoff_record_score(payoff *p, uint32_t a, uint32_t b, double s);
/* payoff_record_score with a's score s, and a's return ra and b's rb
 * (finite) added to the pair's return sums, which decay with its counts
 * (measure return: a general-sum pair's two mean returns are the sums
 * over games). LG_EINVAL. */
int payoff_record_returns(payoff *p, uint32_t a, uint32_t b, double s,
			  double ra, double rb);
/* The pair's return sums from a's side: a's into *ra, b's into *rb (0
 * when never recorded). LG_EINVAL for an unknown id. */
int payoff_returns(const payoff *p, uint32_t a, uint32_t b, double *ra,
		   double *rb);
/* Replace them (loading, tests). LG_EINVAL. */
int payoff_set_returns(payoff *p, uint32_t a, uint32_t b, double ra,
		       double rb);
/* Counts of a against b (zeros when they never met). LG_EINVAL for an
 * unknown id. */
int payoff_get(const payoff *p, uint32_t a, uint32_t b,
	       struct payoff_entry *e);
/* Replace the counts of a against b (the mirror follows). For loading and
 * tests. LG_EINVAL for unknown ids or negative/non-finite counts. */
int payoff_set(payoff *p, uint32_t a, uint32_t b,
	       const struct payoff_entry *e);
/* Win rate of a against b under the prior; 0.5 for unknown ids. Never
 * NaN. */
double payoff_win_rate(const payoff *p, uint32_t a, uint32_t b);
/* Forget every result of a (its parameters were reset): its pairs become
 * empty. Calls cb(arg, a, b) for each opponent b that had a pair, so the
 * caller can delete the stored entries. */
int payoff_clear(payoff *p, uint32_t a,
		 void (*cb)(void *arg, uint32_t a, uint32_t b), void *arg);

/* Move every result of `from` to `to` (a fresh agent: the snapshot that
 * froze from's parameters before from was reset), and from's online Elo
 * with them; from starts empty. Self-play pairs of from are dropped.
 * cb(arg, a, b) is called for each pair that changed. LG_EINVAL. */
int payoff_move(payoff *p, uint32_t from, uint32_t to,
		void (*cb)(void *arg, uint32_t a, uint32_t b), void *arg);

/* Online Elo (starts at 0) and the number of rated games of id. */
double payoff_elo(const payoff *p, uint32_t id);
double payoff_elo_games(const payoff *p, uint32_t id);
int payoff_set_elo(payoff *p, uint32_t id, double elo, double games);

/*
 * Maximum-likelihood Elo (Bradley-Terry, draws count half) of agents
 * ids[0..n) from the decayed counts among them, by Hunter's MM iteration
 * to a relative change below 1e-11 (or 20000 sweeps), each sweep followed
 * by the common scale that best fits the prior (which alone pins it).
 * `prior` adds that many virtual draws of each agent against a fixed
 * anchor, which keeps an undefeated agent finite; with prior 0 such an agent is clamped at
 * +-4800. out[i] is in Elo points, centred on mean 0. Self-play pairs carry
 * no information and are skipped. Cost O(sweeps * pairs among ids).
 * LG_EINVAL, LG_ENOMEM.
 */
int payoff_elo_fit(const payoff *p, const uint32_t *ids, size_t n,
		   double prior, double *out);
/* The same, and se[i] (may be NULL): the standard error of out[i] in Elo
 * points, from the Fisher information of agent i's own games (its real
 * games and the prior's virtual draws) at the fit, the others' ratings
 * held fixed: 400 / ln 10 / sqrt(sum_j n_ij p_ij (1 - p_ij)). For two
 * agents it is the standard error of their difference. NaN for an agent
 * with no games and no prior. */
int payoff_elo_fit_se(const payoff *p, const uint32_t *ids, size_t n,
		      double prior, double *out, double *se);

/*
 * Win-rate matrix and game counts of ids[0..n) (row-major n x n; either
 * output may be NULL). O(n * n + the pairs of ids) when ids has no
 * repeat, O(n * n) hash lookups when it has. LG_EINVAL for an unknown id,
 * LG_ENOMEM.
 */
int payoff_matrix(const payoff *p, const uint32_t *ids, size_t n,
		  double *win_rate, double *games);

/*
 * Meta-Nash of the zero-sum game with row payoffs A (m x n, row-major; the
 * row player maximises, the column player minimises), solved exactly as a
 * linear program (dense simplex with Bland's rule on a perturbed
 * right-hand side, so a degenerate table cannot make it pivot in a
 * circle; O(m * (n + m)) per pivot, about 3 (m + n) pivots, at most
 * 200 (m + n)). x gets m, y gets n probabilities, *value the
 * game value x A y. *gap gets the duality gap max_i (A y)_i - min_j (x A)_j
 * measured on the returned mixtures: the stated bound, 0 up to rounding,
 * so neither player gains more than *gap by deviating. value/gap may be
 * NULL. LG_EINVAL (sizes beyond PAYOFF_NASH_MAX, non-finite entries),
 * LG_ERANGE (the pivot cap reached: never seen), LG_ENOMEM.
 */
int payoff_nash(const double *A, size_t m, size_t n, double *x, double *y,
		double *value, double *gap);

/* ---- the meta-Nash of two roles (payoff/bimatrix.c) ----------------- */

/* Largest side (strategies of one role) payoff_bimatrix_* accept. */
#define PAYOFF_BIMATRIX_MAX 4096
/* Largest |payoff| accepted (keeps sums and ranges finite). */
#define PAYOFF_BIMATRIX_PAYOFF_MAX 1e150
/* Lemke-Howson is used while m + n is at most this (its two tableaux
 * hold (m + n) (m + n + 1) doubles, a pivot costs O(side (m + n))) ... */
#define PAYOFF_BIMATRIX_LH_MAX 512
/* ... and from every starting label while m + n is at most this (m + n
 * paths); above it, the first of labels 0, 1, ... whose path is short. */
#define PAYOFF_BIMATRIX_ALL_LABELS_MAX 64
/* Rounds of fictitious play where Lemke-Howson is not used. */
#define PAYOFF_BIMATRIX_FP_ITERS 100000

/*
 * A Nash equilibrium of the two-role general-sum game (A, B), both m x n
 * row-major: when the row role plays i and the column role j, the row
 * role gets A[i * n + j] and the column role B[i * n + j] (each
 * maximises its own). x gets m, y gets n probabilities (each summing to
 * 1); *eps (may be NULL) the most either role gains by deviating alone,
 * max(max_i (A y)_i - x A y, max_j (x B)_j - x B y), measured on the
 * returned mixtures: 0 up to rounding for an exact answer.
 *
 * How, and which equilibrium (a general-sum game may have several, with
 * different payoffs):
 *  - m + n <= PAYOFF_BIMATRIX_ALL_LABELS_MAX: Lemke-Howson's path from
 *    every starting label 0..m+n-1 (lexicographic ratio test, so a
 *    degenerate game cannot make it cycle); of the equilibria the paths
 *    reach, the one with the highest sum of both roles' payoffs x A y +
 *    x B y, ties (within 1e-9 of the payoffs' range) to the lowest
 *    label. Why: where the roles share an interest (a common-payoff or
 *    coordination game) that is the best coordinated equilibrium found,
 *    not one a starting label happened to lead to; in a zero-sum game all
 *    equilibria have the same value and are interchangeable, so the
 *    choice costs nothing there. The paths reach only equilibria of
 *    index +1 (never the mixed one of a 2 x 2 coordination game), so
 *    this is the best of those, not of all equilibria.
 *  - up to PAYOFF_BIMATRIX_LH_MAX: labels 0, 1, 2, ... (at most 25) in
 *    turn, each path cut at 4 (m + n) pivots; the equilibrium of the
 *    first that ends (path lengths are heavy-tailed: on one random
 *    200 x 250 game, labels 0..11 took 10 to over 45,000 pivots).
 *  - beyond, or when every path failed (hit its pivot cap, 100 (m + n)
 *    on the small tables, or lost accuracy): PAYOFF_BIMATRIX_FP_ITERS
 *    rounds of fictitious play (payoff_bimatrix_fp), approximate: *eps
 *    says how far.
 * A zero-sum game (B = -A) gets an equilibrium of payoff_nash's value.
 * LG_EINVAL (m or n 0 or over PAYOFF_BIMATRIX_MAX, an entry non-finite or
 * over PAYOFF_BIMATRIX_PAYOFF_MAX, a NULL table), LG_ENOMEM.
 */
int payoff_bimatrix_nash(const double *A, const double *B, size_t m,
			 size_t n, double *x, double *y, double *eps);
/*
 * Lemke-Howson's path from one starting label (0..m-1 drops row strategy
 * label, m..m+n-1 column strategy label - m), cut at max_pivots pivots
 * (0: 100 (m + n)): the equilibrium it reaches, deterministic (the
 * answer of payoff_bimatrix_nash is one of these, by the rule above).
 * Same arguments and errors as payoff_bimatrix_nash, and LG_EINVAL for
 * label >= m + n or m + n > PAYOFF_BIMATRIX_LH_MAX, LG_ERANGE when the
 * path is cut or its answer misses an equilibrium by more than 1e-9 of
 * the payoffs' range (rounding).
 */
int payoff_bimatrix_lh(const double *A, const double *B, size_t m, size_t n,
		       size_t label, size_t max_pivots, double *x, double *y,
		       double *eps);
/*
 * Fictitious play on (A, B) for iters >= 1 rounds: in each, both roles
 * play a best response (the lowest index among ties; (0, 0) first) to
 * the other's empirical mixture so far. The mixtures after 1, 2, 4, ...
 * and iters rounds are measured and the one with the least *eps is
 * returned. O(iters (m + n) + m n log2(iters)). It converges in zero-sum
 * games (eps shrinks as the rounds grow), 2 x n games and potential
 * games, not in general (Shapley's 3 x 3 game cycles): *eps is the
 * answer's quality. Same arguments and errors as payoff_bimatrix_nash,
 * and LG_EINVAL for iters 0.
 */
int payoff_bimatrix_fp(const double *A, const double *B, size_t m, size_t n,
		       uint32_t iters, double *x, double *y, double *eps);

/* ---- α-Rank (payoff/alpharank.c) ------------------------------------ */

/* Largest matrix side payoff_alpharank() accepts (a dense n x n chain,
 * O(n^3 / 3) to solve: 4 ms at 256, 0.14 s at 1024, 1.3 s at 2048 on
 * one core of the development machine). */
#define PAYOFF_ALPHARANK_MAX 4096
/* Largest population m (a general-sum pair costs O(m)). */
#define PAYOFF_ALPHARANK_POP_MAX 100000
/* Largest |payoff| accepted (keeps m * payoff * m finite). */
#define PAYOFF_ALPHARANK_PAYOFF_MAX 1e150

struct payoff_alpharank_opts {
	/* Selection intensity, >= 0; 100. 0 is neutral drift (uniform
	 * scores); larger follows payoff differences more strictly;
	 * INFINITY takes the limit alpha -> infinity exactly (see
	 * payoff_alpharank). */
	double alpha;
	uint32_t population; /* m, in [2, PAYOFF_ALPHARANK_POP_MAX]; 50 */
};

/* alpha 100, population 50 (the paper's and OpenSpiel's defaults). */
void payoff_alpharank_opts_default(struct payoff_alpharank_opts *o);
/* LG_EINVAL with detail in err (may be NULL) when out of range. */
int payoff_alpharank_opts_check(const struct payoff_alpharank_opts *o,
				char *err, size_t errlen);

/*
 * α-Rank (Omidshafiei et al. 2019) of the symmetric two-player game whose
 * row player gets M[i * n + j] playing strategy i against j (a win rate
 * or an expected payoff; the diagonal is a strategy against itself: 1/2
 * for a win rate matrix of a zero-sum game), single-population model:
 * pi[i] (n entries, summing to 1) is the stationary mass of the Markov
 * chain over monomorphic populations of o->population agents whose
 * transition from s to r is rho(s -> r) / (n - 1), rho the fixation
 * probability of one mutant r under Fermi selection of intensity
 * o->alpha (payoff_alpharank_fixation). Solved exactly (the GTH
 * elimination, O(n^3 / 3), entrywise accurate however large alpha is:
 * masses that underflow are 0). With alpha INFINITY, rho is its limit
 * (1 for a strictly fitter mutant, 0 for a less fit one, 1/m for a
 * neutral one in a constant-sum game) and pi the limit of the scores
 * (payoff differences within 1e-12 of the payoffs' size are ties).
 * LG_EINVAL (n is 0 or over PAYOFF_ALPHARANK_MAX, an entry non-finite or
 * over PAYOFF_ALPHARANK_PAYOFF_MAX, options out of range), LG_ENOMEM,
 * LG_ERANGE when the chain has no unique stationary distribution in
 * floating point (never for a constant-sum game; in a general-sum game at
 * an infinite or huge alpha, when fixation probabilities both ways
 * between two groups of strategies underflow: lower alpha).
 */
int payoff_alpharank(const double *M, size_t n,
		     const struct payoff_alpharank_opts *o, double *pi);
/* The fixation probabilities payoff_alpharank uses: rho[s * n + r] is the
 * probability that one mutant playing r takes over a population playing
 * s (the diagonal is 0). Same arguments and errors, no allocation. */
int payoff_alpharank_fixation(const double *M, size_t n,
			      const struct payoff_alpharank_opts *o,
			      double *rho);

/* Most populations (roles) payoff_alpharank_multi accepts: a game's
 * seats. */
#define PAYOFF_ALPHARANK_POPS_MAX 8

/*
 * α-Rank of a game of K roles, multi-population model (Omidshafiei et al.
 * 2019): role k has a population of o->population agents and n[k]
 * strategies; a state is a pure profile s = (s_0, ..., s_{K-1}),
 * numbered row-major (the last role fastest: index = ((s_0 n[1] + s_1)
 * n[2] + s_2) ...); tab[k][index] is role k's payoff at profile index.
 * From s one role k's population mutates to another of its strategies
 * tau, chosen uniformly among all sum_k (n[k] - 1) such changes, and
 * fixates with probability rho = (1 - e^{-alpha d}) / (1 - e^{-m alpha
 * d}), d = tab[k](tau, s_-k) - tab[k](s) (a population meets only
 * the others, so d does not depend on the number of mutants; 1/m when d
 * is 0). pi_profiles (prod n[k] entries, may be NULL) gets the chain's
 * stationary distribution, pi_marginal (sum n[k] entries, role 0's
 * strategies first, may be NULL) each role's marginal mass per strategy
 * (each role's entries sum to 1). Solved exactly by GTH as
 * payoff_alpharank; alpha INFINITY takes the limit (rho 1, 0, or 1/m for
 * payoffs within 1e-12 of their size). A move against selection whose
 * probability is below the least double ((m-1) alpha |d| beyond about
 * 745) counts as 0, so at such alpha a profile that only such moves
 * reach gets mass 0, whatever its true (tiny or not) mass. In a potential game (payoff
 * gains of every role the gains of one Phi) pi is proportional to
 * e^{(m-1) alpha Phi}. On a symmetric two-player game (tab[1] the
 * transpose of tab[0]) each role's marginal agrees with the
 * single-population payoff_alpharank at alpha (m-1)/m when the payoffs
 * are additive (M[i][j] = c/2 + f_i - f_j: every constant-sum 2 x 2
 * game), not in general (the two-population chain also visits profiles
 * where the roles differ). Cost O(N^3 / 3), N = prod n[k] profiles.
 * LG_EINVAL (K 0 or over PAYOFF_ALPHARANK_POPS_MAX, an n[k] 0, more than
 * PAYOFF_ALPHARANK_MAX profiles, an entry non-finite or over
 * PAYOFF_ALPHARANK_PAYOFF_MAX, a NULL table, options out of range),
 * LG_ENOMEM, LG_ERANGE as payoff_alpharank (no unique stationary
 * distribution: at alpha INFINITY two strict pure equilibria of a
 * coordination game each hold the chain).
 */
int payoff_alpharank_multi(const double *const *tab, const uint32_t *n,
			   size_t K, const struct payoff_alpharank_opts *o,
			   double *pi_profiles, double *pi_marginal);

/*
 * The meta-Nash of agents ids[0..n): payoff_nash of the zero-sum game
 * whose row payoff is payoff_matrix's win rate - 1/2 (antisymmetric, so
 * its value is 0 and x is a mixture no agent of ids beats on average).
 * x gets n weights (the row player's mixture, summing to 1); *gap (may be
 * NULL) the duality gap. The one construction of "the league's meta-Nash"
 * that matchmaking's nash branch, snapshot pruning, the ratings ladder
 * and the evaluator's league mixture share, so they agree on the same
 * table bit for bit. Where the table has no games the prior (0.5) stands
 * in; a constant table's meta-Nash is any mixture and the solver returns
 * the first pure strategy. O(n * n) memory, the LP's time. LG_EINVAL (n
 * outside 1..PAYOFF_NASH_MAX, an unknown id), LG_ENOMEM.
 */
int payoff_meta_nash(const payoff *p, const uint32_t *ids, size_t n,
		     double *x, double *gap);
/* A meta-Nash weight above this puts its agent in the support (below, it
 * is the solver's rounding). */
#define PAYOFF_SUPPORT_MIN 1e-9

/* ---- PSRO's meta-solvers (payoff/meta.c) ----------------------------- */

enum payoff_meta_solver {
	PAYOFF_META_NASH,      /* the meta-Nash (payoff_nash) */
	PAYOFF_META_UNIFORM,   /* every member alike (fictitious play) */
	PAYOFF_META_ALPHARANK, /* α-Rank's stationary masses */
	PAYOFF_META_PRD,       /* projected replicator dynamics */
	PAYOFF_META__COUNT
};

struct payoff_meta_opts {
	int solver;            /* enum payoff_meta_solver; NASH */
	/* PRD: Euler steps (50000) of dt (1e-3), every strategy kept at
	 * least gamma / n (1e-6); the mixture is the iterates' average */
	uint32_t prd_iters;
	double prd_dt, prd_gamma;
	struct payoff_alpharank_opts alpharank; /* its defaults */
};

void payoff_meta_opts_default(struct payoff_meta_opts *o);
/*
 * The meta-strategy x (n probabilities) of the symmetric zero-sum game
 * whose row member wins W[i * n + j] of its games against j (a win-rate
 * matrix, payoff_matrix; its diagonal is taken as 1/2) by o->solver.
 * LG_EINVAL (n 0 or over PAYOFF_NASH_MAX, a non-finite entry, options out
 * of range), LG_ENOMEM, and the solver's own errors.
 */
int payoff_meta(const double *W, size_t n, const struct payoff_meta_opts *o,
		double *x);

/* ---- Plackett-Luce ratings of ranked team games (payoff/plackett.c) -- */

/* Largest agent count payoff_pl_fit accepts: its Hessian is dense (n * n
 * doubles, twice with se or cov: 64 MiB at the cap) and each Newton
 * iteration factors it, O(n^3 / 6). Measured with se, 50k to 100k games
 * of 2 against 2, on this 2-core machine under a load of 6: 0.1 s at 256
 * agents, 1.5 s at 1024, 12 s at 2048; run it off the daemon's turn
 * beyond a few hundred. */
#define PAYOFF_PL_MAX_AGENTS 2048
/* Most seats in one game (the game ABI has at most 8). */
#define PAYOFF_PL_MAX_SEATS 64

/*
 * One ranked game, seat by seat as the game ABI describes an episode.
 * Seats with the same team id form a team (team NULL: every seat is a
 * team of its own); there must be at least 2 teams. A team's rating is
 * the sum of its seats' agents' ratings (its strength the product of
 * theirs), so an agent may fill several seats: a team of two copies of
 * one agent is twice as strong in log terms, and the same agent on both
 * sides of a game cancels out (self-play carries no information, as in
 * payoff_elo_fit). rank: 0 best, equal ranks are ties, every seat of a
 * team carries its team's rank; only the order matters (competition
 * ranks 0, 0, 2 and dense ranks 0, 0, 1 fit alike; payoff_pl_rank makes
 * them from returns). weight >= 0 multiplies the game's log-likelihood
 * (a decayed count; 0 ignores the game). The arrays are the caller's,
 * read during the call only.
 */
struct payoff_pl_game {
	uint32_t nseats;        /* 2 .. PAYOFF_PL_MAX_SEATS */
	const uint32_t *agent;  /* [nseats] agent ids, < nagents */
	const uint32_t *team;   /* [nseats] team ids, < nseats; or NULL */
	const uint32_t *rank;   /* [nseats] < nseats; same within a team */
	double weight;          /* finite, >= 0 */
};

/*
 * Maximum-a-posteriori Plackett-Luce ratings of agents 0..nagents-1 from
 * games g[0..ngames), on payoff_elo_fit's scale: Elo points (400 / ln 10
 * per unit of log-strength), centred on mean 0, with its prior (`prior`
 * virtual draws of every agent against an anchor rated 0, which keeps an
 * agent that never lost finite and rates an agent without games 0 before
 * centring). For games of two single-agent teams this is exactly
 * payoff_elo_fit's Bradley-Terry fit with the same prior (a won game a
 * weight-1 game ranked (0, 1), a draw ranked (0, 0)).
 *
 * Plackett-Luce: the ranking is drawn best first, each stage picking
 * team i from the teams R still unranked with probability
 * exp(S_i) / sum_{u in R} exp(S_u), S the team's log-strength. Ties: a
 * group of t teams tied for the best rank left in R shares the stage,
 * each tied team chosen with weight 1/t from all of R, then all t leave
 * R (log-likelihood (1/t) sum_{i tied} S_i - log sum_{u in R} exp(S_u));
 * two tied teams are a draw counted half, and the last stage, one team
 * left, scores nothing. The gradient is Weng and Lin's (2011) A_q rule.
 *
 * Fit: Newton's method with a backtracking line search on the strictly
 * concave log-posterior, from all ratings 0, stopped when the
 * Newton decrement g'H^-1 g is below 1e-20 (the distance to the optimum
 * under 1e-10 standard errors in every direction), or below 1e-8 (1e-4
 * standard errors) once rounding stops its quadratic fall; a handful of
 * iterations, each O(sum over games of seats^2 + teams^3) plus a dense
 * Cholesky factorisation O(nagents^3 / 6).
 *
 * Intervals: the covariance of the log-strengths is the inverse of the
 * Hessian of the negative log-posterior at the optimum (full, so the
 * agents' errors may correlate: a team's members share its results);
 * that of the centred ratings is P H^-1 P, P = I - 11'/n. se (may be
 * NULL) gets its diagonal's square roots and cov (may be NULL, n * n,
 * row-major) all of it, in Elo points (squared for cov); the standard
 * error of a difference r_a - r_b is sqrt(cov_aa + cov_bb - 2 cov_ab).
 * O(nagents^3 / 6) more for se, / 3 for cov. Unlike payoff_elo_fit_se,
 * se is of the centred rating with every rating free (not of one
 * rating with the others held fixed), so for two agents it is half the
 * standard error of their difference. It is never NaN: prior > 0 gives
 * every agent some information.
 *
 * Note on teams of unequal size: shifting every rating by d shifts a team
 * of m seats by m d, so such games tell the ratings' origin (a rating 0
 * agent adds nothing to its team) and centring drops it; the ratings
 * rank agents and their differences are exact, but a prediction of a 2
 * against 1 game needs the uncentred values, which are not returned.
 *
 * err (may be NULL) names the game, seat and value on LG_EINVAL:
 * nagents 0 or over PAYOFF_PL_MAX_AGENTS, rating NULL, g NULL with
 * ngames > 0, prior not a finite number > 0, a game whose nseats is out
 * of 2..PAYOFF_PL_MAX_SEATS, agent or rank NULL, an agent id >= nagents,
 * a team id or rank >= nseats, two seats of one team with different
 * ranks, one team only, a weight negative or not finite. LG_ENOMEM.
 * LG_ERANGE, err saying which: the prior is too weak against the games
 * for floating point (where only the prior fixes the common level, as
 * with teams of equal size, a prior below about 1e-15 of an agent's
 * total game weight is lost in rounding: prior 1 against 10^12 games is
 * fine, 1e-10 against 10^6 is not), or Newton's method stalls or needs
 * more than 100 iterations (not seen). rating, se and cov are then
 * unspecified.
 */
int payoff_pl_fit(const struct payoff_pl_game *g, size_t ngames,
		  uint32_t nagents, double prior, double *rating, double *se,
		  double *cov, char *err, size_t errlen);

/*
 * Online Plackett-Luce ratings, Weng and Lin's Bayesian approximation
 * (JMLR 2011, "A Bayesian approximation method for online ranking",
 * Algorithm 4, the Plackett-Luce model), for a running estimate between
 * fits: the belief in agent a's rating is normal, mean mu[a] and standard
 * deviation sigma[a] in Elo points, and one game g (the same struct, the
 * same tie rule) moves the beliefs of the agents in it, in place:
 *
 *   mu_a    += sigma_a^2 d/dmu_a log-likelihood
 *   sigma_a^2 *= max(1 - gamma_a sigma_a^2 (-d^2/dmu_a^2 log-likelihood),
 *                    1e-4)
 *
 * with the team strengths exp(sum of mu / c), c^2 = (400 / ln 10)^2 +
 * the sum over the game's teams of their members' sigma^2 (Weng and
 * Lin's c with its k beta^2 set to payoff_pl_fit's scale, so that with
 * certain beliefs the model is the fit's), gamma_a = sigma_team / c (the
 * paper's default), the derivatives at mu times the game's weight (a
 * weight-w game moves w times as far; 0 moves nothing). Where no agent
 * fills two seats this is the paper's update (a member moving by its
 * share sigma_j^2 / sigma_team^2 of its team's); an agent in several
 * seats is updated once from its seats' summed derivatives, so
 * self-play moves nothing. A start: mu 0, sigma 350 (Glicko's newcomer). O(seats^2 +
 * teams^3), no allocation. LG_EINVAL as payoff_pl_fit for the game (named
 * game 0), or a seat's agent with a non-finite mu or a sigma not finite
 * and > 0; then nothing is changed.
 */
int payoff_pl_update(const struct payoff_pl_game *g, uint32_t nagents,
		     double *mu, double *sigma, char *err, size_t errlen);

/*
 * Competition ranks from scores, higher better (returns of a game's
 * seats): rank[i] = the number of seats with a strictly greater score,
 * so equal scores (a team's seats, a draw) share a rank. O(n^2).
 * LG_EINVAL for a NaN or infinite score.
 */
int payoff_pl_rank(const double *score, uint32_t n, uint32_t *rank);

/* ---- storage encodings (players/ writes, inspection reads) ---------- */

#define PAYOFF_ENTRY_BYTES 32
/* A stored pair: the entry, then (when either is not 0) a's and b's
 * return sums, f64 each. */
#define PAYOFF_PAIR_BYTES (PAYOFF_ENTRY_BYTES + 16)
#define PAYOFF_RATING_BYTES 16
void payoff_entry_encode(const struct payoff_entry *e,
			 uint8_t out[PAYOFF_ENTRY_BYTES]);
int payoff_entry_decode(const void *v, size_t len, struct payoff_entry *e);
/* A stored pair: PAYOFF_ENTRY_BYTES (returns 0) or PAYOFF_PAIR_BYTES. */
int payoff_pair_decode(const void *v, size_t len, struct payoff_entry *e,
		       double *ra, double *rb);

/*
 * Fill p (already holding every agent id the stored pairs name) from the
 * STORE_DB_PAYOFF (keys be32 a, be32 b; both orientations stored, the
 * a <= b one is read) and STORE_DB_RATINGS (be32 id -> elo, games as LE
 * doubles) databases of t. LG_ECORRUPT on a malformed record.
 */
int payoff_load(payoff *p, store_txn *t);
/* Write a's pair with b in both orientations (or delete both when empty)
 * and both agents' ratings records into t. */
int payoff_store_pair(const payoff *p, store_txn *t, uint32_t a, uint32_t b);
int payoff_store_rating(const payoff *p, store_txn *t, uint32_t id);

#endif
