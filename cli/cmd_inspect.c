/*
 * cli/cmd_inspect.c: `league inspect DIR`, the live page of any league
 * directory, running or stopped, read-only: LMDB opened read-only, the
 * league loaded from it, nothing written. A timer looks at the store
 * once a second and loads the league again when it has a newer commit
 * (so a running league's page moves, a stopped one's is loaded once),
 * and writes /payoff and /ratings then, off the request path: a request
 * sends them from memory by reference (the matrix of 1,000 players is
 * 15 MB of JSON and takes about 100 ms to write; `league bench
 * payoff`). It serves what the daemon's
 * HTTP port serves for the page: `/` and its files, `/payoff` (the same
 * object as `league payoff DIR --format json`), `/ratings` (as `league
 * ratings DIR --alpha-rank --format json`, the meta-Nash and α-Rank up to
 * 256 players),
 * `/nashconv` (as `league eval DIR --format json`) and `/status` (the
 * players' counters; `inspect: true`). Beyond loopback it
 * needs LEAGUE_TOKEN and every request must carry it (server.h,
 * league_http_token_ok).
 */
#include "cli/cli.h"
#include "eval/evalrec.h"
#include "server/server.h"
#include "server/series.h"
#include "server/web.h"
#include "payoff/payoff.h"
#include "players/players.h"
#include "storage/storage.h"
#include "util/util.h"

#include <errno.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#define INSPECT_RELOAD_S 1 /* seconds between looks at the store */
#define INSPECT_NASH_MAX 256 /* the ladder's meta-Nash, a dense LP */

struct inspector {
	const char *dir;
	char league[128], env[64]; /* the daemon's meta; "" before */
	uint64_t env_steps, jobs_done, episodes;
	char token[256];
	int open; /* loopback: no token */
	store *st;
	brain *br;
	uint64_t txn_id; /* the newest commit br was loaded from */
	struct blob *payoff, *ratings; /* br's JSON; NULL: could not */
	double loaded, started;
	char err[512];
};

/* A string of the store's meta into buf ("" when absent). */
static void meta_str(store_txn *t, const char *name, char *buf, size_t len)
{
	const void *v;
	size_t vl;

	buf[0] = 0;
	if (!store_get(t, STORE_DB_META, name, strlen(name), &v, &vl))
		snprintf(buf, len, "%.*s", (int)LG_MIN(vl, len - 1),
			 (const char *)v);
}

/* The names and counters the daemon keeps in the store's meta. */
static void read_meta(struct inspector *in)
{
	store_txn *t;

	if (store_txn_begin(in->st, STORE_TXN_READ, &t))
		return;
	meta_str(t, "league.name", in->league, sizeof in->league);
	meta_str(t, "env.name", in->env, sizeof in->env);
	store_meta_get_u64(t, "daemon.env_steps", &in->env_steps);
	store_meta_get_u64(t, "daemon.jobs_done", &in->jobs_done);
	store_meta_get_u64(t, "daemon.episodes", &in->episodes);
	store_txn_abort(t);
}

/* The id of the store's newest commit (0 when it cannot be read). */
static uint64_t newest_commit(struct inspector *in)
{
	store_txn *t;
	uint64_t id;

	if (store_txn_begin(in->st, STORE_TXN_READ, &t))
		return 0;
	id = store_txn_id(t);
	store_txn_abort(t);
	return id;
}

/* The league as the store holds it now, loaded again when a commit is
 * newer than the loaded one; *changed is 1 when it was. */
static int reload(struct inspector *in, int *changed)
{
	brain *b = NULL;
	uint64_t id = newest_commit(in);

	*changed = 0;
	if (in->br && id && id == in->txn_id)
		return 0;
	if (brain_open(&b, in->st, NULL, in->err, sizeof in->err)) {
		LG_WARN("inspect: %s: %s", in->dir, in->err);
		return in->br ? 0 : -1; /* keep serving the last one */
	}
	brain_close(in->br);
	in->br = b;
	in->txn_id = id;
	in->loaded = lg_now_s();
	read_meta(in);
	*changed = 1;
	return 0;
}

/* A GET the token allows, with the league loaded; else the reply is
 * already sent. */
static int begin(struct inspector *in, struct evhttp_request *req)
{
	if (!in->open && !league_http_token_ok(req, in->token))
		return 0;
	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		evhttp_send_error(req, 405, "GET only");
		return 0;
	}
	if (!in->br) {
		evhttp_send_error(req, 503, "the league cannot be read");
		return 0;
	}
	return 1;
}

