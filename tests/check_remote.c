/*
 * tests/check_remote.c: remote games (net/game.proto, envs/remote.c, the
 * python/league_game package).
 *
 *   - The Python tic-tac-toe of python/examples, played over the protocol,
 *     is the built-in tictactoe move for move: observations, masks, who
 *     moves, returns.
 *   - Envs stepping at once share round trips (batches carry many ops).
 *   - The Python Kuhn poker's text (TEXT ops of version 2) is the
 *     built-in kuhn's for the same card and moves; `league env check
 *     --remote` checks it, `league play human` shows it; a game without
 *     text, or a version-1 server, is never asked.
 *   - A server killed mid-episode fails the op (LG_EIO), the env cannot be
 *     recreated while it is down ("cannot reach"), and plays again once it
 *     is back; a collector over it drops and counts the episodes and goes
 *     on.
 *   - A server that breaks the protocol (bad Welcome, no legal move,
 *     returns not summing to 0) is refused; a game's own error fails
 *     only that env's op.
 *   - Configs: an unreachable server, the wrong game and refused params
 *     exit 2 with file:line:col.
 *   - `league run` of a config with env.serve trains on the Python game;
 *     the server killed mid-run is restarted and the run ends with its
 *     payoff matrix, every acknowledged result on disk. Its player
 *     exported plays against random at a server its user names
 *     (--remote), and only there: none named, or one of another game, is
 *     refused.
 *
 * Python is Debian's /usr/bin/python3 with python3-protobuf, which the
 * Makefile installs; a missing one fails these tests.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/collector.h"
#include "envs/env.h"
#include "eval/agent.h"
#include "game.pb-c.h"
#include "storage/storage.h"
#include "tests/testutil.h"
#include "util/util.h"

/* ---- a Python server ------------------------------------------------- */

struct pyserv {
	pid_t pid;
	char addr[240];
};

/* Fork a Python server of script (with the option `opt` and its value,
 * unless opt is NULL) at DIR/game.sock. */
static void py_spawn(struct pyserv *p, const char *dir, const char *script,
		     const char *opt, const char *val)
{
	char sock[200];

	snprintf(sock, sizeof sock, "%s/game.sock", dir);
	unlink(sock); /* not reachable before this server binds it */
	snprintf(p->addr, sizeof p->addr, "unix:%s", sock);
	p->pid = fork();
	ck_assert_int_ge(p->pid, 0);
	if (p->pid == 0) {
		execl("/usr/bin/python3", "python3", script, "--listen",
		      p->addr, opt, val, (char *)NULL);
		_exit(127);
	}
}

/* Wait until p's server answers env_check of `game` (default opts) with
 * anything but "cannot reach": that rc, err its message. */
static int py_answer(struct pyserv *p, const char *game, char *err,
		     size_t errlen)
{
	struct env_opts o;
	int rc = LG_ENOTFOUND;

	env_opts_default(&o);
	snprintf(o.remote, sizeof o.remote, "%s", p->addr);
	for (int k = 0; k < 300 && rc == LG_ENOTFOUND; k++) {
		int st;
		if ((rc = env_check(game, &o, NULL, err, errlen)) !=
		    LG_ENOTFOUND)
			break;
		ck_assert_msg(waitpid(p->pid, &st, WNOHANG) == 0,
			      "the Python server exited: %s", err);
		lg_sleep_s(0.05);
	}
	return rc;
}

/* A Python server of script (opt as py_spawn's) serving `game`. */
static void py_start_opt(struct pyserv *p, const char *dir,
			 const char *script, const char *game,
			 const char *opt, const char *val)
{
	char err[300];

	py_spawn(p, dir, script, opt, val);
	ck_assert_msg(py_answer(p, game, err, sizeof err) == 0,
		      "the Python server did not serve: %s", err);
}

static void py_start_script(struct pyserv *p, const char *dir,
			    const char *script, const char *game)
{
	py_start_opt(p, dir, script, game, NULL, NULL);
}

static void py_start(struct pyserv *p, const char *dir)
{
	char script[512];

	snprintf(script, sizeof script, "%s/python/examples/tictactoe.py",
		 tu_src_dir());
	py_start_script(p, dir, script, "tictactoe_py");
}

static void py_kill(struct pyserv *p)
{
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
	}
	p->pid = -1;
}

static void remote_opts(struct env_opts *o, const struct pyserv *p)
{
	env_opts_default(o);
	snprintf(o->remote, sizeof o->remote, "%s", p->addr);
	o->remote_timeout_s = 10;
}

/* A Python game that raises in step(): the collector's log (our stderr)
 * holds the traceback, with the file and line of the raise, once; the
 * same failure again is counted, not logged a line per step. */
START_TEST(python_game_error_logged_with_traceback_once)
{
	static char log[1 << 16];
	char dir[128], script[256], logf[256], text[1024], err[300];
	struct pyserv ps;
	struct env_opts o;
	int saved, fd;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(script, sizeof script, "%s/raiser.py", dir);
	snprintf(text, sizeof text,
		 "import sys\n"
		 "sys.path.insert(0, '%s/python')\n"
		 "from league_game import Game, serve\n"
		 "class Raiser(Game):\n"
		 "    name = 'raiser'\n"
		 "    num_actions = 2\n"
		 "    obs_shape = (1,)\n"
		 "    max_steps = 4\n"
		 "    def reset(self, seed): self.t = 0\n"
		 "    agent_selection = 0\n"
		 "    terminated = False\n"
		 "    def observe(self, agent): return [0.0]\n"
		 "    def action_mask(self, agent): return [1, 1]\n"
		 "    def step(self, action):\n"
		 "        raise RuntimeError('boom')\n" /* line 15 */
		 "serve(Raiser)\n", tu_src_dir());
	tu_write_file(script, text);
	py_start_script(&ps, dir, script, "raiser");
	remote_opts(&o, &ps);
	snprintf(logf, sizeof logf, "%s/collector.log", dir);
	fd = open(logf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	saved = dup(2);
	dup2(fd, 2);
	close(fd);
	for (int i = 0; i < 40; i++) {
		env *e = NULL;
		ck_assert_msg(env_new(&e, "raiser", &o, err, sizeof err) == 0,
			      "%s", err);
		ck_assert_int_eq(env_reset(e, (uint64_t)i), 0);
		ck_assert_int_eq(env_step(e, i & 1), LG_EIO);
		env_free(e);
	}
	dup2(saved, 2);
	close(saved);
	py_kill(&ps);
	FILE *f = fopen(logf, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(log, 1, sizeof log - 1, f);
	log[n] = 0;
	fclose(f);
	int frames = 0, lines = 0;
	for (const char *p = log; (p = strstr(p, "raiser.py\", line 15, in "
						"step")); p++)
		frames++;
	for (const char *p = log; (p = strstr(p, "RuntimeError: boom")); p++)
		lines++;
	ck_assert_msg(frames == 1, "%d frames:\n%.3000s", frames, log);
	ck_assert_msg(lines == 1, "%d exception lines:\n%.3000s", lines, log);
	ck_assert_ptr_nonnull(strstr(log, "the game failed:\nTraceback"));
	tu_rmrf(dir);
}
END_TEST

/* ---- the Python package's own unit tests -------------------------------- */

/* python/tests: the server's answer() (op order, failures, and what a
 * failure must not disturb), run with Debian's python3. */
START_TEST(python_package_unit_tests)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof cmd,
		 "/usr/bin/python3 -m unittest discover -s '%s/python/tests' "
		 "2>&1", tu_src_dir());
	FILE *f = popen(cmd, "r");
	char out[8192] = "";
	size_t n;
	ck_assert_ptr_nonnull(f);
	n = fread(out, 1, sizeof out - 1, f);
	out[n] = 0;
	st = pclose(f);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", out);
	ck_assert_msg(strstr(out, "\nOK"), "%s", out);
}
END_TEST

