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

#include "cli/args.h" /* exit statuses, flag tables, usage errors */

struct cli_cmd {
	const char *name;
	const char *summary; /* one line for `league --help` */
	const char *help;    /* full text for `league NAME --help` */
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
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

/* ---- worker front-ends (cli/worker.c) ---- */
#define CLI_WORKER_CALL_S 60.0
/* net_client_call with a log line "<who>: <what>: <why>" on failure. */
int cli_worker_call(net_client *c, const char *who, const char *what,
		    net_msg *req, net_msg **rep);
/* Why a reply is not the one asked for (an Ack's error, or its type). */
const char *cli_worker_refusal(const net_msg *r);
/* Register as rg says; with cfg, load the config the reply carries into
 * it. A refusal is logged and LG_EINVAL; call errors as cli_worker_call;
 * LG_ECONFIG (logged) for a config that does not load. */
int cli_worker_register(net_client *c, const char *who, League__Register *rg,
			struct cfg *cfg);
/* The config a RegisterReply carries, into c. LG_ECONFIG (logged). */
int cli_worker_config(const net_msg *register_reply, struct cfg *c,
		      const char *who);
/* Parse a parameter blob; with shape, refuse another shape (LG_ECONFIG). */
int cli_worker_load_net(const void *blob, size_t len,
			const struct nn_shape *shape, const char *who,
			uint32_t player, uint32_t version, nn **out);
/* ParamsGet (player, version), then cli_worker_load_net. LG_ENOTFOUND
 * when the daemon has no such version; connection errors as the call. */
int cli_worker_fetch_net(net_client *c, const char *who, uint32_t player,
			 uint32_t version, const struct nn_shape *shape,
			 nn **out);

/* --connect HOST:PORT, required and parsed: CLI_OK or a usage error. */
int cli_worker_address(const char *cmd, const char *connect, char *host,
		       size_t hostlen, uint16_t *port);
/* Log tag, SIGPIPE ignored, SIGINT and SIGTERM to on_stop. */
void cli_worker_signals(const char *name, void (*on_stop)(int));
/* The first error in the log file at path, read from byte `from` on (a
 * child's own run, the file being appended to by each restart): the
 * first line logged at error level, else the last one written to stderr
 * directly (a command's error, a fatal signal's report, the last line of
 * a Python traceback).
 * 1 with the line (without its newline, cut to len) in out, 0 when there
 * is none or no file (out ""). */
int cli_log_first_error(const char *path, long from, char *out, size_t len);
/* Fatal signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) write one line
 * to stderr before the process dies: "fatal: signal 11 (SIGSEGV) in the
 * game 'NAME': its apply() for player 0 at step 3 of the episode" when a
 * thread was in a game's code (env_current_call), so a worker's log says
 * what killed it. Left alone where a sanitizer installed its handler. */
void cli_worker_fatal_signals(void);
/* The TLS of a worker (or of inspect) from its environment:
 * LEAGUE_TLS_CA (the CA the daemon's and learners' certificates chain
 * to), and LEAGUE_TLS_CERT with LEAGUE_TLS_KEY (this process's
 * certificate). client (may be NULL) gets a client context: TLS to the
 * daemon and learners, with the certificate for mutual TLS. server (may
 * be NULL; needs the certificate) gets a listener's context, requiring
 * client certificates when server_verify (a learner's endpoint starts
 * out so, until the league's config says server.tls.verify_peers is
 * off). Both NULL when no variable is set. 0, or CLI_USAGE with the
 * reason on stderr naming the variable. */
int cli_worker_tls(const char *who, net_tls **client, net_tls **server,
		   int server_verify);

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

/* ---- the collector's trajectory senders (cli/traj_out.c) ---- */

/* Senders and down marks kept: the oldest goes beyond this. */
#define CLI_TRAJ_OUT_MAX 16

struct cli_traj_sender {
	char endpoint[160];
	net_traj_sender *s;
};

/* An endpoint that refused or failed a send: its segments are refused
 * until `until`, and for jobs taken before `since` (the failure). */
struct cli_traj_down {
	char endpoint[160];
	double until, since, warned_at;
	unsigned fails;      /* in a row: the hold-off doubles with each */
};

/* Zero it, then set the first four fields. One thread at a time. */
struct cli_traj_out {
	const char *token, *name; /* the league's token, the worker's name */
	net_tls *tls;             /* client context, NULL: plain */
	double silent_s;          /* NET_SILENT_HEARTBEATS x heartbeat_s */
	const uint64_t *undeliverable; /* the caller's count, for warnings */
	struct cli_traj_sender senders[CLI_TRAJ_OUT_MAX];
	int nsenders;
	struct cli_traj_down down[CLI_TRAJ_OUT_MAX];
	int ndown;
};

/* h and rows to the learner at ep (the seat's endpoint in a job taken at
 * got_at, lg_now_s() clock), waiting for its credit up to timeout_s, and
 * up to silent_s for a learner that says nothing or takes no byte. 0:
 * sent. Else the rows did not go (the caller counts them): LG_ECLOSED
 * when ep is down (not tried: within its hold-off, or the job is older
 * than the failure) or cannot be reached, or what the send failed with
 * (LG_ETIMEOUT: given up); either way ep is down now and logged. */
int cli_traj_out_send(struct cli_traj_out *o, const char *ep, double got_at,
		      const struct net_segment_hdr *h,
		      const struct lg_rows *rows, double timeout_s);
/* A deterministic job's end mark (none: no rows) to ep, tried whatever
 * ep's down mark says; as cli_traj_out_send otherwise. */
int cli_traj_out_mark(struct cli_traj_out *o, const char *ep,
		      const struct net_segment_hdr *h,
		      const struct lg_rows *none, double timeout_s);
/* Close every sender (o itself is the caller's). */
void cli_traj_out_close(struct cli_traj_out *o);

#endif
