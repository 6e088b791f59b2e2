/* tests/check_e2e.c: the runtime end to end, with real processes, real
 * sockets and temp dirs. `league serve` runs as a child of the test; the
 * test plays its workers with the real worker-side client (net_client),
 * so every byte crosses loopback. Cases:
 *   - SIGKILL of the daemon mid-run and --resume: the payoff games on disk
 *     equal the results the daemon acknowledged (none lost, none twice),
 *     and the jobs in flight are re-issued;
 *   - a collector that dies holding a job: the job goes to the next one;
 *   - garbage and an oversized frame close that connection only; a wrong
 *     token is refused;
 *   - `league run` of a small rock-paper-scissors league: exit 0, the
 *     payoff matrix printed, every snapshot played;
 *   - evaluation against baselines: the share of episodes, the jobs'
 *     seats, the rows on disk and a payoff matrix they never touch. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eval/agent.h"
#include "league/daemon.h"
#include "eval/evalrec.h"
#include "net/net.h"
#include "payoff/payoff.h"
#include "players/players.h"
#include "storage/storage.h"
#include "tests/proto.h"
#include "tests/testutil.h"

static const char *tiny_cfg = TU_RPS_YAML("e2e");

/* `league run` of the config `text` in a fresh directory (*dir), its
 * league in DIR/league (*ldir), quietly; it must exit 0. Its stdout is
 * left in out. With done, the run goes on (no seconds budget: the
 * config's is a backstop) until done(ldir, arg) holds, then stops by
 * SIGTERM: a test waits for what it reads, however busy the machine (up
 * to 300 s). */
static void run_quiet_until(const char *text, char *dir, size_t dlen,
			    char *ldir, size_t llen, char *out, size_t outlen,
			    int (*done)(const char *, void *), void *arg)
{
	static char err[1 << 16];

	tu_mkdtemp(dir, dlen);
	tu_run_config(text, dir, ldir, llen, 1, done, arg, out, outlen, err,
		      sizeof err);
}

/* run_quiet_until without a condition: the run ends by its budget. */
static void run_quiet(const char *text, char *dir, size_t dlen, char *ldir,
		      size_t llen, char *out, size_t outlen)
{
	run_quiet_until(text, dir, dlen, ldir, llen, out, outlen, NULL, NULL);
}

/* Snapshots (historical players) of the league in ldir that have played
 * a game (read-only, beside a live run); -1 before its store exists. */
static int snapshots_played(const char *ldir)
{
	struct store_opts so = { .flags = STORE_RDONLY };
	char e[256];
	int played = 0;
	store *s;
	brain *b;

	if (store_open(&s, ldir, &so, e, sizeof e))
		return -1;
	if (brain_open(&b, s, NULL, e, sizeof e)) {
		store_close(s);
		return -1;
	}
	for (uint32_t i = 0; i < brain_count(b); i++) {
		struct brain_player p;
		double g = 0;
		if (brain_player_info(b, i, &p) ||
		    p.role != BRAIN_ROLE_HISTORICAL)
			continue;
		for (uint32_t j = 0; j < brain_count(b); j++) {
			struct payoff_entry pe;
			if (!payoff_get(brain_payoff(b), i, j, &pe))
				g += pe.games;
		}
		played += g > 0;
	}
	brain_close(b);
	store_close(s);
	return played;
}

static int two_snapshots_played(const char *ldir, void *arg)
{
	return snapshots_played(ldir) >= 2;
}

/* Done when STORE_DB_EVAL holds at least the baseline rows and NashConv
 * points arg asks for (and a row against minimax if it says so). */
struct eval_want {
	int rows, points, minimax;
};

static int eval_count_cb(const void *key, size_t klen, const void *val,
			 size_t vlen, void *arg)
{
	int *n = arg; /* rows, points, minimax rows */

	if (klen == 8)
		n[1]++;
	else if (klen && *(const uint8_t *)key == 'B') {
		n[0]++;
		n[2] += memmem(key, klen, "minimax", 7) != NULL;
	}
	return 0;
}

static int eval_stored(const char *ldir, void *arg)
{
	const struct eval_want *w = arg;
	struct store_opts so = { .flags = STORE_RDONLY };
	char e[256];
	int n[3] = { 0 };
	store *s;
	store_txn *t;

	if (store_open(&s, ldir, &so, e, sizeof e))
		return 0;
	if (!store_txn_begin(s, STORE_TXN_READ, &t)) {
		store_iter(t, STORE_DB_EVAL, NULL, 0, eval_count_cb, n);
		store_txn_abort(t);
	}
	store_close(s);
	return n[0] >= w->rows && n[1] >= w->points &&
	       (!w->minimax || n[2] > 0);
}

/* A learner of player over a socket (tests/proto.h). */
static void learner_for(struct tp_peer *p, struct tu_daemon *d,
			uint32_t player)
{
	tp_connect(p, d->port, LEAGUE__ROLE__ROLE_LEARNER, "fake-learner",
		   NULL);
	ck_assert_int_eq(tp_fake_learner(p, player), LEAGUE__STATUS__STATUS_OK);
}

/* Two collectors on d, c and other, each registered with 4 envs and 4
 * jobs: one takes the jobs, the other's reports of them must be stale. */
static void collectors_for(struct tp_peer *c, struct tp_peer *other,
			   const struct tu_daemon *d)
{
	tp_connect(c, d->port, LEAGUE__ROLE__ROLE_COLLECTOR, "c", NULL);
	tp_register_collector(c, 4, 4);
	tp_connect(other, d->port, LEAGUE__ROLE__ROLE_COLLECTOR, "other", NULL);
	tp_register_collector(other, 4, 4);
}

/* The outcome of every episode of res (the episodes of a job against a
 * baseline whose other seat, ms, is the main player's) drawn from rng:
 * a win, draw or loss for seat ms, counted in sent[]. Someone else's
 * (other's) report of it is stale and counts nothing; c's counts once
 * and a second one is stale. */
static void report_baseline_job(struct tp_peer *c, struct tp_peer *other,
				struct tp_result *res, uint32_t episodes,
				int ms, lg_rng *rng, uint64_t sent[3])
{
	for (uint32_t i = 0; i < episodes; i++) {
		int k = (int)lg_rng_below(rng, 3); /* win draw loss */
		res->ret[i][ms] = 1.0 - k;
		res->ret[i][!ms] = k - 1.0;
		sent[k]++;
	}
	ck_assert_int_eq(tp_send_result(other, res),
			 LEAGUE__STATUS__STATUS_STALE);
	ck_assert_int_eq(tp_send_result(c, res), LEAGUE__STATUS__STATUS_OK);
	ck_assert_int_eq(tp_send_result(c, res), LEAGUE__STATUS__STATUS_STALE);
}

/* The last job taken, for its seats and endpoint. */
static struct tp_job last;

/* One job (waiting for one to be offered); returns its id and episode
 * count. */
static uint64_t take_job(struct tp_peer *p, uint32_t *episodes)
{
	tp_wait_job(p, &last);
	*episodes = last.episodes;
	return last.id;
}

