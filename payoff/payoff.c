/*
 * payoff/payoff.c: the decayed payoff table, win rates, online and fitted
 * Elo, and their stored encodings. The meta-Nash solver (the zero-sum LP
 * by simplex) is nash.c's.
 *
 * Pairs live once in `pairs[]`, keyed (min, max) through an open-addressing
 * hash (linear probing, never deleted: a cleared pair keeps its slot with
 * zero counts, which reads exactly like an absent one). Each agent keeps
 * the list of pair indices it takes part in, for payoff_clear(), and
 * tracked agents keep a dense win-rate row.
 */
#include "payoff/payoff.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct pair {
	uint32_t a, b;        /* a <= b */
	struct payoff_entry e; /* from a's side */
	double ra, rb;        /* decayed return sums of a and of b
				 (payoff_record_returns) */
};

struct agent {
	double elo, elo_games;
	double *row;        /* tracked agents: win rates, capacity row_cap */
	uint32_t *pairs;    /* indices into p->pairs */
	uint32_t npairs, cap_pairs;
};

struct payoff {
	struct payoff_opts o;
	struct agent *agents;
	uint32_t nagents, cap_agents;
	uint32_t row_cap;     /* capacity of every tracked row */
	uint32_t *tracked;    /* ids with rows */
	uint32_t ntracked, cap_tracked;
	struct pair *pairs;
	uint32_t npairs, cap_pairs;
	struct htab {
		uint64_t *keys; /* 0 empty, else key + 1 */
		uint32_t *vals;
	} h;                  /* pair index by key, in one block: */
	void *hmem;           /* lg_block_parts's */
	size_t hcap;          /* power of two */
};

void payoff_opts_default(struct payoff_opts *o)
{
	o->decay = 0.99;
	o->min_games = 1;
	o->prior = PAYOFF_PRIOR_HALF;
	o->prior_strength = 1;
	o->elo_k = 16;
}

int payoff_opts_check(const struct payoff_opts *o, char *err, size_t errlen)
{
	if (!(o->decay > 0 && o->decay <= 1)) {
		lg_errf(err, errlen, "payoff decay %g is not in (0, 1]",
			o->decay);
		return LG_EINVAL;
	}
	if (!(o->min_games >= 0 && o->min_games <= 1e9) ||
	    !(o->prior_strength >= 0 && o->prior_strength <= 1e6) ||
	    !(o->elo_k >= 0 && o->elo_k <= 1e3) ||
	    (o->prior != PAYOFF_PRIOR_HALF && o->prior != PAYOFF_PRIOR_BETA)) {
		lg_errf(err, errlen, "payoff min_games, prior, prior_strength "
			"or elo_k out of range");
		return LG_EINVAL;
	}
	return 0;
}

int payoff_new(payoff **out, const struct payoff_opts *o)
{
	payoff *p;

	*out = NULL;
	p = calloc(1, sizeof *p);
	if (!p)
		return LG_ENOMEM;
	if (o)
		p->o = *o;
	else
		payoff_opts_default(&p->o);
	if (payoff_opts_check(&p->o, NULL, 0)) {
		free(p);
		return LG_EINVAL;
	}
	*out = p;
	return 0;
}

void payoff_free(payoff *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->nagents; i++) {
		free(p->agents[i].row);
		free(p->agents[i].pairs);
	}
	free(p->agents);
	free(p->tracked);
	free(p->pairs);
	free(p->hmem);
	free(p);
}

uint32_t payoff_count(const payoff *p)
{
	return p->nagents;
}

static double entry_rate(const struct payoff_opts *o,
			 const struct payoff_entry *e)
{
	double w = e->wins + 0.5 * e->draws, r;

	if (o->prior == PAYOFF_PRIOR_BETA) {
		double s = o->prior_strength;
		if (!(e->games + s > 0))
			return 0.5;
		r = (w + 0.5 * s) / (e->games + s);
	} else {
		if (!(e->games > 0) || e->games < o->min_games)
			return 0.5;
		r = w / e->games;
	}
	if (!(r >= 0))
		return 0.0;
	return r > 1 ? 1.0 : r;
}

static struct payoff_entry mirror(const struct payoff_entry *e)
{
	struct payoff_entry m = { e->losses, e->draws, e->wins, e->games };
	return m;
}

/* ---- growth helpers ---------------------------------------------------- */

