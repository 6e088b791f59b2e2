/*
 * cli/cmd_export.c: `league export DIR --player ID [--version V]
 * [--average K] -o FILE`,
 * one trained player out of its league as an agent file
 * (eval/agent.h): the game and network from the config the daemon
 * stored, the version's parameters, and where it came from. A snapshot
 * (a historical player) exports its parent's frozen version. Read-only on
 * DIR: it runs beside a live daemon (the last commit).
 */
#include "cli/cli.h"
#include "eval/agent.h"
#include "league/daemon.h"
#include "players/players.h"
#include "storage/storage.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Version *v of player (UINT32_MAX: the newest stored, written back)
 * into blob, or with k > 1 the mean of versions *v-k+1 .. *v: one read
 * transaction, so a live daemon dropping an old version in between
 * cannot fail a mean whose versions were all there. */
static int read_params(store *s, const char *dir, uint32_t player,
		       uint32_t *v, uint32_t k, lg_buf *blob)
{
	store_txn *t;
	nn *n = NULL;
	char err[256];
	int rc;

	if ((rc = store_txn_begin(s, STORE_TXN_READ, &t))) {
		fprintf(stderr, "league export: %s: %s\n", dir,
			lg_strerror(rc));
		return CLI_FAIL;
	}
	if ((rc = cli_stored_params_txn(t, "export", player, v, blob)) ||
	    k == 1) {
		store_txn_abort(t);
		return rc;
	}
	rc = cli_params_mean(t, player, *v, k, &n, err, sizeof err);
	store_txn_abort(t);
	if (rc) {
		fprintf(stderr, "league export: %s: --average %u: %s\n", dir,
			k, err);
		return rc == LG_ENOTFOUND ? CLI_USAGE : CLI_FAIL;
	}
	blob->len = 0;
	rc = nn_save(n, blob);
	nn_free(n);
	if (rc) {
		fprintf(stderr, "league export: %s: --average %u: %s\n", dir,
			k, lg_strerror(rc));
		return CLI_FAIL;
	}
	return CLI_OK;
}

struct export_args {
	const char *dir, *out;
	unsigned long long player, version, average;
	unsigned out_flags; /* LG_OUT_FOLLOW_SYMLINKS with --follow-symlinks */
};

/* The command line into a: CLI_OK, or CLI_USAGE with the reason on
 * stderr (a bad flag, no DIR, no --player or -o). */
static int parse_args(int argc, char **argv, struct export_args *a)
{
	const struct cli_arg flags[] = {
		CLI_U64("player", 0, &a->player, 0, UINT32_MAX - 1),
		CLI_U64("version", 0, &a->version, 0, UINT32_MAX - 1),
		CLI_STRING("output", 'o', &a->out),
		CLI_U64("average", 0, &a->average, 1, 64),
		CLI_BITS("follow-symlinks", 0, &a->out_flags,
			 LG_OUT_FOLLOW_SYMLINKS),
		CLI_END,
	};

	*a = (struct export_args){ .player = ULLONG_MAX,
				   .version = UINT32_MAX, .average = 1 };
	if (cli_args_one("export", flags, "expected one league DIR", argc,
			 argv, &a->dir))
		return CLI_USAGE;
	if (a->player == ULLONG_MAX)
		return cli_usage_error("export", "--player ID is required");
	if (!a->out)
		return cli_usage_error("export", "-o FILE is required");
	return CLI_OK;
}

/* The agent file's provenance lines into meta: player bp of the league
 * of c in a->dir, exported from (params player from, version v) with
 * parameters blob, now; bytes outside printable ASCII become '?'. */
static void provenance(char *meta, size_t len, const struct cfg *c,
		       const struct export_args *a,
		       const struct brain_player *bp, uint32_t from,
		       uint32_t v, const lg_buf *blob)
{
	char when[32], *absdir = realpath(a->dir, NULL);
	time_t now = time(NULL);

	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	snprintf(meta, len,
		 "league=%s\nsource=%.1024s\nplayer=%u\nrole=%s\n"
		 "params_player=%u\n"
		 "version=%u\naverage=%llu\nsteps=%llu\ngame=%s\n"
		 "league_seed=%llu\nexported=%s\nparams_crc32c=%08x\n",
		 c->league.name, absdir ? absdir : a->dir, bp->id,
		 brain_role_name(bp->role), from, v, a->average,
		 (unsigned long long)bp->steps, c->env.name,
		 (unsigned long long)c->league.seed, when,
		 lg_crc32c(0, blob->data, blob->len));
	for (char *q = meta; *q; q++) /* a path with odd bytes stays one line */
		if ((*q < 0x20 || *q > 0x7e) && *q != '\n')
			*q = '?';
	free(absdir);
}