/* Sum of decayed games over unordered pairs (decay 1: exact counts). */
static double games_on_disk(const char *dir)
{
	store *s;
	brain *b;
	char err[256];
	double sum = 0;
	struct store_opts so = { .flags = STORE_RDONLY };

	ck_assert_msg(store_open(&s, dir, &so, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_msg(brain_open(&b, s, NULL, err, sizeof err) == 0, "%s",
		      err);
	uint32_t n = brain_count(b);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i; j < n; j++) {
			struct payoff_entry e;
			ck_assert_int_eq(payoff_get(brain_payoff(b), i, j, &e),
					 0);
			sum += e.games;
		}
	brain_close(b);
	store_close(s);
	return sum;
}

START_TEST(kill9_resume_counts_every_acked_result_once)
{
	char dir[128], cfg[256];
	struct tu_daemon d;
	struct tp_peer learners[16], col;
	lg_rng rng;
	uint64_t acked = 0, last_id = 0;
	struct tp_result res;
	uint32_t n;

	tu_league_files(tiny_cfg, dir, sizeof dir, cfg, sizeof cfg);
	lg_rng_seed(&rng, 3);
	tu_serve_sync(&d, cfg, dir, 0, NULL, 1); /* the default: fsync */
	ck_assert_int_eq(d.nlearners, 2);
	for (int i = 0; i < d.nlearners; i++)
		learner_for(&learners[i], &d, d.learners[i]);
	tp_connect(&col, d.port, LEAGUE__ROLE__ROLE_COLLECTOR,
		   "fake-collector", NULL);
	tp_register_collector(&col, 4, 4);
	for (int k = 0; k < 30; k++) {
		uint64_t id = take_job(&col, &n);
		tp_make_result(&res, id, n, &rng, 0);
		ck_assert_int_eq(tp_send_result(&col, &res),
				 LEAGUE__STATUS__STATUS_OK);
		acked += n;
		last_id = id;
	}
	/* One job in flight is never reported (it must be re-issued after
	 * the restart); another one's result reaches the daemon, which
	 * commits it, but the daemon is killed before the worker reads the
	 * Ack, so the worker sends it again after the restart. */
	uint64_t held = take_job(&col, &n);
	uint64_t racing = take_job(&col, &n);
	tp_make_result(&res, racing, n, &rng, 0);
	ck_assert_int_eq(net_client_send(col.c, &res.m), 0);
	/* Kill only once the daemon has committed it: its status counts a
	 * result in the turn that commits it, and serves HTTP after. */
	{
		char st[8192], want[64];
		double t0 = lg_now_s();
		snprintf(want, sizeof want, "\"jobs_done\": 31,");
		for (;;) {
			ck_assert_int_eq(net_http_get(d.http_port, "/status",
						      5, st, sizeof st), 0);
			if (strstr(st, want))
				break;
			ck_assert_msg(lg_now_s() - t0 < 10, "never committed: "
				      "%s", st);
			lg_sleep_s(0.005);
		}
	}
	ck_assert_int_eq(tu_serve_stop(&d, SIGKILL), 128 + SIGKILL);

	tu_serve_sync(&d, cfg, dir, 1, NULL, 1);
	for (int i = 0; i < d.nlearners; i++) {
		tp_close(&learners[i]);
		learner_for(&learners[i], &d, d.learners[i]);
	}
	tp_close(&col);
	tp_connect(&col, d.port, LEAGUE__ROLE__ROLE_COLLECTOR,
		   "fake-collector", NULL);
	tp_register_collector(&col, 4, 4);
	/* The unacknowledged result again: the daemon had committed it, so
	 * it is acknowledged now, and counts once. */
	ck_assert_int_eq(tp_send_result(&col, &res), LEAGUE__STATUS__STATUS_OK);
	acked += n;
	/* The job held at the kill comes out again, with its id. */
	int reissued = 0;
	for (int k = 0; k < 20; k++) {
		uint64_t id = take_job(&col, &n);
		/* Re-issued before its learner re-registered, it still
		 * names where that learner listens now. */
		if (id == held)
			ck_assert_str_eq(last.endpoint, "127.0.0.1:9");
		reissued |= id == held;
		tp_make_result(&res, id, n, &rng, 0);
		ck_assert_int_eq(tp_send_result(&col, &res),
				 LEAGUE__STATUS__STATUS_OK);
		acked += n;
		/* A repeat of an acknowledged result counts once. */
		if (k == 0) {
			ck_assert_int_eq(tp_send_result(&col, &res),
					 LEAGUE__STATUS__STATUS_OK);
		}
	}
	ck_assert_msg(reissued, "job %llu (in flight at the kill) was not "
		      "re-issued", (unsigned long long)held);
	ck_assert_uint_gt(last_id, 0);
	tp_close(&col);
	for (int i = 0; i < d.nlearners; i++)
		tp_close(&learners[i]);
	ck_assert_int_eq(tu_serve_stop(&d, SIGTERM), 0);
	double games = games_on_disk(dir);
	printf("e2e: %llu results acknowledged, %.0f payoff games on disk\n",
	       (unsigned long long)acked, games);
	ck_assert_msg(games == (double)acked, "payoff games %.0f, acked %llu",
		      games, (unsigned long long)acked);
	/* Both daemons ran the default, durable store. */
	{
		char log[256], text[1 << 16];
		snprintf(log, sizeof log, "%s.log", dir);
		FILE *lf = fopen(log, "r");
		ck_assert_ptr_nonnull(lf);
		size_t got = fread(text, 1, sizeof text - 1, lf);
		text[got] = 0;
		fclose(lf);
		const char *a = strstr(text, "store: fsync at every commit");
		ck_assert_msg(a && strstr(a + 1, "store: fsync at every "
					  "commit"), "%s", text);
		ck_assert(!strstr(text, "no fsync"));
	}
	dir[strlen(dir) - strlen("/league")] = 0;
	tu_rmrf(dir);
}
END_TEST

START_TEST(dead_collector_job_goes_to_the_next)
{
	char dir[128], cfg[256];
	struct tu_daemon d;
	struct tp_peer learners[16], a, b;
	uint32_t n;

	tu_league_files(tiny_cfg, dir, sizeof dir, cfg, sizeof cfg);
	tu_serve(&d, cfg, dir, 0, NULL);
	for (int i = 0; i < d.nlearners; i++)
		learner_for(&learners[i], &d, d.learners[i]);
	tp_connect(&a, d.port, LEAGUE__ROLE__ROLE_COLLECTOR, "a", NULL);
	tp_register_collector(&a, 4, 4);
	uint64_t id = take_job(&a, &n);
	tp_close(&a); /* dies holding the job */
	tp_connect(&b, d.port, LEAGUE__ROLE__ROLE_COLLECTOR, "b", NULL);
	tp_register_collector(&b, 4, 4);
	double t0 = lg_now_s();
	uint64_t got;
	/* The daemon sees the close on its next loop turn. */
	while ((got = take_job(&b, &n)) != id) {
		ck_assert_msg(lg_now_s() - t0 < 5, "job %llu never re-queued",
			      (unsigned long long)id);
		lg_rng rng;
		struct tp_result res;
		lg_rng_seed(&rng, got);
		tp_make_result(&res, got, n, &rng, 0);
		tp_send_result(&b, &res);
	}
	tp_close(&b);
	for (int i = 0; i < d.nlearners; i++)
		tp_close(&learners[i]);
	ck_assert_int_eq(tu_serve_stop(&d, SIGTERM), 0);
	dir[strlen(dir) - strlen("/league")] = 0;
	tu_rmrf(dir);
}
END_TEST

/* The whole of a file (at most len - 1 bytes); its length. */
static size_t slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	ck_assert_msg(f != NULL, "%s", path);
	n = fread(buf, 1, len - 1, f);
	ck_assert(feof(f));
	fclose(f);
	buf[n] = 0;
	return n;
}

/* CRC-32C and length of a whole file (data.mdb is as long as its map,
 * 64 MiB at least: read in pieces). */
static uint32_t file_crc(const char *path, uint64_t *len)
{
	static uint8_t buf[1 << 16];
	FILE *f = fopen(path, "rb");
	uint32_t crc = 0;
	size_t n;

	ck_assert_msg(f != NULL, "%s", path);
	*len = 0;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		crc = lg_crc32c(crc, buf, n);
		*len += n;
	}
	fclose(f);
	return crc;
}

/* A learner process killed with SIGKILL and started again takes the
 * trainer state stored with the newest version (learner.store_trainer)
 * and trains on; the daemon hands it over. The exactness of what it
 * restores is check_ppo's trainer_state_resumes_bit_exact. */
START_TEST(restarted_learner_takes_its_trainer_state)
{
	const char *text =
		"league: {name: restart, seed: 5}\n"
		"env: {name: rps}\n"
		"model: {hidden: [8]}\n"
		"players: {main: 1}\n"
		"learner: {batch: 64, minibatch: 32}\n"
		"matchmaking: {job_episodes: 8}\n"
		"collectors: {count: 1, envs: 2, wait_num: 1}\n"
		"budget: {seconds: 600}\n";
	char dir[128], cfg[256], addr[64], llog[300], clog[300], dlog[300];
	char player[16];
	struct tu_daemon d;
	pid_t lp, cp;
	int st;

	tu_league_files(text, dir, sizeof dir, cfg, sizeof cfg);
	snprintf(llog, sizeof llog, "%s.learn.log", dir);
	snprintf(clog, sizeof clog, "%s.collect.log", dir);
	tu_serve(&d, cfg, dir, 0, NULL);
	ck_assert_int_eq(d.nlearners, 1);
	snprintf(addr, sizeof addr, "127.0.0.1:%u", d.port);
	snprintf(player, sizeof player, "%u", d.learners[0]);
	const char *largv[] = { "league", "learn", "--connect", addr,
				"--player", player, NULL };
	const char *cargv[] = { "league", "collect", "--connect", addr, NULL };
	lp = tu_spawn_worker(largv, llog, 0);
	cp = tu_spawn_worker(cargv, clog, 0);
	/* a few versions pushed with their states, then the kill */
	tu_wait_for_text(llog, "update 4:", 60);
	kill(lp, SIGKILL);
	ck_assert_int_eq(waitpid(lp, &st, 0), lp);
	lp = tu_spawn_worker(largv, llog, 0);
	tu_wait_for_text(llog, "with its trainer state", 30);
	/* the update count goes on from the state's, not from 1 (the
	 * state of update 3 at least: "update 4:" may be logged before its
	 * push) */
	tu_wait_for_text(llog, " update ", 60);
	{
		static char buf[1 << 20];
		unsigned first = 0;
		slurp(llog, buf, sizeof buf);
		const char *u = strstr(buf, " update ");
		ck_assert(u && sscanf(u, " update %u:", &first) == 1);
		ck_assert_msg(first > 3, "%.2000s", buf);
	}
	snprintf(dlog, sizeof dlog, "%s.log", dir);
	tu_wait_for_text(dlog, "with its trainer state", 5);
	kill(lp, SIGTERM);
	kill(cp, SIGTERM);
	waitpid(lp, &st, 0);
	waitpid(cp, &st, 0);
	ck_assert_int_eq(tu_serve_stop(&d, SIGTERM), 0);
	dir[strlen(dir) - strlen("/league")] = 0;
	tu_rmrf(dir);
}
END_TEST

/* `league inspect DIR` as a child on a free port (into *hp): its pid. */
static pid_t start_inspect(const char *dir, unsigned *hp)
{
	char ports[300], line[128];
	long ipid = 0;
	pid_t pid;
	FILE *f;
	int st;

	snprintf(ports, sizeof ports, "%s.iports", dir);
	unlink(ports);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		const char *argv[] = { "league", "inspect", dir, "--port", "0",
				       "--ports-file", ports, NULL };
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		execv(tu_league_bin(), (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	double t0 = lg_now_s();
	while (!(f = fopen(ports, "r"))) {
		ck_assert_msg(waitpid(pid, &st, WNOHANG) == 0, "inspect died");
		ck_assert_msg(lg_now_s() - t0 < 10, "inspect never listened");
		lg_sleep_s(0.01);
	}
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "http_port %u", hp) != 1)
			sscanf(line, "pid %ld", &ipid);
	fclose(f);
	ck_assert_int_eq(ipid, pid);
	return pid;
}