static int grow(void **ptr, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t c = *cap ? *cap : 8;
	void *n;

	if (need <= *cap)
		return 0;
	while (c < need)
		c = c > UINT32_MAX / 2 ? need : c * 2;
	n = realloc(*ptr, (size_t)c * elem);
	if (!n)
		return LG_ENOMEM;
	*ptr = n;
	*cap = c;
	return 0;
}

/* Every tracked row to capacity c (row_cap too). LG_ENOMEM: the rows
 * resized so far keep their new size, row_cap its old value. */
static int rows_resize(payoff *p, uint32_t c)
{
	for (uint32_t i = 0; i < p->ntracked; i++) {
		struct agent *t = &p->agents[p->tracked[i]];
		double *r = realloc(t->row, (size_t)c * sizeof *r);
		if (!r)
			return LG_ENOMEM;
		t->row = r;
	}
	p->row_cap = c;
	return 0;
}

int payoff_add(payoff *p, uint32_t id)
{
	int rc;

	if (id != p->nagents)
		return LG_EINVAL;
	if (id >= PAYOFF_MAX_AGENTS)
		return LG_EFULL;
	rc = grow((void **)&p->agents, &p->cap_agents, id + 1,
		  sizeof *p->agents);
	if (rc)
		return rc;
	if (id + 1 > p->row_cap && p->ntracked) {
		uint32_t c = p->row_cap ? p->row_cap * 2 : 64;
		rc = rows_resize(p, c);
		if (rc)
			return rc;
	}
	memset(&p->agents[id], 0, sizeof p->agents[id]);
	p->nagents++;
	for (uint32_t i = 0; i < p->ntracked; i++)
		p->agents[p->tracked[i]].row[id] = 0.5;
	return 0;
}

int payoff_track(payoff *p, uint32_t id)
{
	struct agent *a;
	int rc;

	if (id >= p->nagents)
		return LG_EINVAL;
	a = &p->agents[id];
	if (a->row)
		return 0;
	rc = grow((void **)&p->tracked, &p->cap_tracked, p->ntracked + 1,
		  sizeof *p->tracked);
	if (rc)
		return rc;
	if (p->row_cap < p->nagents || !p->row_cap) {
		uint32_t c = p->row_cap ? p->row_cap : 64;
		while (c < p->nagents)
			c *= 2;
		rc = rows_resize(p, c);
		if (rc)
			return rc;
	}
	a->row = malloc((size_t)p->row_cap * sizeof *a->row);
	if (!a->row)
		return LG_ENOMEM;
	for (uint32_t q = 0; q < p->nagents; q++)
		a->row[q] = payoff_win_rate(p, id, q);
	p->tracked[p->ntracked++] = id;
	return 0;
}

const double *payoff_row(const payoff *p, uint32_t id)
{
	return id < p->nagents ? p->agents[id].row : NULL;
}

/* ---- pair hash --------------------------------------------------------- */

static uint64_t pair_key(uint32_t a, uint32_t b)
{
	return (uint64_t)a << 32 | b;
}

static size_t hslot(uint64_t key, size_t cap)
{
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 17) & (cap - 1);
}

static int find_pair(const payoff *p, uint32_t a, uint32_t b, uint32_t *idx)
{
	uint64_t k = pair_key(a, b) + 1;
	size_t i;

	if (!p->hcap)
		return 0;
	for (i = hslot(k, p->hcap);; i = (i + 1) & (p->hcap - 1)) {
		if (p->h.keys[i] == 0)
			return 0;
		if (p->h.keys[i] == k) {
			*idx = p->h.vals[i];
			return 1;
		}
	}
}

static void hinsert(uint64_t *keys, uint32_t *vals, size_t cap, uint64_t k,
		    uint32_t v)
{
	size_t i;

	for (i = hslot(k, cap); keys[i]; i = (i + 1) & (cap - 1))
		;
	keys[i] = k;
	vals[i] = v;
}

static int agent_add_pair(struct agent *a, uint32_t idx)
{
	int rc = grow((void **)&a->pairs, &a->cap_pairs, a->npairs + 1,
		      sizeof *a->pairs);
	if (rc)
		return rc;
	a->pairs[a->npairs++] = idx;
	return 0;
}

