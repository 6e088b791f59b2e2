/* tests/check_seats.c: jobs of N seats between the daemon and the
 * collector's envs (issue 38: "a job names a player for every seat").
 * Cases:
 *   - an in-process daemon of 3-player Kuhn: a 3-seat job made by hand
 *     goes out with 3 seats (the wire Job, /jobs); a result of 2 returns
 *     an episode is refused whole (nothing counted, the kind's drop
 *     called, the lease gone), one of 3 counts and the tally hands the
 *     kind every seat's returns of the usable episodes;
 *   - the other kinds' seats (daemon_seats_fill) on 3-player Kuhn,
 *     tiny_whist (two teams of two: teammates are copies), tiny_hanabi
 *     (one team: partners) and rock-paper-scissors (two seats, as before
 *     N seats), and the probe kind's job with a baseline in every seat;
 *   - a real collector (`league collect`) beside an in-process daemon
 *     plays a 3-seat Kuhn job and a 4-seat tiny_whist job: the result
 *     carries every seat's returns (zero-sum; teammates' equal) and every
 *     learning seat's rows reach its player's learner, one episode end a
 *     seat and episode (a player in two seats: two);
 *   - `league run` of 3-player Kuhn and of tiny_whist (two teams of two)
 *     with evaluation and baseline training jobs beside the league's:
 *     it ends by its jobs budget, every learner trained, the payoff
 *     counted and the main player evaluated from seats 0 and 1. */
#include <check.h>
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "league/daemon_internal.h"
#include "players/players.h"
#include "storage/storage.h"
#include "tests/proto.h"
#include "tests/testutil.h"

/* A small league of `env`: a main player (id 0; 1 is its snapshot) and
 * a main exploiter (id 2), no evaluation, a 600 s backstop. */
#define SEATS_YAML(env)                                                   \
	"league: {name: seats, seed: 5}\n"                                \
	"env: " env "\n"                                                  \
	"model: {hidden: [8]}\n"                                          \
	"players: {main: 1, main_exploiter: 1, league_exploiter: 0}\n"    \
	"matchmaking: {job_episodes: 4, job_lease_s: 60}\n"               \
	"snapshot: {steps: 1000000000}\n"                                 \
	"collectors: {envs: 2, wait_num: 1}\n"                            \
	"eval: {nashconv: false}\n"                                       \
	"budget: {seconds: 600}\n"

static const char *kuhn3_yaml = SEATS_YAML("{name: kuhn, params: "
					   "{players: 3}}");
static const char *whist_yaml = SEATS_YAML("{name: tiny_whist}");
static const char *hanabi_yaml = SEATS_YAML("{name: tiny_hanabi}");
static const char *rps_yaml = SEATS_YAML("{name: rps}");

/* ---- a job kind that records what the daemon hands it ------------------ */

#define REC_MAX 64

static struct rec {
	int results, drops;
	struct { uint64_t id, episodes; } seen[8]; /* every result's */
	uint64_t job_id;
	uint32_t nseats;
	size_t n;
	uint64_t steps, abnormal, episodes;
	int8_t out[REC_MAX];
	double ret[REC_MAX], seat_ret[REC_MAX * ENV_MAX_PLAYERS];
} rec;

static int rec_result(league_daemon *d, void *state,
		      const struct league_job *j, const struct league_tally *t)
{
	ck_assert_uint_le(t->n, REC_MAX);
	ck_assert_uint_le(t->nseats, ENV_MAX_PLAYERS);
	if (rec.results < (int)LG_ARRAY_LEN(rec.seen)) {
		rec.seen[rec.results].id = j->id;
		rec.seen[rec.results].episodes = t->episodes;
	}
	rec.results++;
	rec.job_id = j->id;
	rec.nseats = t->nseats;
	rec.n = t->n;
	rec.steps = t->steps;
	rec.abnormal = t->abnormal;
	rec.episodes = t->episodes;
	memcpy(rec.out, t->outcomes, t->n);
	memcpy(rec.ret, t->returns, t->n * sizeof *rec.ret);
	memcpy(rec.seat_ret, t->seat_returns,
	       t->n * t->nseats * sizeof *rec.seat_ret);
	return KIND_COUNTED;
}

static void rec_drop(league_daemon *d, void *state,
		     const struct league_job *j)
{
	rec.drops++;
}

