/* tests/check_liveness.c: the league lives on without any one learner.
 * Real binaries over loopback: `league serve`, two `league learn` (two
 * learning players) and one `league collect`, with a short heartbeat
 * (server.heartbeat_s 0.5, so a learner silent for NET_SILENT_HEARTBEATS
 * periods, 1.5 s, is given up). Cases:
 *   - one learner stopped with SIGSTOP: the other player's updates go on
 *     (the collector no longer waits for the stopped one's credit), and
 *     after SIGCONT the stopped player registers again and trains again;
 *   - a learner that answers the stream's hello, grants credit and then
 *     never reads (its TCP window fills): the collector gives it up (the
 *     write times out) and the other player's updates go on.
 * Progress is read from the learners' logs ("update N:" lines), waiting
 * on a count with generous deadlines, never on a fixed time. */
#include <check.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/net.h"
#include "tests/proto.h"
#include "tests/testutil.h"

static const char *two_learners_cfg =
	"league: {name: liveness, seed: 7}\n"
	"env: {name: rps}\n"
	"model: {hidden: [8]}\n"
	"players: {main: 1, main_exploiter: 1, league_exploiter: 0}\n"
	"learner: {batch: 64, minibatch: 32}\n"
	"matchmaking: {job_episodes: 8}\n"
	"collectors: {count: 1, envs: 2, wait_num: 1}\n"
	"server: {heartbeat_s: 0.5}\n"
	"budget: {seconds: 3600}\n";

struct world {
	char dir[128], ldir[160], addr[64];
	char llog[2][300], clog[300], dlog[300];
	struct tu_daemon d;
	pid_t lp[2], cp;
	char player[2][16];
};

/* Updates logged by the learner whose log is path. */
static unsigned updates(const char *path)
{
	static char buf[1 << 22];
	unsigned n = 0;

	tu_read_text(path, buf, sizeof buf);
	for (const char *p = buf; (p = strstr(p, " update ")); p++)
		n++;
	return n;
}

/* Wait (at most limit seconds) until the learner logging to path has
 * logged at least `want` updates. */
static void wait_updates(const char *path, unsigned want, double limit)
{
	double t0 = lg_now_s();
	unsigned n;

	while ((n = updates(path)) < want) {
		ck_assert_msg(lg_now_s() - t0 < limit,
			      "%s: %u updates in %.0f s, waited for %u", path,
			      n, limit, want);
		lg_sleep_s(0.1);
	}
}

/* The daemon, both learners and the collector, each learner past a few
 * updates. */
static void world_start(struct world *w)
{
	char cfg[256], dir[128];

	tu_mkdtemp(dir, sizeof dir);
	memcpy(w->dir, dir, sizeof dir); /* paths below from the copy: gcc's
					    -Wrestrict cannot tell the members
					    of w apart */
	snprintf(cfg, sizeof cfg, "%s/league.yaml", dir);
	tu_write_file(cfg, two_learners_cfg);
	snprintf(w->ldir, sizeof w->ldir, "%s/league", dir);
	snprintf(w->dlog, sizeof w->dlog, "%s.log", w->ldir);
	snprintf(w->clog, sizeof w->clog, "%s/collect.log", dir);
	tu_serve(&w->d, cfg, w->ldir, 0, NULL);
	ck_assert_int_eq(w->d.nlearners, 2);
	snprintf(w->addr, sizeof w->addr, "127.0.0.1:%u", w->d.port);
	for (int i = 0; i < 2; i++) {
		snprintf(w->llog[i], sizeof w->llog[i], "%s/learn%d.log",
			 dir, i);
		snprintf(w->player[i], sizeof w->player[i], "%u",
			 w->d.learners[i]);
		const char *argv[] = { "league", "learn", "--connect", w->addr,
				       "--player", w->player[i], NULL };
		w->lp[i] = tu_spawn_worker(argv, w->llog[i], 1);
	}
	const char *cargv[] = { "league", "collect", "--connect", w->addr,
				NULL };
	w->cp = tu_spawn_worker(cargv, w->clog, 1);
	wait_updates(w->llog[0], 3, 90);
	wait_updates(w->llog[1], 3, 90);
}

/* Stop a worker: it must exit cleanly (0; a sanitizer's report exits
 * 1). */
static void reap(pid_t pid)
{
	int st;

	if (pid <= 0)
		return;
	kill(pid, SIGCONT);
	kill(pid, SIGTERM);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "worker %d: status 0x%x", (int)pid, st);
}

static void world_stop(struct world *w)
{
	reap(w->cp);
	reap(w->lp[0]);
	reap(w->lp[1]);
	ck_assert_int_eq(tu_serve_stop(&w->d, SIGTERM), 0);
	tu_rmrf(w->dir);
}