/* Find or create the (a <= b) pair. */
static int get_pair(payoff *p, uint32_t a, uint32_t b, struct pair **out)
{
	uint32_t idx;
	int rc;

	if (find_pair(p, a, b, &idx)) {
		*out = &p->pairs[idx];
		return 0;
	}
	if ((size_t)(p->npairs + 1) * 2 > p->hcap) {
		size_t nc = p->hcap ? p->hcap * 2 : 64;
		const struct lg_part parts[] = {
			LG_PART(struct htab, keys, nc),
			LG_PART(struct htab, vals, nc),
		};
		struct htab n;
		void *mem = lg_block_parts(&n, parts, 2); /* keys all empty */
		if (!mem)
			return LG_ENOMEM;
		for (size_t i = 0; i < p->hcap; i++)
			if (p->h.keys[i])
				hinsert(n.keys, n.vals, nc, p->h.keys[i],
					p->h.vals[i]);
		free(p->hmem);
		p->h = n;
		p->hmem = mem;
		p->hcap = nc;
	}
	rc = grow((void **)&p->pairs, &p->cap_pairs, p->npairs + 1,
		  sizeof *p->pairs);
	if (rc)
		return rc;
	idx = p->npairs;
	if ((rc = agent_add_pair(&p->agents[a], idx)))
		return rc;
	if (a != b && (rc = agent_add_pair(&p->agents[b], idx))) {
		p->agents[a].npairs--;
		return rc;
	}
	p->pairs[idx].a = a;
	p->pairs[idx].b = b;
	memset(&p->pairs[idx].e, 0, sizeof p->pairs[idx].e);
	p->pairs[idx].ra = p->pairs[idx].rb = 0;
	p->npairs++;
	hinsert(p->h.keys, p->h.vals, p->hcap, pair_key(a, b) + 1, idx);
	*out = &p->pairs[idx];
	return 0;
}

static void refresh_rows(payoff *p, uint32_t a, uint32_t b)
{
	if (p->agents[a].row)
		p->agents[a].row[b] = payoff_win_rate(p, a, b);
	if (a != b && p->agents[b].row)
		p->agents[b].row[a] = payoff_win_rate(p, b, a);
}

/* ---- counts ------------------------------------------------------------ */

/* Every count of e times the decay d, before a new game is added. */
static void entry_decay(struct payoff_entry *e, double d)
{
	e->wins *= d;
	e->draws *= d;
	e->losses *= d;
	e->games *= d;
}

/* The online Elo step of one game of pair pr, sa its score from pr->a's
 * side (1 win, 0.5 draw, 0 loss, or PSRO's score). */
static void elo_step(payoff *p, const struct pair *pr, double sa)
{
	struct agent *x = &p->agents[pr->a], *y = &p->agents[pr->b];
	double ea = 1.0 / (1.0 + pow(10.0, (y->elo - x->elo) / 400.0));

	x->elo += p->o.elo_k * (sa - ea);
	y->elo -= p->o.elo_k * (sa - ea);
	x->elo_games += 1;
	y->elo_games += 1;
}

int payoff_record(payoff *p, uint32_t a, uint32_t b, int outcome)
{
	struct pair *pr;
	struct payoff_entry *e;
	double d = p->o.decay;
	int rc;

	if (a >= p->nagents || b >= p->nagents || outcome < -1 || outcome > 1)
		return LG_EINVAL;
	rc = get_pair(p, LG_MIN(a, b), LG_MAX(a, b), &pr);
	if (rc)
		return rc;
	e = &pr->e;
	if (a > b)
		outcome = -outcome; /* the pair is stored from min's side */
	entry_decay(e, d);
	pr->ra *= d;
	pr->rb *= d;
	if (outcome > 0)
		e->wins += 1;
	else if (outcome < 0)
		e->losses += 1;
	else
		e->draws += 1;
	e->games += 1;
	refresh_rows(p, a, b);
	if (a != b)
		elo_step(p, pr, outcome > 0 ? 1.0 : outcome < 0 ? 0.0 : 0.5);
	return 0;
}

int payoff_record_score(payoff *p, uint32_t a, uint32_t b, double s)
{
	struct pair *pr;
	struct payoff_entry *e;
	double d = p->o.decay;
	int rc;

	if (a >= p->nagents || b >= p->nagents || a == b || !(s >= 0) ||
	    !(s <= 1))
		return LG_EINVAL;
	if ((rc = get_pair(p, LG_MIN(a, b), LG_MAX(a, b), &pr)))
		return rc;
	e = &pr->e;
	entry_decay(e, d);
	pr->ra *= d;
	pr->rb *= d;
	/* the pair is stored from min's side */
	e->wins += a < b ? s : 1 - s;
	e->losses += a < b ? 1 - s : s;
	e->games += 1;
	refresh_rows(p, a, b);
	elo_step(p, pr, a < b ? s : 1 - s);
	return 0;
}

