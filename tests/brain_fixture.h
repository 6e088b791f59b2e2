/* tests/brain_fixture.h: a brain on a store in a fresh temp directory,
 * for the suites that drive the brain directly (check_players,
 * check_prune, check_psro, check_roles, check_ladder), and N-seat
 * options and snapshots for the last two. */
#ifndef LG_TESTS_BRAIN_FIXTURE_H
#define LG_TESTS_BRAIN_FIXTURE_H

#include <check.h>

#include "players/players.h"
#include "storage/storage.h"
#include "tests/testutil.h"

struct fx {
	char dir[128];
	store *s;
	brain *b;
};

/* Open the brain with o (NULL: defaults) on f->dir, a fresh directory
 * when fresh, without fsync. */
static inline void fx_open(struct fx *f, const struct brain_opts *o,
			   int fresh)
{
	struct store_opts so = { STORE_NOSYNC, 0, 0 };
	char err[256] = "";

	if (fresh)
		tu_mkdtemp(f->dir, sizeof f->dir);
	ck_assert_int_eq(store_open(&f->s, f->dir, &so, err, sizeof err), 0);
	ck_assert_msg(brain_open(&f->b, f->s, o, err, sizeof err) == 0, "%s",
		      err);
}

/* Close it; remove the directory when remove. */
static inline void fx_close(struct fx *f, int remove)
{
	ck_assert_int_eq(brain_close(f->b), 0);
	store_close(f->s);
	f->b = NULL;
	f->s = NULL;
	if (remove)
		tu_rmrf(f->dir);
}

/* Replay the log of the league in dir (opened read-only) into a fresh
 * brain c opened with o, left open: brain_replay's return, the entries
 * it checked in *n, its error in err. */
static inline int fx_replay(struct fx *c, const struct brain_opts *o,
			    const char *dir, uint64_t *n, char *err,
			    size_t errlen)
{
	struct store_opts ro = { STORE_RDONLY, 0, 0 };
	store *src = NULL;
	int rc;

	fx_open(c, o, 1);
	ck_assert_int_eq(store_open(&src, dir, &ro, NULL, 0), 0);
	rc = brain_replay(src, c->b, n, err, errlen);
	store_close(src);
	return rc;
}

/* seats: n, each its own team (t NULL) or teams t; measure m. */
static inline void fx_seat_opts(struct brain_opts *o, uint32_t n,
				const uint8_t *t, int m)
{
	brain_opts_default(o);
	o->seats = n;
	for (uint32_t s = 0; s < n && s < BRAIN_MAX_SEATS; s++)
		o->team[s] = t ? t[s] : (uint8_t)s;
	o->measure = m;
	o->snapshot_steps = 10;
	o->snapshot_max_mult = 1;
}

/* Learner 0 snapshots k times (agents 1.. are its snapshots). */
static inline void fx_snapshots(brain *b, uint32_t k)
{
	struct brain_player p;
	struct brain_step_report r;

	for (uint32_t i = 0; i < k; i++) {
		brain_player_info(b, 0, &p);
		ck_assert_int_eq(brain_report_steps(b, 0, p.steps + 10,
						    p.version + 1, &r),
				 0);
		ck_assert(r.snapshot);
	}
}

#endif