static const struct league_kind rec_kind = {
	.name = "recorder",
	.result = rec_result,
	.drop = rec_drop,
};

/* Queue a job of the recorder kind: n seats as given, episodes each. */
static void queue_job(league_daemon *d, struct league_job *j, int n,
		      const struct league_seat *seat, uint8_t subject,
		      uint32_t episodes)
{
	*j = (struct league_job){
		.id = daemon_job_id(d), .kind = &rec_kind,
		.episodes = episodes, .lease_s = 60, .subject = subject,
		.nseats = (uint8_t)n,
	};
	memcpy(j->seat, seat, (size_t)n * sizeof *seat);
	ck_assert_int_eq(daemon_queue_job(d, j), 0);
}

/* ---- the daemon ---------------------------------------------------------- */

/* A 3-seat job: packed with its 3 seats; a result of 2 returns an
 * episode refused whole; one of 3 counted, the kind handed every seat's
 * returns of the usable episodes in order. */
START_TEST(three_seat_job_packed_tallied_or_refused)
{
	static const double want[4][3] = {
		{ 2, -1, -1 }, { -1, -1, 2 }, { 0, 0, 0 }, { -1, 2, -1 } };
	static const int usable[3] = { 0, 1, 3 };
	const struct league_seat seat[3] = {
		{ .player = 0, .version = 0 },
		{ .player = 0, .baseline = 1 },
		{ .player = 2, .version = 0, .learning = 1 },
	};
	struct tp_league L;
	struct tp_peer col;
	struct tp_job ji;
	struct tp_result res;
	struct league_job j;
	struct league_page pg = { .from_start = 1, .limit = 10 };
	lg_buf js = { 0 };
	net_msg *r;

	lg_log_set_level(LG_LOG_ERROR);
	memset(&rec, 0, sizeof rec);
	tp_league_open(&L, kuhn3_yaml, 0, 0);
	ck_assert_int_eq(daemon_seats(L.d), 3);
	tp_attach(&L, &col, LEAGUE__ROLE__ROLE_COLLECTOR, "collector");
	tp_register_collector(&col, 4, 4);
	queue_job(L.d, &j, 3, seat, 2, 4);
	/* /jobs lists its three seats, each with its team and role */
	ck_assert_int_eq(daemon_jobs_json(L.d, &pg, &js), 0);
	ck_assert_int_eq(lg_buf_append(&js, "", 1), 0);
	ck_assert_msg(strstr((char *)js.data,
			     "\"seats\":[{\"player\":0,\"version\":0,"
			     "\"learning\":false,\"baseline\":0,\"team\":0,"
			     "\"role\":0},"
			     "{\"player\":0,\"version\":0,\"learning\":false,"
			     "\"baseline\":1,\"team\":1,\"role\":0},"
			     "{\"player\":2,\"version\":0,"
			     "\"learning\":true,\"baseline\":0,\"team\":2,"
			     "\"role\":0}]"),
		      "%s", (char *)js.data);
	lg_buf_free(&js);
	/* the wire Job names every seat */
	ck_assert(tp_take_job(&col, &ji));
	ck_assert_uint_eq(ji.id, j.id);
	ck_assert_int_eq(ji.nseats, 3);
	ck_assert(!ji.baseline_seat[0] && ji.baseline_seat[1] &&
		  !ji.baseline_seat[2]);
	ck_assert_str_eq(ji.baseline, "random");
	ck_assert_uint_eq(ji.player[2], 2);
	ck_assert(!ji.learning[0] && ji.learning[2]);

	/* two returns an episode from a 3-seat job: refused whole */
	tp_make_result(&res, j.id, 4, NULL, 1);
	r = tp_call(&col, &res.m);
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_BAD_REQUEST);
	ck_assert_str_eq(r->ack->error,
			 "episode 0 has 2 returns, the job has 3 seats");
	net_msg_free(r);
	ck_assert_int_eq(rec.results, 0);
	ck_assert_int_eq(rec.drops, 1);
	ck_assert_uint_eq(L.d->invalid_episodes, 0);
	/* its lease went with it: the right result now is stale */
	tp_result_seats(&res, 3);
	ck_assert_int_eq(tp_send_result(&col, &res),
			 LEAGUE__STATUS__STATUS_STALE);

	/* a second job, answered with every seat's returns (episode 2
	 * abnormal) */
	queue_job(L.d, &j, 3, seat, 2, 4);
	ck_assert(tp_take_job(&col, &ji));
	ck_assert_uint_eq(ji.id, j.id);
	tp_make_result(&res, j.id, 4, NULL, 0);
	tp_result_seats(&res, 3);
	for (int e = 0; e < 4; e++) {
		memcpy(res.ret[e], want[e], sizeof want[e]);
		res.ep[e].steps = 2 + (uint32_t)e;
	}
	res.ep[2].abnormal = 1;
	ck_assert_int_eq(tp_send_result(&col, &res),
			 LEAGUE__STATUS__STATUS_OK);
	ck_assert_int_eq(rec.results, 1);
	ck_assert_uint_eq(rec.job_id, j.id);
	ck_assert_uint_eq(rec.nseats, 3);
	ck_assert_uint_eq(rec.n, 3);
	ck_assert_uint_eq(rec.episodes, 4);
	ck_assert_uint_eq(rec.abnormal, 1);
	ck_assert_uint_eq(rec.steps, 2 + 3 + 4 + 5);
	for (int k = 0; k < 3; k++) {
		const double *w = want[usable[k]];
		for (int s = 0; s < 3; s++)
			ck_assert_double_eq(rec.seat_ret[k * 3 + s], w[s]);
		ck_assert_double_eq(rec.ret[k], w[2]); /* the subject's */
		ck_assert_int_eq(rec.out[k], w[2] > 0 ? 1 : -1);
	}
	tp_league_close(&L, 1);
}
END_TEST