int payoff_record_returns(payoff *p, uint32_t a, uint32_t b, double s,
			  double ra, double rb)
{
	uint32_t idx;
	int rc;

	if (!isfinite(ra) || !isfinite(rb))
		return LG_EINVAL;
	if ((rc = payoff_record_score(p, a, b, s)))
		return rc;
	find_pair(p, LG_MIN(a, b), LG_MAX(a, b), &idx);
	/* stored from min's side, already decayed by the game's score */
	p->pairs[idx].ra += a < b ? ra : rb;
	p->pairs[idx].rb += a < b ? rb : ra;
	return 0;
}

int payoff_returns(const payoff *p, uint32_t a, uint32_t b, double *ra,
		   double *rb)
{
	uint32_t idx;

	*ra = *rb = 0;
	if (a >= p->nagents || b >= p->nagents)
		return LG_EINVAL;
	if (find_pair(p, LG_MIN(a, b), LG_MAX(a, b), &idx)) {
		*ra = a <= b ? p->pairs[idx].ra : p->pairs[idx].rb;
		*rb = a <= b ? p->pairs[idx].rb : p->pairs[idx].ra;
	}
	return 0;
}

int payoff_set_returns(payoff *p, uint32_t a, uint32_t b, double ra,
		       double rb)
{
	struct pair *pr;
	int rc;

	if (a >= p->nagents || b >= p->nagents || !isfinite(ra) ||
	    !isfinite(rb))
		return LG_EINVAL;
	if ((rc = get_pair(p, LG_MIN(a, b), LG_MAX(a, b), &pr)))
		return rc;
	pr->ra = a <= b ? ra : rb;
	pr->rb = a <= b ? rb : ra;
	return 0;
}

int payoff_get(const payoff *p, uint32_t a, uint32_t b,
	       struct payoff_entry *e)
{
	uint32_t idx;

	memset(e, 0, sizeof *e);
	if (a >= p->nagents || b >= p->nagents)
		return LG_EINVAL;
	if (!find_pair(p, LG_MIN(a, b), LG_MAX(a, b), &idx))
		return 0;
	*e = a <= b ? p->pairs[idx].e : mirror(&p->pairs[idx].e);
	return 0;
}

static int entry_ok(const struct payoff_entry *e)
{
	return isfinite(e->wins) && isfinite(e->draws) &&
	       isfinite(e->losses) && isfinite(e->games) && e->wins >= 0 &&
	       e->draws >= 0 && e->losses >= 0 && e->games >= 0;
}

int payoff_set(payoff *p, uint32_t a, uint32_t b,
	       const struct payoff_entry *e)
{
	struct pair *pr;
	int rc;

	if (a >= p->nagents || b >= p->nagents || !entry_ok(e))
		return LG_EINVAL;
	rc = get_pair(p, LG_MIN(a, b), LG_MAX(a, b), &pr);
	if (rc)
		return rc;
	pr->e = a <= b ? *e : mirror(e);
	refresh_rows(p, a, b);
	return 0;
}

double payoff_win_rate(const payoff *p, uint32_t a, uint32_t b)
{
	struct payoff_entry e;

	if (payoff_get(p, a, b, &e))
		return 0.5;
	return entry_rate(&p->o, &e);
}

int payoff_clear(payoff *p, uint32_t a,
		 void (*cb)(void *arg, uint32_t a, uint32_t b), void *arg)
{
	struct agent *ag;

	if (a >= p->nagents)
		return LG_EINVAL;
	ag = &p->agents[a];
	for (uint32_t i = 0; i < ag->npairs; i++) {
		struct pair *pr = &p->pairs[ag->pairs[i]];
		uint32_t b = pr->a == a ? pr->b : pr->a;
		if (!(pr->e.games > 0) && !pr->e.wins && !pr->e.losses &&
		    !pr->e.draws)
			continue;
		memset(&pr->e, 0, sizeof pr->e);
		pr->ra = pr->rb = 0;
		refresh_rows(p, a, b);
		if (cb)
			cb(arg, a, b);
	}
	return 0;
}

