/* tests/testutil.c: the check suites' shared fixtures: temp dirs,
 * running the binary under test, a daemon on a temp dir and its fake
 * workers, games and searches, conv buffers and gradient checks. */
#include "tests/testutil.h"
#include "collector/collector.h"
#include "storage/storage.h"
#include "util/util.h"

#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

TCase *tu_tcase(Suite *s, const char *name, double timeout_s,
		const struct tu_test *tests, size_t n)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, timeout_s);
	for (size_t i = 0; i < n; i++)
		tcase_add_loop_test(tc, tests[i].test, 0, tests[i].runs);
	suite_add_tcase(s, tc);
	return tc;
}

void tu_mkdtemp(char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/league-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(buf));
}

static int rm_one(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

void tu_rmrf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void tu_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

const char *tu_league_bin(void)
{
	const char *b = getenv("LEAGUE_BIN");

	return b && *b ? b : "bin/league";
}

size_t tu_parse_doubles(const char *s, double *out, size_t max)
{
	size_t k = 0;

	while (k < max) {
		char *end;
		double v = strtod(s, &end);
		if (end == s)
			break;
		out[k++] = v;
		s = end;
	}
	return k;
}

const char *tu_src_dir(void)
{
	const char *s = getenv("LEAGUE_SRC");

	return s && *s ? s : ".";
}

static void slurp(int fd, char *buf, size_t len)
{
	size_t used = 0;
	char scratch[4096];

	for (;;) {
		ssize_t n;
		if (buf && used + 1 < len)
			n = read(fd, buf + used, len - 1 - used);
		else
			n = read(fd, scratch, sizeof scratch);
		if (n <= 0)
			break;
		if (buf && used + 1 < len)
			used += (size_t)n;
	}
	if (buf && len)
		buf[used] = 0;
}

int tu_run_league(char *out, size_t outlen, char *err, size_t errlen,
		  const char *const *argv)
{
	int fo, fe, status;
	char outf[] = "/tmp/league-out-XXXXXX", errf[] = "/tmp/league-err-XXXXXX";
	pid_t pid;
	size_t argc = 0;
	char **args;

	/* Files rather than pipes: no deadlock however much the child prints. */
	fo = mkstemp(outf);
	fe = mkstemp(errf);
	ck_assert_int_ge(fo, 0);
	ck_assert_int_ge(fe, 0);
	unlink(outf);
	unlink(errf);
	while (argv[argc])
		argc++;
	args = calloc(argc + 2, sizeof *args);
	ck_assert_ptr_nonnull(args);
	args[0] = strdup(tu_league_bin());
	for (size_t i = 0; i < argc; i++)
		args[i + 1] = strdup(argv[i]);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fo, 1);
		dup2(fe, 2);
		execv(args[0], args);
		_exit(127);
	}
	for (size_t i = 0; i <= argc; i++)
		free(args[i]);
	free(args);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	lseek(fo, 0, SEEK_SET);
	lseek(fe, 0, SEEK_SET);
	slurp(fo, out, outlen);
	slurp(fe, err, errlen);
	close(fo);
	close(fe);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int tu_run_league_until(const char *const *argv, const char *dir,
			int (*done)(const char *dir, void *arg), void *arg,
			double deadline_s, char *out, size_t outlen,
			char *err, size_t errlen)
{
	static char tail[1 << 12];
	char outf[] = "/tmp/league-out-XXXXXX", errf[] = "/tmp/league-err-XXXXXX";
	const char *args[64] = { tu_league_bin() };
	double t0 = lg_now_s();
	int fo = mkstemp(outf), fe = mkstemp(errf), status = 0, met = 0;
	size_t argc = 0;
	pid_t pid;

	ck_assert_int_ge(fo, 0);
	ck_assert_int_ge(fe, 0);
	unlink(outf);
	unlink(errf);
	while (argv[argc] && argc + 2 < LG_ARRAY_LEN(args)) {
		args[argc + 1] = argv[argc];
		argc++;
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fo, 1);
		dup2(fe, 2);
		execv(args[0], (char *const *)(uintptr_t)args);
		_exit(127);
	}
	while (!(met = done(dir, arg))) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		if (lg_now_s() - t0 > deadline_s) {
			kill(pid, SIGKILL); /* its workers follow (PDEATHSIG) */
			waitpid(pid, &status, 0);
			break;
		}
		lg_sleep_s(0.05);
	}
	if (met) {
		kill(pid, SIGTERM);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	}
	lseek(fo, 0, SEEK_SET);
	lseek(fe, 0, SEEK_SET);
	slurp(fo, out, outlen);
	slurp(fe, err ? err : tail, err ? errlen : sizeof tail);
	close(fo);
	close(fe);
	ck_assert_msg(met, "league run %s after %.0f s before what the test "
		      "waits for was stored:\n%s",
		      lg_now_s() - t0 > deadline_s ? "still running" : "ended",
		      lg_now_s() - t0, err ? err : tail);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Start `league serve` on dir and wait for its ports file. */