/* ---- the Python game is the built-in one ------------------------------ */

/* Run 0 over protocol version 2 (what a league and our server agree
 * on), run 1 with the server limited to version 1 (as a version-1
 * server, today's or a user's, answers): the same game either way. */
START_TEST(python_tictactoe_is_the_builtin)
{
	char dir[128], err[300], script[512];
	struct pyserv ps;
	struct env_opts o;
	env *r = NULL, *b = NULL;
	lg_rng rng;
	float ob[27], orr[27];
	uint8_t mb[9], mr[9];
	int steps = 0;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(script, sizeof script, "%s/python/examples/tictactoe.py",
		 tu_src_dir());
	py_start_opt(&ps, dir, script, "tictactoe_py",
		     _i ? "--protocol" : NULL, "1");
	remote_opts(&o, &ps);
	ck_assert_msg(env_new(&r, NULL, &o, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(env_new(&b, "tictactoe", NULL, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_str_eq(env_spec_of(r)->name, "tictactoe_py");
	ck_assert_uint_eq(env_spec_of(r)->obs_len, 27);
	ck_assert_int_eq(env_spec_of(r)->num_actions, 9);
	ck_assert_uint_eq(env_spec_of(r)->obs_rank, 3);
	/* either version: the seats of the built-in, zero-sum */
	{
		const struct env_spec *sr = env_spec_of(r), *sb = env_spec_of(b);
		ck_assert_int_eq(sr->players, 2);
		ck_assert_uint_eq(sr->flags, sb->flags);
		ck_assert_int_eq(sr->payoff, ENV_ZERO_SUM);
		ck_assert_int_eq(sr->teams, 2);
		ck_assert_int_eq(sr->roles, 1);
		ck_assert_str_eq(sr->role_name[0], "player");
		for (int p = 0; p < 2; p++) {
			ck_assert_uint_eq(sr->seat[p].obs_len, 27);
			ck_assert_int_eq(sr->seat[p].num_actions, 9);
			ck_assert_uint_eq(sr->seat[p].obs_rank, 3);
			ck_assert_int_eq(sr->seat[p].team, p);
			ck_assert_int_eq(sr->seat[p].role, 0);
		}
	}
	lg_rng_seed(&rng, 5);
	for (int ep = 0; ep < 60; ep++) {
		ck_assert_int_eq(env_reset(r, (uint64_t)ep), 0);
		env_reset(b, (uint64_t)ep);
		for (;;) {
			int pb = env_current_player(b);
			ck_assert_int_eq(env_current_player(r), pb);
			if (pb == ENV_TERMINAL)
				break;
			ck_assert_int_eq(env_observe(b, pb, ob), 0);
			ck_assert_int_eq(env_observe(r, pb, orr), 0);
			ck_assert(!memcmp(ob, orr, sizeof ob));
			int nb = env_legal(b, pb, mb);
			ck_assert_int_eq(env_legal(r, pb, mr), nb);
			ck_assert(!memcmp(mb, mr, sizeof mb));
			/* a random legal move, the same in both */
			int k = (int)lg_rng_below(&rng, (uint64_t)nb), a = 0;
			for (; a < 9; a++)
				if (mb[a] && k-- == 0)
					break;
			/* an illegal one is refused without a round trip */
			for (int x = 0; x < 9; x++)
				if (!mr[x]) {
					ck_assert_int_eq(env_step(r, x),
							 LG_EINVAL);
					break;
				}
			ck_assert_int_eq(env_step(b, a), 0);
			ck_assert_int_eq(env_step(r, a), 0);
			steps++;
		}
		double rb[2], rr[2];
		env_returns(b, rb);
		env_returns(r, rr);
		ck_assert(rb[0] == rr[0] && rb[1] == rr[1]);
		ck_assert_uint_eq(env_steps(r), env_steps(b));
	}
	ck_assert_int_gt(steps, 60 * 5);
	env_free(r);
	env_free(b);
	py_kill(&ps);
	tu_rmrf(dir);
}
END_TEST

/* ---- N seats: the Python Kuhn poker of python/examples ------------------ */

/* One Kuhn episode of n seats on e, random legal moves from rng: at each
 * step the mover's observation is its seat, its card and the betting so
 * far (the test reads each seat's card there), a seat not to move sees
 * zeros; at the end the returns are what OpenSpiel's rules give for
 * those cards and moves, computed here. *bets counts the episodes with
 * a bet. */
static void kuhn_episode(env *e, int n, lg_rng *rng, uint64_t seed,
			 int *bets)
{
	float o[64];
	uint8_t m[2];
	int card[8], put[8], hist[16], nh = 0, bettor = -1, p;
	double got[8], want[8];

	ck_assert_int_eq(env_reset(e, seed), 0);
	for (int q = 0; q < n; q++) {
		card[q] = -1;
		put[q] = 1;
	}
	while ((p = env_current_player(e)) != ENV_TERMINAL) {
		int ol = 6 * n - 1, c = -1, a;
		ck_assert_int_eq(p, nh % n); /* seats in turn */
		ck_assert_int_eq(env_observe(e, p, o), 0);
		for (int k = 0; k < ol; k++) {
			float w = k < n ? (k == p) : 0;
			if (k >= n && k < 2 * n + 1) {
				if (o[k] == 1)
					c = k - n;
				continue;
			}
			if (k >= 2 * n + 1) {
				int slot = (k - 2 * n - 1) / 2;
				w = slot < nh && hist[slot] == (k - 2 * n - 1) % 2;
			}
			ck_assert_msg(o[k] == w, "seat %d obs[%d] %g", p, k,
				      (double)o[k]);
		}
		ck_assert(c >= 0 && c <= n);
		ck_assert(card[p] < 0 || card[p] == c);
		card[p] = c;
		/* the others are not to move: nothing known of them */
		ck_assert_int_eq(env_observe(e, (p + 1) % n, o), 0);
		for (int k = 0; k < ol; k++)
			ck_assert(o[k] == 0);
		ck_assert_int_eq(env_legal(e, p, m), 2);
		ck_assert_int_eq(env_legal(e, (p + 1) % n, m), 0);
		a = (int)lg_rng_below(rng, 2);
		ck_assert_int_eq(env_step(e, a), 0);
		hist[nh++] = a;
		if (a) {
			put[p]++;
			if (bettor < 0)
				bettor = p;
		}
	}
	ck_assert_int_eq(nh, bettor < 0 ? n : bettor + n);
	int win = -1, pot = 0;
	for (int q = 0; q < n; q++) {
		ck_assert_int_ge(card[q], 0); /* every seat moved */
		for (int r = 0; r < q; r++)
			ck_assert_int_ne(card[q], card[r]);
		pot += put[q];
		if ((bettor < 0 || put[q] == 2) &&
		    (win < 0 || card[q] > card[win]))
			win = q;
	}
	for (int q = 0; q < n; q++)
		want[q] = (q == win ? pot : 0) - put[q];
	env_returns(e, got);
	for (int q = 0; q < n; q++)
		ck_assert_msg(got[q] == want[q], "seat %d: %g, not %g", q,
			      got[q], want[q]);
	*bets += bettor >= 0;
}

/* Three-player Kuhn (the default), then four (env.params players: 4 on
 * the same server, so another connection), played through the server
 * with env_new and env.remote: the per-seat spec, episodes to the end,
 * returns per seat as the rules say. */
START_TEST(python_kuhn_n_players_play_through_the_server)
{
	char dir[128], err[300], script[512];
	struct pyserv ps;
	struct env_opts o;
	lg_rng rng;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(script, sizeof script, "%s/python/examples/kuhn.py",
		 tu_src_dir());
	py_start_script(&ps, dir, script, "kuhn_py");
	lg_rng_seed(&rng, 38);
	for (int n = 3; n <= 4; n++) {
		env *e = NULL;
		int bets = 0;
		remote_opts(&o, &ps);
		if (n == 4) {
			o.params.n = 1;
			snprintf(o.params.key[0], ENV_PARAM_KEY_MAX, "players");
			snprintf(o.params.val[0], ENV_PARAM_VAL_MAX, "4");
		}
		ck_assert_msg(env_new(&e, "kuhn_py", &o, err, sizeof err) == 0,
			      "%s", err);
		const struct env_spec *sp = env_spec_of(e);
		ck_assert_int_eq(sp->players, n);
		ck_assert_uint_eq(sp->obs_len, (size_t)(6 * n - 1));
		ck_assert_int_eq(sp->num_actions, 2);
		ck_assert_uint_eq(sp->max_steps, (uint64_t)(2 * n - 1));
		/* zero-sum, and text (describe, action names) */
		ck_assert_uint_eq(sp->flags, ENV_F_ZERO_SUM | ENV_F_TEXT);
		ck_assert_int_eq(sp->payoff, ENV_ZERO_SUM);
		ck_assert_int_eq(sp->teams, n);
		ck_assert_int_eq(sp->roles, 1);
		for (int p = 0; p < n; p++) {
			ck_assert_uint_eq(sp->seat[p].obs_len,
					  (size_t)(6 * n - 1));
			ck_assert_int_eq(sp->seat[p].num_actions, 2);
			ck_assert_int_eq(sp->seat[p].team, p);
		}
		for (int ep = 0; ep < 200; ep++)
			kuhn_episode(e, n, &rng, (uint64_t)ep, &bets);
		printf("remote: kuhn_py with %d players: 200 episodes, %d "
		       "with a bet\n", n, bets);
		ck_assert_int_gt(bets, 100);
		ck_assert_int_lt(bets, 200);
		env_free(e);
	}
	/* league play: a player per seat, the game the server's */
	{
		static char out[4096], perr[4096];
		const char *argv[] = { "play", "random", "random", "random",
				       "--remote", ps.addr, "--games", "60",
				       NULL };
		unsigned long long w[3], draws;
		ck_assert_msg(tu_run_league(out, sizeof out, perr, sizeof perr,
					    argv) == 0, "%s", perr);
		ck_assert_msg(sscanf(out, "league play: 60 games of kuhn_py: "
				     "A random wins %llu (mean return %*g +- "
				     "%*g), B random wins %llu (mean return %*g "
				     "+- %*g), C random wins %llu (mean return "
				     "%*g +- %*g), "
				     "draws %llu", &w[0], &w[1], &w[2],
				     &draws) == 4, "%s", out);
		/* poker has a winner every hand */
		ck_assert_uint_eq(draws, 0);
		ck_assert_uint_eq(w[0] + w[1] + w[2], 60);
	}
	/* params out of range: refused with the game's own message */
	o.params.n = 1;
	snprintf(o.params.val[0], ENV_PARAM_VAL_MAX, "9");
	ck_assert_int_eq(env_check("kuhn_py", &o, NULL, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "it refused: env.params: players: expected "
			     "2..8, got '9'"), "%s", err);
	py_kill(&ps);
	/* a server limited to version 1 cannot carry three seats: it says
	 * so, and the league prints it */
	py_spawn(&ps, dir, script, "--protocol", "1");
	ck_assert_int_eq(py_answer(&ps, "kuhn_py", err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "it refused: game 'kuhn_py' needs protocol "
			     "version 2 (3 players), not 1"), "%s", err);
	py_kill(&ps);
	tu_rmrf(dir);
}
END_TEST

/* Seat 0's text on the remote env e and the built-in env b at the same
 * moves (seat 0 holds the same card in both): the same description, and
 * the mover's actions named alike. */
static void same_text(env *e, env *b)
{
	char rt[ENV_TEXT_MAX], bt[ENV_TEXT_MAX];
	char rn[ENV_ACTION_NAME_MAX], bn[ENV_ACTION_NAME_MAX];
	int p = env_current_player(e);

	ck_assert_int_eq(env_describe(e, 0, rt, sizeof rt), 0);
	ck_assert_int_eq(env_describe(b, 0, bt, sizeof bt), 0);
	ck_assert_msg(!strcmp(rt, bt), "remote:\n%s\nbuilt-in:\n%s", rt, bt);
	ck_assert_int_eq(env_current_player(b), p);
	for (int a = 0; a < 2; a++) {
		ck_assert_int_eq(env_action_name(e, p, a, rn, sizeof rn), 0);
		ck_assert_int_eq(env_action_name(b, p, a, bn, sizeof bn), 0);
		ck_assert_str_eq(rn, bn);
	}
}

/* The Python Kuhn's text over the protocol (TEXT ops): what the built-in
 * kuhn says of the same card and moves, the names check/bet then
 * fold/call, one op per new state and seat, names that parse back;
 * `league env check --remote` checks it and `league play human` shows
 * it. A server whose game has no text, or that speaks version 1, is
 * never asked, and actions go by number. */
START_TEST(python_kuhn_text_over_the_protocol)
{
	char dir[128], err[300], script[512], text[ENV_TEXT_MAX];
	char nm[ENV_ACTION_NAME_MAX];
	static char out[8192], perr[4096];
	struct pyserv ps;
	struct env_opts o, bo;
	env *e = NULL, *b = NULL;
	uint64_t b0, o0, b1, o1;
	int a, seed = 0;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(script, sizeof script, "%s/python/examples/kuhn.py",
		 tu_src_dir());
	py_start_script(&ps, dir, script, "kuhn_py");
	remote_opts(&o, &ps);
	ck_assert_msg(env_new(&e, "kuhn_py", &o, err, sizeof err) == 0, "%s",
		      err);
	ck_assert(env_spec_of(e)->flags & ENV_F_TEXT);
	ck_assert_int_eq(env_reset(e, 5), 0);
	ck_assert_int_eq(env_describe(e, 0, text, sizeof text), 0);
	ck_assert_msg(strstr(text, "kuhn poker, 3 players: you are seat 0\n"
			     "your card: ") == text, "%s", text);
	/* the built-in 3-player kuhn, from a seed that deals seat 0 that
	 * card: the same text at every state of the same moves */
	env_opts_default(&bo);
	bo.params.n = 1;
	snprintf(bo.params.key[0], ENV_PARAM_KEY_MAX, "players");
	snprintf(bo.params.val[0], ENV_PARAM_VAL_MAX, "3");
	ck_assert_msg(env_new(&b, "kuhn", &bo, err, sizeof err) == 0, "%s",
		      err);
	do {
		char bt[ENV_TEXT_MAX];
		ck_assert_msg(++seed < 100, "no built-in deal says:\n%s",
			      text);
		ck_assert_int_eq(env_reset(b, (uint64_t)seed), 0);
		ck_assert_int_eq(env_describe(b, 0, bt, sizeof bt), 0);
		if (!strcmp(bt, text))
			break;
	} while (1);
	same_text(e, b);
	ck_assert_int_eq(env_action_name(e, 0, 1, nm, sizeof nm), 0);
	ck_assert_str_eq(nm, "bet");
	ck_assert_int_eq(env_step(e, 1), 0); /* seat 0 bets */
	ck_assert_int_eq(env_step(b, 1), 0);
	/* seat 1 answers: fold/call, one TEXT op for all its asks */
	env_remote_counters(&b0, &o0);
	same_text(e, b);
	ck_assert_int_eq(env_action_parse(e, 1, "call", &a), 0);
	ck_assert_int_eq(a, 1);
	ck_assert_int_eq(env_action_parse(e, 1, "bet", &a), LG_ENOTFOUND);
	ck_assert_int_eq(env_action_parse(e, 1, "0", &a), 0);
	ck_assert_int_eq(a, 0);
	env_remote_counters(&b1, &o1);
	ck_assert_uint_eq(o1 - o0, 2); /* seat 0's text, then seat 1's */
	ck_assert_int_eq(env_action_name(e, 1, 0, nm, sizeof nm), 0);
	ck_assert_str_eq(nm, "fold");
	/* seat 2 does not move now: the server names none of its actions */
	ck_assert_int_eq(env_action_name(e, 2, 1, nm, sizeof nm), 0);
	ck_assert_str_eq(nm, "1");
	ck_assert_int_eq(env_step(e, 0), 0);
	ck_assert_int_eq(env_step(b, 0), 0);
	same_text(e, b);
	ck_assert_int_eq(env_describe(e, 0, text, sizeof text), 0);
	ck_assert_msg(strstr(text, "\npot: 4 (you put in 2)\nmoves: seat0 "
			     "bet, seat1 fold"), "%s", text);
	env_free(b);
	env_free(e);
	{
		const char *argv[] = { "env", "check", "--remote", ps.addr,
				       "--episodes", "200", NULL };
		ck_assert_msg(tu_run_league(out, sizeof out, perr, sizeof perr,
					    argv) == 0, "%s%s", out, perr);
		ck_assert_msg(strstr(out, "game kuhn_py: 3 players") &&
			      strstr(out, "text hooks\n") &&
			      strstr(out, "\nok    text          ") &&
			      strstr(out, "\nskip  clone         (remote") &&
			      strstr(out, "\nok: 0 checks failed"), "%s", out);
	}
	{
		/* a human in seat 0 bets; the others answer */
		char cmd[1200], path[300];
		snprintf(path, sizeof path, "%s/play.txt", dir);
		snprintf(cmd, sizeof cmd, "printf 'bet\\n' | '%s' play human "
			 "random random --remote '%s' --games 1 >'%s' 2>&1",
			 tu_league_bin(), ps.addr, path);
		ck_assert_int_eq(system(cmd), 0);
		tu_read_text(path, out, sizeof out);
		ck_assert_msg(strstr(out, "You are seat 0 (player).\n  kuhn "
				     "poker, 3 players: you are seat 0\n  "
				     "your card: ") &&
			      strstr(out, "\nlegal moves: check bet\n") &&
			      strstr(out, "  moves: seat0 bet, seat1 ") &&
			      strstr(out, "  hand over: your return "), "%s",
			      out);
	}
	py_kill(&ps);
	/* version 1 carries no text: the same game, numbers */
	py_spawn(&ps, dir, script, "--protocol", "1");
	remote_opts(&o, &ps);
	o.params.n = 1;
	snprintf(o.params.key[0], ENV_PARAM_KEY_MAX, "players");
	snprintf(o.params.val[0], ENV_PARAM_VAL_MAX, "2");
	ck_assert_int_eq(py_answer(&ps, "kuhn_py", err, sizeof err),
			 LG_EINVAL); /* 3 players by default: refused */
	ck_assert_msg(env_new(&e, "kuhn_py", &o, err, sizeof err) == 0, "%s",
		      err);
	ck_assert(!(env_spec_of(e)->flags & ENV_F_TEXT));
	ck_assert_int_eq(env_describe(e, 0, text, sizeof text), LG_EUNSUPP);
	ck_assert_int_eq(env_action_name(e, 0, 1, nm, sizeof nm), 0);
	ck_assert_str_eq(nm, "1");
	env_free(e);
	py_kill(&ps);
	/* a game without text (the tic-tac-toe): never asked */
	py_start(&ps, dir);
	remote_opts(&o, &ps);
	ck_assert_msg(env_new(&e, NULL, &o, err, sizeof err) == 0, "%s", err);
	ck_assert(!(env_spec_of(e)->flags & ENV_F_TEXT));
	env_remote_counters(&b0, &o0);
	ck_assert_int_eq(env_describe(e, 0, text, sizeof text), LG_EUNSUPP);
	ck_assert_int_eq(env_action_name(e, 0, 4, nm, sizeof nm), 0);
	ck_assert_str_eq(nm, "4");
	env_remote_counters(&b1, &o1);
	ck_assert_uint_eq(o1, o0);
	env_free(e);
	py_kill(&ps);
	tu_rmrf(dir);
}
END_TEST

/* An asymmetric Python game (tests its own rules here): a sheriff (seat
 * 0: 2 floats, 3 actions) and two smugglers (seats 1 and 2, one team:
 * 2 x 2 floats, 100 actions), simultaneous, general-sum, whose legal
 * actions go as lists. Over two steps the sheriff scores its actions,
 * the smugglers a tenth of theirs each. */
static const char smuggle_py[] =
	"import sys\n"
	"sys.path.insert(0, '%s/python')\n"
	"from league_game import Box, Discrete, Game, serve\n"
	"class Smuggle(Game):\n"
	"    name = 'smuggle'\n"
	"    players = 3\n"
	"    simultaneous = True\n"
	"    max_steps = 2\n"
	"    payoff = 'general_sum'\n"
	"    teams = (0, 1, 1)\n"
	"    roles = ('sheriff', 'smuggler', 'smuggler')\n"
	"    def observation_space(self, agent):\n"
	"        return Box((2,) if agent == 0 else (2, 2))\n"
	"    def action_space(self, agent):\n"
	"        return Discrete(3 if agent == 0 else 100)\n"
	"    def reset(self, seed):\n"
	"        self.t, self.seed, self.score = 0, seed, [0, 0]\n"
	"    @property\n"
	"    def terminated(self):\n"
	"        return self.t == 2\n"
	"    def observe(self, agent):\n"
	"        if agent == 0:\n"
	"            return [float(self.t), float(self.seed %% 7)]\n"
	"        return [float(agent), float(self.t)] + \\\n"
	"            [float(x) for x in self.score]\n"
	"    def legal_actions(self, agent):\n"
	"        return [0, 2] if agent == 0 else [99, self.t + agent, 50]\n"
	"    def step(self, actions):\n"
	"        self.score[0] += actions[0]\n"
	"        self.score[1] += actions[1] + actions[2]\n"
	"        self.t += 1\n"
	"    def returns(self):\n"
	"        s = self.score\n"
	"        return [s[0], s[1] / 10, s[1] / 10]\n"
	"serve(Smuggle)\n";

START_TEST(python_asymmetric_seats_teams_and_lists)
{
	char dir[128], script[256], text[4096], err[300];
	struct pyserv ps;
	struct env_opts o;
	env *e = NULL;
	lg_rng rng;
	float ob[8];
	uint8_t m[100];

	tu_mkdtemp(dir, sizeof dir);
	snprintf(script, sizeof script, "%s/smuggle.py", dir);
	snprintf(text, sizeof text, smuggle_py, tu_src_dir());
	tu_write_file(script, text);
	py_start_script(&ps, dir, script, "smuggle");
	remote_opts(&o, &ps);
	ck_assert_msg(env_new(&e, "smuggle", &o, err, sizeof err) == 0, "%s",
		      err);
	const struct env_spec *sp = env_spec_of(e);
	ck_assert_int_eq(sp->players, 3);
	ck_assert_uint_eq(sp->flags, ENV_F_SIMULTANEOUS | ENV_F_ASYMMETRIC);
	ck_assert_int_eq(sp->payoff, ENV_GENERAL_SUM);
	ck_assert_uint_eq(sp->obs_len, 4);
	ck_assert_int_eq(sp->num_actions, 100);
	ck_assert_int_eq(sp->teams, 2);
	ck_assert_int_eq(sp->roles, 2);
	ck_assert_str_eq(sp->role_name[0], "sheriff");
	ck_assert_str_eq(sp->role_name[1], "smuggler");
	ck_assert_uint_eq(sp->seat[0].obs_len, 2);
	ck_assert_int_eq(sp->seat[0].num_actions, 3);
	ck_assert_int_eq(sp->seat[0].team, 0);
	ck_assert_int_eq(sp->seat[0].role, 0);
	for (int p = 1; p < 3; p++) {
		ck_assert_uint_eq(sp->seat[p].obs_len, 4);
		ck_assert_uint_eq(sp->seat[p].obs_rank, 2);
		ck_assert_uint_eq(sp->seat[p].obs_shape[0], 2);
		ck_assert_uint_eq(sp->seat[p].obs_shape[1], 2);
		ck_assert_int_eq(sp->seat[p].num_actions, 100);
		ck_assert_int_eq(sp->seat[p].team, 1);
		ck_assert_int_eq(sp->seat[p].role, 1);
	}
	lg_rng_seed(&rng, 7);
	for (int ep = 0; ep < 30; ep++) {
		int score[2] = { 0, 0 }, t = 0, acts[3];
		double got[3];
		ck_assert_int_eq(env_reset(e, (uint64_t)ep), 0);
		while (env_current_player(e) == ENV_SIMULTANEOUS) {
			ob[2] = -7; /* seat 0 writes two floats only */
			ck_assert_int_eq(env_observe(e, 0, ob), 0);
			ck_assert(ob[0] == t && ob[1] == ep % 7 && ob[2] == -7);
			ck_assert_int_eq(env_legal(e, 0, m), 2);
			ck_assert(m[0] && !m[1] && m[2]);
			acts[0] = lg_rng_below(&rng, 2) ? 2 : 0;
			for (int p = 1; p < 3; p++) {
				const int pick[3] = { 99, t + p, 50 };
				ck_assert_int_eq(env_observe(e, p, ob), 0);
				ck_assert(ob[0] == p && ob[1] == t &&
					  ob[2] == score[0] && ob[3] == score[1]);
				ck_assert_int_eq(env_legal(e, p, m), 3);
				for (int a = 0; a < 100; a++)
					ck_assert_int_eq(m[a], a == 99 ||
							 a == t + p || a == 50);
				acts[p] = pick[lg_rng_below(&rng, 3)];
			}
			/* seat 2's legal action is not seat 1's: refused
			 * here, without a round trip */
			{
				int bad[3] = { acts[0], t + 2, acts[2] };
				ck_assert_int_eq(env_step_joint(e, bad),
						 LG_EINVAL);
			}
			ck_assert_int_eq(env_step_joint(e, acts), 0);
			score[0] += acts[0];
			score[1] += acts[1] + acts[2];
			t++;
		}
		ck_assert_int_eq(t, 2);
		env_returns(e, got);
		ck_assert(got[0] == score[0]);
		ck_assert(got[1] == score[1] / 10.0 && got[2] == got[1]);
	}
	env_free(e);
	py_kill(&ps);
	tu_rmrf(dir);
}
END_TEST

/* ---- batching --------------------------------------------------------- */

#define BT_THREADS 12
#define BT_STEPS 300

struct bt {
	struct env_opts o;
	int seed, rc, steps;
};

static void *bt_main(void *arg)
{
	struct bt *t = arg;
	env *e = NULL;
	lg_rng rng;
	uint8_t m[9];

	lg_rng_seed(&rng, (uint64_t)t->seed);
	if ((t->rc = env_new(&e, "tictactoe_py", &t->o, NULL, 0)))
		return NULL;
	while (t->steps < BT_STEPS) {
		int p = env_current_player(e), n, a = 0, k;
		if (p == ENV_TERMINAL) {
			if ((t->rc = env_reset(e, lg_rng_u64(&rng))))
				break;
			continue;
		}
		n = env_legal(e, p, m);
		k = (int)lg_rng_below(&rng, (uint64_t)n);
		for (; a < 9; a++)
			if (m[a] && k-- == 0)
				break;
		if ((t->rc = env_step(e, a)))
			break;
		t->steps++;
	}
	env_free(e);
	return NULL;
}

START_TEST(envs_stepping_at_once_share_batches)
{
	char dir[128];
	struct pyserv ps;
	struct bt t[BT_THREADS];
	pthread_t th[BT_THREADS];
	uint64_t b0, o0, b1, o1;

	tu_mkdtemp(dir, sizeof dir);
	py_start(&ps, dir);
	env_remote_counters(&b0, &o0);
	for (int i = 0; i < BT_THREADS; i++) {
		memset(&t[i], 0, sizeof t[i]);
		remote_opts(&t[i].o, &ps);
		t[i].seed = i + 1;
		ck_assert_int_eq(pthread_create(&th[i], NULL, bt_main, &t[i]),
				 0);
	}
	for (int i = 0; i < BT_THREADS; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(t[i].rc, 0);
		ck_assert_int_eq(t[i].steps, BT_STEPS);
	}
	env_remote_counters(&b1, &o1);
	b1 -= b0;
	o1 -= o0;
	printf("remote: %llu ops in %llu batches (%.1f per batch)\n",
	       (unsigned long long)o1, (unsigned long long)b1,
	       (double)o1 / (double)b1);
	/* every step, reset, create and close went over, at least */
	ck_assert_uint_ge(o1, BT_THREADS * BT_STEPS);
	/* Twelve threads that wait on one server queue up behind each
	 * round trip: one op per batch would mean no sharing at all. */
	ck_assert_uint_le(2 * b1, o1);
	py_kill(&ps);
	tu_rmrf(dir);
}
END_TEST

/* ---- a server that dies ----------------------------------------------- */

START_TEST(killed_server_fails_ops_then_serves_again)
{
	char dir[128], err[300];
	struct pyserv ps;
	struct env_opts o;
	env *e = NULL;
	uint8_t m[9];

	tu_mkdtemp(dir, sizeof dir);
	py_start(&ps, dir);
	remote_opts(&o, &ps);
	ck_assert_msg(env_new(&e, "tictactoe_py", &o, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_int_eq(env_step(e, 4), 0);
	py_kill(&ps);
	ck_assert_int_eq(env_legal(e, env_current_player(e), m), 8);
	ck_assert_int_eq(env_step(e, 0), LG_EIO);
	/* over, and stays so */
	ck_assert_int_eq(env_current_player(e), ENV_TERMINAL);
	ck_assert_int_eq(env_reset(e, 1), LG_EIO);
	env_free(e);
	ck_assert_int_eq(env_new(&e, "tictactoe_py", &o, err, sizeof err),
			 LG_ENOTFOUND);
	ck_assert_msg(strstr(err, "cannot reach the game server at unix:"),
		      "%s", err);
	py_start(&ps, dir);
	ck_assert_msg(env_new(&e, "tictactoe_py", &o, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_int_eq(env_step(e, 4), 0);
	env_free(e);
	py_kill(&ps);
	tu_rmrf(dir);
}
END_TEST

/* A collector on the Python server: episodes end normally, then the
 * server dies (the collector drops and counts what was in flight, the
 * envs back off and reconnect), comes back, and collection goes on. */
static struct coll_policy uni;

/* Matches handed out: each is an episode to play; an env holds at most
 * one that has not ended. */
static uint64_t handed;

static int count_next(void *ctx, size_t ei, struct coll_match *m,
		      uint64_t *tag)
{
	__atomic_add_fetch(&handed, 1, __ATOMIC_RELAXED);
	return 1; /* the default match */
}

START_TEST(collector_rides_out_a_server_restart)
{
	char dir[128];
	struct pyserv ps;
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;
	uint64_t before;

	tu_mkdtemp(dir, sizeof dir);
	py_start(&ps, dir);
	coll_opts_default(&o);
	uni = coll_policy_uniform();
	o.game = "tictactoe_py";
	remote_opts(&o.env, &ps);
	o.num_envs = 8;
	/* threads, child processes, serial (one batch a round) */
	o.mode = _i == 2 ? COLL_SERIAL : COLL_ASYNC;
	o.processes = _i == 1;
	o.policies = &uni;
	o.num_policies = 1;
	o.max_retries = 6;
	o.next_episode = count_next;
	handed = 0;
	c = tu_coll_open(&o);
	ck_assert_int_eq(coll_collect(c, 2000, 30), 0);
	coll_stats(c, &st);
	ck_assert_uint_eq(st.abnormal, 0);
	ck_assert_uint_ge(st.episodes, 100);
	py_kill(&ps);
	/* Ops fail now: every env's episode is dropped, counted. */
	(void)coll_collect(c, 100, 1.0);
	py_start(&ps, dir);
	coll_stats(c, &st);
	before = st.steps;
	ck_assert_int_eq(coll_collect(c, 2000, 60), 0);
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	printf("remote: collector (%s): %llu episodes, %llu abnormal, %llu "
	       "recreated, %zu dead\n",
	       _i == 2 ? "serial" : _i ? "processes" : "threads",
	       (unsigned long long)st.episodes,
	       (unsigned long long)st.abnormal,
	       (unsigned long long)st.recreated, st.dead_envs);
	ck_assert_uint_ge(st.abnormal, 1);
	/* each env: its episode in flight, then failed creations */
	ck_assert_uint_le(st.abnormal, 8 * (1 + o.max_retries));
	ck_assert_uint_ge(st.recreated, 1);
	ck_assert_uint_eq(st.dead_envs, 0);
	ck_assert_uint_ge(st.steps, before + 2000);
	/* no match taken and dropped while an env waited to be recreated */
	ck_assert_msg(handed <= st.episodes + o.num_envs,
		      "%llu matches handed out for %llu episodes",
		      (unsigned long long)handed,
		      (unsigned long long)st.episodes);
	py_kill(&ps);
	tu_rmrf(dir);
}
END_TEST

/* ---- a server that breaks the protocol -------------------------------- */

enum fake_script {
	FS_OLD_VERSION,  /* Welcome version 7 */
	FS_NO_LEGAL,     /* the first reset: player 0 with an empty mask */
	FS_BAD_RETURNS,  /* the first reset: over, returns 1 and 1 */
	FS_GAME_ERROR,   /* every step fails with an error; resets work */
	FS_HANG,         /* steps are never answered */
};

struct fake {
	int lfd;
	enum fake_script script;
};

static int fk_read(int fd, uint8_t *buf, size_t cap, size_t *len)
{
	uint8_t h[4];
	size_t n, got = 0;

	for (size_t k = 0; k < 4;) {
		ssize_t r = read(fd, h + k, 4 - k);
		if (r <= 0)
			return -1;
		k += (size_t)r;
	}
	n = (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16 |
	    (size_t)h[3] << 24;
	if (n > cap)
		return -1;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	*len = n;
	return 0;
}

static void fk_write(int fd, const ProtobufCMessage *m)
{
	uint8_t buf[4096];
	size_t n = protobuf_c_message_pack(m, buf + 4);

	buf[0] = (uint8_t)n;
	buf[1] = (uint8_t)(n >> 8);
	buf[2] = buf[3] = 0;
	if (write(fd, buf, n + 4) != (ssize_t)(n + 4))
		return;
}

/* Serve connections one after another until the listener closes. */
static void *fake_main(void *arg)
{
	struct fake *f = arg;
	int fd;

	while ((fd = accept(f->lfd, NULL, NULL)) >= 0) {
		uint8_t buf[4096];
		size_t len;
		uint32_t shape[1] = { 2 };
		League__Game__Spec sp = LEAGUE__GAME__SPEC__INIT;
		League__Game__Welcome w = LEAGUE__GAME__WELCOME__INIT;
		char name[] = "fake";

		if (fk_read(fd, buf, sizeof buf, &len)) {
			close(fd);
			continue;
		}
		sp.name = name;
		sp.players = 2;
		sp.num_actions = 3;
		sp.n_obs_shape = 1;
		sp.obs_shape = shape;
		sp.max_steps = 10;
		w.version = f->script == FS_OLD_VERSION ? 7 : 1;
		w.spec = &sp;
		fk_write(fd, &w.base);
		while (!fk_read(fd, buf, sizeof buf, &len)) {
			League__Game__Batch *b =
				league__game__batch__unpack(NULL, len, buf);
			League__Game__BatchReply rp =
				LEAGUE__GAME__BATCH_REPLY__INIT;
			League__Game__Failure fl[64], *pf[64];
			int32_t pl[64];
			uint8_t obs[64 * 8], mask[64 * 3];
			double rets[128];
			const float ob[2] = { 0.5f, -0.5f };
			char boom[] = "ValueError: boom\nsecond line";

			if (!b || b->n_kind > 64 || b->n_kind != b->n_env)
				break;
			if (f->script == FS_HANG && b->n_kind &&
			    b->kind[0] == 1) {
				/* hold the connection, answer nothing */
				league__game__batch__free_unpacked(b, NULL);
				while (!fk_read(fd, buf, sizeof buf, &len))
					;
				break;
			}
			for (size_t i = 0; i < b->n_kind; i++) {
				if (b->kind[i] == 2) { /* close */
					pl[i] = -3;
					continue;
				}
				if (f->script == FS_GAME_ERROR &&
				    b->kind[i] == 1) {
					league__game__failure__init(
						&fl[rp.n_failures]);
					fl[rp.n_failures].op = (uint32_t)i;
					fl[rp.n_failures].error = boom;
					pf[rp.n_failures] = &fl[rp.n_failures];
					rp.n_failures++;
					pl[i] = -3;
					continue;
				}
				if (f->script == FS_BAD_RETURNS) {
					pl[i] = -1;
					rets[rp.n_returns++] = 1;
					rets[rp.n_returns++] = 1;
					continue;
				}
				pl[i] = 0;
				memcpy(obs + rp.obs.len, ob, sizeof ob);
				rp.obs.len += sizeof ob;
				mask[rp.mask.len++] = f->script != FS_NO_LEGAL;
				mask[rp.mask.len++] = f->script != FS_NO_LEGAL;
				mask[rp.mask.len++] = 0;
			}
			rp.n_player = b->n_kind;
			rp.player = pl;
			rp.obs.data = obs;
			rp.mask.data = mask;
			rp.returns = rets;
			rp.failures = pf;
			fk_write(fd, &rp.base);
			league__game__batch__free_unpacked(b, NULL);
		}
		close(fd);
	}
	return NULL;
}

static void fake_start(struct fake *f, pthread_t *th, const char *dir,
		       enum fake_script script, struct env_opts *o)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	snprintf(sa.sun_path, sizeof sa.sun_path, "%s/fake.sock", dir);
	unlink(sa.sun_path);
	f->script = script;
	f->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(f->lfd, 0);
	ck_assert_int_eq(bind(f->lfd, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(listen(f->lfd, 8), 0);
	ck_assert_int_eq(pthread_create(th, NULL, fake_main, f), 0);
	env_opts_default(o);
	snprintf(o->remote, sizeof o->remote, "unix:%s", sa.sun_path);
	o->remote_timeout_s = 5;
}

static void fake_stop(struct fake *f, pthread_t th)
{
	shutdown(f->lfd, SHUT_RDWR);
	close(f->lfd);
	pthread_join(th, NULL);
}

START_TEST(protocol_breakers_are_refused)
{
	char dir[128], err[300];
	struct fake f;
	pthread_t th;
	struct env_opts o;
	env *e = NULL;

	tu_mkdtemp(dir, sizeof dir);
	fake_start(&f, &th, dir, FS_OLD_VERSION, &o);
	ck_assert_int_eq(env_new(&e, NULL, &o, err, sizeof err), LG_EINVAL);
	ck_assert_msg(strstr(err, "protocol version 7"), "%s", err);
	fake_stop(&f, th);

	fake_start(&f, &th, dir, FS_NO_LEGAL, &o);
	ck_assert_int_eq(env_new(&e, NULL, &o, err, sizeof err), LG_EIO);
	ck_assert_ptr_null(e);
	fake_stop(&f, th);

	fake_start(&f, &th, dir, FS_BAD_RETURNS, &o);
	ck_assert_int_eq(env_new(&e, NULL, &o, err, sizeof err), LG_EIO);
	fake_stop(&f, th);

	/* A game's own error fails that op; the connection stays up. */
	fake_start(&f, &th, dir, FS_GAME_ERROR, &o);
	ck_assert_msg(env_new(&e, "fake", &o, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_int_eq(env_step(e, 2), LG_EINVAL); /* masked: not sent */
	ck_assert_int_eq(env_step(e, 1), LG_EIO);
	ck_assert_int_eq(env_reset(e, 3), 0);
	ck_assert_int_eq(env_current_player(e), 0);
	env_free(e);
	fake_stop(&f, th);

	/* A server that stops answering: the op fails at the deadline. */
	fake_start(&f, &th, dir, FS_HANG, &o);
	o.remote_timeout_s = 0.5;
	ck_assert_msg(env_new(&e, "fake", &o, err, sizeof err) == 0, "%s",
		      err);
	double t0 = lg_now_s();
	ck_assert_int_eq(env_step(e, 0), LG_EIO);
	double waited = lg_now_s() - t0;
	ck_assert_msg(waited >= 0.45 && waited < 5, "%g s", waited);
	ck_assert_int_eq(env_reset(e, 1), LG_EIO); /* broken for good */
	env_free(e);
	fake_stop(&f, th);
	tu_rmrf(dir);
}
END_TEST

/* ---- configs ------------------------------------------------------------ */

static int check_cfg(const char *dir, const char *text, char *err,
		     size_t errlen)
{
	char path[256];
	const char *argv[] = { "config", "check", path, NULL };

	snprintf(path, sizeof path, "%s/c.yaml", dir);
	tu_write_file(path, text);
	return tu_run_league(NULL, 0, err, errlen, argv);
}

START_TEST(config_errors_name_the_remote_key)
{
	static char err[8192];
	char dir[128], text[1024];
	struct pyserv ps;

	tu_mkdtemp(dir, sizeof dir);
	py_start(&ps, dir);
	snprintf(text, sizeof text, "env:\n  remote: %s\n", ps.addr);
	ck_assert_msg(check_cfg(dir, text, err, sizeof err) == 0, "%s", err);
	snprintf(text, sizeof text,
		 "env:\n  name: tictactoe\n  remote: %s\n", ps.addr);
	ck_assert_int_eq(check_cfg(dir, text, err, sizeof err), 2);
	ck_assert_msg(strstr(err, "c.yaml:3:3: env.remote:"), "%s", err);
	ck_assert_msg(strstr(err, "serves 'tictactoe_py', not 'tictactoe'"),
		      "%s", err);
	snprintf(text, sizeof text,
		 "env:\n  remote: %s\n  params: {size: 4}\n", ps.addr);
	ck_assert_int_eq(check_cfg(dir, text, err, sizeof err), 2);
	ck_assert_msg(strstr(err, "env.params: unknown params: size"), "%s",
		      err);
	py_kill(&ps);
	snprintf(text, sizeof text, "env:\n  remote: %s\n", ps.addr);
	ck_assert_int_eq(check_cfg(dir, text, err, sizeof err), 2);
	ck_assert_msg(strstr(err, "c.yaml:2:3: env.remote: cannot reach"),
		      "%s", err);
	ck_assert_int_eq(check_cfg(dir, "env:\n  remote: nocolon\n", err,
				   sizeof err),
			 2);
	ck_assert_msg(strstr(err, "not HOST:PORT or unix:PATH"), "%s", err);
	ck_assert_int_eq(check_cfg(dir, "env:\n  serve: python3 x.py\n", err,
				   sizeof err),
			 2);
	ck_assert_msg(strstr(err, "env.serve: needs env.remote"), "%s", err);
	tu_rmrf(dir);
}
END_TEST

/* ---- league run ---------------------------------------------------------- */

/* env.serve that never serves, or serves another game: league run exits 2
 * with one line naming what, and the log. */
START_TEST(league_run_refuses_a_server_that_does_not_serve)
{
	static char out[1 << 14], err[1 << 14];
	char dir[128], cfg[256], ldir[192], text[1024];
	const char *argv[] = { "run", cfg, "--dir", ldir, "--quiet", NULL };
	int rc;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(cfg, sizeof cfg, "%s/py.yaml", dir);
	snprintf(ldir, sizeof ldir, "%s/league", dir);
	snprintf(text, sizeof text,
		 "env: {name: tictactoe_py, remote: 'unix:%s/g.sock', "
		 "serve: 'exit 3'}\n", dir);
	tu_write_file(cfg, text);
	rc = tu_run_league(out, sizeof out, err, sizeof err, argv);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(err, "league run: env.serve: cannot reach the "
			     "game server at unix:") &&
			      strstr(err, "(log: "),
		      "%s", err);
	snprintf(text, sizeof text,
		 "env: {name: othergame, remote: 'unix:%s/g.sock', "
		 "serve: '/usr/bin/python3 %s/python/examples/tictactoe.py'}\n",
		 dir, tu_src_dir());
	tu_write_file(cfg, text);
	rc = tu_run_league(out, sizeof out, err, sizeof err, argv);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(err, "serves 'tictactoe_py', not 'othergame'"),
		      "%s", err);
	tu_rmrf(dir);
}
END_TEST

/* Jobs the league in ldir has counted (0 before its store exists). */
static uint64_t jobs_counted(const char *ldir)
{
	return tu_stored_u64(ldir, "daemon.jobs_done");
}

/* Lines of the game server's log in ldir saying it serves. */
static int serving_lines(const char *ldir)
{
	char log[256], body[4096] = "";
	const char *p;
	int serving = 0;
	size_t n;
	FILE *f;

	snprintf(log, sizeof log, "%s/logs/game.log", ldir);
	if (!(f = fopen(log, "r")))
		return 0;
	n = fread(body, 1, sizeof body - 1, f);
	body[n] = 0;
	fclose(f);
	for (p = body; (p = strstr(p, "serving tictactoe_py")); p++)
		serving++;
	return serving;
}

/* Wait (up to 300 s, however busy the machine) until the run has
 * counted `jobs` jobs and its game server said `serving` times that it
 * serves; fails at once if the run ended. */
static void wait_run(pid_t run, const char *ldir, uint64_t jobs,
		     int serving)
{
	double t0 = lg_now_s();
	int st = 0;

	while (jobs_counted(ldir) < jobs || serving_lines(ldir) < serving) {
		ck_assert_msg(waitpid(run, &st, WNOHANG) == 0, "league run "
			      "ended (status %d) at %llu jobs", st,
			      (unsigned long long)jobs_counted(ldir));
		if (lg_now_s() - t0 > 300) {
			kill(run, SIGKILL);
			ck_abort_msg("league run: %llu jobs of %llu, %d "
				     "serving lines of %d in 300 s",
				     (unsigned long long)jobs_counted(ldir),
				     (unsigned long long)jobs,
				     serving_lines(ldir), serving);
		}
		lg_sleep_s(0.05);
	}
}

static pid_t find_game_server(const char *dir)
{
	char cmd[512], line[64];
	FILE *f;
	pid_t pid = 0;

	/* the python process serving at our socket (league run's child) */
	snprintf(cmd, sizeof cmd,
		 "pgrep -f -- 'examples/tictactoe.py' 2>/dev/null");
	(void)dir;
	if (!(f = popen(cmd, "r")))
		return 0;
	while (fgets(line, sizeof line, f)) {
		char env_path[64], buf[4096];
		pid_t p = (pid_t)atoi(line);
		FILE *e;
		size_t n;
		snprintf(env_path, sizeof env_path, "/proc/%d/environ", p);
		if (!(e = fopen(env_path, "r")))
			continue;
		n = fread(buf, 1, sizeof buf - 1, e);
		fclose(e);
		buf[n] = 0;
		for (size_t k = 0; k < n; k += strlen(buf + k) + 1)
			if (strstr(buf + k, "LEAGUE_GAME_ADDRESS=") == buf + k &&
			    strstr(buf + k, dir))
				pid = p;
	}
	pclose(f);
	return pid;
}

/* `league export` of the Python league in ldir (tictactoe_py, served at
 * unix:dir/g.sock while it ran): the file records the game by name and
 * address and dials nothing by itself (refused without --remote, naming
 * the game and the address); it plays at a server of its game at
 * another address; a server of another game is refused, naming both. */
static void export_remote_agent(const char *dir, const char *ldir)
{
	static char out[1 << 16], err[1 << 16];
	char file[300], script[300], text[1024], rec[512];
	unsigned long long games, wa, wb, dr;
	struct pyserv ps;

	snprintf(file, sizeof file, "%s/py.agent", dir);
	const char *ex[] = { "export", ldir, "--player", "0", "-o", file,
			     NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, err, sizeof err, ex) == 0,
		      "%s", err);
	ck_assert_msg(strstr(out, "game tictactoe_py"), "%s", out);
	{
		static char body[1 << 20];
		FILE *f = fopen(file, "rb");
		ck_assert_ptr_nonnull(f);
		size_t n = fread(body, 1, sizeof body, f);
		fclose(f);
		snprintf(rec, sizeof rec, "kind=remote\nname=tictactoe_py\n"
			 "address=unix:%s/g.sock\n", dir);
		ck_assert_ptr_nonnull(memmem(body, n, rec, strlen(rec)));
		/* the config names no server or command: the record does */
		ck_assert_ptr_nonnull(memmem(body, n, "  remote: \"\"\n", 13));
		ck_assert_ptr_nonnull(memmem(body, n, "  serve: \"\"\n", 12));
	}
	const char *p0[] = { "play", file, "random", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, p0),
			 2);
	ck_assert_msg(strstr(err, "plays the remote game 'tictactoe_py' and "
			     "dials no address by itself") &&
			      strstr(err, "--remote ADDR") &&
			      strstr(err, "/g.sock when exported"),
		      "%s", err);
	/* a server of the game, at another address */
	py_start(&ps, dir);
	const char *p1[] = { "play", file, "random", "--remote", ps.addr,
			     "--games", "6", "--json", NULL };
	int rc = tu_run_league(out, sizeof out, err, sizeof err, p1);
	py_kill(&ps);
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_int_eq(sscanf(out, "{\"games\": %llu, \"wins_a\": %llu, "
				"\"wins_b\": %llu, \"draws\": %llu", &games,
				&wa, &wb, &dr), 4);
	ck_assert_uint_eq(games, 6);
	ck_assert_uint_eq(wa + wb + dr, 6);
	/* a server of another game: the Python tic-tac-toe by another name */
	snprintf(script, sizeof script, "%s/other.py", dir);
	snprintf(text, sizeof text,
		 "import sys\n"
		 "sys.path.insert(0, '%s/python')\n"
		 "sys.path.insert(0, '%s/python/examples')\n"
		 "from league_game import serve\n"
		 "from tictactoe import TicTacToe\n"
		 "class Other(TicTacToe):\n"
		 "    name = 'othergame'\n"
		 "serve(Other)\n", tu_src_dir(), tu_src_dir());
	tu_write_file(script, text);
	py_start_script(&ps, dir, script, "othergame");
	const char *p2[] = { "play", file, "random", "--remote", ps.addr,
			     NULL };
	rc = tu_run_league(out, sizeof out, err, sizeof err, p2);
	py_kill(&ps);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(err, "serves 'othergame', not 'tictactoe_py'"),
		      "%s", err);
}

START_TEST(league_run_trains_on_python_and_survives_its_death)
{
	static char out[1 << 16], err[1 << 16];
	char dir[128], cfg[256], ldir[192], text[1024];
	int pfd[2];
	pid_t run, victim = 0;
	int st;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(cfg, sizeof cfg, "%s/py.yaml", dir);
	snprintf(ldir, sizeof ldir, "%s/league", dir);
	snprintf(text, sizeof text,
		 "league: {name: e2e-python, seed: 3}\n"
		 "env:\n"
		 "  name: tictactoe_py\n"
		 "  remote: unix:%s/g.sock\n"
		 "  serve: /usr/bin/python3 %s/python/examples/tictactoe.py\n"
		 "model: {hidden: [32]}\n"
		 "learner: {batch: 512, minibatch: 128, lr: 0.003}\n"
		 "players: {main: 1, main_exploiter: 1, league_exploiter: 0}\n"
		 "snapshot: {steps: 4000}\n"
		 "matchmaking: {job_episodes: 32}\n"
		 "collectors: {count: 1, envs: 16, mode: async}\n"
		 "budget: {seconds: 600}\n", /* a backstop: stopped below */
		 dir, tu_src_dir());
	tu_write_file(cfg, text);
	ck_assert_int_eq(pipe(pfd), 0);
	run = fork();
	ck_assert_int_ge(run, 0);
	if (run == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execl(tu_league_bin(), "league", "run", cfg, "--dir", ldir,
		      "--quiet", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	/* Kill the game server mid-run, once jobs count; stop the run
	 * (SIGTERM) once the restarted server served more of them. The
	 * run's output is small (--quiet): the pipe holds it meanwhile. */
	wait_run(run, ldir, 4, 1);
	victim = find_game_server(dir);
	ck_assert_int_gt(victim, 0);
	uint64_t before = jobs_counted(ldir);
	kill(victim, SIGKILL);
	wait_run(run, ldir, before + 8, 2);
	kill(run, SIGTERM);
	{
		size_t n = 0;
		ssize_t k;
		while ((k = read(pfd[0], out + n, sizeof out - 1 - n)) > 0)
			n += (size_t)k;
		out[n] = 0;
	}
	close(pfd[0]);
	ck_assert_int_eq(waitpid(run, &st, 0), run);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "league run:\n%s",
		      out);
	ck_assert_msg(strstr(out, "game exited (signal 9); restarting"), "%s",
		      out);
	ck_assert_msg(strstr(out, "win rate of row against column"), "%s",
		      out);
	/* the restarted server served: a second listening line */
	ck_assert_int_ge(serving_lines(ldir), 2);
	/* The payoff matrix filled: pairs that met, games played after the
	 * restart too (8 jobs counted past the kill). */
	const char *pargv[] = { "payoff", ldir, "--format", "csv", NULL };
	int rc = tu_run_league(out, sizeof out, err, sizeof err, pargv);
	ck_assert_msg(rc == 0, "%s", err);
	int pairs = 0;
	for (const char *p = out; (p = strchr(p, '\n')); p++)
		pairs++;
	printf("remote: league run on Python: %d payoff lines\n", pairs);
	ck_assert_int_ge(pairs, 4);
	(void)victim;
	export_remote_agent(dir, ldir);
	tu_rmrf(dir);
}
END_TEST

Suite *suite_remote(void)
{
	Suite *s = suite_create("remote");
	const struct tu_test core_tests[] = {
		{ python_package_unit_tests, 1 },
		{ python_game_error_logged_with_traceback_once, 1 },
		{ python_tictactoe_is_the_builtin, 2 },
		{ python_kuhn_n_players_play_through_the_server, 1 },
		{ python_kuhn_text_over_the_protocol, 1 },
		{ python_asymmetric_seats_teams_and_lists, 1 },
		{ envs_stepping_at_once_share_batches, 1 },
		{ killed_server_fails_ops_then_serves_again, 1 },
		{ collector_rides_out_a_server_restart, 3 },
		{ protocol_breakers_are_refused, 1 },
		{ config_errors_name_the_remote_key, 1 },
		{ league_run_refuses_a_server_that_does_not_serve, 1 },
		{ league_run_trains_on_python_and_survives_its_death, 1 },
	};

	TU_TCASE(s, "core", 120, core_tests);
	return s;
}