/* `league inspect DIR` on a stopped league: /payoff is what `league
 * payoff DIR --format json` prints, /status has its players, / is the
 * page, SIGTERM stops it cleanly, and the store's bytes are unchanged. */
static void inspect_stopped_league(const char *dir)
{
	uint32_t before, after;
	char mdb[300], body[65536], cli[65536];
	char err[1024];
	uint64_t nb, na;
	unsigned hp = 0;
	pid_t pid;
	int st;

	snprintf(mdb, sizeof mdb, "%s/data.mdb", dir);
	before = file_crc(mdb, &nb);
	pid = start_inspect(dir, &hp);
	const char *pay[] = { "payoff", dir, "--format", "json", NULL };
	ck_assert_int_eq(tu_run_league(cli, sizeof cli, err, sizeof err, pay),
			 0);
	ck_assert_int_eq(net_http_get((uint16_t)hp, "/payoff", 5, body,
				      sizeof body), 0);
	char *json = strstr(body, "\r\n\r\n");
	ck_assert_ptr_nonnull(json);
	ck_assert_str_eq(json + 4, cli);
	ck_assert_int_eq(net_http_get((uint16_t)hp, "/status", 5, body,
				      sizeof body), 0);
	ck_assert_msg(strstr(body, "\"inspect\": true") &&
			      strstr(body, "\"role\": \"main\""), "%s", body);
	ck_assert_int_eq(net_http_get((uint16_t)hp, "/", 5, body,
				      sizeof body), 0);
	ck_assert_ptr_nonnull(strstr(body, "<script src=\"/app.js\">"));
	ck_assert_int_eq(net_http_get((uint16_t)hp, "/app.js", 5, body,
				      sizeof body), 0);
	ck_assert_ptr_nonnull(strstr(body, "json(atURL(\"/payoff\"))"));
	/* the lineage, the jobs left open and the series of a stopped
	 * league (the brain's open jobs: a kill -9 leaves some) */
	ck_assert_int_eq(net_http_get((uint16_t)hp, "/lineage", 5, body,
				      sizeof body), 0);
	ck_assert_msg(strstr(body, "{\"players\":[{\"id\":0,\"role\":"
				   "\"main\",\"pop\":0,\"status\":\"active\","
				   "\"parent\":null"), "%s", body);
	ck_assert_int_eq(net_http_get((uint16_t)hp, "/jobs", 5, body,
				      sizeof body), 0);
	/* a drained league left none open; any there would name a kind */
	ck_assert_msg(strstr(body, "{\"jobs\":[") &&
			      (!strstr(body, "\"id\":") ||
			       strstr(body, "\"kind\":\"")), "%s", body);
	/* the time slider: the league once its first N log records were
	 * made; past the end it is today's, at 0 nobody has played */
	{
		static char now[65536];
		char *a, *b;
		ck_assert_int_eq(net_http_get((uint16_t)hp, "/payoff", 5, now,
					      sizeof now), 0);
		ck_assert_int_eq(net_http_get((uint16_t)hp,
					      "/payoff?at=99999999", 5, body,
					      sizeof body), 0);
		a = strstr(now, "\r\n\r\n");
		b = strstr(body, "\r\n\r\n");
		ck_assert(a && b);
		ck_assert_str_eq(b, a);
		ck_assert_int_eq(net_http_get((uint16_t)hp, "/payoff?at=0", 5,
					      body, sizeof body), 0);
		/* nobody has played: every count is 0 */
		ck_assert_msg(strstr(body, "\"games\":[[0,") &&
				      !strpbrk(strstr(body, "\"games\""),
					       "123456789."), "%s", body);
		ck_assert_int_eq(net_http_get((uint16_t)hp,
					      "/ratings?at=5", 5, body,
					      sizeof body), 0);
		ck_assert_msg(strstr(body, "\"ratings\":[{"), "%s", body);
		/* the ladder's α-Rank: its parameters, a score per player */
		ck_assert_msg(strstr(body, "\"alpha_rank\":{\"alpha\":100,"
					   "\"population\":50}") &&
				      strstr(strstr(body, "\"ratings\":["),
					     ",\"alpha_rank\":"),
			      "%s", body);
		ck_assert_int_eq(net_http_get((uint16_t)hp, "/payoff?at=x", 5,
					      body, sizeof body), 0);
		ck_assert_msg(strstr(body, " 400 "), "%s", body);
	}
	ck_assert_int_eq(net_http_get((uint16_t)hp, "/series", 5, body,
				      sizeof body), 0);
	ck_assert_msg(strstr(body, "\"learners\":{") &&
			      strstr(body, "\"mix\":{"), "%s", body);
	/* every JSON endpoint parses with a real JSON parser (Python's:
	 * the JSON is written by hand, strings through lg_buf_json_str) */
	{
		static const char *const eps[] = {
			"/status",  "/payoff", "/ratings", "/nashconv",
			"/series",  "/lineage", "/jobs",   "/payoff?at=3",
			"/ratings?at=3",
		};
		static char big[1 << 20];
		char path[300], cmd[800];
		for (size_t i = 0; i < LG_ARRAY_LEN(eps); i++) {
			ck_assert_int_eq(net_http_get((uint16_t)hp, eps[i], 5,
						      big, sizeof big), 0);
			char *js = strstr(big, "\r\n\r\n");
			ck_assert_ptr_nonnull(js);
			snprintf(path, sizeof path, "%s.json", dir);
			tu_write_file(path, js + 4);
			snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c 'import "
				 "json,sys; json.load(open(sys.argv[1]))' %s",
				 path);
			ck_assert_msg(system(cmd) == 0, "%s: not JSON: %.300s",
				      eps[i], js + 4);
			unlink(path);
		}
	}
	kill(pid, SIGTERM);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	after = file_crc(mdb, &na);
	ck_assert_uint_eq(na, nb);
	ck_assert_uint_eq(after, before); /* nothing written */
}

/* GET /metrics after a few jobs: Prometheus' own parser reads it (every
 * family with HELP and TYPE), and the counters are the status's. */
START_TEST(metrics_parse_then_inspect_reads_only)
{
	char dir[128], cfg[256], path[300], cmd[700], line[512];
	char body[65536], status[16384];
	struct tu_daemon d;
	struct tp_peer learners[16], col;
	struct tp_result res;
	lg_rng rng;
	uint32_t n;
	uint64_t steps = 0;
	int fams = 0, labelled = 0, seen_jobs = 0, seen_steps = 0;

	tu_league_files(tiny_cfg, dir, sizeof dir, cfg, sizeof cfg);
	tu_serve(&d, cfg, dir, 0, NULL);
	for (int i = 0; i < d.nlearners; i++)
		learner_for(&learners[i], &d, d.learners[i]);
	tp_connect(&col, d.port, LEAGUE__ROLE__ROLE_COLLECTOR, "c", NULL);
	tp_register_collector(&col, 4, 4);
	lg_rng_seed(&rng, 9);
	for (int k = 0; k < 6; k++) {
		uint64_t id = take_job(&col, &n);
		tp_make_result(&res, id, n, &rng, 0);
		ck_assert_int_eq(tp_send_result(&col, &res),
				 LEAGUE__STATUS__STATUS_OK);
	}
	/* the jobs in flight: the lease table (one leased job of ours is
	 * answered; others are queued) */
	{
		uint64_t held = take_job(&col, &n);
		char want[64];
		ck_assert_int_eq(net_http_get(d.http_port, "/jobs", 5, body,
					      sizeof body), 0);
		snprintf(want, sizeof want, "{\"id\":%llu,\"kind\":\"league\","
			 "\"state\":\"leased\"", (unsigned long long)held);
		ck_assert_msg(strstr(body, want), "%s", body);
		tp_make_result(&res, held, n, &rng, 0);
		ck_assert_int_eq(tp_send_result(&col, &res),
				 LEAGUE__STATUS__STATUS_OK);
		ck_assert_int_eq(net_http_get(d.http_port, "/lineage", 5, body,
					      sizeof body), 0);
		ck_assert_msg(strstr(body, "\"role\":\"main\""), "%s", body);
	}
	/* the counters are those of the status served just before */
	ck_assert_int_eq(net_http_get(d.http_port, "/status", 5, status,
				      sizeof status), 0);
	ck_assert_int_eq(net_http_get(d.http_port, "/metrics", 5, body,
				      sizeof body), 0);
	ck_assert_msg(strstr(body, "text/plain; version=0.0.4"), "%s", body);
	char *txt = strstr(body, "\r\n\r\n");
	ck_assert_ptr_nonnull(txt);
	const char *es = strstr(status, "\"env_steps\": ");
	ck_assert_ptr_nonnull(es);
	steps = strtoull(es + 13, NULL, 10);
	ck_assert_uint_gt(steps, 0);
	snprintf(path, sizeof path, "%s.metrics", dir);
	tu_write_file(path, txt + 4);
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/prom_parse.py %s "
		 "2>&1", tu_src_dir(), path);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof line, p)) {
		char name[128], labels[256];
		double v;
		fams += !strncmp(line, "family ", 7);
		if (sscanf(line, "sample %127s %255s %lf", name, labels, &v) !=
		    3)
			continue;
		if (!strcmp(name, "league_jobs_done_total")) {
			ck_assert_double_eq(v, 7);
			seen_jobs = 1;
		}
		if (!strcmp(name, "league_env_steps_total")) {
			ck_assert_double_eq(v, (double)steps);
			seen_steps = 1;
		}
		if (!strcmp(name, "league_learner_version") &&
		    strstr(labels, "learner=0") && strstr(labels, "role=main"))
			labelled = 1;
	}
	int prc = pclose(p);
	ck_assert_msg(prc == 0, "the Prometheus parser refused /metrics (it "
		      "needs python3-prometheus-client: util/deps.sh)");
	ck_assert_int_ge(fams, 20);
	ck_assert(seen_jobs && seen_steps && labelled);
	tp_close(&col);
	for (int i = 0; i < d.nlearners; i++)
		tp_close(&learners[i]);
	ck_assert_int_eq(tu_serve_stop(&d, SIGTERM), 0);
	inspect_stopped_league(dir);
	dir[strlen(dir) - strlen("/league")] = 0;
	tu_rmrf(dir);
}
END_TEST