void tu_serve(struct tu_daemon *d, const char *cfg, const char *dir,
	      int resume, const char *token)
{
	tu_serve_sync(d, cfg, dir, resume, token, 0);
}

void tu_serve_sync(struct tu_daemon *d, const char *cfg, const char *dir,
		   int resume, const char *token, int sync)
{
	char ports[512], log[512], ldir[512], line[256];
	double t0 = lg_now_s();
	FILE *f = NULL;

	snprintf(ports, sizeof ports, "%s.ports", dir);
	snprintf(log, sizeof log, "%s.log", dir);
	snprintf(ldir, sizeof ldir, "%s", dir);
	unlink(ports);
	d->pid = fork();
	ck_assert_int_ge(d->pid, 0);
	if (d->pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0)
			dup2(fd, 2);
		if (token)
			setenv("LEAGUE_TOKEN", token, 1);
		else
			unsetenv("LEAGUE_TOKEN");
		const char *argv[10] = { "league", "serve", cfg, "--dir", ldir,
					 "--ports-file", ports };
		int n = 7;
		if (!sync)
			argv[n++] = "--nosync";
		if (resume)
			argv[n++] = "--resume";
		argv[n] = NULL;
		execv(tu_league_bin(), (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	while (!(f = fopen(ports, "r"))) {
		int st;
		ck_assert_msg(waitpid(d->pid, &st, WNOHANG) == 0,
			      "league serve exited early (see %s)", log);
		ck_assert_msg(lg_now_s() - t0 < 20, "no ports file");
		lg_sleep_s(0.01);
	}
	d->port = d->http_port = 0;
	d->nlearners = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned v;
		if (sscanf(line, "port %u", &v) == 1)
			d->port = (uint16_t)v;
		else if (sscanf(line, "http_port %u", &v) == 1)
			d->http_port = (uint16_t)v;
		else if (!strncmp(line, "learners", 8)) {
			char *p = line + 8, *end;
			for (;;) {
				unsigned long id = strtoul(p, &end, 10);
				if (end == p || d->nlearners == 16)
					break;
				d->learners[d->nlearners++] = (uint32_t)id;
				p = end;
			}
		}
	}
	fclose(f);
	ck_assert_uint_gt(d->port, 0);
}

int tu_serve_stop(struct tu_daemon *d, int sig)
{
	int st;

	kill(d->pid, sig);
	ck_assert_int_eq(waitpid(d->pid, &st, 0), d->pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

uint64_t tu_stored_u64(const char *dir, const char *name)
{
	struct store_opts so = { .flags = STORE_RDONLY };
	char err[256];
	uint64_t v = 0;
	store *s;
	store_txn *t;

	if (store_open(&s, dir, &so, err, sizeof err))
		return 0;
	if (!store_txn_begin(s, STORE_TXN_READ, &t)) {
		if (store_meta_get_u64(t, name, &v))
			v = 0;
		store_txn_abort(t);
	}
	store_close(s);
	return v;
}

void tu_league_files(const char *yaml, char *dir, size_t dlen, char *cfg,
		     size_t clen)
{
	tu_mkdtemp(dir, dlen);
	snprintf(cfg, clen, "%s/league.yaml", dir);
	tu_write_file(cfg, yaml);
	ck_assert_msg(strlen(dir) + sizeof "/league" <= dlen, "%s: too long",
		      dir);
	strcat(dir, "/league");
}

void tu_run_config(const char *text, const char *root, char *ldir,
		   size_t llen, int quiet, int (*done)(const char *, void *),
		   void *arg, char *out, size_t outlen, char *err,
		   size_t errlen)
{
	char cfg[512];
	int rc;

	snprintf(cfg, sizeof cfg, "%s/league.yaml", root);
	tu_write_file(cfg, text);
	snprintf(ldir, llen, "%s/league", root);
	const char *argv[] = { "run", cfg, "--dir", ldir,
			       quiet ? "--quiet" : NULL, NULL };
	if (done)
		rc = tu_run_league_until(argv, ldir, done, arg, 300, out,
					 outlen, err, errlen);
	else
		rc = tu_run_league(out, outlen, err, errlen, argv);
	ck_assert_msg(rc == 0, "league run: %d\n%s", rc, err);
}

pid_t tu_spawn_worker(const char *const *argv, const char *log, int append)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		int fd = open(log, O_WRONLY | O_CREAT |
					   (append ? O_APPEND : O_TRUNC),
			      0644);
		dup2(null, 1);
		dup2(fd, 2);
		execv(tu_league_bin(), (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	return pid;
}

void tu_read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
}

void tu_wait_for_text(const char *path, const char *what, double limit)
{
	static char buf[1 << 22];
	double t0 = lg_now_s();

	for (;;) {
		tu_read_text(path, buf, sizeof buf);
		if (strstr(buf, what))
			return;
		ck_assert_msg(lg_now_s() - t0 < limit, "%s: no '%s' in %.0f s:"
			      "\n%.2000s", path, what, limit, buf);
		lg_sleep_s(0.1);
	}
}

env *tu_env_open(const char *name, const struct env_opts *o)
{
	char err[256];
	env *e = NULL;

	ck_assert_msg(env_new(&e, name, o, err, sizeof err) == 0, "%s: %s",
		      name, err);
	return e;
}

env_tree *tu_tree_open(const env *e)
{
	env_tree *t = NULL;
	char err[256];

	ck_assert_msg(env_tree_new(&t, e, err, sizeof err) == 0, "%s", err);
	return t;
}

double tu_baseline_duel(env *e, env_baseline *a, env_baseline *b,
			uint64_t seed, lg_rng *r)
{
	double ret[ENV_MAX_PLAYERS];
	int p;

	env_reset(e, seed);
	while ((p = env_current_player(e)) != ENV_TERMINAL) {
		int act;
		ck_assert_int_eq(env_baseline_act(p ? b : a, e, p, r, &act), 0);
		ck_assert_int_eq(env_step(e, act), 0);
	}
	env_returns(e, ret);
	return ret[0];
}

env_mcts *tu_mcts_open(const env *e, const struct env_mcts_opts *o,
		       env_mcts_eval_fn eval, void *ctx)
{
	char err[256];
	env_mcts *m = NULL;

	ck_assert_msg(env_mcts_new(&m, e, o, eval, ctx, err, sizeof err) == 0,
		      "%s", err);
	return m;
}

struct coll *tu_coll_open(const struct coll_opts *o)
{
	char err[256];
	coll *c = NULL;

	ck_assert_msg(coll_new(&c, o, err, sizeof err) == 0, "%s", err);
	return c;
}
