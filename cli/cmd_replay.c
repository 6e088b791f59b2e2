/*
 * cli/cmd_replay.c: `league replay DIR`, the decision log checked.
 *
 * A fresh brain is opened over a scratch directory with the rules of the
 * league's own config (the daemon stores its effective config in the
 * league's meta at every start; --config names another), and every
 * record of DIR's decision log is made again in order by brain_replay
 * (players/replay.c): each decision from the stored rng state before it
 * must pick the same job, opponent and kind, each result is applied with
 * its stored outcomes, each step report must cause the same snapshot or
 * reset. The first difference is printed and the exit status is 1; a
 * log replayed to its end exits 0. DIR is opened read-only, so it runs
 * beside a live daemon (on the snapshot of its last commit).
 */
#include "cli/cli.h"
#include "conf/config.h"
#include "conf/options.h"
#include "players/players.h"
#include "storage/storage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The scratch league: LMDB's two files, then the directory. */
static void rm_scratch(const char *dir)
{
	static const char *const files[] = { "data.mdb", "lock.mdb" };
	char path[600];

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

static int run(int argc, char **argv)
{
	struct store_opts ro = { .flags = STORE_RDONLY };
	struct store_opts wo = { .flags = STORE_NOSYNC };
	static struct cfg c;
	struct brain_opts bo;
	const char *config = NULL, *tmp = getenv("TMPDIR"), *dir;
	char scratch[512], err[512] = "";
	store *src = NULL, *dst = NULL;
	brain *b = NULL;
	uint64_t n = 0;
	int rc;
	const struct cli_arg flags[] = {
		CLI_STRING("config", 0, &config),
		CLI_END,
	};

	if (cli_args_one("replay", flags, "expected one league DIR", argc, argv,
			 &dir))
		return CLI_USAGE;
	if ((rc = store_open(&src, dir, &ro, err, sizeof err))) {
		fprintf(stderr, "league replay: %s\n",
			err[0] ? err : "no league here");
		/* no league here is a wrong DIR; a damaged one is a failure */
		return rc == LG_ENOTFOUND ? CLI_USAGE : CLI_FAIL;
	}
	if (config) {
		if (cfg_load_file(&c, config, err, sizeof err)) {
			fprintf(stderr, "league replay: %s\n", err);
			store_close(src);
			return CLI_USAGE;
		}
	} else if ((rc = cli_stored_config(src, dir, "replay", &c))) {
		store_close(src);
		return rc;
	}
	league_brain_opts(&c, &bo);
	snprintf(scratch, sizeof scratch, "%s/league-replay-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch)) {
		fprintf(stderr, "league replay: %s: %s\n", scratch,
			strerror(errno));
		store_close(src);
		return CLI_FAIL;
	}
	rc = store_open(&dst, scratch, &wo, err, sizeof err);
	if (!rc)
		rc = brain_open(&b, dst, &bo, err, sizeof err);
	if (!rc) {
		double t0 = lg_now_s();
		rc = brain_replay(src, b, &n, err, sizeof err);
		if (!rc)
			printf("league replay: %s: %llu records made again in "
			       "%.2f s, every decision and step report the "
			       "same\n", dir, (unsigned long long)n,
			       lg_now_s() - t0);
		else if (rc == LG_ECORRUPT)
			printf("league replay: %s: mismatch after %llu "
			       "records: %s\n", dir, (unsigned long long)n,
			       err);
	}
	if (rc && rc != LG_ECORRUPT)
		fprintf(stderr, "league replay: %s\n",
			err[0] ? err : lg_strerror(rc));
	brain_close(b);
	store_close(dst);
	store_close(src);
	rm_scratch(scratch);
	return rc ? CLI_FAIL : CLI_OK;
}

const struct cli_cmd cli_cmd_replay = {
	.name = "replay",
	.summary = "make the decision log's decisions again and compare",
	.help =
	"usage: league replay DIR [--config CONFIG]\n"
	"\n"
	"Checks the league's decision log: a fresh brain with the league's\n"
	"rules (the config the daemon stored in DIR; --config names another)\n"
	"makes every decision again from its stored rng state, applies every\n"
	"result with its stored outcomes and every step report, in order,\n"
	"and each decision (job, opponent, kind) and each snapshot or reset\n"
	"must be the one logged. DIR is opened read-only (beside a live\n"
	"daemon it checks the last commit).\n"
	"\n"
	"Exit status: 0 every record the same (the count is printed), 1 a\n"
	"mismatch (printed: its sequence number, what was logged, what the\n"
	"replay did) or a failure, 2 bad arguments or no league.\n",
	.run = run,
};