/* The kinds other than the brain's fill every seat of the game: their
 * player in its seat and its teammates' (a game of teams), the other in
 * the rest; the probe kind's job has a baseline in every seat. */
START_TEST(other_kinds_fill_every_seat)
{
	static const struct {
		const char **yaml;
		int players, subject;
		int mine[4]; /* the seats that get `mine` */
	} g[] = {
		{ &kuhn3_yaml, 3, 2, { 0, 0, 1 } },
		{ &whist_yaml, 4, 1, { 0, 1, 0, 1 } },  /* teams 0 1 0 1 */
		{ &hanabi_yaml, 2, 0, { 1, 0 } },       /* one team */
		{ &rps_yaml, 2, 1, { 0, 1 } },
	};
	const struct league_seat mine = { .player = 0, .version = 7,
					  .learning = 1 };
	const struct league_seat other = { .player = 2, .baseline = 1 };
	struct tp_league L;
	struct tp_peer col;
	struct tp_job ji;
	struct tp_result res;
	struct league_job j;
	int n = 0;

	lg_log_set_level(LG_LOG_ERROR);
	for (size_t i = 0; i < LG_ARRAY_LEN(g); i++) {
		tp_league_open(&L, *g[i].yaml, 0, 1);
		memset(&j, 0xee, sizeof j);
		daemon_seats_fill(L.d, &j, g[i].subject, &mine, &other);
		ck_assert_int_eq(j.nseats, g[i].players);
		ck_assert_int_eq(league_job_seats(&j), g[i].players);
		ck_assert_int_eq(j.subject, g[i].subject);
		for (int s = 0; s < g[i].players; s++) {
			const struct league_seat *w = g[i].mine[s] ? &mine
								   : &other;
			ck_assert_msg(!memcmp(&j.seat[s], w, sizeof *w),
				      "game %zu seat %d", i, s);
		}
		/* the probe job: the first baseline in every seat */
		tp_attach(&L, &col, LEAGUE__ROLE__ROLE_COLLECTOR, "collector");
		tp_register_collector(&col, 4, 4);
		ck_assert(tp_take_job(&col, &ji));
		ck_assert_int_eq(ji.nseats, g[i].players);
		ck_assert_int_eq(ji.nbase_seats, g[i].players);
		tp_make_result(&res, ji.id, 1, NULL, 0);
		tp_result_seats(&res, (uint32_t)g[i].players);
		ck_assert_int_eq(tp_send_result(&col, &res),
				 LEAGUE__STATUS__STATUS_OK);
		tp_league_close(&L, 1);
		n++;
	}
	ck_assert_int_eq(n, 4);
}
END_TEST

/* ---- a real collector ---------------------------------------------------- */

