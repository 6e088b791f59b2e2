/*
 * server/server: the daemon's sessions. It accepts workers on a TCP port,
 * runs the handshake (Hello: protocol version, shared token), keeps
 * heartbeats, serves HTTP /status, and drains on shutdown. What a message
 * *means* is not its business: every message after the handshake other
 * than Heartbeat goes to ops->on_msg, where the league logic answers it.
 *
 * Session states (text names in /status and logs):
 *   hello    connected, waiting for Hello (closed after hello_timeout_s)
 *   ready    authenticated; messages flow to on_msg
 *   closing  reply queued, closing once flushed (auth or version refused,
 *            shutdown)
 * A session silent for three heartbeat intervals is closed ("heartbeat
 * timeout") and on_close tells the league so it can re-queue its jobs.
 *
 * HTTP (read-only, GET): /status (JSON), /payoff (JSON, from the league),
 * /metrics (Prometheus text), and the live page: / and the files of web/
 * embedded at build time (server/web.h), which poll /status and /payoff
 * and draw the payoff matrix as a heatmap.
 *
 * Everything runs on one libevent loop; no callback blocks.
 */
#ifndef LG_SERVER_SERVER_H
#define LG_SERVER_SERVER_H

#include <stdint.h>

#include "net/net.h"
#include "storage/storage.h"
#include "util/util.h"

struct event_base;
struct brain;
typedef struct league_server league_server;
typedef struct league_session league_session;

struct league_server_opts {
	const char *listen;      /* address, e.g. "127.0.0.1" */
	uint16_t port;           /* 0: any free port */
	uint16_t http_port;      /* 0: any free port */
	int no_http;             /* 1: no HTTP listener */
	const char *token;       /* NULL or "": none required (loopback only) */
	net_tls *tls;            /* a server context: TLS on the worker port
				    and HTTPS; NULL: plain */
	int insecure;            /* beyond loopback without TLS: allowed */
	double heartbeat_s;      /* > 0 */
	double hello_timeout_s;  /* 0: 5 s */
	size_t max_frame;        /* 0: NET_DEFAULT_MAX_FRAME */
	double http_request_timeout_s; /* 0: LEAGUE_HTTP_REQUEST_TIMEOUT_S */
	const char *league_name; /* for HelloReply and /status */
	const char *env_name;
	const char *ports_file;  /* NULL, or a path written with the bound
				    ports (atomically) for local workers */
	const char *ports_extra; /* NULL, or lines appended to that file
				    (must outlive the server) */
};

/*
 * A page of a list endpoint (GET /jobs?after=ID&limit=N): the items whose
 * id is above after (every item when from_start), at most limit, in id
 * order. A reply stays within LEAGUE_PAGE_MAX items (about 200 bytes
 * each) however many the league holds; the client follows "next".
 */
#define LEAGUE_PAGE_DEFAULT 100
#define LEAGUE_PAGE_MAX 1000
struct league_page {
	uint64_t after;
	int from_start;     /* no ?after= */
	uint32_t limit;     /* 1..LEAGUE_PAGE_MAX */
};

struct league_server_ops {
	void *ctx;
	/* A message from an authenticated session; m is the callee's (free
	 * it with net_msg_free). May send replies or close the session. */
	void (*on_msg)(void *ctx, league_session *s, net_msg *m);
	/* The session is gone; called once, for ready sessions only. */
	void (*on_close)(void *ctx, league_session *s, const char *why);
	/* Append league fields to the /status JSON object, each as
	 * `"name": value` preceded by ", " (may be NULL). */
	int (*status_json)(void *ctx, lg_buf *out);
	/* The payoff matrix as `league payoff --format json` prints it
	 * ({"players": [...], "win_rate": [[...]], "games": [[...]]}), for
	 * GET /payoff and the live page (may be NULL: 404). */
	int (*payoff_json)(void *ctx, lg_buf *out);
	/* Append the league's metrics in Prometheus' text format (each
	 * family with # HELP and # TYPE) for GET /metrics, after the
	 * server's own (may be NULL). */
	int (*metrics_text)(void *ctx, lg_buf *out);
	/* The ladder as `league ratings --alpha-rank --format json` prints
	 * it, for GET /ratings (may be NULL: 404). */
	int (*ratings_json)(void *ctx, lg_buf *out);
	/* Exploitability over time as `league eval DIR --format json`
	 * prints it, for GET /nashconv (may be NULL: 404). */
	int (*nashconv_json)(void *ctx, lg_buf *out);
	/* The time series (server/series.h), for GET /series (may be NULL:
	 * 404). */
	int (*series_json)(void *ctx, lg_buf *out);
	/* One page (struct league_page; end the object with
	 * league_page_end) of the player lineage (league_lineage_page),
	 * for GET /lineage, and of the jobs in flight, for GET /jobs (each
	 * may be NULL: 404). */
	int (*lineage_json)(void *ctx, const struct league_page *pg,
			    lg_buf *out);
	int (*jobs_json)(void *ctx, const struct league_page *pg,
			 lg_buf *out);
	/* The store GET /payoff?at= and /ratings?at= rebuild an earlier
	 * moment from (league_http_history; NULL: they answer today's). */
	store *history;
};