/* One pair's counts replaced by a writer while inspect serves the
 * league (inspect reloads on a newer commit). */
static int set_pair(store_txn *t, void *arg)
{
	payoff *p = arg;

	return payoff_store_pair(p, t, 0, 5);
}

/* inspect writes /payoff once per load and serves the copy: unchanged
 * between commits, and the new matrix within a few seconds of one. */
START_TEST(inspect_follows_commits)
{
	char dir[128], league[160], body[65536], again[65536], cli[65536];
	char err[1024];
	struct store_opts so = { STORE_NOSYNC, 0, 0 };
	struct payoff_entry e = { 7, 0, 0, 7 };
	unsigned hp = 0;
	payoff *p = NULL;
	store *s = NULL;
	pid_t pid;
	int st;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(league, sizeof league, "%s/league", dir);
	const char *mk[] = { "bench", "payoff", "--players", "8", "--reps",
			     "1", "--keep", league, NULL };
	ck_assert_int_eq(tu_run_league(NULL, 0, err, sizeof err, mk), 0);
	pid = start_inspect(league, &hp);
	ck_assert_int_eq(net_http_get((uint16_t)hp, "/payoff", 5, body,
				      sizeof body), 0);
	ck_assert_int_eq(net_http_get((uint16_t)hp, "/payoff", 5, again,
				      sizeof again), 0);
	ck_assert_str_eq(strstr(again, "\r\n\r\n"), strstr(body, "\r\n\r\n"));
	/* 0 beat 5 seven times out of seven */
	ck_assert_int_eq(payoff_new(&p, NULL), 0);
	for (uint32_t i = 0; i < 8; i++)
		ck_assert_int_eq(payoff_add(p, i), 0);
	ck_assert_int_eq(payoff_set(p, 0, 5, &e), 0);
	ck_assert_int_eq(store_open(&s, league, &so, err, sizeof err), 0);
	ck_assert_int_eq(store_update(s, set_pair, p), 0);
	store_close(s);
	payoff_free(p);
	const char *pay[] = { "payoff", league, "--format", "json", NULL };
	ck_assert_int_eq(tu_run_league(cli, sizeof cli, err, sizeof err, pay),
			 0);
	ck_assert_str_ne(strstr(body, "\r\n\r\n") + 4, cli);
	double t0 = lg_now_s();
	for (;;) {
		ck_assert_int_eq(net_http_get((uint16_t)hp, "/payoff", 5, body,
					      sizeof body), 0);
		if (!strcmp(strstr(body, "\r\n\r\n") + 4, cli))
			break;
		ck_assert_msg(lg_now_s() - t0 < 5, "inspect never reloaded");
		lg_sleep_s(0.1);
	}
	kill(pid, SIGTERM);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	tu_rmrf(dir);
}
END_TEST

START_TEST(bad_clients_are_cut_off_others_served)
{
	char dir[128], cfg[256];
	struct tu_daemon d;
	struct tp_peer learners[16], col;
	net_client *bad;
	uint32_t n;
	int fd, rc;

	tu_league_files(tiny_cfg, dir, sizeof dir, cfg, sizeof cfg);
	tu_serve(&d, cfg, dir, 0, "s3cret");
	/* A wrong token is refused. */
	{
		struct net_client_opts o = {
			.host = "127.0.0.1", .port = d.port, .token = "nope",
			.role = LEAGUE__ROLE__ROLE_COLLECTOR, .name = "bad",
			.give_up_s = 10,
		};
		char err[256];
		bad = NULL;
		rc = net_client_connect(&bad, &o, err, sizeof err);
	}
	ck_assert_int_eq(rc, LG_EAUTH);
	ck_assert_ptr_null(bad);
	for (int i = 0; i < d.nlearners; i++) {
		tp_connect(&learners[i], d.port, LEAGUE__ROLE__ROLE_LEARNER,
			   "l", "s3cret");
		ck_assert_int_eq(tp_fake_learner(&learners[i], d.learners[i]),
				 LEAGUE__STATUS__STATUS_OK);
	}
	tp_connect(&col, d.port, LEAGUE__ROLE__ROLE_COLLECTOR, "good", "s3cret");
	tp_register_collector(&col, 4, 4);
	/* Garbage, then an oversized frame header, on raw sockets. */
	for (int k = 0; k < 2; k++) {
		static const uint8_t junk[] = "GET / HTTP/1.0\r\n\r\n";
		static const uint8_t huge[4] = { 0x7f, 0xff, 0xff, 0xff };
		char buf[64];
		ck_assert_int_eq(net_connect_tcp("127.0.0.1", d.port, &fd,
						 NULL, 0), 0);
		ck_assert(send(fd, k ? huge : junk, k ? 4 : sizeof junk - 1,
			       0) > 0);
		struct timeval tv = { 5, 0 };
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		ssize_t got;
		while ((got = recv(fd, buf, sizeof buf, 0)) > 0)
			;
		ck_assert_int_eq(got, 0); /* closed by the daemon */
		close(fd);
		/* ... while the good collector is served. */
		uint64_t id = take_job(&col, &n);
		lg_rng rng;
		struct tp_result res;
		lg_rng_seed(&rng, id);
		tp_make_result(&res, id, n, &rng, 0);
		ck_assert_int_eq(tp_send_result(&col, &res),
				 LEAGUE__STATUS__STATUS_OK);
	}
	tp_close(&col);
	for (int i = 0; i < d.nlearners; i++)
		tp_close(&learners[i]);
	ck_assert_int_eq(tu_serve_stop(&d, SIGTERM), 0);
	dir[strlen(dir) - strlen("/league")] = 0;
	tu_rmrf(dir);
}
END_TEST

/* The README's command on a small league: real collector and learners. */
/* `league export -o` at a FIFO, a directory, a device node and a symlink:
 * exit 2 naming the path, each node as it was; --follow-symlinks replaces
 * the link's target (here the agent file) and keeps the link. */
