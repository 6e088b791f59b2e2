/*
 * cli: the `league` multi-call binary. Each command lives in its own
 * cli/cmd_<name>.c and exports one `const struct cli_cmd`; main.c holds the
 * table. Exit status: 0 success, 1 runtime failure, 2 usage or config error.
 */
#ifndef LG_CLI_H
#define LG_CLI_H

#include "envs/env.h"
#include "conf/config.h"
#include "conf/options.h" /* the config as module options */
#include "learner/learner.h"
#include "net/net.h"
#include "storage/storage.h"
#include "workers/workers.h"

#include "cli/args.h" /* exit statuses, flag tables, usage errors */

struct cli_cmd {
	const char *name;
	const char *summary; /* one line for `league --help` */
	const char *help;    /* full text for `league NAME --help` */
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	/* instead of run, `league NAME SUB ...`: cli_subcommand over subs
	 * (a NULL name last; its usage error names them) with its
	 * name_unknown */
	const struct cli_sub *subs;
	int subs_name_unknown;
	/* 0: `--help` anywhere prints `help`. 1: only `league NAME --help`
	 * does; later --help flags are the command's (subcommands). */
	int own_help;
};

/* `league eval search CONFIG ...` (cli/eval_search.c): argv[0] is
 * "search". */
int cli_eval_search(int argc, char **argv);
/* `league eval br DIR ...` (cli/eval_br.c): argv[0] is "br". */
int cli_eval_br(int argc, char **argv);

/* The raw policy's move for player in e: the network's most probable
 * legal action (the first of equals), or a sample of its probabilities
 * from rng. ws: a workspace of net for one row. */
/* A CLI_CALL parser of --param KEY=VALUE: one more pair into the
 * struct env_params at dest (for env.params); -1 with err set when the
 * text is not KEY=VALUE or there are too many. */
int cli_env_param(void *dest, const char *val, char *err, size_t errlen);

int cli_policy_act(const nn *net, nn_ws *ws, const env *e, int player,
		   int sample, lg_rng *rng, int *action);

/* The effective config the daemon stored in the league at dir (opened as
 * s) into c. CLI_OK, or CLI_USAGE with the reason on stderr ("league
 * CMD: ..."). */
int cli_stored_config(store *s, const char *dir, const char *cmd,
		      struct cfg *c);
/* The parameters of (player, *version) stored in s (*version UINT32_MAX:
 * the newest stored, written back) appended to blob, when they load as a
 * network (nn_check_blob: whole, every value finite). CLI_OK; else the
 * reason on stderr ("league CMD: ...", naming player and version) and
 * CLI_USAGE (no such parameters) or CLI_FAIL. */
int cli_stored_params(store *s, const char *cmd, uint32_t player,
		      uint32_t *version, lg_buf *blob);
/* The same read inside the caller's transaction t, so that what it reads
 * next (cli_params_mean) sees the same versions. */
int cli_stored_params_txn(store_txn *t, const char *cmd, uint32_t player,
			  uint32_t *version, lg_buf *blob);
/* The mean of the parameters of player's versions version-k+1 ..
 * version, read in t, as a network in *out (k 1: the version as stored):
 * weight averaging over the last k updates. LG_ENOTFOUND when k is 0,
 * exceeds version + 1, or one of them is not stored; LG_EINVAL when
 * their shapes differ; else store_blob_get's or nn_load's code. err says
 * which. */
int cli_params_mean(store_txn *t, uint32_t player, uint32_t version,
		    uint32_t k, nn **out, char *err, size_t errlen);

struct league_agent;
/* 1 when path is a regular file that begins as an agent file does
 * (LEAGUE_AGENT_MAGIC, eval/agent.h), else 0. */
int cli_is_agent_file(const char *path);
/* The agent file at path into a (league_agent_free it, also after an
 * error), its game opened with the user's --plugin PATH or --remote
 * ADDR (NULL: none; a plugin's SHA-256 must be the recorded one). CLI_OK,
 * or CLI_USAGE with the reason on stderr ("league CMD: ...": the plugin
 * or server to name, a plugin of other bytes, a file that is no agent). */
int cli_agent_open(struct league_agent *a, const char *path,
		   const char *plugin, const char *remote, const char *cmd);

/* ---- worker front-ends (cli/worker.c; the workers are workers/) ---- */
/* A worker command's flags (a cli_args table, --connect among them):
 * cli_args with no positional argument ("unexpected argument 'X'" names
 * the first). CLI_OK or CLI_USAGE (printed). */
int cli_worker_flags(const char *cmd, const struct cli_arg *flags, int argc,
		     char **argv);
/* The worker commands' last argument checks, in this order: `missing` (a
 * usage error the command found, such as learn's "--player ID is
 * required", or NULL), then --connect HOST:PORT required and parsed into
 * host and port. CLI_OK or a usage error (CLI_USAGE, printed). */
int cli_worker_connect(const char *cmd, const char *missing,
		       const char *connect, char *host, size_t hostlen,
		       uint16_t *port);
/* cli/runlog.c: the first error in the log file at path, read from byte `from` on (a
 * child's own run, the file being appended to by each restart): the
 * first line logged at error level, else the last one written to stderr
 * directly (a command's error, a fatal signal's report, the last line of
 * a Python traceback).
 * 1 with the line (without its newline, cut to len) in out, 0 when there
 * is none or no file (out ""). */
int cli_log_first_error(const char *path, long from, char *out, size_t len);

extern const struct cli_cmd cli_cmd_serve, cli_cmd_learn, cli_cmd_collect;
extern const struct cli_cmd cli_cmd_evaluate;
extern const struct cli_cmd cli_cmd_run;
extern const struct cli_cmd cli_cmd_config;
extern const struct cli_cmd cli_cmd_bench;
extern const struct cli_cmd cli_cmd_env;
extern const struct cli_cmd cli_cmd_eval, cli_cmd_plot;
extern const struct cli_cmd cli_cmd_payoff, cli_cmd_players, cli_cmd_ratings,
	cli_cmd_sim, cli_cmd_inspect, cli_cmd_tls, cli_cmd_replay,
	cli_cmd_export, cli_cmd_play;

#endif