/* The JSON of each endpoint, from the league as loaded. */
static int payoff_write(struct inspector *in, lg_buf *b)
{
	uint32_t n = brain_count(in->br), *ids;
	int rc;

	if (!(ids = malloc(sizeof *ids * (n ? n : 1))))
		return LG_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		ids[i] = i;
	rc = brain_payoff_json(in->br, ids, n, b);
	free(ids);
	return rc;
}

static int ratings_write(struct inspector *in, lg_buf *b)
{
	return brain_ratings_json(in->br, INSPECT_NASH_MAX, b);
}

/* A reply body written once per load and sent by reference to every
 * request (no copy of the 15 MB matrix): freed when the inspector has
 * moved to a newer one and the last reply using it is out. */
struct blob {
	int refs;
	lg_buf b;
};

static void blob_unref(struct blob *x)
{
	if (x && !--x->refs) {
		lg_buf_free(&x->b);
		free(x);
	}
}

static void blob_sent(const void *data, size_t len, void *arg)
{
	(void)data;
	(void)len;
	blob_unref(arg);
}

/* What fn writes (and a newline), as a blob; NULL when it fails. */
static struct blob *blob_write(struct inspector *in,
			       int (*fn)(struct inspector *, lg_buf *))
{
	struct blob *x = calloc(1, sizeof *x);

	if (!x)
		return NULL;
	x->refs = 1;
	if (fn(in, &x->b) || lg_buf_printf(&x->b, "\n")) {
		blob_unref(x);
		return NULL;
	}
	return x;
}

/* The payoff and ratings JSON of the league as loaded. */
static void write_caches(struct inspector *in)
{
	double t0 = lg_now_s(), t1;

	blob_unref(in->payoff);
	blob_unref(in->ratings);
	in->payoff = blob_write(in, payoff_write);
	t1 = lg_now_s();
	in->ratings = blob_write(in, ratings_write);
	LG_INFO("inspect: %u players loaded; /payoff written in %.1f ms "
		"(%zu bytes), /ratings in %.1f ms", brain_count(in->br),
		1e3 * (t1 - t0), in->payoff ? in->payoff->b.len : 0,
		1e3 * (lg_now_s() - t1));
}

/* Load the league again if the store changed, and its JSON with it. */
static int refresh(struct inspector *in)
{
	int changed, rc = reload(in, &changed);

	if (!rc && changed)
		write_caches(in);
	return rc;
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	refresh(arg);
}

static int nashconv_json(struct inspector *in, lg_buf *b)
{
	return league_eval_json_store(in->st, b);
}

static int series_json(struct inspector *in, lg_buf *b)
{
	return league_series_json_store(in->st, LEAGUE_SERIES_JSON_POINTS, b);
}

static int lineage_json(struct inspector *in, const struct league_page *pg,
			lg_buf *b)
{
	return league_lineage_page(in->br, pg, b);
}

/* What was in flight when the league stopped (or now, beside a running
 * daemon, as of its last commit): a page of the brain's open jobs. */
static int jobs_json(struct inspector *in, const struct league_page *pg,
		     lg_buf *b)
{
	uint64_t last = 0;
	int more = 0;
	int rc = lg_buf_printf(b, "{\"jobs\":[");

	rc = rc ? rc : brain_open_jobs_json(in->br, pg->after, pg->from_start,
					    pg->limit, b, &more, &last);
	return rc ? rc : league_page_end(b, pg, brain_open_jobs(in->br),
					 (size_t)more, last);
}