/* One learner stopped (SIGSTOP): the collector gives it up after about
 * NET_SILENT_HEARTBEATS heartbeats and the other player trains on; the
 * daemon drops the stopped one and issues no jobs for it. After SIGCONT
 * it registers again and trains again on fresh rows (more updates than
 * the segments queued before the stop could make). Before the fix the
 * collector waited SEND_TIMEOUT_S (120 s) on the stopped learner's
 * credit with every env, so the other player made no update. */
START_TEST(stopped_learner_costs_only_its_player)
{
	struct world w;
	unsigned n;

	world_start(&w);
	kill(w.lp[0], SIGSTOP);
	n = updates(w.llog[1]);
	wait_updates(w.llog[1], n + 20, 90);
	/* the daemon dropped it (its heartbeats stopped too) */
	tu_wait_for_text(w.dlog, "heartbeat timeout", 30);
	n = updates(w.llog[1]);
	wait_updates(w.llog[1], n + 10, 90);

	kill(w.lp[0], SIGCONT);
	tu_wait_for_text(w.llog[0], "registered again", 60);
	n = updates(w.llog[0]);
	wait_updates(w.llog[0], n + 6, 120);
	/* and the other one still trains */
	n = updates(w.llog[1]);
	wait_updates(w.llog[1], n + 3, 90);
	world_stop(&w);
}
END_TEST

/* A trajectory endpoint that takes one sender, answers its hello, grants
 * it a huge credit and then never reads: the sender's writes fill the
 * socket buffers and block. */
struct deaf {
	int lfd, fd;
	uint16_t port;
	pthread_t th;
	volatile int accepted;
};

static void *deaf_main(void *arg)
{
	struct deaf *f = arg;

	f->fd = tp_deaf_learner_accept(f->lfd, 120);
	f->accepted = f->fd >= 0;
	return NULL; /* f->fd stays open, unread */
}

/* A learner that stops reading its stream while it stays registered
 * (its daemon session heartbeats): player 1's learner is killed and a
 * fake takes the player over with a deaf endpoint. The collector's write
 * to it times out after NET_SILENT_HEARTBEATS heartbeats, it is logged
 * and given up, and player 0 trains on. Before the fix the collector
 * blocked in send() for good once the window was full. */
START_TEST(deaf_learner_costs_only_its_player)
{
	struct world w;
	struct deaf f = { .fd = -1 };
	struct tp_peer fake;
	char ep[64], what[128], err[256];
	int small = 4096, st, rc;
	unsigned n;
	double t0;

	world_start(&w);
	ck_assert_msg(net_listen_tcp("127.0.0.1", 0, &f.lfd, &f.port, err,
				     sizeof err) == 0, "%s", err);
	/* a small receive window fills after a few segments */
	setsockopt(f.lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
	ck_assert_int_eq(pthread_create(&f.th, NULL, deaf_main, &f), 0);
	snprintf(ep, sizeof ep, "127.0.0.1:%u", f.port);

	kill(w.lp[1], SIGKILL);
	ck_assert_int_eq(waitpid(w.lp[1], &st, 0), w.lp[1]);
	w.lp[1] = 0;
	tp_connect(&fake, w.d.port, LEAGUE__ROLE__ROLE_LEARNER, "deaf", NULL);
	t0 = lg_now_s();
	/* BUSY until the daemon has seen the killed learner's close */
	while ((rc = tp_fake_learner_at(&fake, w.d.learners[1], ep)) ==
	       LEAGUE__STATUS__STATUS_BUSY) {
		ck_assert_msg(lg_now_s() - t0 < 30, "player still owned");
		lg_sleep_s(0.1);
	}
	ck_assert_int_eq(rc, LEAGUE__STATUS__STATUS_OK);

	snprintf(what, sizeof what, "learner at %s: sending failed", ep);
	tu_wait_for_text(w.clog, what, 120);
	ck_assert(f.accepted);
	n = updates(w.llog[0]);
	wait_updates(w.llog[0], n + 20, 90);

	tp_close(&fake);
	world_stop(&w);
	pthread_join(f.th, NULL);
	if (f.fd >= 0)
		close(f.fd);
	close(f.lfd);
}
END_TEST

Suite *suite_liveness(void)
{
	Suite *s = suite_create("liveness");
	const struct tu_test one_learner_down_tests[] = {
		{ stopped_learner_costs_only_its_player, 1 },
		{ deaf_learner_costs_only_its_player, 1 },
	};

	TU_TCASE(s, "one learner down", 600, one_learner_down_tests);
	return s;
}