/*
 * Listen and serve on base. Errors: LG_EINVAL (listening beyond loopback
 * without a token), LG_EIO (bind, listen), LG_ENOMEM; err says which.
 */
int league_server_new(league_server **out, struct event_base *base,
		      const struct league_server_opts *opts,
		      const struct league_server_ops *ops, char *err,
		      size_t errlen);
/* evhttp's connection factory for HTTPS (evhttp_set_bevcb with a server
 * net_tls as arg): the handshake runs in the bufferevent before the
 * request is read; a dirty shutdown is the end of the connection. */
struct bufferevent;
struct bufferevent *league_https_bev(struct event_base *base, void *tls);
/* ---- the HTTP port's guard (server/http_guard.c) ----
 * A connection must deliver a whole request (line, headers, body) within
 * request_timeout_s of its start or of its previous reply, or it is
 * closed; open connections are capped (max_conns, and at most half the
 * file descriptors left when the guard starts) by pausing the listener;
 * accept() failing (EMFILE, ENFILE, ENOBUFS) pauses it half a second and
 * warns, rate-limited with a count. */
#define LEAGUE_HTTP_REQUEST_TIMEOUT_S 10.0
#define LEAGUE_HTTP_MAX_CONNS 256
struct evhttp;
struct evhttp_bound_socket;
struct evhttp_request;
struct league_http_guard;
struct league_http_guard_opts {
	double request_timeout_s; /* 0: LEAGUE_HTTP_REQUEST_TIMEOUT_S */
	size_t max_conns;         /* 0: LEAGUE_HTTP_MAX_CONNS */
	void *tls;                /* a server net_tls: HTTPS; NULL: plain */
};
/* Guard http, whose listener is h (NULL: no accept control): takes over
 * evhttp_set_bevcb. Free it before evhttp_free. 0, LG_ENOMEM. */
int league_http_guard_new(struct league_http_guard **out,
			  struct event_base *base, struct evhttp *http,
			  struct evhttp_bound_socket *h,
			  const struct league_http_guard_opts *o, char *err,
			  size_t errlen);
/* evhttp_set_cb (path) or evhttp_set_gencb (path NULL) through the guard,
 * which must see each request to restart its connection's deadline after
 * the reply. 0, LG_EFULL (too many routes), LG_EINVAL (path taken). */
int league_http_guard_route(struct league_http_guard *g, const char *path,
			    void (*cb)(struct evhttp_request *, void *),
			    void *arg);
/* Connections closed for missing their deadline; the connection cap. */
uint64_t league_http_guard_timeouts(const struct league_http_guard *g);
size_t league_http_guard_max_conns(const struct league_http_guard *g);
void league_http_guard_free(struct league_http_guard *g);
/* File descriptors this process may still open (RLIMIT_NOFILE minus the
 * open ones); SIZE_MAX without a limit. */
size_t league_fd_headroom(void);

/* Close every session (without on_close calls) and the listeners. */
void league_server_free(league_server *s);
uint16_t league_server_port(const league_server *s);
uint16_t league_server_http_port(const league_server *s);
/* Sessions in state ready. */
size_t league_server_sessions(const league_server *s);
/* HTTP beyond loopback: every endpoint needs the token (the header
 * `Authorization: Bearer TOKEN`, or the cookie `league_token` that GET
 * /login?code=CODE sets, for one use of this code: 32 hex digits drawn
 * at start). "" on loopback (HTTP is open there) or once used. */
const char *league_server_login_code(const league_server *s);
/* 1 if req carries token (the header `Authorization: Bearer TOKEN` or the
 * cookie `league_token=TOKEN`; compared in constant time); else 0, with
 * a 401 and `WWW-Authenticate: Bearer` sent. For every HTTP server of
 * league that listens beyond loopback (the daemon's, `league inspect`). */