static int status_json(struct inspector *in, lg_buf *b)
{
	int first = 1, rc;

	rc = lg_buf_printf(b, "{\"inspect\": true, \"dir\": ");
	rc = rc ? rc : lg_buf_json_str(b, in->dir);
	rc = rc ? rc : lg_buf_printf(b, ", \"league\": ");
	rc = rc ? rc : lg_buf_json_str(b, in->league);
	rc = rc ? rc : lg_buf_printf(b, ", \"env\": ");
	rc = rc ? rc : lg_buf_json_str(b, in->env);
	rc = rc ? rc : lg_buf_printf(b, ", \"uptime_s\": %.1f, "
				     "\"env_steps\": %llu, \"jobs_done\": %llu, "
				     "\"episodes\": %llu, "
				     "\"players\": %u, \"snapshots\": %llu, "
				     "\"learners\": [",
				     lg_now_s() - in->started,
				     (unsigned long long)in->env_steps,
				     (unsigned long long)in->jobs_done,
				     (unsigned long long)in->episodes,
				     brain_count(in->br),
				     (unsigned long long)
					     brain_snapshot_count(in->br));
	for (uint32_t i = 0; !rc && i < brain_count(in->br); i++) {
		struct brain_player p;
		if (brain_player_info(in->br, i, &p) ||
		    p.role == BRAIN_ROLE_HISTORICAL)
			continue;
		rc = lg_buf_printf(b, "%s{\"id\": %u, \"role\": \"%s\", "
				   "\"steps\": %llu, \"version\": %u, "
				   "\"snapshots\": %u, \"resets\": %u, "
				   "\"elo\": %.1f}", first ? "" : ", ", i,
				   brain_role_name(p.role),
				   (unsigned long long)p.steps, p.version,
				   p.snapshots, p.resets,
				   payoff_elo(brain_payoff(in->br), i));
		first = 0;
	}
	return rc ? rc : lg_buf_printf(b, "]}");
}

/* A GET the token allows, answered with what fn writes (and a newline). */
static void serve_json(struct evhttp_request *req, struct inspector *in,
		       int (*fn)(struct inspector *, lg_buf *),
		       const char *what)
{
	lg_buf b = { 0 };

	if (!begin(in, req))
		return;
	if (fn(in, &b) || lg_buf_printf(&b, "\n"))
		evhttp_send_error(req, 500, what);
	else
		league_http_reply(req, "application/json", b.data, b.len);
	lg_buf_free(&b);
}

/* A GET answered with a blob of the league as loaded; with ?at=SEQ,
 * the league at that moment instead (league_http_history). */
static void serve_blob(struct evhttp_request *req, struct inspector *in,
		       struct blob *x, int ratings, const char *what)
{
	if (!begin(in, req) ||
	    league_http_history(req, in->st, ratings, UINT32_MAX,
				INSPECT_NASH_MAX))
		return;
	if (!x) {
		evhttp_send_error(req, 500, what);
		return;
	}
	x->refs++;
	league_http_reply_ref(req, "application/json", x->b.data, x->b.len,
			      blob_sent, x);
}

static void http_payoff(struct evhttp_request *req, void *arg)
{
	struct inspector *in = arg;

	serve_blob(req, in, in->payoff, 0, "payoff matrix unavailable");
}

static void http_ratings(struct evhttp_request *req, void *arg)
{
	struct inspector *in = arg;

	serve_blob(req, in, in->ratings, 1, "ratings unavailable");
}

static void http_nashconv(struct evhttp_request *req, void *arg)
{
	serve_json(req, arg, nashconv_json, "NashConv points unavailable");
}

static void http_series(struct evhttp_request *req, void *arg)
{
	serve_json(req, arg, series_json, "time series unavailable");
}

/* A GET answered with one page (league_page) of what fn lists. */
static void serve_paged(struct evhttp_request *req, struct inspector *in,
			int (*fn)(struct inspector *,
				  const struct league_page *, lg_buf *),
			const char *what)
{
	struct league_page pg;
	lg_buf b = { 0 };

	if (!begin(in, req))
		return;
	if (league_http_page(req, &pg))
		return; /* answered 400 */
	if (fn(in, &pg, &b) || lg_buf_printf(&b, "\n"))
		evhttp_send_error(req, 500, what);
	else
		league_http_reply(req, "application/json", b.data, b.len);
	lg_buf_free(&b);
}

/* GET /lineage?after=ID&limit=N: one page (league_page). */
static void http_lineage(struct evhttp_request *req, void *arg)
{
	serve_paged(req, arg, lineage_json, "lineage unavailable");
}

/* GET /jobs?after=ID&limit=N: one page (league_page). */
static void http_jobs(struct evhttp_request *req, void *arg)
{
	serve_paged(req, arg, jobs_json, "jobs unavailable");
}

static void http_status(struct evhttp_request *req, void *arg)
{
	serve_json(req, arg, status_json, "status unavailable");
}