static void export_special_outputs(const char *dir, const char *ldir,
				   const char *file)
{
	static char out[1 << 16], err[1 << 16];
	char fifo[300], sub[300], link[300];
	struct stat st, before;
	int hold;

	snprintf(fifo, sizeof fifo, "%s/fifo.agent", dir);
	snprintf(sub, sizeof sub, "%s/sub.agent", dir);
	snprintf(link, sizeof link, "%s/link.agent", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	/* held open both ways, so an old binary's open would not block */
	ck_assert_int_ge(hold = open(fifo, O_RDWR | O_NONBLOCK), 0);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	ck_assert_int_eq(symlink(file, link), 0);
	ck_assert_int_eq(stat(file, &before), 0);
	const char *targets[] = { fifo, sub, "/dev/null", link };
	for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
		const char *ex[] = { "export", ldir, "--player", "0", "-o",
				     targets[i], NULL };
		ck_assert_int_eq(tu_run_league(out, sizeof out, err,
					       sizeof err, ex), 2);
		ck_assert_msg(strstr(err, targets[i]), "%s", err);
	}
	close(hold);
	ck_assert_int_eq(lstat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(lstat(sub, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_uint_eq(st.st_ino, before.st_ino);
	const char *ef[] = { "export", ldir, "--player", "0", "-o", link,
			     "--follow-symlinks", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, ef),
			 0);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_uint_ne(st.st_ino, before.st_ino); /* renamed into place */
	ck_assert_int_eq(st.st_size, before.st_size);
}

/* An agent file of format 1 (tests/ref/agent_v1_tictactoe.agent, written
 * by the encoder before game records, the fuzz corpus's tictactoe seed)
 * still loads and plays, as a built-in game; files are written in format
 * 2 with the game record "kind=builtin"; a built-in game's agent takes
 * no plugin or game server (exit 2, naming the game). */
static void agent_formats(const char *file)
{
	static char out[1 << 16], err[1 << 16], body[1 << 20];
	char v1[512];
	struct league_agent a;
	size_t n;

	snprintf(v1, sizeof v1, "%s/tests/ref/agent_v1_tictactoe.agent",
		 tu_src_dir());
	ck_assert_msg(league_agent_load(&a, v1, NULL, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_uint_eq(a.format, 1);
	ck_assert_int_eq(a.game.kind, LEAGUE_AGENT_BUILTIN);
	ck_assert_str_eq(a.game.name, "tictactoe");
	ck_assert_str_eq(a.spec.name, "tictactoe");
	league_agent_free(&a);
	const char *p1[] = { "play", v1, "minimax", "--games", "2", NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, err, sizeof err, p1) == 0,
		      "%s", err);
	ck_assert_msg(strstr(out, "2 games of tictactoe"), "%s", out);
	const char *p2[] = { "play", v1, "random", "--plugin", file, NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, p2),
			 2);
	ck_assert_msg(strstr(err, "plays a built-in game (format 1): a "
			     "plugin or game server was named"), "%s", err);
	n = slurp(file, body, sizeof body);
	ck_assert(n > LEAGUE_AGENT_HEADER &&
		  lg_get_le32((const uint8_t *)body + 4) == 2);
	ck_assert_ptr_nonnull(memmem(body, n, "kind=builtin\nname=tictactoe\n",
				     28));
	const char *p3[] = { "play", file, "random", "--remote",
			     "127.0.0.1:9", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, p3),
			 2);
	ck_assert_msg(strstr(err, "plays the built-in game 'tictactoe': a "
			     "game server was named for it"), "%s", err);
}

/* `league export` of the league in ldir (tictactoe) and `league play` of
 * the file: against random and minimax, the counts add up; the file's
 * provenance names the league; a damaged file, a player or version the
 * league does not hold, and agents of another game are refused (exit 2)
 * naming why, and nothing is written for a refused export. */
static void export_and_play(const char *dir, const char *ldir)
{
	static char out[1 << 16], err[1 << 16];
	char file[300], bad[300];
	unsigned long long games, wa, wb, dr;

	snprintf(file, sizeof file, "%s/main.agent", dir);
	const char *ex[] = { "export", ldir, "--player", "0", "-o", file,
			     NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, ex),
			 0);
	ck_assert_msg(strstr(out, "player 0 (main) version"), "%s", out);
	const char *pl[] = { "play", file, "random", "--games", "20", "--json",
			     NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, pl),
			 0);
	ck_assert_int_eq(sscanf(out, "{\"games\": %llu, \"wins_a\": %llu, "
				"\"wins_b\": %llu, \"draws\": %llu", &games,
				&wa, &wb, &dr), 4);
	ck_assert_uint_eq(games, 20);
	ck_assert_uint_eq(wa + wb + dr, 20);
	/* minimax never loses at tictactoe */
	const char *pm[] = { "play", "minimax", file, "--games", "10",
			     "--json", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, pm),
			 0);
	ck_assert_int_eq(sscanf(out, "{\"games\": %llu, \"wins_a\": %llu, "
				"\"wins_b\": %llu, \"draws\": %llu", &games,
				&wa, &wb, &dr), 4);
	ck_assert_uint_eq(wb, 0);
	ck_assert_uint_eq(wa + dr, 10);
	/* the file says where it came from */
	{
		static char body[1 << 20];
		size_t n = slurp(file, body, sizeof body);
		ck_assert(n > 100 && !memcmp(body, "LGAG", 4));
		ck_assert_ptr_nonnull(memmem(body, n, "league=e2e-search\n", 18));
		ck_assert_ptr_nonnull(memmem(body, n, "role=main\n", 10));
		/* one bit flipped in the parameters */
		body[n - 40] ^= 4;
		snprintf(bad, sizeof bad, "%s/bad.agent", dir);
		FILE *f = fopen(bad, "wb");
		ck_assert(f && fwrite(body, 1, n, f) == n && !fclose(f));
	}
	const char *pb[] = { "play", bad, "random", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, pb),
			 2);
	ck_assert_msg(strstr(err, "bad.agent: checksum mismatch"), "%s", err);
	const char *pg[] = { "play", file, "alphabeta:2", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, pg),
			 2);
	ck_assert_msg(strstr(err, "alphabeta"), "%s", err);
	snprintf(bad, sizeof bad, "%s/none.agent", dir);
	const char *e1[] = { "export", ldir, "--player", "99", "-o", bad,
			     NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, e1),
			 2);
	ck_assert_msg(strstr(err, "no player 99"), "%s", err);
	const char *e2[] = { "export", ldir, "--player", "0", "--version",
			     "100000", "-o", bad, NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, e2),
			 2);
	ck_assert_msg(strstr(err, "no version 100000"), "%s", err);
	ck_assert_int_ne(access(bad, F_OK), 0);
	export_special_outputs(dir, ldir, file);
	agent_formats(file);
}

/* The network of the agent file at path. */
static nn *agent_net(const char *path)
{
	static char err[4096];
	struct league_agent a;
	nn *n;

	ck_assert_msg(league_agent_load(&a, path, NULL, err, sizeof err) == 0, "%s",
		      err);
	n = a.net;
	a.net = NULL;
	league_agent_free(&a);
	return n;
}

/* `league export ldir --player 0 --version V -o path`: its network. */
static nn *exported_net(const char *ldir, const char *path, const char *v)
{
	static char out[4096], err[4096];
	const char *ex[] = { "export", ldir, "--player", "0", "--version", v,
			     "-o", path, NULL };

	ck_assert_msg(tu_run_league(out, sizeof out, err, sizeof err, ex) ==
			      0, "%s", err);
	return agent_net(path);
}

struct stored_versions {
	uint32_t v[4096];
	size_t n;
};

static int stored_version_cb(const void *key, size_t klen, const void *val,
			     size_t vlen, void *arg)
{
	struct stored_versions *sv = arg;

	(void)val;
	(void)vlen;
	if (klen == 8 && lg_get_be32(key) == 0 && sv->n < 4096)
		sv->v[sv->n++] = lg_get_be32((const uint8_t *)key + 4);
	return 0;
}

/* export --average 2 writes the mean of two stored versions in a row,
 * exactly, and says so in its provenance; an average over versions the
 * league does not hold is refused (exit 2). */
static void export_average(const char *dir, const char *ldir)
{
	static char out[4096], err[4096], body[1 << 20];
	static struct stored_versions sv;
	struct store_opts ro = { .flags = STORE_RDONLY };
	char file[300], vs[2][24];
	uint32_t v = 0;
	size_t n, m, k;
	store *st = NULL;
	store_txn *t = NULL;
	nn *avg, *one[2];

	/* the newest version stored right after another (a learner may
	 * publish past versions the daemon never stored) */
	sv.n = 0;
	ck_assert_int_eq(store_open(&st, ldir, &ro, err, sizeof err), 0);
	ck_assert_int_eq(store_txn_begin(st, STORE_TXN_READ, &t), 0);
	ck_assert_int_eq(store_iter(t, STORE_DB_PARAMS, NULL, 0,
				    stored_version_cb, &sv), 0);
	store_txn_abort(t);
	store_close(st);
	for (size_t i = 1; i < sv.n; i++)
		if (sv.v[i] == sv.v[i - 1] + 1)
			v = sv.v[i];
	ck_assert_msg(v >= 1, "no two versions in a row among %zu", sv.n);
	snprintf(file, sizeof file, "%s/avg.agent", dir);
	snprintf(vs[0], sizeof vs[0], "%u", v);
	snprintf(vs[1], sizeof vs[1], "%u", v - 1);
	one[0] = exported_net(ldir, file, vs[0]);
	one[1] = exported_net(ldir, file, vs[1]);
	const char *ex[] = { "export", ldir, "--player", "0", "--version",
			     vs[0], "--average", "2", "-o", file, NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, err, sizeof err, ex) ==
			      0, "%s", err);
	ck_assert_msg(strstr(out, "averaged"), "%s", out);
	avg = agent_net(file);
	n = slurp(file, body, sizeof body);
	ck_assert_ptr_nonnull(memmem(body, n, "average=2\n", 10));
	const float *a = nn_params_const(avg, &n), *p0 =
		nn_params_const(one[0], &m), *p1 = nn_params_const(one[1], &k);
	ck_assert(n == m && n == k);
	int differ = 0;
	for (size_t i = 0; i < n; i++) {
		ck_assert(a[i] == (p0[i] + p1[i]) / 2.0f);
		differ |= p0[i] != p1[i];
	}
	ck_assert(differ); /* two versions, not one twice */
	for (int i = 0; i < 2; i++)
		nn_free(one[i]);
	nn_free(avg);
	const char *old[] = { "export", ldir, "--player", "0", "--version",
			      vs[0], "--average", "64", "-o", file, NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, old),
			 2); /* the league keeps nine in a row at most */
	ck_assert_msg(strstr(err, "--average 64"), "%s", err);
}

/* A league that trains with search (learner.search) and playout cap
 * randomization, through the real processes: the learner takes every
 * segment the collector sends (full searches' shares and the fast
 * ones' rows of zeros alike) and trains on them. The collector's rows
 * are check_search's; this is the path between. */
START_TEST(league_run_with_search_trains_on_every_segment)
{
	static char out[1 << 16], log[1 << 20];
	char dir[128], ldir[192], path[300];
	const char *text =
		"league: {name: e2e-search, seed: 3}\n"
		"env: {name: tictactoe}\n"
		"model: {hidden: [16]}\n"
		"learner: {batch: 128, minibatch: 64, gamma: 1.0, "
		"gae_lambda: 1.0,\n"
		"  search: {sims: 8, fast_sims: 2, full_frac: 0.5}}\n"
		"players: {main: 1}\n"
		"matchmaking: {job_episodes: 8}\n"
		"collectors: {count: 1, envs: 2, wait_num: 1, segment_len: 32}\n"
		"budget: {env_steps: 3000}\n";

	run_quiet(text, dir, sizeof dir, ldir, sizeof ldir, out, sizeof out);
	snprintf(path, sizeof path, "%s/logs/learner.0.log", ldir);
	slurp(path, log, sizeof log);
	ck_assert_msg(strstr(log, "update 2:"), "%.3000s", log);
	ck_assert_msg(strstr(log, " 0 segments rejected"), "%.3000s", log);
	ck_assert_msg(!strstr(log, "rejected:"), "%.3000s", log);
	export_and_play(dir, ldir);
	export_average(dir, ldir);
	tu_rmrf(dir);
}
END_TEST