int payoff_move(payoff *p, uint32_t from, uint32_t to,
		void (*cb)(void *arg, uint32_t a, uint32_t b), void *arg)
{
	uint32_t np;
	int rc;

	if (from >= p->nagents || to >= p->nagents || from == to)
		return LG_EINVAL;
	np = p->agents[from].npairs;
	for (uint32_t k = 0; k < np; k++) {
		/* by index: get_pair below may move p->pairs */
		uint32_t idx = p->agents[from].pairs[k];
		struct pair pr = p->pairs[idx];
		uint32_t q = pr.a == from ? pr.b : pr.a;
		struct payoff_entry e = pr.a == from ? pr.e : mirror(&pr.e);
		double rf = pr.a == from ? pr.ra : pr.rb;
		double rq = pr.a == from ? pr.rb : pr.ra;
		struct pair *np_;

		if (!(e.games > 0) && !e.wins && !e.draws && !e.losses)
			continue;
		memset(&p->pairs[idx].e, 0, sizeof p->pairs[idx].e);
		p->pairs[idx].ra = p->pairs[idx].rb = 0;
		refresh_rows(p, from, q);
		if (cb)
			cb(arg, from, q);
		if (q == from || q == to)
			continue; /* self-play of parameters now gone */
		if ((rc = get_pair(p, LG_MIN(to, q), LG_MAX(to, q), &np_)))
			return rc;
		np_->e = to <= q ? e : mirror(&e);
		np_->ra = to <= q ? rf : rq;
		np_->rb = to <= q ? rq : rf;
		refresh_rows(p, to, q);
		if (cb)
			cb(arg, to, q);
	}
	p->agents[to].elo = p->agents[from].elo;
	p->agents[to].elo_games = p->agents[from].elo_games;
	p->agents[from].elo = 0;
	p->agents[from].elo_games = 0;
	return 0;
}

/* ---- Elo --------------------------------------------------------------- */

double payoff_elo(const payoff *p, uint32_t id)
{
	return id < p->nagents ? p->agents[id].elo : 0.0;
}

double payoff_elo_games(const payoff *p, uint32_t id)
{
	return id < p->nagents ? p->agents[id].elo_games : 0.0;
}

int payoff_set_elo(payoff *p, uint32_t id, double elo, double games)
{
	if (id >= p->nagents || !isfinite(elo) || !isfinite(games))
		return LG_EINVAL;
	p->agents[id].elo = elo;
	p->agents[id].elo_games = games;
	return 0;
}

#define ELO_CLAMP 4800.0

/*
 * The scale c that maximises the prior's likelihood of c * g: the pairs'
 * terms depend on ratios only, so this step never lowers the likelihood,
 * and it moves at once along the direction MM crawls along when the
 * prior is weak against many games (every rating up or down together:
 * a dense 1,000-player matrix took the full 20,000 sweeps without it).
 * c solves sum_i c g_i / (c g_i + 1) = n / 2, by Newton on log c.
 */
static double prior_scale(const double *g, size_t n)
{
	double t = 0;

	for (int it = 0; it < 60; it++) {
		double c = exp(t), f = -0.5 * (double)n, df = 0;
		for (size_t i = 0; i < n; i++) {
			double x = c * g[i];
			f += x / (x + 1);
			df += x / ((x + 1) * (x + 1));
		}
		if (!(df > 0))
			break;
		double step = LG_MAX(-4.0, LG_MIN(4.0, f / df));
		t -= step;
		if (fabs(step) < 1e-14)
			break;
	}
	return exp(t);
}

int payoff_elo_fit(const payoff *p, const uint32_t *ids, size_t n,
		   double prior, double *out)
{
	return payoff_elo_fit_se(p, ids, n, prior, out, NULL);
}

/* se[i] from the fitted strengths g (the anchor's 1 in the prior's
 * draws); loc maps agents to their index. */
static void elo_se(const payoff *p, const uint32_t *loc, const double *g,
		   size_t n, double prior, double *se)
{
	for (size_t i = 0; i < n; i++) {
		double q = g[i] / (g[i] + 1.0);
		se[i] = prior * q * (1 - q);
	}
	for (uint32_t k = 0; k < p->npairs; k++) {
		const struct pair *pr = &p->pairs[k];
		uint32_t i = loc[pr->a], j = loc[pr->b];
		double q;
		if (pr->a == pr->b || i == UINT32_MAX || j == UINT32_MAX ||
		    !(pr->e.games > 0))
			continue;
		q = g[i] / (g[i] + g[j]);
		se[i] += pr->e.games * q * (1 - q);
		se[j] += pr->e.games * q * (1 - q);
	}
	for (size_t i = 0; i < n; i++)
		se[i] = se[i] > 0 ? 400.0 / log(10.0) / sqrt(se[i]) : NAN;
}