/* One game for the collector: its league, the job's seats (player 0 is
 * the main player, 2 the main exploiter; baseline 1 the league's first,
 * random) and who its teammates are. */
struct nseat_game {
	const char **yaml;
	int n;
	struct league_seat seat[4];
	int team[4];
};

static const struct nseat_game nseat_games[] = {
	/* player 0 in two seats: one slot, one batch, both seats' rows */
	{ &kuhn3_yaml, 3, {
		{ .player = 0, .learning = 1 },
		{ .player = 2, .learning = 1 },
		{ .player = 0, .learning = 1 } },
	  { 0, 1, 2 } },
	/* team self-play in seats 0 and 2; seat 3 a baseline */
	{ &whist_yaml, 4, {
		{ .player = 0, .learning = 1 },
		{ .player = 2, .learning = 1 },
		{ .player = 0, .learning = 1 },
		{ .player = 2, .baseline = 1 } },
	  { 0, 1, 0, 1 } },
};

#define NSEAT_EPISODES 24

/* What the trajectory server took of one job, by player. */
struct taken {
	uint64_t rows[3], ends[3];
	uint64_t other_player; /* rows of another player: none expected */
};

static void take_segments(net_traj_server *ts, uint64_t job_id,
			  struct taken *tk, double wait_s)
{
	const struct net_segment *g;

	while (!net_traj_pop(ts, &g, wait_s)) {
		wait_s = 0;
		if (g->h.job_id == job_id) {
			if (g->h.player < 3 && g->h.player != 1) {
				tk->rows[g->h.player] += g->count;
				for (uint32_t i = 0; i < g->count; i++)
					tk->ends[g->h.player] +=
						g->done[i] == LG_ROW_END;
			} else {
				tk->other_player += g->count;
			}
		}
		net_traj_release(ts, g);
	}
}

/* An in-process daemon of the game, the fake learners of players 0 and 2
 * at a trajectory server of the test, and a real `league collect`. */
struct world {
	struct tp_league L;
	struct tp_peer lp[2];
	net_traj_server *ts;
	pid_t cp;
	char log[300];
	double t0;
};

static void world_open(struct world *w, const char *yaml)
{
	struct net_traj_server_opts to = { 0 };
	char err[256], ep[64];

	lg_log_set_level(LG_LOG_ERROR);
	memset(&rec, 0, sizeof rec);
	ck_assert_msg(net_traj_server_start(&w->ts, &to, err, sizeof err) ==
			      0, "%s", err);
	snprintf(ep, sizeof ep, "127.0.0.1:%u", net_traj_server_port(w->ts));
	tp_league_open(&w->L, yaml, 0, 0);
	for (int k = 0; k < 2; k++) {
		tp_attach(&w->L, &w->lp[k], LEAGUE__ROLE__ROLE_LEARNER,
			  "learner");
		ck_assert_int_eq(tp_fake_learner_at(&w->lp[k],
						    (uint32_t)(2 * k), ep),
				 LEAGUE__STATUS__STATUS_OK);
	}
	snprintf(w->log, sizeof w->log, "%s/collect.log", w->L.dir);
	w->t0 = lg_now_s();
}

/* The collector, once the jobs it is to take first are queued. */
static void world_collect(struct world *w)
{
	char addr[64];

	snprintf(addr, sizeof addr, "127.0.0.1:%u",
		 league_server_port(league_daemon_server(w->L.d)));
	const char *argv[] = { "league", "collect", "--connect", addr, NULL };
	w->cp = tu_spawn_worker(argv, w->log, 0);
}

/* The daemon's loop here and the learners' stream beside it until the
 * recorder has `results` results; the collector must live meanwhile. */
static void world_until(struct world *w, int results, uint64_t job_id,
			struct taken *tk)
{
	int st;

	while (rec.results + rec.drops < results) {
		int gone = waitpid(w->cp, &st, WNOHANG) == w->cp;
		if (gone || lg_now_s() - w->t0 > 120) {
			static char text[1 << 14];
			tu_read_text(w->log, text, sizeof text);
			ck_abort_msg("no result (the collector %s): %s",
				     gone ? "exited" : "runs 120 s", text);
		}
		event_base_loop(w->L.base, EVLOOP_NONBLOCK);
		take_segments(w->ts, job_id, tk, 0.005);
	}
}