START_TEST(league_run_small_rps)
{
	static char out[1 << 16], err[1 << 16];
	char dir[128], ldir[192];
	const char *text =
		"league: {name: e2e-run, seed: 2}\n"
		"env: {name: rps}\n"
		"model: {hidden: [16]}\n"
		"learner: {batch: 256, minibatch: 64, lr: 0.01}\n"
		"players: {main: 1, main_exploiter: 1, league_exploiter: 1}\n"
		"snapshot: {steps: 1500}\n"
		"matchmaking: {job_episodes: 16}\n"
		"collectors: {count: 1, envs: 8, wait_num: 8}\n"
		"budget: {seconds: 600}\n"; /* a backstop: stopped below */

	run_quiet_until(text, dir, sizeof dir, ldir, sizeof ldir, out,
			sizeof out, two_snapshots_played, NULL);
	ck_assert_msg(strstr(out, "win rate of row against column"), "%s",
		      out);
	/* Every snapshot has met someone. */
	const char *pargv[] = { "players", ldir, "--format", "json", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err,
				       pargv), 0);
	int snaps = 0;
	uint32_t ids[256];
	for (const char *p = out; (p = strstr(p, "{\"id\":"));) {
		unsigned id;
		sscanf(p, "{\"id\":%u", &id);
		const char *end = strchr(p, '}');
		if (strstr(p, "\"role\":\"historical\"") &&
		    strstr(p, "\"role\":\"historical\"") < end && snaps < 256)
			ids[snaps++] = id;
		p = end;
	}
	ck_assert_int_ge(snaps, 2); /* the initial one and at least one more */
	store *s;
	brain *b;
	char e[256];
	struct store_opts so = { .flags = STORE_RDONLY };
	ck_assert(store_open(&s, ldir, &so, e, sizeof e) == 0);
	ck_assert(brain_open(&b, s, NULL, e, sizeof e) == 0);
	int played = 0;
	for (int i = 0; i < snaps; i++) {
		double g = 0;
		for (uint32_t j = 0; j < brain_count(b); j++) {
			struct payoff_entry pe;
			payoff_get(brain_payoff(b), ids[i], j, &pe);
			g += pe.games;
		}
		played += g > 0;
	}
	brain_close(b);
	store_close(s);
	printf("e2e: league run: %d snapshots, %d of them played\n", snaps,
	       played);
	/* A snapshot frozen in the last instants may not have met anyone. */
	ck_assert_int_ge(played, snaps - 1);
	ck_assert_int_ge(played, 2);
	tu_rmrf(dir);
}
END_TEST

/* `league replay DIR` makes the logged decisions again with the config
 * the daemon stored: all the same; with another seed (another rng, so
 * other opponents) the first difference is named and the exit is 1. */
START_TEST(replay_checks_the_decision_log)
{
	static char out[1 << 16], err[1 << 16];
	char dir[128], other[256], ldir[192];
	const char *text =
		"league: {name: e2e-replay, seed: 5}\n"
		"env: {name: rps}\n"
		"model: {hidden: [8]}\n"
		"learner: {batch: 64, minibatch: 32}\n"
		"players: {main: 1, main_exploiter: 1}\n"
		"snapshot: {steps: 300}\n"
		"matchmaking: {job_episodes: 4}\n"
		"collectors: {count: 1, envs: 4, wait_num: 4}\n"
		"budget: {jobs: 120}\n";

	run_quiet(text, dir, sizeof dir, ldir, sizeof ldir, out, sizeof out);
	const char *rargv[] = { "replay", ldir, NULL };
	int rc = tu_run_league(out, sizeof out, err, sizeof err, rargv);
	ck_assert_msg(rc == 0 && strstr(out, "every decision and step report "
					  "the same"), "%d: %s%s", rc, out, err);
	unsigned long long n = 0;
	const char *p = strstr(out, ": ");
	ck_assert(p && sscanf(strstr(p + 2, ": ") + 2, "%llu", &n) == 1);
	ck_assert_uint_ge(n, 120); /* a decision and a result a job */
	printf("e2e: %s", out);

	snprintf(other, sizeof other, "%s/other.yaml", dir);
	char *t2 = strdup(text);
	*strstr(t2, "seed: 5") = 0;
	char buf[1024];
	snprintf(buf, sizeof buf, "%sseed: 6%s", t2,
		 strstr(text, "seed: 5") + strlen("seed: 5"));
	free(t2);
	tu_write_file(other, buf);
	const char *oargv[] = { "replay", ldir, "--config", other, NULL };
	rc = tu_run_league(out, sizeof out, err, sizeof err, oargv);
	ck_assert_msg(rc == 1 && strstr(out, "mismatch after") &&
			      strstr(out, "logged "),
		      "%d: %s%s", rc, out, err);
	printf("e2e: %s", out);

	const char *nargv[] = { "replay", dir, NULL }; /* no league there */
	ck_assert_int_eq(tu_run_league(NULL, 0, NULL, 0, nargv), 2);
	tu_rmrf(dir);
}
END_TEST

START_TEST(eval_jobs_take_their_share_and_their_own_table)
{
	const char *text =
		"league: {name: e2e-eval, seed: 3}\n"
		"env: {name: tictactoe}\n"
		"model: {hidden: [8]}\n"
		"players: {main: 1, main_exploiter: 0, league_exploiter: 0}\n"
		"payoff: {decay: 1.0}\n"
		"matchmaking: {job_episodes: 4, job_lease_s: 30}\n"
		"snapshot: {steps: 1000000000}\n"
		"eval: {share: 0.5, games: 300, nashconv: false}\n"
		"budget: {seconds: 600}\n";
	char dir[128], cfg[256];
	struct tu_daemon d;
	struct tp_peer ln, c, other;
	uint64_t train_eps = 0, eval_eps = 0, eval_jobs = 0;
	uint64_t at_last_eval = 0;
	/* [baseline: 0 random, 1 minimax][seat][win, draw, loss] sent */
	uint64_t sent[2][2][3] = { { { 0 } } };
	struct tp_result res;
	struct tp_job ji;
	lg_rng rng;

	lg_rng_seed(&rng, 11);
	tu_league_files(text, dir, sizeof dir, cfg, sizeof cfg);
	tu_serve(&d, cfg, dir, 0, NULL);
	ck_assert_int_eq(d.nlearners, 1);
	uint32_t main_id = d.learners[0];
	learner_for(&ln, &d, main_id);
	collectors_for(&c, &other, &d);
	/* 300 games x 2 seats x 2 baselines = 8 jobs (256 + 44 each). */
	while (eval_jobs < 8) {
		ck_assert_msg(train_eps < 10000, "no evaluation jobs after %llu "
			      "training episodes (%llu evaluation jobs)",
			      (unsigned long long)train_eps,
			      (unsigned long long)eval_jobs);
		if (!tp_take_job(&c, &ji)) {
			lg_sleep_s(0.01);
			continue;
		}
		tp_make_result(&res, ji.id, ji.episodes, &rng, 0);
		if (!ji.evaluation) {
			ck_assert_int_eq(ji.base_seat, -1);
			train_eps += ji.episodes;
			ck_assert_int_eq(tp_send_result(&c, &res),
					 LEAGUE__STATUS__STATUS_OK);
			continue;
		}
		/* The main player's newest version against a baseline;
		 * nothing learns. */
		ck_assert_int_ge(ji.base_seat, 0);
		int ms = !ji.base_seat, b = !strcmp(ji.baseline, "minimax");
		ck_assert_msg(b || !strcmp(ji.baseline, "random"), "%s",
			      ji.baseline);
		ck_assert_uint_eq(ji.player[ms], main_id);
		ck_assert_uint_eq(ji.version[ms], 0);
		ck_assert(!ji.learning[0] && !ji.learning[1]);
		ck_assert(ji.greedy[ms] && !ji.greedy[!ms]); /* eval.greedy */
		ck_assert(ji.episodes == 256 || ji.episodes == 44);
		report_baseline_job(&c, &other, &res, ji.episodes, ms, &rng,
				    sent[b][ms]);
		eval_eps += ji.episodes;
		eval_jobs++;
		at_last_eval = train_eps;
	}
	/* eval.share 0.5: as many evaluation episodes as training ones,
	 * give or take the job in hand and one in the queue. */
	ck_assert_msg(at_last_eval + 8 >= eval_eps &&
		      at_last_eval <= eval_eps + 8,
		      "%llu training episodes for %llu evaluation ones",
		      (unsigned long long)at_last_eval,
		      (unsigned long long)eval_eps);
	/* No new version: no new evaluation. */
	for (int i = 0; i < 200; i++) {
		if (!tp_take_job(&c, &ji))
			continue;
		ck_assert(!ji.evaluation);
		tp_make_result(&res, ji.id, ji.episodes, &rng, 0);
		ck_assert_int_eq(tp_send_result(&c, &res),
				 LEAGUE__STATUS__STATUS_OK);
		train_eps += ji.episodes;
	}
	tp_close(&c);
	tp_close(&other);
	tp_close(&ln);
	ck_assert_int_eq(tu_serve_stop(&d, SIGTERM), 0);

	/* Their own table, exactly what was sent; the payoff matrix holds
	 * the training games only. */
	store *st;
	store_txn *t;
	struct league_bgame_row *rows;
	size_t n;
	char err[256];
	struct store_opts so = { .flags = STORE_RDONLY };
	ck_assert(store_open(&st, dir, &so, err, sizeof err) == 0);
	ck_assert(store_txn_begin(st, STORE_TXN_READ, &t) == 0);
	ck_assert_int_eq(league_bgame_list(t, &rows, &n), 0);
	ck_assert_uint_eq(n, 2);
	for (size_t i = 0; i < n; i++) {
		int b = !strcmp(rows[i].baseline, "minimax");
		ck_assert_uint_eq(rows[i].player, main_id);
		ck_assert_uint_eq(rows[i].version, 0);
		for (int s = 0; s < 2; s++) {
			ck_assert_uint_eq(rows[i].games[s], 300);
			ck_assert_uint_eq(rows[i].wins[s], sent[b][s][0]);
			ck_assert_uint_eq(rows[i].draws[s], sent[b][s][1]);
			ck_assert_uint_eq(rows[i].losses[s], sent[b][s][2]);
		}
	}
	free(rows);
	store_txn_abort(t);
	store_close(st);
	ck_assert_double_eq_tol(games_on_disk(dir), (double)train_eps, 1e-9);
	printf("e2e: evaluation: %llu episodes in 8 jobs beside %llu "
	       "training episodes\n", (unsigned long long)eval_eps,
	       (unsigned long long)at_last_eval);
	dir[strlen(dir) - strlen("/league")] = 0;
	tu_rmrf(dir);
}
END_TEST

