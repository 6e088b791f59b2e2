/*
 * league/validate.c: what the daemon believes of its workers. A worker
 * that speaks the protocol correctly may still lie: a parameter version
 * that is no network of the league's model (or holds NaN), a step count
 * that leaps ahead, an episode longer than the game allows or a return
 * that is not a number. These checks sit between the handlers and the
 * store: a version is stored only when it loads as the player's model,
 * player_steps advances only by what the learner could have trained on,
 * and an episode counts only when the game could have played it.
 *
 * The game's spec and the model's shape are read once, at the start
 * (daemon_game_load). A remote game whose server is not up then leaves
 * them unknown: parameters are then checked as a network of any shape
 * (whole, finite) and episodes against DAEMON_STEPS_CAP.
 */
#include "league/daemon_internal.h"
#include "conf/options.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int daemon_game_load(league_daemon *d)
{
	const struct cfg *c = &d->cfg;
	struct env_opts eo;
	char err[400] = "";

	league_env_opts(c, &eo);
	if (env_check(c->env.plugin[0] || c->env.remote[0] ? NULL
							   : c->env.name,
		      &eo, &d->spec, err, sizeof err)) {
		LG_WARN("daemon: the game does not open here (%s): parameters "
			"are checked as networks of any shape, episodes "
			"against %llu steps", err,
			(unsigned long long)DAEMON_STEPS_CAP);
		d->have_game = 0;
		return 0;
	}
	league_nn_shape(c, &d->spec, &d->shape);
	d->have_game = 1;
	return 0;
}

int daemon_params_check(const league_daemon *d, const void *blob,
			size_t len, char *err, size_t errlen)
{
	return nn_check_blob(blob, len, d->have_game ? &d->shape : NULL, err,
			     errlen);
}

/* ---- player_steps ----------------------------------------------------------- */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

struct inflight {
	uint32_t player;
	uint64_t max_steps, steps;
};

static int inflight_cb(const struct league_job *j, int leased, double left,
		       void *arg)
{
	struct inflight *f = arg;

	if (!leased)
		return 0; /* no rows yet */
	for (int s = 0; s < league_job_seats(j); s++)
		if (j->seat[s].learning && !j->seat[s].baseline &&
		    j->seat[s].player == f->player)
			f->steps = sat_add(f->steps, sat_mul(
				j->episodes, f->max_steps));
	return 0;
}

uint64_t daemon_steps_allowed(league_daemon *d, uint32_t player,
			      uint64_t have)
{
	const struct cfg *c = &d->cfg;
	struct learner *l = &d->learners[player];
	struct inflight f = { player, daemon_max_steps(d), 0 };
	uint64_t slack;

	league_leases_each(d->leases, lg_now_s(), inflight_cb, &f);
	slack = sat_mul(2 * c->learner.push_every,
			     c->learner.batch + c->collectors.segment_len);
	return sat_add(sat_add(have, l->steps_seen),
			    sat_add(slack, f.steps));
}

void daemon_steps_seen(league_daemon *d, const struct league_job *j,
		       uint64_t steps)
{
	for (int s = 0; s < league_job_seats(j); s++) {
		/* each learning seat: a simultaneous game gives every seat
		 * a row at every step */
		const struct league_seat *st = &j->seat[s];
		struct learner *l;
		if (st->learning && !st->baseline &&
		    (l = daemon_learner(d, st->player)))
			l->steps_seen = sat_add(l->steps_seen, steps);
	}
}

/* ---- episodes ----------------------------------------------------------------- */

uint64_t daemon_max_steps(const league_daemon *d)
{
	return d->have_game ? d->spec.max_steps : DAEMON_STEPS_CAP;
}

int daemon_episode_check(const league_daemon *d, const League__Episode *e,
			 char *why, size_t whylen)
{
	uint64_t max = daemon_max_steps(d);

	if (e->steps > max) {
		snprintf(why, whylen, "%llu steps, the game's max_steps is "
			 "%llu", (unsigned long long)e->steps,
			 (unsigned long long)max);
		return -1;
	}
	for (size_t i = 0; i < e->n_returns; i++)
		if (!isfinite(e->returns[i]) ||
		    fabs(e->returns[i]) > DAEMON_RETURN_CAP) {
			snprintf(why, whylen, "return %g of seat %zu (finite "
				 "and within +-%g)", e->returns[i], i,
				 DAEMON_RETURN_CAP);
			return -1;
		}
	return 0;
}

int daemon_result_check(league_session *ss, const League__JobResult *jr,
			const struct league_job *j, char *why, size_t whylen)
{
	size_t n = (size_t)league_job_seats(j);

	for (size_t i = 0; i < jr->n_episodes; i++)
		if (jr->episodes[i]->n_returns != n) {
			snprintf(why, whylen, "episode %zu has %zu returns, the "
				 "job has %zu seats", i,
				 jr->episodes[i]->n_returns, n);
			LG_WARN("daemon: collector %s: job %llu: result "
				"refused, nothing of it counted: %s",
				league_session_name(ss),
				(unsigned long long)jr->job_id, why);
			return -1;
		}
	return 0;
}

/* An episode's outcome for one seat: 1 won, 0 drawn, -1 lost, or
 * EP_UNUSABLE (abnormal, a return that is not a number). Its returns
 * are the job's seats' (daemon_result_check). */
#define EP_UNUSABLE 2
static int episode_outcome(const League__Episode *e, int seat)
{
	if (e->abnormal || (size_t)seat >= e->n_returns ||
	    !isfinite(e->returns[seat]))
		return EP_UNUSABLE;
	return e->returns[seat] > 0 ? 1 : e->returns[seat] < 0 ? -1 : 0;
}

uint64_t daemon_tally_episodes(league_daemon *d, league_session *ss,
			      const League__JobResult *jr,
			      const struct league_job *j,
			      struct league_tally *t, int8_t *out, double *ret,
			      double *seat_ret)
{
	uint64_t invalid = 0, before = d->invalid_episodes;
	size_t ns = (size_t)league_job_seats(j);
	char why[160];

	t->seat_returns = seat_ret;
	t->nseats = (uint32_t)ns;

	for (size_t i = 0; i < jr->n_episodes; i++) {
		const League__Episode *e = jr->episodes[i];
		int o;
		if (daemon_episode_check(d, e, why, sizeof why)) {
			/* a collector that sends only these must not
			 * fill the disk */
			if (!invalid++ && (before < 10 || !(before &
							    (before - 1))))
				LG_WARN("daemon: collector %s: job %llu: "
					"episode %zu not counted: %s (%llu "
					"episodes not counted before)",
					league_session_name(ss),
					(unsigned long long)jr->job_id, i,
					why, (unsigned long long)before);
			continue;
		}
		o = episode_outcome(e, j->subject);
		t->steps += e->steps;
		t->episodes++;
		if (o == EP_UNUSABLE)
			t->abnormal++;
		else {
			memcpy(seat_ret + t->n * ns, e->returns,
			       ns * sizeof *seat_ret);
			ret[t->n] = e->returns[j->subject];
			out[t->n++] = (int8_t)o;
		}
	}
	return invalid;
}