static void http_other(struct evhttp_request *req, void *arg)
{
	struct inspector *in = arg;
	const struct league_web_asset *a =
		league_web_find(evhttp_request_get_uri(req));

	if (!in->open && !league_http_token_ok(req, in->token))
		return;
	if (evhttp_request_get_command(req) == EVHTTP_REQ_GET && a) {
		league_http_reply(req, a->type, a->data, a->len);
		return;
	}
	evhttp_send_error(req, 404, "try /, /status, /payoff, /ratings or "
			  "/nashconv");
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	event_base_loopbreak(arg);
}

/* The routes behind the HTTP guard (server/http_guard.c: request
 * deadlines, a connection cap, accept backoff); -1 with a message. */
static int inspect_routes(struct event_base *base, struct evhttp *http,
			  struct evhttp_bound_socket *h, net_tls *tls,
			  struct inspector *in, struct league_http_guard **g)
{
	static const struct {
		const char *path;
		void (*cb)(struct evhttp_request *, void *);
	} routes[] = {
		{ "/status", http_status },     { "/payoff", http_payoff },
		{ "/ratings", http_ratings },   { "/nashconv", http_nashconv },
		{ "/series", http_series },     { "/lineage", http_lineage },
		{ "/jobs", http_jobs },         { NULL, http_other },
	};
	struct league_http_guard_opts go = { .tls = tls };
	char err[256];

	if (league_http_guard_new(g, base, http, h, &go, err, sizeof err)) {
		fprintf(stderr, "league inspect: %s\n", err);
		return -1;
	}
	for (size_t i = 0; i < LG_ARRAY_LEN(routes); i++)
		if (league_http_guard_route(*g, routes[i].path, routes[i].cb,
					    in)) {
			fprintf(stderr, "league inspect: route %s refused\n",
				routes[i].path ? routes[i].path : "*");
			return -1;
		}
	return 0;
}

struct inspect_args {
	const char *dir, *listen, *ports;
	unsigned long long port;
	int insecure;
};

/* The command line into a: CLI_OK or CLI_USAGE (said on stderr). */
static int parse_args(int argc, char **argv, struct inspect_args *a)
{
	const struct cli_arg flags[] = {
		CLI_STRING("listen", 0, &a->listen),
		CLI_U64("port", 0, &a->port, 0, 65535),
		CLI_STRING("ports-file", 0, &a->ports),
		CLI_BOOL("insecure", 0, &a->insecure),
		CLI_END,
	};

	*a = (struct inspect_args){ .listen = "127.0.0.1" };
	return cli_args_one("inspect", flags, "expected one league DIR", argc,
			    argv, &a->dir);
}

/*
 * Who may look: open on loopback, else LEAGUE_TOKEN into in->token
 * (required); HTTPS with $LEAGUE_TLS_CERT and _KEY (and _CA) into
 * *tls_srv, as the daemon's HTTP; plain beyond loopback only with
 * --insecure. CLI_OK, or CLI_USAGE with the reason on stderr.
 */
static int inspect_access(const struct inspect_args *a, struct inspector *in,
			  net_tls **tls_srv)
{
	const char *tok = getenv("LEAGUE_TOKEN");
	int rc;

	in->open = lg_is_loopback(a->listen);
	if (!in->open && (!tok || !*tok || strlen(tok) >= sizeof in->token))
		return cli_usage_error("inspect", "listening on %s needs "
				       "LEAGUE_TOKEN (at most %zu bytes), "
				       "which every request must then carry",
				       a->listen, sizeof in->token - 1);
	if (tok)
		snprintf(in->token, sizeof in->token, "%s", tok);
	/* a page for browsers: no client certificate asked for */
	if ((rc = worker_tls("league inspect", NULL,
			     getenv("LEAGUE_TLS_CERT") ? tls_srv : NULL, 0)))
		return rc;
	if (!in->open && !*tls_srv && !a->insecure)
		return cli_usage_error("inspect", "listening on %s without "
				       "TLS: set LEAGUE_TLS_CERT, LEAGUE_TLS_KEY "
				       "and LEAGUE_TLS_CA, or pass --insecure",
				       a->listen);
	return CLI_OK;
}

/* --ports-file: "http_port N" and "pid N" into path, whole (a temporary
 * renamed into place). 0, or -1 with a message. */