/* loc[] (p->nagents: each agent's index in ids, UINT32_MAX outside) and
 * the starting strengths g[i] = 1. LG_EINVAL on an unknown id. */
static int elo_index(const payoff *p, const uint32_t *ids, size_t n,
		     uint32_t *loc, double *g)
{
	for (uint32_t i = 0; i < p->nagents; i++)
		loc[i] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		if (ids[i] >= p->nagents)
			return LG_EINVAL;
		loc[ids[i]] = (uint32_t)i;
		g[i] = 1.0;
	}
	return 0;
}

/* W_i: wins + draws/2 of i against the others in the set, into w
 * (zeroed by the caller). */
static void elo_wins(const payoff *p, const uint32_t *loc, double *w)
{
	for (uint32_t k = 0; k < p->npairs; k++) {
		const struct pair *pr = &p->pairs[k];
		uint32_t i = loc[pr->a], j = loc[pr->b];
		if (pr->a == pr->b || i == UINT32_MAX || j == UINT32_MAX)
			continue;
		w[i] += pr->e.wins + 0.5 * pr->e.draws;
		w[j] += pr->e.losses + 0.5 * pr->e.draws;
	}
}

/* One MM sweep over the strengths g (clamped to [lo, hi]), den its
 * workspace, then the scale: the prior's best (prior > 0) or the
 * geometric mean pinned to 1. Returns the largest relative change. */
static double elo_sweep(const payoff *p, const uint32_t *loc, size_t n,
			double prior, const double *w, double *g, double *den,
			double lo, double hi)
{
	double change = 0;

	for (size_t i = 0; i < n; i++)
		den[i] = prior / (g[i] + 1.0);
	for (uint32_t k = 0; k < p->npairs; k++) {
		const struct pair *pr = &p->pairs[k];
		uint32_t i = loc[pr->a], j = loc[pr->b];
		double m;
		if (pr->a == pr->b || i == UINT32_MAX ||
		    j == UINT32_MAX || !(pr->e.games > 0))
			continue;
		m = pr->e.games / (g[i] + g[j]);
		den[i] += m;
		den[j] += m;
	}
	for (size_t i = 0; i < n; i++) {
		double num = w[i] + 0.5 * prior, ng;
		if (!(den[i] > 0))
			continue; /* never played: stays put */
		ng = num / den[i];
		if (ng < lo)
			ng = lo;
		if (ng > hi)
			ng = hi;
		change = LG_MAX(change, fabs(ng - g[i]) / g[i]);
		g[i] = ng;
	}
	if (prior > 0) {
		double c = prior_scale(g, n);
		for (size_t i = 0; i < n; i++)
			g[i] = LG_MIN(hi, LG_MAX(lo, g[i] * c));
		change = LG_MAX(change, fabs(c - 1));
	}
	/* The scale is free without a prior: pin the geometric mean
	 * so the clamps act on ratings, not on drift. */
	if (prior == 0) {
		double lm = 0;
		for (size_t i = 0; i < n; i++)
			lm += log(g[i]);
		lm = exp(lm / (double)n);
		for (size_t i = 0; i < n; i++)
			g[i] = LG_MIN(hi, LG_MAX(lo, g[i] / lm));
	}
	return change;
}

int payoff_elo_fit_se(const payoff *p, const uint32_t *ids, size_t n,
		      double prior, double *out, double *se)
{
	/* local index of each agent (UINT32_MAX: not in ids) */
	uint32_t *loc = NULL;
	double *g = NULL, *w = NULL, *den = NULL;
	double lo = pow(10.0, -ELO_CLAMP / 400.0), hi = 1.0 / lo, mean = 0;
	int rc = 0;

	if (!(prior >= 0) || !isfinite(prior))
		return LG_EINVAL;
	if (!n)
		return 0;
	loc = malloc((size_t)p->nagents * sizeof *loc);
	g = malloc(n * sizeof *g);
	w = calloc(n, sizeof *w);
	den = malloc(n * sizeof *den);
	if (!loc || !g || !w || !den) {
		rc = LG_ENOMEM;
		goto out;
	}
	if ((rc = elo_index(p, ids, n, loc, g)))
		goto out;
	elo_wins(p, loc, w);
	for (int sweep = 0; sweep < 20000; sweep++)
		if (elo_sweep(p, loc, n, prior, w, g, den, lo, hi) < 1e-11)
			break;
	if (se)
		elo_se(p, loc, g, n, prior, se);
	for (size_t i = 0; i < n; i++) {
		out[i] = 400.0 * log10(g[i]);
		mean += out[i];
	}
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		out[i] -= mean;
out:
	free(loc);
	free(g);
	free(w);
	free(den);
	return rc;
}