static int run(int argc, char **argv)
{
	struct store_opts ro = { .flags = STORE_RDONLY };
	static struct cfg c;
	struct brain_player bp;
	struct export_args a;
	char err[512] = "", meta[LEAGUE_AGENT_META_MAX];
	lg_buf blob = { 0 }, file = { 0 };
	uint32_t from, v;
	store *s = NULL;
	brain *b = NULL;
	int rc;

	if ((rc = parse_args(argc, argv, &a)))
		return rc;
	const char *dir = a.dir;
	if ((rc = store_open(&s, dir, &ro, err, sizeof err))) {
		fprintf(stderr, "league export: %s\n",
			err[0] ? err : "no league here");
		/* no league here is a wrong DIR; a damaged one is a failure */
		return rc == LG_ENOTFOUND ? CLI_USAGE : CLI_FAIL;
	}
	if ((rc = cli_stored_config(s, dir, "export", &c)))
		goto done;
	if (brain_open(&b, s, NULL, err, sizeof err)) {
		fprintf(stderr, "league export: %s: %s\n", dir, err);
		rc = CLI_FAIL;
		goto done;
	}
	if (brain_player_info(b, (uint32_t)a.player, &bp)) {
		fprintf(stderr, "league export: %s has no player %llu (%u "
			"players and snapshots)\n", dir, a.player,
			brain_count(b));
		rc = CLI_USAGE;
		goto done;
	}
	/* a snapshot is its parent's frozen version */
	from = bp.role == BRAIN_ROLE_HISTORICAL ? bp.parent : bp.id;
	v = bp.role == BRAIN_ROLE_HISTORICAL ? bp.version
					     : (uint32_t)a.version;
	if (bp.role == BRAIN_ROLE_HISTORICAL && a.version != UINT32_MAX &&
	    a.version != bp.version) {
		fprintf(stderr, "league export: player %llu is a snapshot of "
			"player %u's version %u; --version must be that or "
			"absent\n", a.player, bp.parent, bp.version);
		rc = CLI_USAGE;
		goto done;
	}
	if ((rc = read_params(s, dir, from, &v, (uint32_t)a.average, &blob)))
		goto done;
	provenance(meta, sizeof meta, &c, &a, &bp, from, v, &blob);
	if ((rc = league_agent_encode(&c, meta, blob.data, blob.len, &file,
				      err, sizeof err))) {
		fprintf(stderr, "league export: %s\n", err);
		rc = CLI_FAIL;
		goto done;
	}
	if ((rc = lg_file_write_out(a.out, file.data, file.len, a.out_flags,
				    err, sizeof err))) {
		fprintf(stderr, "league export: %s\n", err);
		rc = rc == LG_EINVAL ? CLI_USAGE : CLI_FAIL;
		goto done;
	}
	printf("league export: player %u (%s) version %u%s of %s -> %s (%zu "
	       "bytes, game %s)\n", bp.id, brain_role_name(bp.role), v,
	       a.average > 1 ? " averaged" : "", dir, a.out, file.len,
	       c.env.name);
	rc = CLI_OK;
done:
	lg_buf_free(&blob);
	lg_buf_free(&file);
	brain_close(b);
	store_close(s);
	return rc;
}

/* The help below says "nine" in words. */
_Static_assert(DAEMON_KEEP_VERSIONS + 1 == 9, "league export's help");

const struct cli_cmd cli_cmd_export = {
	.name = "export",
	.summary = "write one player's version as a self-contained agent file",
	.help =
	"usage: league export DIR --player ID [--version V] [--average K]\n"
	"                     -o FILE [--follow-symlinks]\n"
	"\n"
	"Writes player ID of the league in DIR as an agent file: the game and\n"
	"network (the league's env, model and learner.search), the\n"
	"parameters of version V (default: the newest stored), and its\n"
	"provenance (league, directory, player, role, version, steps, time),\n"
	"checksummed (docs/agents.md). A snapshot (a historical player)\n"
	"exports the version it froze. FILE is replaced whole or not at all\n"
	"(a temporary beside it renamed into place), and only when it is a\n"
	"regular file or missing: a FIFO, device or directory is refused,\n"
	"and so is a symlink unless --follow-symlinks (then its target is\n"
	"replaced).\n"
	"--average K exports the mean of the parameters of versions\n"
	"V-K+1 .. V instead (weight averaging over the last K updates; the\n"
	"league keeps its newest nine versions in a row), recorded as\n"
	"average=K in the provenance.\n"
	"`league play FILE ...` plays it. DIR is opened read-only.\n"
	"\n"
	"Exit status: 0 written, 1 an I/O error, 2 a bad argument, no such\n"
	"player or version, or an output that is not a regular file.\n",
	.run = run,
};