static int write_ports_file(const char *path, unsigned bound)
{
	char tmp[PATH_MAX];
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	if (!(f = fopen(tmp, "w")) ||
	    fprintf(f, "http_port %u\npid %ld\n", bound, (long)getpid()) < 0 ||
	    fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "league inspect: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int run(int argc, char **argv)
{
	struct inspector in = { 0 };
	struct inspect_args a;
	struct store_opts so = { .flags = STORE_RDONLY };
	struct event_base *base = NULL;
	struct evhttp *http = NULL;
	struct evhttp_bound_socket *h;
	struct league_http_guard *guard = NULL;
	struct event *sigint = NULL, *sigterm = NULL, *tick = NULL;
	const struct timeval every = { (time_t)INSPECT_RELOAD_S, 0 };
	net_tls *tls_srv = NULL;
	int rc;

	if ((rc = parse_args(argc, argv, &a)))
		return rc;
	in.dir = a.dir;
	if ((rc = inspect_access(&a, &in, &tls_srv)))
		goto out;
	rc = CLI_FAIL;
	int orc = store_open(&in.st, in.dir, &so, in.err, sizeof in.err);
	if (orc) {
		fprintf(stderr, "league inspect: %s\n", in.err);
		/* no league here is a wrong DIR; a damaged one is a failure */
		rc = orc == LG_ENOTFOUND ? CLI_USAGE : CLI_FAIL;
		goto out;
	}
	if (refresh(&in)) {
		fprintf(stderr, "league inspect: %s: %s\n", in.dir, in.err);
		goto out;
	}
	in.started = lg_now_s();
	base = event_base_new();
	http = base ? evhttp_new(base) : NULL;
	if (!http || !(h = evhttp_bind_socket_with_handle(http, a.listen,
							   (uint16_t)a.port))) {
		fprintf(stderr, "league inspect: cannot listen on %s:%llu\n",
			a.listen, a.port);
		goto out;
	}
	unsigned bound = league_http_bound_port(h);
	if (inspect_routes(base, http, h, tls_srv, &in, &guard))
		goto out;
	evhttp_set_max_body_size(http, 4096);
	evhttp_set_timeout(http, 10);
	tick = event_new(base, -1, EV_PERSIST, on_tick, &in);
	if (!tick || event_add(tick, &every))
		goto out;
	sigint = evsignal_new(base, SIGINT, on_signal, base);
	sigterm = evsignal_new(base, SIGTERM, on_signal, base);
	if (!sigint || !sigterm || event_add(sigint, NULL) ||
	    event_add(sigterm, NULL))
		goto out;
	if (a.ports && write_ports_file(a.ports, bound))
		goto out;
	printf("league inspect: %s, read-only, on http%s://%s:%u/ (Ctrl-C "
	       "stops)\n", in.dir, tls_srv ? "s" : "", a.listen, bound);
	fflush(stdout);
	event_base_dispatch(base);
	rc = CLI_OK;
out:
	if (tick)
		event_free(tick);
	if (sigint)
		event_free(sigint);
	if (sigterm)
		event_free(sigterm);
	league_http_guard_free(guard); /* before evhttp_free */
	if (http)
		evhttp_free(http);
	if (base)
		event_base_free(base);
	brain_close(in.br);
	store_close(in.st);
	net_tls_free(tls_srv);
	blob_unref(in.payoff);
	blob_unref(in.ratings);
	return rc;
}

const struct cli_cmd cli_cmd_inspect = {
	.name = "inspect",
	.summary = "the live page of any league directory, read-only",
	.help =
	"usage: league inspect DIR [--listen ADDR] [--port N] "
	"[--ports-file FILE]\n"
	"                          [--insecure]\n"
	"\n"
	"Serve the payoff page of the league in DIR, running or stopped:\n"
	"the store is opened read-only and nothing is written. GET / (the\n"
	"page), /payoff (as `league payoff DIR --format json`), /ratings,\n"
	"/nashconv, /status.\n"
	"--listen   127.0.0.1 by default; beyond loopback LEAGUE_TOKEN must\n"
	"           be set and every request carry it ('Authorization:\n"
	"           Bearer TOKEN'), and the page is HTTPS\n"
	"           ($LEAGUE_TLS_CERT, $LEAGUE_TLS_KEY, $LEAGUE_TLS_CA;\n"
	"           with them HTTPS on loopback too) unless --insecure.\n"
	"--insecure beyond loopback without TLS: the token in clear.\n"
	"--port     0 (default): any free port; the URL is printed.\n"
	"--ports-file FILE: write 'http_port N' and 'pid N' there once\n"
	"           listening.\n",
	.run = run,
};
