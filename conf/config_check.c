/*
 * conf/config_check.c: the cross-key checks run once a config is read:
 * the rules between keys (budgets, batches, TLS, league.deterministic,
 * search), the game the config names opened and its model checked against
 * it, and the players module's own brain_opts_check with its messages
 * placed at the key they concern. Every message names the file, line and
 * key (cfg_verr).
 */
#include "conf/config_internal.h"

#include "conf/options.h"
#include "net/net.h"
#include "players/players.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* path as seen from the config file's directory, into out: a relative
 * path of a config file that names a directory is joined to it; anything
 * else (absolute, a config given as a string) is copied. */
static void from_config_dir(const struct parser *p, const char *path,
			    char *out, size_t len)
{
	const char *slash;

	if (path[0] != '/' && p->is_file && (slash = strrchr(p->name, '/')))
		snprintf(out, len, "%.*s/%s", (int)(slash - p->name), p->name,
			 path);
	else
		snprintf(out, len, "%s", path);
}

/* env.plugin relative to the config file's directory, made absolute so
 * that workers started elsewhere (and the YAML the daemon hands them)
 * name the same file. */
static int resolve_plugin(struct parser *p)
{
	char *pl = p->c->env.plugin, joined[2 * CFG_STR_MAX], real[PATH_MAX];

	if (!pl[0])
		return 0;
	from_config_dir(p, pl, joined, sizeof joined);
	if (!realpath(joined, real))
		return cfg_verr(
			p, "env.plugin", "cannot find '%s': %s%s", joined,
			strerror(errno),
			pl[0] == '/'
				? ""
				: " (a relative path is taken from the config "
				  "file's directory)");
	if (strlen(real) >= CFG_STR_MAX || strlen(real) >= ENV_PLUGIN_MAX)
		return cfg_verr(p, "env.plugin", "'%s' is longer than %d bytes",
				real, ENV_PLUGIN_MAX - 1);
	memcpy(pl, real, strlen(real) + 1);
	return 0;
}

/* A TLS file path: a relative one is taken from the config file's
 * directory, like env.plugin (it stays relative when the config's own
 * path is; the files need not exist yet in a config a worker gets). */
static int tls_path(struct parser *p, const char *key, char *path)
{
	char joined[2 * CFG_STR_MAX];

	if (!path[0])
		return 0;
	from_config_dir(p, path, joined, sizeof joined);
	if (strlen(joined) >= CFG_STR_MAX)
		return cfg_verr(p, key, "'%s' is longer than %d bytes", joined,
				CFG_STR_MAX - 1);
	memcpy(path, joined, strlen(joined) + 1);
	return 0;
}

/* server.tls: all three files or none; in a config file, each loaded and
 * checked now (readable PEM, within its dates, the key matching, the
 * certificate chaining to the CA), so a bad one is an error at its key,
 * not a refused handshake later. A config a worker got from the daemon
 * names the daemon's files, which the worker does not read. Without TLS,
 * no listening beyond loopback unless server.insecure. */
static int check_tls(struct parser *p)
{
	static const char *const keys[] = { NULL, "server.tls.cert",
					    "server.tls.key", "server.tls.ca" };
	struct cfg *c = p->c;
	char *f[] = { NULL, c->server.tls.cert, c->server.tls.key,
		      c->server.tls.ca };
	char msg[512];
	int n = 0, which, rc;

	for (int i = 1; i <= 3; i++) {
		n += f[i][0] != 0;
		if ((rc = tls_path(p, keys[i], f[i])))
			return rc;
	}
	if (n && n < 3) {
		int have = 1;
		for (which = 1; f[which][0]; which++)
			;
		while (!f[have][0])
			have++;
		return cfg_verr(p, keys[have], "TLS needs server.tls.cert, key "
				"and ca: %s is missing", keys[which]);
	}
	if (!n && c->server.tls.verify_peers)
		return cfg_verr(p, "server.tls.verify_peers", "mutual TLS needs "
				"server.tls.cert, key and ca");
	if (!n && !lg_is_loopback(c->server.listen) && !c->server.insecure)
		return cfg_verr(p, "server.listen", "listening beyond loopback "
				"without TLS: set server.tls (cert, key, ca) or, "
				"to send the token in clear, server.insecure: "
				"true");
	if (!n || !p->is_file)
		return 0;
	struct net_tls_opts o = { f[1], f[2], f[3], c->server.tls.verify_peers };
	if (net_tls_check(&o, 1, &which, msg, sizeof msg))
		return cfg_verr(p, keys[which ? which : 1], "%s", msg);
	return 0;
}