/* Stop the collector (it must exit 0), taking what it still sends. */
static void world_close(struct world *w, uint64_t job_id, struct taken *tk)
{
	int st = 0;

	kill(w->cp, SIGTERM);
	while (waitpid(w->cp, &st, WNOHANG) == 0) {
		ck_assert_msg(lg_now_s() - w->t0 < 180,
			      "collector did not stop");
		event_base_loop(w->L.base, EVLOOP_NONBLOCK);
		take_segments(w->ts, job_id, tk, 0.005);
	}
	take_segments(w->ts, job_id, tk, 0.2);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x",
		      st);
	tp_league_close(&w->L, 1);
	net_traj_server_stop(w->ts);
}

/* The collector's job of N seats: every seat's returns in the result and
 * every learning seat's rows at its player's learner. */
START_TEST(collector_plays_every_seat)
{
	const struct nseat_game *gm = &nseat_games[_i];
	struct world w;
	struct league_job j;
	struct taken tk;

	memset(&tk, 0, sizeof tk);
	world_open(&w, *gm->yaml);
	queue_job(w.L.d, &j, gm->n, gm->seat, 0, NSEAT_EPISODES);
	world_collect(&w);
	world_until(&w, 1, j.id, &tk);
	world_close(&w, j.id, &tk);

	/* the result: every episode, every seat's return */
	ck_assert_int_eq(rec.results, 1);
	ck_assert_uint_eq(rec.nseats, (uint32_t)gm->n);
	ck_assert_uint_eq(rec.episodes, NSEAT_EPISODES);
	ck_assert_uint_eq(rec.n, NSEAT_EPISODES);
	int decided = 0;
	for (size_t e = 0; e < rec.n; e++) {
		const double *r = &rec.seat_ret[e * (size_t)gm->n];
		double sum = 0;
		for (int s = 0; s < gm->n; s++) {
			sum += r[s];
			for (int q = 0; q < gm->n; q++)
				if (gm->team[q] == gm->team[s])
					ck_assert_double_eq(r[q], r[s]);
		}
		ck_assert_double_eq_tol(sum, 0, 1e-9); /* both zero-sum */
		decided += r[0] != 0;
		ck_assert_double_eq(rec.ret[e], r[0]);
	}
	ck_assert_int_gt(decided, 0);
	/* the rows: each learning seat's episodes end once at its player's
	 * learner; a baseline's seat sends none */
	uint64_t seats_of[3] = { 0 };
	for (int s = 0; s < gm->n; s++)
		if (gm->seat[s].learning && !gm->seat[s].baseline)
			seats_of[gm->seat[s].player]++;
	for (int p = 0; p < 3; p += 2) {
		ck_assert_uint_eq(tk.ends[p], seats_of[p] * NSEAT_EPISODES);
		ck_assert_uint_ge(tk.rows[p], seats_of[p] * NSEAT_EPISODES);
	}
	ck_assert_uint_eq(tk.other_player, 0);
}
END_TEST

/* A job whose seats are not the game's players (two for 3-player Kuhn)
 * is reported at once with no episodes; the next, of three, plays. */
START_TEST(collector_refuses_a_job_of_other_seats)
{
	const struct nseat_game *gm = &nseat_games[0];
	struct world w;
	struct league_job bad, good;
	struct taken tk;
	static char text[1 << 14];
	char want[128];

	memset(&tk, 0, sizeof tk);
	world_open(&w, kuhn3_yaml);
	queue_job(w.L.d, &bad, 2, gm->seat, 0, 4);
	queue_job(w.L.d, &good, 3, gm->seat, 0, 4);
	world_collect(&w);
	world_until(&w, 2, bad.id, &tk);
	tu_read_text(w.log, text, sizeof text);
	snprintf(want, sizeof want, "job %llu malformed (2 seats, the game "
		 "has 3; 4 episodes)", (unsigned long long)bad.id);
	ck_assert_msg(strstr(text, want), "%s", text);
	world_close(&w, bad.id, &tk);
	ck_assert_int_eq(rec.results, 2);
	ck_assert_int_eq(rec.drops, 0);
	for (int k = 0; k < 2; k++)
		ck_assert_uint_eq(rec.seen[k].episodes,
				  rec.seen[k].id == bad.id ? 0 : 4);
	ck_assert(rec.seen[0].id != rec.seen[1].id);
	ck_assert(rec.seen[0].id == bad.id || rec.seen[1].id == bad.id);
	ck_assert_uint_eq(tk.rows[0] + tk.rows[2] + tk.other_player, 0);
}
END_TEST

