/*
 * league/kind_baseline_train.c: main players trained against fixed
 * opponents (matchmaking.baselines). With matchmaking.baseline_share > 0,
 * every league job queued for a main player pays for that share of
 * episodes (share / (1 - share) per league episode) of jobs in which its
 * newest version plays one of the baselines, each player taking the
 * baselines and the game's seats in turn. Its seat learns as in any
 * training job (and its teammates' seats, copies of it, in a team game);
 * the baseline, in every other seat, is played by the collector inside
 * the env and never learns.
 *
 * The results count in the league's env steps and episodes, never in the
 * payoff matrix or the matchmaking (the brain never sees these jobs);
 * this run's wins and losses per baseline and seat are in the status
 * (`baseline_training`). A job's tag is its baseline (the index into the
 * kind's list).
 */
#include "league/daemon_internal.h"

#include <stdlib.h>

struct turn {
	double credit;               /* episodes owed */
	uint32_t next;               /* baselines x seats, taken in turn */
};

struct baseline_train {
	uint8_t base[CFG_BASELINES_MAX]; /* daemon baseline index + 1 */
	size_t nbase;
	double ratio;                /* baseline episodes per league one */
	struct turn *turn;           /* per player */
	uint32_t nturn;
	/* This run's results, by baseline and the main player's seat. */
	uint64_t games[CFG_BASELINES_MAX][LEAGUE_JOB_SEATS],
		wins[CFG_BASELINES_MAX][LEAGUE_JOB_SEATS],
		losses[CFG_BASELINES_MAX][LEAGUE_JOB_SEATS];
};

static int init(league_daemon *d, void **state, char *err, size_t errlen)
{
	char names[CFG_BASELINES_MAX][CFG_BASELINE_MAX];
	struct baseline_train *t;
	double share = d->cfg.matchmaking.baseline_share;

	if (!(share > 0))
		return 0;
	if (!(t = calloc(1, sizeof *t)))
		return LG_ENOMEM;
	*state = t;
	if (cfg_train_baselines(&d->cfg, names, &t->nbase, err, errlen))
		return LG_ECONFIG;
	if (!t->nbase) /* config validation refuses this */
		return 0;
	for (size_t i = 0; i < t->nbase; i++)
		t->base[i] = daemon_baseline_index(d, names[i]);
	t->ratio = share / (1 - share);
	/* Main players exist from the league's creation on. */
	t->nturn = d->nlearners;
	if (!(t->turn = calloc(t->nturn ? t->nturn : 1, sizeof *t->turn)))
		return LG_ENOMEM;
	return 0;
}

static void fini(league_daemon *d, void *state)
{
	struct baseline_train *t = state;

	if (t)
		free(t->turn);
	free(t);
}

/* One job of main player p's newest version against its next baseline
 * from its next seat. */
static int queue(league_daemon *d, struct baseline_train *t, uint32_t p)
{
	struct turn *u = &t->turn[p];
	uint32_t ns = (uint32_t)daemon_seats(d);
	uint32_t b = u->next / ns % (uint32_t)t->nbase;
	struct league_job j = {
		.id = daemon_job_id(d),
		.kind = &league_kind_baseline_train,
		.tag = b,
		.episodes = (uint32_t)d->cfg.matchmaking.job_episodes,
		.lease_s = d->cfg.matchmaking.job_lease_s,
	};
	struct league_seat mine = { .player = p,
				    .version = d->learners[p].newest,
				    .learning = 1 };
	struct league_seat base = { .player = p, .baseline = t->base[b] };

	/* an asymmetric game: only the seats of the player's role */
	for (uint32_t k = 0; k < ns && !daemon_seat_fits(d, p,
			(int)(u->next % ns)); k++)
		u->next++;
	daemon_seats_fill(d, &j, (int)(u->next % ns), &mine, &base);
	u->next++;
	return daemon_queue_job(d, &j);
}

/* A league job of a main player pays for its baseline games. */
static void queued(league_daemon *d, void *state, const struct league_job *j)
{
	struct baseline_train *t = state;
	uint32_t p = j->seat[j->subject].player;
	double per = (double)d->cfg.matchmaking.job_episodes;
	struct brain_player bp;

	if (!t || !t->nbase || j->kind != &league_kind_league ||
	    p >= t->nturn || !d->learners[p].has_params ||
	    brain_player_info(d->br, p, &bp) || bp.role != BRAIN_ROLE_MAIN)
		return;
	t->turn[p].credit += t->ratio * (double)j->episodes;
	while (t->turn[p].credit >= per) {
		int rc = queue(d, t, p);
		if (rc) {
			LG_WARN("daemon: baseline job: %s", lg_strerror(rc));
			break;
		}
		t->turn[p].credit -= per;
	}
}

static int result(league_daemon *d, void *state, const struct league_job *j,
		  const struct league_tally *tl)
{
	struct baseline_train *t = state;
	int s = j->subject;

	if (j->tag >= t->nbase)
		return KIND_IGNORED;
	for (size_t i = 0; i < tl->n; i++) {
		t->wins[j->tag][s] += tl->outcomes[i] == 1;
		t->losses[j->tag][s] += tl->outcomes[i] == -1;
	}
	t->games[j->tag][s] += tl->n;
	return KIND_COUNTED;
}

/* `"name": [v0, v1, ...]` over the game's seats. */
static void seats_json(lg_buf *b, const char *name, const uint64_t *v,
		       int n)
{
	lg_buf_printf(b, "\"%s\": [", name);
	for (int s = 0; s < n; s++)
		lg_buf_printf(b, "%s%llu", s ? ", " : "",
			      (unsigned long long)v[s]);
	lg_buf_printf(b, "]");
}

/* "baseline_training": this run's games per baseline, by the main
 * player's seat (arrays of the game's seats: seat 0 moves first). */
static void status(const league_daemon *d, const void *state, lg_buf *b)
{
	const struct baseline_train *t = state;
	int n = daemon_seats(d);

	if (!t || !t->nbase)
		return;
	lg_buf_printf(b, "\"baseline_training\": [");
	for (size_t i = 0; i < t->nbase; i++) {
		lg_buf_printf(b, "%s{\"baseline\": \"%s\", ", i ? ", " : "",
			      d->baselines[t->base[i] - 1]);
		seats_json(b, "games", t->games[i], n);
		lg_buf_printf(b, ", ");
		seats_json(b, "wins", t->wins[i], n);
		lg_buf_printf(b, ", ");
		seats_json(b, "losses", t->losses[i], n);
		lg_buf_printf(b, "}");
	}
	lg_buf_printf(b, "], ");
}

const struct league_kind league_kind_baseline_train = {
	.name = "baseline_train",
	.counts = 1,
	.init = init,
	.fini = fini,
	.queued = queued,
	.result = result,
	.status = status,
};