/* The first failing check of `league env check`'s report rep, as
 * "message (check)" into msg; 0 when none failed. */
static int first_failure(const char *rep, char *msg, size_t len)
{
	const char *fail = strstr(rep, "FAIL  ");
	size_t k, m;
	const char *text;

	if (!fail)
		return 0;
	/* "FAIL  check   message": the check, then its message */
	k = strcspn(fail += 6, " ");
	text = fail + k + strspn(fail + k, " ");
	m = strcspn(text, "\n");
	snprintf(msg, len, "%.*s (%.*s)", (int)(m < 400 ? m : 400), text,
		 (int)(k < 32 ? k : 32), fail);
	return 1;
}

/* A plugin game must pass a short run of `league env check` before any
 * job: its first failing check (naming the call, seat and step) is
 * env.plugin's error. The check runs in a child process, so a plugin
 * that crashes is refused (with its signal) instead of taking this
 * process down. Built-in games pass it in the tests. */
static int check_plugin_plays(struct parser *p, const struct cfg *c,
			      const struct env_opts *eo)
{
	char msg[600] = "", rep[CFG_PLUGIN_REPORT_MAX];
	size_t got = 0;
	ssize_t n;
	int fd[2], st = 0;
	pid_t pid;

	if (pipe(fd))
		return cfg_verr(p, "env.plugin", "cannot check the game: %s",
				strerror(errno));
	fflush(NULL);
	if ((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		return cfg_verr(p, "env.plugin", "cannot check the game: %s",
				strerror(errno));
	}
	if (pid == 0) { /* the child: the report (or why not) down the pipe */
		lg_buf b = { 0 };
		char err[400] = "";
		int rc;
		close(fd[0]);
		rc = env_conform(NULL, eo, CFG_PLUGIN_EPISODES, 1, &b, err,
				 sizeof err);
		if (rc < 0)
			lg_buf_printf(&b, "ERROR %s\n", err);
		if (b.len && write(fd[1], b.data, b.len) < 0)
			_exit(3);
		_exit(rc ? 4 : 0); /* 4: checks failed, in the report */
	}
	close(fd[1]);
	while (got + 1 < sizeof rep &&
	       (n = read(fd[0], rep + got, sizeof rep - 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += (size_t)n;
	}
	rep[got] = 0;
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st))
		return cfg_verr(p, "env.plugin", "game '%s' crashed (signal "
				"%d, %s) in league env check; run `league env "
				"check` on the plugin to see it alone",
				c->env.name, WTERMSIG(st),
				strsignal(WTERMSIG(st)));
	if (first_failure(rep, msg, sizeof msg))
		return cfg_verr(p, "env.plugin", "game '%s' fails league env "
				"check: %s", c->env.name, msg);
	if (!strncmp(rep, "ERROR ", 6)) {
		rep[strcspn(rep, "\n")] = 0;
		return cfg_verr(p, "env.plugin", "%s", rep + 6);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return cfg_verr(p, "env.plugin", "game '%s' stopped league env "
				"check with exit status %d (a crash its "
				"sanitizer caught?); run `league env check` on "
				"the plugin to see it alone", c->env.name,
				WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}

/* A game the league can train on (coll_game_check), else the reason
 * as env.name's error, before any job. */
static int check_trainable(struct parser *p, const struct env_spec *s)
{
	char why[256];

	if (!coll_game_check(s, why, sizeof why))
		return 0;
	return cfg_verr(p, "env.name", "%s", why);
}

/* The network the config describes fits the game: a convolution torso
 * needs planes, and the whole shape must pass the learner's check. */
static int check_model(struct parser *p, const struct env_spec *spec)
{
	struct cfg *c = p->c;
	struct nn_shape s;
	char msg[256];

	if (c->model.layers.n)
		return cfg_check_layers(p, spec);

	/* model.conv's list cap (CFG_LIST_MAX) already keeps it within the
	 * learner's: the list parser refuses a longer one. */
	_Static_assert(CFG_LIST_MAX <= NN_MAX_CONV, "model.conv's cap");
	if (c->model.conv.n && spec->obs_rank != 3)
		return cfg_verr(p, "model.conv",
				"game '%s' gives flat "
				"observations (%zu floats), convolutions need "
				"planes (channels x rows x columns)",
				spec->name, spec->obs_len);
	league_nn_shape(c, spec, &s);
	if (nn_shape_check(&s, msg, sizeof msg))
		return cfg_verr(p,
				c->model.conv.n ? "model.conv" : "model.hidden",
				"%s", msg);
	return 0;
}

/* learner.state_weight is 0 (off) or a cap of at least 1. */
static int check_state_weight(struct parser *p)
{
	double w = p->c->learner.state_weight;

	if (w > 0 && w < 1)
		return cfg_verr(p, "learner.state_weight", "%g: 0 (off) or a "
				"cap of at least 1", w);
	return 0;
}

/* learner.mmd_eta needs a feed-forward net (its targets group rows by
 * observation) and no search (whose visit shares are the other policy
 * target). */
static int check_mmd(struct parser *p)
{
	const struct cfg *c = p->c;

	if (!(c->learner.mmd_eta > 0))
		return 0;
	if (league_state_len(c))
		return cfg_verr(p, "learner.mmd_eta", "the model has a "
				"recurrent core (gru); MMD targets group "
				"rows by observation and need a feed-forward "
				"net");
	if (c->learner.search.sims)
		return cfg_verr(p, "learner.mmd_eta", "learner.search gives "
				"the policy its target already");
	return 0;
}

/* learner.search against what it needs: the game sequential without
 * chance and played in league's processes (spec NULL: a game server
 * league run starts, whose spec is not known yet), envs in the
 * collector's threads, a net without a recurrent core. */
static int check_search(struct parser *p, const struct env_spec *spec)
{
	const struct cfg *c = p->c;
	const char *k = "learner.search.sims";

	if (!c->learner.search.sims)
		return 0;
	if (c->learner.search.fast_sims > c->learner.search.sims)
		return cfg_verr(p, "learner.search.fast_sims", "%llu is more "
				"than learner.search.sims (%llu): the fast "
				"search is the smaller one",
				(unsigned long long)c->learner.search.fast_sims,
				(unsigned long long)c->learner.search.sims);
	if (c->learner.search.fast_sims && !(c->learner.search.full_frac > 0))
		return cfg_verr(p, "learner.search.full_frac", "must be more "
				"than 0 with fast_sims: only full searches "
				"give policy targets");
	if (c->env.remote[0])
		return cfg_verr(p, k, "searches the game where the collector "
				"plays it, and env.remote plays it in a game "
				"server");
	if (c->collectors.processes)
		return cfg_verr(p, k, "searches the env in the collector's "
				"thread, and collectors.processes hosts envs "
				"in child processes");
	if (league_state_len(c))
		return cfg_verr(p, k, "the model has a recurrent core (gru), "
				"and the search visits states without a "
				"history for it");
	if (spec && (spec->flags & (ENV_F_CHANCE | ENV_F_SIMULTANEOUS)))
		return cfg_verr(p, k, "game '%s' has %s; tree search needs "
				"a sequential game without chance", spec->name,
				spec->flags & ENV_F_SIMULTANEOUS
					? "simultaneous moves"
					: "chance");
	return 0;
}

/* The game the config names opens (built in, or the plugin with its
 * params); the plugin's game name becomes env.name when that is unset. */
static int check_game(struct parser *p)
{
	struct cfg *c = p->c;
	const struct cfg_key *kn = cfg_key_find("env.name");
	int name_set = p->marks[kn - cfg_keys(NULL)].line != 0;
	struct env_opts eo;
	struct env_spec spec;
	char msg[400];
	const char *key = c->env.plugin[0]   ? "env.plugin"
			  : c->env.remote[0] ? "env.remote"
					     : "env.name";
	static const char *const keys[] = { "env.plugin", "env.params",
					    "env.name", "env.remote" };
	int rc;

	if ((rc = resolve_plugin(p)))
		return rc;
	if (c->env.remote[0] && c->env.plugin[0])
		return cfg_verr(p, "env.remote", "a game is either a plugin or "
				"remote, not both (env.plugin is set)");
	if (c->env.serve[0] && !c->env.remote[0])
		return cfg_verr(p, "env.serve", "needs env.remote, the address "
				"the command serves at");
	if (c->env.serve[0] && !name_set)
		return cfg_verr(p, "env.serve", "needs env.name, the game it "
				"serves (the server is not up yet to ask)");
	if (c->env.serve[0]) /* league run starts it and checks it then */
		return check_search(p, NULL);
	league_env_opts(c, &eo);
	msg[0] = 0;
	if (env_check((c->env.plugin[0] || c->env.remote[0]) && !name_set
			      ? NULL
			      : c->env.name,
		      &eo, &spec, msg, sizeof msg)) {
		const char *m = msg;
		for (size_t i = 0; i < LG_ARRAY_LEN(keys); i++) {
			size_t n = strlen(keys[i]);
			if (!strncmp(msg, keys[i], n) && msg[n] == ':') {
				key = keys[i];
				m = msg + n + 1 + (msg[n + 1] == ' ');
			}
		}
		return cfg_verr(p, key, "%s", m);
	}
	if (c->env.plugin[0] || c->env.remote[0])
		snprintf(c->env.name, sizeof c->env.name, "%s", spec.name);
	/* A plugin is played once, where a user hands over a config (a
	 * file: league run, serve, config check) or names the plugin (an
	 * agent's game); not again in every worker that loads the daemon's
	 * copy, nor where a stored league's config is read for inspection. */
	if ((rc = check_trainable(p, &spec)) ||
	    (c->env.plugin[0] && (p->is_file || p->bind_plugin) &&
	     (rc = check_plugin_plays(p, c, &eo))))
		return rc;
	if ((rc = check_model(p, &spec)))
		return rc;
	return check_search(p, &spec);
}

int cfg_verr(struct parser *p, const char *path, const char *fmt, ...)
{
	const struct cfg_key *k = cfg_key_find(path);
	struct mark m = k ? p->marks[k - cfg_keys(NULL)] : (struct mark){0, 0};
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (m.line)
		lg_errf(p->err, p->errlen, "%s:%u:%u: %s: %s", p->name, m.line,
			m.col, path, msg);
	else
		lg_errf(p->err, p->errlen, "%s: %s: %s", p->name, path, msg);
	return LG_ECONFIG;
}

/* A module check's message as a key error. brain_opts_check begins each
 * message with the config section it concerns ("roles.main: ...",
 * "players: ...", "payoff decay ..."); the first key of that section the
 * file sets gives the key and the place (none set: the section alone). A
 * message that begins with a key ("snapshot.prune: ...") is that key's.
 * tests/check_config.c has a bad input for every rule a config within the
 * table's bounds can break, so a change of wording there shows; the other
 * rules are the bounds, which bounds_pass_the_brain_check ties. */
static int module_err(struct parser *p, const char *msg)
{
	size_t n = strcspn(msg, ":/ ");
	const char *detail = msg;
	const struct mark *bm = NULL;
	const char *path = NULL;
	char section[64];

	if (msg[n] == ':' && msg[n + 1] == ' ')
		detail = msg + n + 2;
	/* a message that names a key ("snapshot.keep_newest: ...") is
	 * placed at that key */
	snprintf(section, sizeof section, "%.*s", (int)n, msg);
	if (detail != msg && cfg_key_find(section))
		return cfg_verr(p, section, "%s", detail);
	size_t nkeys;
	const struct cfg_key *table = cfg_keys(&nkeys);

	for (size_t i = 0; i < nkeys; i++) {
		const struct mark *m = &p->marks[i];
		if (!m->line || strncmp(table[i].path, msg, n) ||
		    table[i].path[n] != '.')
			continue;
		if (!bm || m->line < bm->line ||
		    (m->line == bm->line && m->col < bm->col)) {
			bm = m;
			path = table[i].path;
		}
	}
	if (!path) {
		snprintf(section, sizeof section, "%.*s", (int)n, msg);
		path = section;
	}
	return cfg_verr(p, path, "%s", detail);
}

/* league.deterministic: what makes a run depend on more than its config
 * (several jobs at once, env interleaving, the clock, jobs whose seeds
 * carry the daemon's start count). */
static int check_deterministic(struct parser *p)
{
	const struct cfg *c = p->c;

	if (!c->league.deterministic)
		return 0;
	if (c->collectors.count > 1)
		return cfg_verr(p, "collectors.count", "league.deterministic "
				"runs one collector (this is %llu)",
				(unsigned long long)c->collectors.count);
	if (c->collectors.envs != 1)
		return cfg_verr(p, "collectors.envs", "league.deterministic "
				"plays one env (this is %llu)",
				(unsigned long long)c->collectors.envs);
	if (!c->budget.jobs)
		return cfg_verr(p, "budget.jobs", "league.deterministic needs "
				"a budget in jobs");
	if (c->budget.seconds > 0)
		return cfg_verr(p, "budget.seconds", "league.deterministic "
				"runs on no clock: set it to 0");
	if (c->matchmaking.baseline_share > 0)
		return cfg_verr(p, "matchmaking.baseline_share",
				"league.deterministic plays league jobs "
				"only: set it to 0");
	if (c->league.mode == CFG_MODE_PSRO)
		return cfg_verr(p, "league.mode", "league.deterministic runs "
				"the league mode only (psro's cross-play jobs "
				"are seeded by the daemon's start)");
	if (c->eval.share > 0)
		return cfg_verr(p, "eval.share", "league.deterministic plays "
				"league jobs only (evaluation jobs are seeded "
				"by the daemon's start): set it to 0");
	return 0;
}

/* The game a sealed config's caller names (cfg_load_sealed_game): its
 * plugin path or server address into env.plugin / env.remote, once the
 * text itself named neither. */
static int bind_game(struct parser *p)
{
	const char *const v[] = { p->bind_plugin, p->bind_remote };
	char *const dst[] = { p->c->env.plugin, p->c->env.remote };
	static const char *const keys[] = { "env.plugin", "env.remote" };

	for (int i = 0; i < 2; i++) {
		if (!v[i] || !v[i][0])
			continue;
		if (strlen(v[i]) >= CFG_STR_MAX)
			return cfg_verr(p, keys[i], "'%s' is longer than %d "
					"bytes", v[i], CFG_STR_MAX - 1);
		memcpy(dst[i], v[i], strlen(v[i]) + 1);
	}
	return 0;
}

/* The cross-key rules. Those of the players module are its own
 * brain_opts_check, run on the options this config becomes; the rest
 * belong to no module's check. */
int cfg_validate(struct parser *p)
{
	struct cfg *c = p->c;
	char msg[256], bl[CFG_BASELINES_MAX][CFG_BASELINE_MAX];
	struct brain_opts bo;
	size_t n;

	int rc;

	if (p->sealed) {
		/* from a file someone handed over: nothing that loads code,
		 * runs a command, dials out or reads other files */
		static const char *const keys[] = {
			"env.plugin", "env.remote", "env.serve",
			"server.tls.cert", "server.tls.key", "server.tls.ca",
			"server.token_file",
		};
		const char *v[] = { c->env.plugin, c->env.remote, c->env.serve,
				    c->server.tls.cert, c->server.tls.key,
				    c->server.tls.ca, c->server.token_file };
		for (size_t i = 0; i < LG_ARRAY_LEN(keys); i++)
			if (v[i][0])
				return cfg_verr(p, keys[i], "not taken from "
						"this file (it names code, a "
						"command, an address or a "
						"file to use)");
		if ((rc = bind_game(p)))
			return rc;
	}
	if (!c->env.plugin[0] && !c->env.remote[0] &&
	    !strcmp(c->env.name, "matrix") &&
	    !c->env.matrix.rows)
		return cfg_verr(p, "env.matrix",
				"the matrix game needs its payoff "
				"matrix");
	if ((rc = check_game(p)))
		return rc;
	league_brain_opts(c, &bo);
	if (brain_opts_check(&bo, msg, sizeof msg))
		return module_err(p, msg);
	if (c->collectors.wait_num > c->collectors.envs)
		return cfg_verr(p, "collectors.wait_num", "%llu is more than "
				"collectors.envs (%llu)",
				(unsigned long long)c->collectors.wait_num,
				(unsigned long long)c->collectors.envs);
	if (c->learner.lr_schedule == CFG_LR_LINEAR && !(c->budget.seconds > 0))
		return cfg_verr(p, "learner.lr_schedule", "linear runs over "
				"budget.seconds, which is 0 (no time budget)");
	if (c->learner.minibatch > c->learner.batch)
		return cfg_verr(p, "learner.minibatch", "%llu is more than "
				"learner.batch (%llu)",
				(unsigned long long)c->learner.minibatch,
				(unsigned long long)c->learner.batch);
	if (!c->budget.env_steps && !(c->budget.seconds > 0) &&
	    !c->budget.jobs && !c->budget.snapshots)
		return cfg_verr(p, "budget.seconds", "set at least one budget "
				"(env_steps, seconds, jobs or snapshots)");
	if (cfg_eval_baselines(c, bl, &n, msg, sizeof msg))
		return cfg_verr(p, "eval.baselines", "%s", msg);
	if (cfg_train_baselines(c, bl, &n, msg, sizeof msg))
		return cfg_verr(p, "matchmaking.baselines", "%s", msg);
	if (c->matchmaking.baseline_share > 0 && !n)
		return cfg_verr(p, "matchmaking.baseline_share", "is %g but "
				"matchmaking.baselines names none",
				c->matchmaking.baseline_share);
	if (cfg_all_baselines(c, bl, &n, msg, sizeof msg))
		return cfg_verr(p, "matchmaking.baselines", "%s", msg);
	if (!lg_is_loopback(c->server.listen) && !c->server.token_file[0] &&
	    !getenv("LEAGUE_TOKEN"))
		return cfg_verr(p, "server.listen", "listening beyond loopback "
				"needs server.token_file or LEAGUE_TOKEN");
	if ((rc = check_tls(p)) || (rc = check_deterministic(p)) ||
	    (rc = check_state_weight(p)) || (rc = check_mmd(p)))
		return rc;
	return 0;
}