struct evhttp_request;
int league_http_token_ok(struct evhttp_request *req, const char *token);
/* A 200 reply of data with its Content-Type, never cached. */
void league_http_reply(struct evhttp_request *req, const char *ctype,
		       const void *data, size_t len);
/* The same without copying data: it is sent from where it is, and
 * done(data, len, arg) is called once the reply no longer needs it (data
 * must not change until then). For large bodies served many times. */
void league_http_reply_ref(struct evhttp_request *req, const char *ctype,
			   const void *data, size_t len,
			   void (*done)(const void *data, size_t len,
					void *arg),
			   void *arg);
/* The query parameter `name` of req's URI as a whole number: 0 with *v,
 * LG_ENOTFOUND when absent, LG_EINVAL when not a number (the caller
 * answers 400). */
int league_http_query_u64(struct evhttp_request *req, const char *name,
			  uint64_t *v);
/* The page req asks for (?after=, ?limit=; limit defaults to
 * LEAGUE_PAGE_DEFAULT): 0, or LG_EINVAL (not whole numbers, limit 0 or
 * above LEAGUE_PAGE_MAX) after answering 400 with what a page takes. */
int league_http_page(struct evhttp_request *req, struct league_page *pg);
/* The same from a request URI ("/jobs?after=7&limit=50"; NULL or no
 * query: the defaults). Fuzzed by tests/fuzz/fuzz_page.c. */
int league_page_parse(const char *uri, struct league_page *pg);
/* Close a page's JSON object after its "[..." list of items: `],
 * "total": total, "limit": .., "truncated": more > 0, "next": "ID"}`,
 * next being the last item's id as a string (JavaScript's numbers lose
 * ids above 2^53), null when nothing more. */
int league_page_end(lg_buf *b, const struct league_page *pg, size_t total,
		    size_t more, uint64_t last_id);
/* The page pg of b's lineage as GET /lineage answers it:
 * {"players":[...]} closed by league_page_end. LG_ENOMEM. */
int league_lineage_page(const struct brain *b, const struct league_page *pg,
			lg_buf *out);
/* GET /payoff?at=SEQ or /ratings?at=SEQ: the league once its first SEQ
 * decision-log records were made (brain_open_at), the newest max_agents agents of then for
 * the payoff, the meta-Nash up to max_nash. 1 when req asked for a moment (answered: 200, 400 for a
 * bad SEQ, 500 naming why), 0 when it did not (the caller answers with
 * today's). */
int league_http_history(struct evhttp_request *req, store *st, int ratings,
			uint32_t max_agents, uint32_t max_nash);
/* The port an evhttp listener was bound to (0 if it cannot be read). */
struct evhttp_bound_socket;
uint16_t league_http_bound_port(struct evhttp_bound_socket *h);
/*
 * Drain: refuse new connections, send Shutdown{reason} to every session,
 * close each once flushed, and call done(arg) from the loop when all are
 * gone (or after grace_s).
 */
void league_server_shutdown(league_server *s, const char *reason,
			    double grace_s, void (*done)(void *arg),
			    void *arg);


/* Queue a message for the session (LG_ECLOSED once it is closing). */
int league_session_send(league_session *ss, const net_msg *m);
/* The same for a frame already encoded (net_frame_encode). */
int league_session_send_frame(league_session *ss, const void *frame,
			      size_t len);
/* Close the session; on_close follows from the loop. */
void league_session_close(league_session *ss, const char *why);
uint64_t league_session_id(const league_session *ss);
int league_session_role(const league_session *ss); /* League__Role */
const char *league_session_name(const league_session *ss);
const char *league_session_peer(const league_session *ss);
/* One pointer of league data per session. */
void league_session_set_data(league_session *ss, void *data);
void *league_session_data(const league_session *ss);

/* ---- in-process sessions (tests) ----------------------------------------
 * A session with no socket, already authenticated: the league handles it
 * like any other, what is sent to it is kept in memory, and closing it
 * (league_session_close, a drain) ends it from the loop with on_close.
 * Tests drive the daemon's handlers through it without processes or
 * timing. Heartbeats do not apply. */

/* A ready session of role (League__Role) named name; NULL: no memory. */
league_session *league_server_attach(league_server *s, int role,
				     const char *name);
/* Hand the league m (consumed) as if the session had sent it. */
void league_session_feed(league_session *ss, net_msg *m);
/* The oldest message sent to in-process session ss: 0 with *m (free with
 * net_msg_free), LG_ENOTFOUND when none waits. */
int league_session_take(league_session *ss, net_msg **m);

#endif