/* One cell of the matrix: the counts of a against b (empty: the prior). */
static void matrix_cell(const payoff *p, const struct payoff_entry *e,
			size_t k, double *win_rate, double *games)
{
	if (win_rate)
		win_rate[k] = entry_rate(&p->o, e);
	if (games)
		games[k] = e->games;
}

/* ids[] with a repeated id: pair by pair through the hash map. */
static void matrix_lookup(const payoff *p, const uint32_t *ids, size_t n,
			  double *win_rate, double *games)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			struct payoff_entry e;
			payoff_get(p, ids[i], ids[j], &e);
			matrix_cell(p, &e, i * n + j, win_rate, games);
		}
}

int payoff_matrix(const payoff *p, const uint32_t *ids, size_t n,
		  double *win_rate, double *games)
{
	const struct payoff_entry none = { 0, 0, 0, 0 };
	uint32_t *pos;

	for (size_t i = 0; i < n; i++)
		if (ids[i] >= p->nagents)
			return LG_EINVAL;
	if (!(pos = malloc(sizeof *pos * (p->nagents ? p->nagents : 1))))
		return LG_ENOMEM;
	memset(pos, 0xff, sizeof *pos * p->nagents);
	for (size_t i = 0; i < n; i++) {
		if (pos[ids[i]] != UINT32_MAX) {
			matrix_lookup(p, ids, n, win_rate, games);
			free(pos);
			return 0;
		}
		pos[ids[i]] = (uint32_t)i;
	}
	/* Every cell empty, then each row's pairs from its agent's list: a
	 * walk over the pairs that exist instead of n * n hash lookups (the
	 * matrix of a 1,000-player league is a million cells). */
	for (size_t k = 0; k < n * n; k++)
		matrix_cell(p, &none, k, win_rate, games);
	for (size_t i = 0; i < n; i++) {
		const struct agent *ag = &p->agents[ids[i]];
		for (uint32_t k = 0; k < ag->npairs; k++) {
			const struct pair *pr = &p->pairs[ag->pairs[k]];
			uint32_t other = pr->a == ids[i] ? pr->b : pr->a;
			struct payoff_entry e = pr->a == ids[i] ? pr->e :
						mirror(&pr->e);
			if (pos[other] != UINT32_MAX)
				matrix_cell(p, &e, i * n + pos[other],
					    win_rate, games);
		}
	}
	free(pos);
	return 0;
}

/* ---- storage ----------------------------------------------------------- */

/* A pair record: the entry's four counts, f64 each, in turn. */
#define ENTRY(at, member) LG_FIELD(F64, at, struct payoff_entry, member)
static const struct lg_field entry_fields[] = {
	ENTRY(0, wins), ENTRY(8, draws), ENTRY(16, losses), ENTRY(24, games),
};
static const struct lg_record entry_rec =
	LG_RECORD(PAYOFF_ENTRY_BYTES, entry_fields);

void payoff_entry_encode(const struct payoff_entry *e,
			 uint8_t out[PAYOFF_ENTRY_BYTES])
{
	lg_record_put(out, &entry_rec, e);
}

int payoff_entry_decode(const void *v, size_t len, struct payoff_entry *e)
{
	if (lg_record_get(v, len, &entry_rec, e))
		return LG_ECORRUPT;
	return entry_ok(e) ? 0 : LG_ECORRUPT;
}

int payoff_pair_decode(const void *v, size_t len, struct payoff_entry *e,
		       double *ra, double *rb)
{
	const uint8_t *r = (const uint8_t *)v + PAYOFF_ENTRY_BYTES;
	int two = len == PAYOFF_PAIR_BYTES;

	*ra = two ? lg_get_lef64(r) : 0;
	*rb = two ? lg_get_lef64(r + 8) : 0;
	if (!isfinite(*ra) || !isfinite(*rb))
		return LG_ECORRUPT;
	return payoff_entry_decode(v, two ? PAYOFF_ENTRY_BYTES : len, e);
}