/* matchmaking.baselines: the main player's newest version learns against
 * fixed opponents, from both seats in turn, in baseline_share of its
 * episodes; the results reach the status, never the payoff matrix. */
START_TEST(baseline_training_jobs_take_their_share_outside_the_payoff)
{
	const char *text =
		"league: {name: e2e-tb, seed: 5}\n"
		"env: {name: tictactoe}\n"
		"model: {hidden: [8]}\n"
		"players: {main: 2, main_exploiter: 0, league_exploiter: 0}\n"
		"payoff: {decay: 1.0}\n"
		"matchmaking: {job_episodes: 4, job_lease_s: 30,\n"
		"  baseline_share: 0.25, baselines: 'minimax, random'}\n"
		"snapshot: {steps: 1000000000}\n"
		"budget: {seconds: 600}\n";
	static char body[1 << 16];
	char dir[128], cfg[256], want[256];
	struct tu_daemon d;
	struct tp_peer ln[2], c, other;
	/* Per main player [its seat][baseline]: each takes both in turn. */
	uint64_t turns[2][2][2] = { { { 0 } } };
	uint64_t train_eps = 0, base_eps = 0;
	/* [baseline: 0 minimax, 1 random][main's seat][win, draw, loss] */
	uint64_t sent[2][2][3] = { { { 0 } } };
	struct tp_result res;
	struct tp_job ji;
	lg_rng rng;

	lg_rng_seed(&rng, 12);
	tu_league_files(text, dir, sizeof dir, cfg, sizeof cfg);
	tu_serve(&d, cfg, dir, 0, NULL);
	ck_assert_uint_gt(d.http_port, 0);
	ck_assert_int_eq(d.nlearners, 2);
	learner_for(&ln[0], &d, d.learners[0]);
	learner_for(&ln[1], &d, d.learners[1]);
	collectors_for(&c, &other, &d);
	while (train_eps < 2000) {
		if (!tp_take_job(&c, &ji)) {
			lg_sleep_s(0.01);
			continue;
		}
		tp_make_result(&res, ji.id, ji.episodes, &rng, 0);
		ck_assert(!ji.evaluation);
		if (ji.base_seat < 0) {
			train_eps += ji.episodes;
			ck_assert_int_eq(tp_send_result(&c, &res),
					 LEAGUE__STATUS__STATUS_OK);
			continue;
		}
		/* The main player's newest version learns from its seat; the
		 * baseline's seat never does; the seats take turns. */
		int ms = !ji.base_seat, b = !strcmp(ji.baseline, "random");
		ck_assert_msg(b || !strcmp(ji.baseline, "minimax"), "%s",
			      ji.baseline);
		int pl = ji.player[ms] == d.learners[1];
		ck_assert(pl || ji.player[ms] == d.learners[0]);
		ck_assert_uint_eq(ji.version[ms], 0);
		turns[pl][ms][b]++;
		ck_assert(ji.learning[ms] && !ji.learning[!ms]);
		ck_assert(!ji.greedy[0] && !ji.greedy[1]);
		ck_assert_uint_eq(ji.episodes, 4);
		report_baseline_job(&c, &other, &res, ji.episodes, ms, &rng,
				    sent[b][ms]);
		base_eps += ji.episodes;
	}
	/* share 0.25: a third as many as the training episodes, give or
	 * take a job per player; each baseline and seat a quarter of
	 * them, give or take a job per player. */
	ck_assert_msg(base_eps * 3 + 24 >= train_eps &&
		      base_eps * 3 <= train_eps + 24,
		      "%llu baseline episodes for %llu training ones",
		      (unsigned long long)base_eps,
		      (unsigned long long)train_eps);
	for (int b = 0; b < 2; b++)
		for (int s = 0; s < 2; s++) {
			uint64_t g = sent[b][s][0] + sent[b][s][1] +
				     sent[b][s][2];
			ck_assert_uint_le(g, base_eps / 4 + 8);
			ck_assert_uint_ge(g + 8, base_eps / 4);
		}
	for (int pl = 0; pl < 2; pl++) {
		uint64_t lo = UINT64_MAX, hi = 0;
		for (int k = 0; k < 4; k++) {
			lo = LG_MIN(lo, turns[pl][k / 2][k % 2]);
			hi = LG_MAX(hi, turns[pl][k / 2][k % 2]);
		}
		ck_assert_msg(lo > 0 && hi - lo <= 1, "player %d: seats x "
			      "baselines %llu..%llu jobs", pl,
			      (unsigned long long)lo, (unsigned long long)hi);
	}
	ck_assert_int_eq(net_http_get(d.http_port, "/status", 5, body,
				     sizeof body), 0);
	for (int b = 0; b < 2; b++) {
		uint64_t (*x)[3] = sent[b];
		snprintf(want, sizeof want,
			 "{\"baseline\": \"%s\", \"games\": [%llu, %llu], "
			 "\"wins\": [%llu, %llu], \"losses\": [%llu, %llu]}",
			 b ? "random" : "minimax",
			 (unsigned long long)(x[0][0] + x[0][1] + x[0][2]),
			 (unsigned long long)(x[1][0] + x[1][1] + x[1][2]),
			 (unsigned long long)x[0][0],
			 (unsigned long long)x[1][0],
			 (unsigned long long)x[0][2],
			 (unsigned long long)x[1][2]);
		ck_assert_msg(strstr(body, want), "no %s in\n%s", want, body);
	}
	tp_close(&c);
	tp_close(&other);
	tp_close(&ln[0]);
	tp_close(&ln[1]);
	ck_assert_int_eq(tu_serve_stop(&d, SIGTERM), 0);
	/* The payoff matrix holds the training games only. */
	ck_assert_double_eq_tol(games_on_disk(dir), (double)train_eps, 1e-9);
	printf("e2e: baseline training: %llu episodes beside %llu training "
	       "episodes\n", (unsigned long long)base_eps,
	       (unsigned long long)train_eps);
	dir[strlen(dir) - strlen("/league")] = 0;
	tu_rmrf(dir);
}
END_TEST

/* `league run` of a short league with evaluation games, then the
 * `league eval` outputs of its dir into out. */
static void run_with_eval(const char *text, char *dir, size_t dlen,
			  char *ldir, size_t llen, struct eval_want *w)
{
	static char out[1 << 16];

	run_quiet_until(text, dir, dlen, ldir, llen, out, sizeof out,
			eval_stored, w);
	ck_assert_msg(strstr(out, "main player against the baselines"), "%s",
		      out);
}

/* Count the rows of `league eval baselines DIR --format csv` and check
 * each: the games add up, no seat has more than `games`, and nobody
 * beats `unbeatable` (a perfect player). Returns the rows. */
static int check_rows(const char *ldir, unsigned games,
		      const char *unbeatable, unsigned *strong_games)
{
	static char out[1 << 18], err[1 << 12];
	const char *argv[] = { "eval", "baselines", ldir, "--format", "csv",
			       NULL };
	int rows = 0;

	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, argv),
			 0);
	*strong_games = 0;
	for (char *line = strchr(out, '\n'); line && line[1]; ) {
		char base[32];
		unsigned long long g, g0, w0, d0, l0, g1, w1, d1, l1;
		double secs, wr, lr;
		unsigned long long steps;
		unsigned pl, ver;
		line++;
		int k = sscanf(line, "%lf,%llu,%u,%u,%31[^,],%llu,%lf,%lf,"
			       "%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu",
			       &secs, &steps, &pl, &ver, base, &g, &wr, &lr,
			       &g0, &w0, &d0, &l0, &g1, &w1, &d1, &l1);
		ck_assert_msg(k == 16, "row: %.80s", line);
		ck_assert_uint_eq(g, g0 + g1);
		ck_assert_uint_eq(g0, w0 + d0 + l0);
		ck_assert_uint_eq(g1, w1 + d1 + l1);
		ck_assert_uint_le(g0, games);
		ck_assert_uint_le(g1, games);
		if (unbeatable && !strcmp(base, unbeatable)) {
			ck_assert_msg(w0 + w1 == 0, "%s lost %llu games",
				      unbeatable, w0 + w1);
			*strong_games += (unsigned)g;
		}
		rows++;
		line = strchr(line, '\n');
	}
	return rows;
}