/* ---- league run ----------------------------------------------------------- */

/* A league of N seats run by `league run` until its jobs budget (the
 * seconds a backstop); evaluation and baseline training take a share.
 * The exact evaluator is off: its oracle column solves a two-seat
 * meta-game. */
#define RUN_JOBS 40
#define RUN_STR2(x) #x
#define RUN_STR(x) RUN_STR2(x)
#define RUN_YAML(env)                                                     \
	"league: {name: seats-run, seed: 3}\n"                             \
	"env: " env "\n"                                                   \
	"model: {hidden: [16]}\n"                                          \
	"learner: {batch: 256, minibatch: 128, gamma: 1.0, "               \
	"gae_lambda: 1.0}\n"                                               \
	"players: {main: 1, main_exploiter: 1, league_exploiter: 0}\n"     \
	"snapshot: {steps: 2000}\n"                                        \
	"matchmaking: {job_episodes: 16, baseline_share: 0.2, "            \
	"baselines: random}\n"                                             \
	"eval: {share: 0.2, games: 16, baselines: random, "                \
	"nashconv: false}\n"                                               \
	"collectors: {count: 1, envs: 2, wait_num: 1}\n"                   \
	"budget: {jobs: " RUN_STR(RUN_JOBS) ", seconds: 240}\n"

static const char *const run_yaml[] = {
	RUN_YAML("{name: kuhn, params: {players: 3}}"),
	RUN_YAML("{name: tiny_whist}"),
};

START_TEST(league_run_of_n_seats)
{
	static char out[1 << 16], err[1 << 16];
	struct store_opts so = { .flags = STORE_RDONLY };
	char root[128], ldir[192], e[256];
	struct brain_player p;
	double games = 0;
	store *st;
	brain *b;

	tu_mkdtemp(root, sizeof root);
	tu_run_config(run_yaml[_i], root, ldir, sizeof ldir, 1, NULL, NULL,
		      out, sizeof out, err, sizeof err);
	ck_assert_uint_ge(tu_stored_u64(ldir, "daemon.jobs_done"), RUN_JOBS);
	/* both learners trained on their seats' rows; the league's jobs
	 * counted in the payoff table */
	ck_assert_msg(store_open(&st, ldir, &so, e, sizeof e) == 0, "%s", e);
	ck_assert_msg(brain_open(&b, st, NULL, e, sizeof e) == 0, "%s", e);
	for (uint32_t id = 0; id < 3; id += 2) {
		ck_assert_int_eq(brain_player_info(b, id, &p), 0);
		ck_assert_msg(p.steps > 0, "player %u trained on nothing", id);
	}
	for (uint32_t j = 1; j < brain_count(b); j++) {
		struct payoff_entry pe;
		if (!payoff_get(brain_payoff(b), 0, j, &pe))
			games += pe.games;
	}
	ck_assert_msg(games > 0, "no game of the main player counted");
	brain_close(b);
	store_close(st);
	/* the main player evaluated against random from seats 0 and 1 */
	const char *ev[] = { "eval", "baselines", ldir, NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, err, sizeof err, ev) ==
			      0, "%s", err);
	ck_assert_msg(strstr(out, " random           32 "), "%s", out);
	tu_rmrf(root);
}
END_TEST

Suite *suite_seats(void)
{
	Suite *s = suite_create("seats");
	const struct tu_test daemon_tests[] = {
		{ three_seat_job_packed_tallied_or_refused, 1 },
		{ other_kinds_fill_every_seat, 1 },
	};
	const struct tu_test collector_tests[] = {
		{ collector_plays_every_seat, (int)LG_ARRAY_LEN(nseat_games) },
		{ collector_refuses_a_job_of_other_seats, 1 },
	};
	const struct tu_test run_tests[] = {
		{ league_run_of_n_seats, (int)LG_ARRAY_LEN(run_yaml) },
	};

	TU_TCASE(s, "daemon", 30, daemon_tests);
	TU_TCASE(s, "collector", 240, collector_tests);
	TU_TCASE(s, "run", 300, run_tests);
	return s;
}