static int load_pair(const void *key, size_t klen, const void *val,
		     size_t vlen, void *arg)
{
	payoff *p = arg;
	struct payoff_entry e;
	double ra, rb;
	uint32_t a, b;
	int rc;

	if (klen != 8)
		return LG_ECORRUPT;
	a = lg_get_be32(key);
	b = lg_get_be32((const uint8_t *)key + 4);
	if (a > b)
		return 0; /* the mirror; the a <= b record is the source */
	if (payoff_pair_decode(val, vlen, &e, &ra, &rb) || a >= p->nagents ||
	    b >= p->nagents)
		return LG_ECORRUPT;
	if ((rc = payoff_set(p, a, b, &e)) || !(ra || rb))
		return rc;
	return payoff_set_returns(p, a, b, ra, rb);
}

static int load_rating(const void *key, size_t klen, const void *val,
		       size_t vlen, void *arg)
{
	payoff *p = arg;
	uint32_t id;

	if (klen != 4 || vlen != PAYOFF_RATING_BYTES)
		return LG_ECORRUPT;
	id = lg_get_be32(key);
	if (id >= p->nagents)
		return LG_ECORRUPT;
	if (payoff_set_elo(p, id, lg_get_lef64(val),
			   lg_get_lef64((const uint8_t *)val + 8)))
		return LG_ECORRUPT;
	return 0;
}

int payoff_load(payoff *p, store_txn *t)
{
	int rc = store_iter(t, STORE_DB_PAYOFF, NULL, 0, load_pair, p);

	if (rc)
		return rc;
	return store_iter(t, STORE_DB_RATINGS, NULL, 0, load_rating, p);
}

/* A pair record from one side: the counts, and the return sums when
 * either is not 0 (a league under measure win stores what it did). */
static size_t pair_encode(const struct payoff_entry *e, double ra, double rb,
			  uint8_t v[PAYOFF_PAIR_BYTES])
{
	payoff_entry_encode(e, v);
	if (!ra && !rb)
		return PAYOFF_ENTRY_BYTES;
	lg_put_lef64(v + PAYOFF_ENTRY_BYTES, ra);
	lg_put_lef64(v + PAYOFF_ENTRY_BYTES + 8, rb);
	return PAYOFF_PAIR_BYTES;
}

int payoff_store_pair(const payoff *p, store_txn *t, uint32_t a, uint32_t b)
{
	struct payoff_entry e;
	uint8_t k[8], v[PAYOFF_PAIR_BYTES];
	double ra, rb;
	size_t vl;
	int rc;

	if ((rc = payoff_get(p, a, b, &e)) ||
	    (rc = payoff_returns(p, a, b, &ra, &rb)))
		return rc;
	if (!(e.games > 0) && !e.wins && !e.draws && !e.losses) {
		store_key_u32x2(k, a, b);
		rc = store_del(t, STORE_DB_PAYOFF, k, 8);
		if (rc && rc != LG_ENOTFOUND)
			return rc;
		store_key_u32x2(k, b, a);
		rc = store_del(t, STORE_DB_PAYOFF, k, 8);
		return rc == LG_ENOTFOUND ? 0 : rc;
	}
	store_key_u32x2(k, a, b);
	vl = pair_encode(&e, ra, rb, v);
	if ((rc = store_put(t, STORE_DB_PAYOFF, k, 8, v, vl)))
		return rc;
	if (a == b)
		return 0;
	e = mirror(&e);
	store_key_u32x2(k, b, a);
	vl = pair_encode(&e, rb, ra, v);
	return store_put(t, STORE_DB_PAYOFF, k, 8, v, vl);
}

int payoff_store_rating(const payoff *p, store_txn *t, uint32_t id)
{
	uint8_t k[4], v[PAYOFF_RATING_BYTES];

	if (id >= p->nagents)
		return LG_EINVAL;
	store_key_u32(k, id);
	lg_put_lef64(v, p->agents[id].elo);
	lg_put_lef64(v + 8, p->agents[id].elo_games);
	return store_put(t, STORE_DB_RATINGS, k, 4, v, sizeof v);
}