START_TEST(league_run_tictactoe_against_minimax)
{
	const char *text =
		"league: {name: e2e-ttt, seed: 4}\n"
		"env: {name: tictactoe}\n"
		"model: {hidden: [32]}\n"
		"learner: {batch: 512, minibatch: 128}\n"
		"players: {main: 1, main_exploiter: 1, league_exploiter: 0}\n"
		"snapshot: {steps: 20000}\n"
		"matchmaking: {job_episodes: 16}\n"
		"collectors: {count: 1, envs: 8, wait_num: 8}\n"
		"eval: {share: 0.3, games: 50}\n"
		"budget: {seconds: 600}\n"; /* a backstop: stopped below */
	struct eval_want w = { .rows = 2, .minimax = 1 };
	char dir[128], ldir[192];
	unsigned strong;

	run_with_eval(text, dir, sizeof dir, ldir, sizeof ldir, &w);
	int rows = check_rows(ldir, 50, "minimax", &strong);
	printf("e2e: tictactoe: %d evaluation rows, %u games against "
	       "minimax, none won\n", rows, strong);
	ck_assert_int_ge(rows, 2);
	ck_assert_uint_gt(strong, 0);
	tu_rmrf(dir);
}
END_TEST

/* Both evaluations at once share STORE_DB_EVAL: the NashConv points keep
 * their own sequence beside the baseline rows. */
START_TEST(league_run_kuhn_nashconv_beside_baseline_rows)
{
	static char out[1 << 16], err[1 << 12];
	const char *text =
		"league: {name: e2e-kuhn, seed: 4}\n"
		"env: {name: kuhn}\n"
		"model: {hidden: [16]}\n"
		"learner: {batch: 512, minibatch: 128}\n"
		"players: {main: 1, main_exploiter: 1, league_exploiter: 0}\n"
		"snapshot: {steps: 3000}\n"
		"matchmaking: {job_episodes: 16}\n"
		"collectors: {count: 1, envs: 8, wait_num: 8}\n"
		"eval: {share: 0.3, games: 50, nashconv: true}\n"
		"budget: {seconds: 600}\n"; /* a backstop: stopped below */
	struct eval_want w = { .rows = 1, .points = 2 };
	char dir[128], ldir[192];
	unsigned strong;

	run_with_eval(text, dir, sizeof dir, ldir, sizeof ldir, &w);
	int rows = check_rows(ldir, 50, NULL, &strong);
	const char *argv[] = { "eval", ldir, "--format", "csv", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, argv),
			 0);
	int points = 0, last_snapshot = -1;
	for (char *line = strchr(out, '\n'); line && line[1];
	     line = strchr(line + 1, '\n')) {
		double secs, nc[4];
		unsigned long long steps;
		int snap;
		ck_assert_int_eq(sscanf(line + 1, "%lf,%llu,%lf,%lf,%lf,%lf,%d",
					&secs, &steps, &nc[0], &nc[1], &nc[2],
					&nc[3], &snap), 7);
		ck_assert_int_gt(snap, last_snapshot); /* none overwritten */
		last_snapshot = snap;
		points++;
	}
	printf("e2e: kuhn: %d NashConv points beside %d baseline rows\n",
	       points, rows);
	ck_assert_int_ge(rows, 1);
	ck_assert_int_ge(points, 2);
	tu_rmrf(dir);
}
END_TEST

/* Occurrences of needle in hay. */
static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

#define PAGED_JOBS 640
#define HOARD_REQUESTS 50

/*
 * Over real sockets: a hoarder registered with max_jobs 1 asking for 64
 * jobs HOARD_REQUESTS times holds one job; a collector that registered
 * for PAGED_JOBS takes them, and GET /jobs answers a page of 100 (the
 * default) with "truncated" and "next", whose follow-up brings the rest
 * in id order; a bad limit is a 400. /lineage pages alike.
 */
START_TEST(hoarder_is_capped_and_jobs_endpoint_is_paged)
{
	static char body[1 << 20];
	char dir[128], cfg[256], path[96];
	struct tu_daemon d;
	struct tp_peer learners[16], hoarder, col;
	size_t got = 0;
	int st;

	tu_league_files(tiny_cfg, dir, sizeof dir, cfg, sizeof cfg);
	tu_serve(&d, cfg, dir, 0, NULL);
	for (int i = 0; i < d.nlearners; i++)
		learner_for(&learners[i], &d, d.learners[i]);
	tp_connect(&hoarder, d.port, LEAGUE__ROLE__ROLE_COLLECTOR, "hoarder",
		   NULL);
	tp_register_collector(&hoarder, 4, 1);
	for (int i = 0; i < HOARD_REQUESTS; i++)
		got += tp_request_jobs(&hoarder, 64, NULL, &st);
	ck_assert_uint_eq(got, 1);
	ck_assert_int_eq(st, LEAGUE__STATUS__STATUS_BUSY);

	tp_connect(&col, d.port, LEAGUE__ROLE__ROLE_COLLECTOR, "c", NULL);
	tp_register_collector(&col, 4, PAGED_JOBS);
	for (got = 0; got < PAGED_JOBS;)
		got += tp_request_jobs(&col, 64, NULL, &st);
	ck_assert_uint_eq(got, PAGED_JOBS);

	ck_assert_int_eq(net_http_get(d.http_port, "/jobs", 5, body,
				      sizeof body), 0);
	ck_assert_msg(strstr(body, " 200 "), "%.200s", body);
	ck_assert_uint_eq(count_of(body, "{\"id\":"), 100);
	ck_assert_msg(strstr(body, "\"total\":641,\"limit\":100,"
			     "\"truncated\":true,\"next\":\""), "%s", body);
	const char *nx = strstr(body, "\"next\":\"") + 8;
	snprintf(path, sizeof path, "/jobs?after=%llu&limit=1000",
		 strtoull(nx, NULL, 10));
	ck_assert_int_eq(net_http_get(d.http_port, path, 5, body,
				      sizeof body), 0);
	ck_assert_uint_eq(count_of(body, "{\"id\":"), 641 - 100);
	ck_assert_msg(strstr(body, "\"truncated\":false,\"next\":null}"),
		      "%.300s", body);
	/* ids ascend across the page */
	unsigned long long prev = strtoull(nx, NULL, 10);
	for (const char *p = body; (p = strstr(p, "{\"id\":")); p++) {
		unsigned long long id = strtoull(p + 6, NULL, 10);
		ck_assert_uint_gt(id, prev);
		prev = id;
	}
	ck_assert_int_eq(net_http_get(d.http_port, "/jobs?limit=0", 5, body,
				      sizeof body), 0);
	ck_assert_msg(strstr(body, " 400 "), "%.200s", body);
	ck_assert_int_eq(net_http_get(d.http_port, "/jobs?limit=1001", 5, body,
				      sizeof body), 0);
	ck_assert_msg(strstr(body, " 400 "), "%.200s", body);
	/* /lineage pages the same way: player 0, then the rest after it */
	ck_assert_int_eq(net_http_get(d.http_port, "/lineage?limit=1", 5, body,
				      sizeof body), 0);
	ck_assert_uint_eq(count_of(body, "{\"id\":"), 1);
	ck_assert_msg(strstr(body, "{\"players\":[{\"id\":0,\"role\":"
			     "\"main\"") && strstr(body, "\"truncated\":true,"
							 "\"next\":\"0\"}"),
		      "%s", body);
	ck_assert_int_eq(net_http_get(d.http_port, "/lineage?after=0", 5, body,
				      sizeof body), 0);
	ck_assert_msg(strstr(body, "{\"players\":[{\"id\":1,") &&
			      strstr(body, "\"truncated\":false,\"next\":null}"),
		      "%s", body);

	tp_close(&col);
	tp_close(&hoarder);
	for (int i = 0; i < d.nlearners; i++)
		tp_close(&learners[i]);
	ck_assert_int_eq(tu_serve_stop(&d, SIGTERM), 0);
	dir[strlen(dir) - strlen("/league")] = 0;
	tu_rmrf(dir);
}
END_TEST

Suite *suite_e2e(void)
{
	Suite *s = suite_create("e2e");
	const struct tu_test runtime_tests[] = {
		{ kill9_resume_counts_every_acked_result_once, 1 },
		{ restarted_learner_takes_its_trainer_state, 1 },
		{ league_run_with_search_trains_on_every_segment, 1 },
		{ dead_collector_job_goes_to_the_next, 1 },
		{ hoarder_is_capped_and_jobs_endpoint_is_paged, 1 },
		{ metrics_parse_then_inspect_reads_only, 1 },
		{ inspect_follows_commits, 1 },
		{ bad_clients_are_cut_off_others_served, 1 },
		{ league_run_small_rps, 1 },
		{ replay_checks_the_decision_log, 1 },
		{ eval_jobs_take_their_share_and_their_own_table, 1 },
		{ league_run_tictactoe_against_minimax, 1 },
		{ baseline_training_jobs_take_their_share_outside_the_payoff,
		  1 },
		{ league_run_kuhn_nashconv_beside_baseline_rows, 1 },
	};

	TU_TCASE(s, "runtime", 120, runtime_tests);
	return s;
}
