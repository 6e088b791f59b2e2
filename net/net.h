/*
 * net: the league wire protocol (net/league.proto) and connections on
 * libevent.
 *
 * Frames are a 4-byte big-endian length N (1 <= N <= max_frame) and N bytes
 * of one serialized league.Envelope. Messages are the protobuf-c types
 * generated from net/league.proto (League__Envelope and friends), so any
 * language with protobuf can speak to the daemon.
 *
 * A net_conn wraps one socket in a bufferevent and is a small explicit state
 * machine (NET_CONN_* below): frames are decoded as they arrive, at most
 * NET_FRAMES_PER_WAKE per read callback so one chatty peer cannot starve
 * the loop (the rest is handled on the next loop iteration); when our output
 * to a peer passes the high watermark we stop reading from it until it
 * drains (backpressure); any framing or decode error closes that connection
 * with a logged reason and a short sanitized sample of the offending bytes,
 * and nothing else changes.
 */
#ifndef LG_NET_H
#define LG_NET_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "league.pb-c.h"
#include "util/rows.h"
#include "util/util.h"

#define NET_FRAME_HDR 4
#define NET_DEFAULT_MAX_FRAME (64u << 20)
#define NET_FRAMES_PER_WAKE 64
#define NET_OUT_HIGH_WATER (16u << 20) /* stop reading the peer above */
#define NET_OUT_LOW_WATER (4u << 20)   /* resume below */

typedef League__Envelope net_msg;

/* ---- frames ----------------------------------------------------------- */

/* Append m as one frame (header and body) to out. */
int net_frame_encode(const net_msg *m, lg_buf *out);

/*
 * Decode the first frame of buf[0, len).
 * Returns 0 with *msg (free with net_msg_free) and *used set; 1 when buf
 * holds no whole frame yet (nothing consumed); LG_EPROTO when the frame is
 * empty, longer than max_frame, or not a valid Envelope with a body, with
 * err saying which (and a sanitized sample of the bytes).
 * The length is checked before anything is allocated.
 */
int net_frame_decode(const uint8_t *buf, size_t len, size_t max_frame,
		     net_msg **msg, size_t *used, char *err, size_t errlen);
void net_msg_free(net_msg *m);
/* Body name ("hello", "job_result", ...; "none" when unset). */
const char *net_msg_name(const net_msg *m);
/* Printable sample of raw bytes: up to 32, non-printables as \xNN. */
void net_sample(const void *p, size_t n, char *out, size_t outlen);

/* ---- connections on libevent ------------------------------------------ */

struct event_base;
typedef struct net_conn net_conn;
typedef struct net_tls net_tls; /* net/tls.c */

enum net_conn_state {
	NET_CONN_OPEN,     /* reading and writing */
	NET_CONN_PAUSED,   /* output above the high watermark: not reading */
	NET_CONN_CLOSING,  /* flushing output, then closing */
	NET_CONN_CLOSED,
};

const char *net_conn_state_name(enum net_conn_state s);

struct net_conn_cbs {
	/* A decoded message; ownership passes to the callback (free it with
	 * net_msg_free). The callback may send, or close the connection. */
	void (*on_msg)(net_conn *c, net_msg *m, void *arg);
	/* The connection is gone (peer closed, error, or net_conn_close);
	 * why is a short reason. Called once; the conn is freed after it. */
	void (*on_close)(net_conn *c, const char *why, void *arg);
};

/* Frames undecoded, for a reader that decodes in place (the trajectory
 * endpoint): on_frame gets every frame's body (the Envelope's bytes, len
 * in [1, max_frame]; valid only during the call) instead of on_msg a
 * message. Set it right after net_conn_new, before the loop runs. */
typedef void (*net_frame_cb)(net_conn *c, const uint8_t *body, size_t len,
			     void *arg);

/*
 * Wrap a connected socket (made non-blocking here; owned by the conn from
 * now on). peer is a label for logs ("127.0.0.1:5555").
 */
int net_conn_new(net_conn **out, struct event_base *base, int fd,
		 size_t max_frame, const struct net_conn_cbs *cbs, void *arg,
		 const char *peer);
/* The same over TLS with tls's server context (NULL: plain): the
 * handshake runs first, inside the connection; a refused one closes it
 * with the TLS reason. */
int net_conn_new_tls(net_conn **out, struct event_base *base, int fd,
		     net_tls *tls, size_t max_frame,
		     const struct net_conn_cbs *cbs, void *arg,
		     const char *peer);
/* The peer certificate's common name under mutual TLS ("" otherwise, or
 * before the handshake is done). */
void net_conn_peer_cert(const net_conn *c, char *out, size_t len);
/* Queue m. LG_ECLOSED when closing or closed. */
int net_conn_send(net_conn *c, const net_msg *m);
/* Queue a HelloReply of the current protocol version: status, error
 * (NULL: none) and session id over what r already says (heartbeat,
 * league, env; NULL: nothing more). The daemon's sessions and the
 * trajectory endpoint answer a Hello with it. As net_conn_send. */
int net_conn_hello_reply(net_conn *c, League__HelloReply *r, int status,
			 const char *error, uint64_t session);
/* Queue a frame made by net_frame_encode (header included). */
int net_conn_send_frame(net_conn *c, const void *frame, size_t len);
/* Close now (why is logged), or after flushing queued output when flush is
 * set. on_close runs from the event loop, never from inside this call. */
void net_conn_close(net_conn *c, const char *why, int flush);
/* Free at once, with no on_close call: for tearing a server down. Queued
 * output is dropped. NULL is a no-op. */
void net_conn_free(net_conn *c);
/* event_free for an event that may not have been made: NULL is a no-op,
 * as free's (libevent's own does not take NULL). */
struct event;
void net_event_free(struct event *ev);
enum net_conn_state net_conn_state(const net_conn *c);
const char *net_conn_peer(const net_conn *c);
/* Bytes queued for the peer. */
size_t net_conn_outq(const net_conn *c);
void net_conn_set_arg(net_conn *c, void *arg);
void net_conn_set_frame_cb(net_conn *c, net_frame_cb on_frame);

/* ---- sockets ---------------------------------------------------------- */

/* Parse "host:port" (host may be empty for 127.0.0.1). */
int net_parse_hostport(const char *s, char *host, size_t hostlen,
		       uint16_t *port);
/* A listening TCP socket on host:port (port 0: any free port; the one
 * chosen is returned in *bound). */
int net_listen_tcp(const char *host, uint16_t port, int *fd,
		   uint16_t *bound, char *err, size_t errlen);
/* A blocking TCP connection to host:port with TCP_NODELAY. */
int net_connect_tcp(const char *host, uint16_t port, int *fd, char *err,
		    size_t errlen);
/* GET path from 127.0.0.1:port over HTTP/1.0, waiting at most timeout_s
 * per read: the whole response (status line, headers, body),
 * NUL-terminated, into out. 0, or -1 if connecting or sending failed. */
int net_http_get(uint16_t port, const char *path, double timeout_s,
		 char *out, size_t len);
/* The same with extra header lines (each ending in \r\n; NULL: none). */
int net_http_get_hdr(uint16_t port, const char *path, const char *headers,
		     double timeout_s, char *out, size_t len);
/* The same over HTTPS with tls's client context (NULL: plain HTTP). */
int net_http_get_tls(net_tls *tls, uint16_t port, const char *path,
		     const char *headers, double timeout_s, char *out,
		     size_t len);
/* Blocking helpers for simple clients and tests: send one frame; receive
 * one frame within timeout_s (LG_ETIMEOUT, LG_ECLOSED, LG_EPROTO). */
int net_send_blocking(int fd, const net_msg *m);
int net_recv_blocking(int fd, size_t max_frame, double timeout_s,
		      net_msg **out, char *err, size_t errlen);

/* ---- TLS (net/tls.c) ----------------------------------------------- */

/*
 * A TLS context from PEM files. A server (a listener) needs cert and key;
 * a client needs them only for mutual TLS. Both need the CA their peers
 * chain to: a client always verifies the server's chain and its name (the
 * host dialled, DNS or IP, in subjectAltName); a server with verify_peer
 * requires a client certificate that chains to the CA.
 */
struct net_tls_opts {
	const char *cert, *key, *ca; /* paths; "" for none */
	int verify_peer;             /* server: mutual TLS */
};
enum { NET_TLS_CERT = 1, NET_TLS_KEY, NET_TLS_CA };
/* Load and check: every file readable PEM, every certificate within its
 * dates, the key matching the certificate, the certificate chaining to
 * the CA. On error *which (may be NULL) says which file is at fault
 * (NET_TLS_*) and err says what. */
int net_tls_new(net_tls **out, const struct net_tls_opts *o, int server,
		int *which, char *err, size_t errlen);
/* The same checks without keeping the context. */
int net_tls_check(const struct net_tls_opts *o, int server, int *which,
		  char *err, size_t errlen);
void net_tls_free(net_tls *t); /* NULL is a no-op */
int net_tls_is_server(const net_tls *t);
/* A server context's mutual TLS on or off, for SSL objects made from now
 * on (a learner learns it from the daemon's config after its endpoint
 * exists, before any collector can know the endpoint). */
void net_tls_set_verify_peer(net_tls *t, int on);
/* A fresh SSL object of the context (for bufferevent_openssl). */
struct ssl_st *net_tls_ssl_new(net_tls *t);
/* The peer certificate's common name ("" without one). */
void net_tls_peer_name(struct ssl_st *ssl, char *out, size_t len);

/* Write a CA and certificates for a test cluster into dir (tls init):
 * ca.pem / ca.key (made once, then reused), and for each entry of names
 * N.pem / N.key signed by the CA, valid from not_before_s to not_after_s
 * seconds from now (negative: in the past). An entry is "N" or
 * "N=H1+H2". A name among daemons (each must be among names) gets
 * serverAuth and clientAuth with every entry of hosts (DNS names or IP
 * addresses) as subjectAltName; "N=H1+H2" gets serverAuth and clientAuth
 * for its own hosts only (a learner's endpoint), none of which may be
 * among hosts; any other name clientAuth alone, no subjectAltName, so it
 * cannot serve as the daemon. LG_EINVAL (err names the entry), LG_EIO;
 * existing files are not overwritten (LG_EEXIST), except with force. */
int net_tls_init_dir(const char *dir, const char *const *names,
		     size_t nnames, const char *const *daemons,
		     size_t ndaemons, const char *const *hosts, size_t nhosts,
		     long not_before_s, long not_after_s, int force,
		     char *err, size_t errlen);

/* A blocking connection: the plain socket, or TLS over it. An SSL
 * stream's calls are serialized by its mutex, so one thread may read
 * while another writes whole frames (under a lock of its own). */
struct ssl_st;
typedef struct net_stream {
	int fd;
	struct ssl_st *ssl; /* NULL: plain TCP */
	pthread_mutex_t mu; /* SSL streams only */
} net_stream;
/* Wrap an already connected plain socket (not owned: no close needed). */
void net_stream_plain(net_stream *s, int fd);
/* Connect to host:port, then with tls (NULL: plain) the handshake within
 * timeout_s. LG_EAUTH when the server's certificate is refused (final);
 * LG_ECLOSED / LG_EIO / LG_ETIMEOUT otherwise. */
int net_stream_connect(net_stream *s, const char *host, uint16_t port,
		       net_tls *tls, double timeout_s, char *err,
		       size_t errlen);
void net_stream_close(net_stream *s);
/* All n bytes, or LG_ECLOSED. */
int net_stream_write(net_stream *s, const void *p, size_t n);
/* All n bytes, or LG_ETIMEOUT when the peer took none of them for idle_s
 * seconds (its window stayed full; 0: wait for ever), LG_ECLOSED. A slow
 * peer that keeps taking bytes is waited for. After a timeout part of the
 * bytes may be gone: a framed stream is then broken and must be closed. */
int net_stream_write_idle(net_stream *s, const void *p, size_t n,
			  double idle_s);
/* Exactly n bytes before deadline (lg_now_s() time): LG_ETIMEOUT,
 * LG_ECLOSED. */
int net_stream_read(net_stream *s, void *p, size_t n, double deadline);
/* Up to n bytes as soon as some arrive: their count, 0 at the end of the
 * stream, or an LG_E* code (LG_ETIMEOUT at deadline). */
long net_stream_read_some(net_stream *s, void *p, size_t n, double deadline);
/* Decrypted bytes buffered and not yet read (a poll on the socket does
 * not see them). */
int net_stream_pending(net_stream *s);
/* One frame out; one frame in within timeout_s (LG_ETIMEOUT, LG_ECLOSED,
 * LG_EPROTO with err). */
int net_stream_send(net_stream *s, const net_msg *m);
int net_stream_recv(net_stream *s, size_t max_frame, double timeout_s,
		    net_msg **out, char *err, size_t errlen);

/* ---- worker-side client ----------------------------------------------- */

/* A peer silent for this many of the daemon's heartbeat periods
 * (server.heartbeat_s) is gone: the daemon drops such a worker, and a
 * collector gives up on a learner's trajectory stream that sends nothing
 * (no credit, no heartbeat) or takes no bytes for as long. */
#define NET_SILENT_HEARTBEATS 3

/*
 * A blocking client for workers (collectors, learners): connect and Hello
 * with retries and capped exponential backoff, request/reply matched by
 * seq, and a background thread that sends a Heartbeat every heartbeat_s / 2
 * so a worker busy for a long time is not dropped. Replies to heartbeats
 * and unsolicited messages other than Shutdown are skipped while waiting
 * for a reply; a Shutdown sets net_client_shutdown_requested().
 * One thread calls net_client_call at a time.
 */
typedef struct net_client net_client;

struct net_client_opts {
	const char *host;
	uint16_t port;
	const char *token;      /* "" or NULL: none */
	net_tls *tls;           /* a client context: TLS to the daemon;
				   NULL: plain TCP */
	int role;               /* League__Role */
	const char *name;       /* for daemon logs */
	size_t max_frame;       /* 0: NET_DEFAULT_MAX_FRAME */
	double give_up_s;       /* stop retrying a connect after this long;
				   0: try once */
	double backoff_min_s;   /* 0: 0.05 */
	double backoff_max_s;   /* 0: 2 */
};

/* Connect and say hello. LG_EAUTH / LG_EVERSION when refused (final, no
 * retry), LG_ECLOSED / LG_ETIMEOUT when the daemon could not be reached
 * within give_up_s. err says why. */
int net_client_connect(net_client **out, const struct net_client_opts *o,
		       char *err, size_t errlen);
/* Send req (its seq is assigned here) and wait up to timeout_s for the
 * message replying to it (*reply: free with net_msg_free). LG_ECLOSED when
 * the connection dropped (call net_client_reconnect), LG_ETIMEOUT,
 * LG_EPROTO. */
int net_client_call(net_client *c, net_msg *req, net_msg **reply,
		    double timeout_s, char *err, size_t errlen);
/* Send without waiting for a reply. */
int net_client_send(net_client *c, net_msg *m);
/* Drop the connection and connect again with backoff (give_up_s). */
int net_client_reconnect(net_client *c, char *err, size_t errlen);
/* Between calls: read what the daemon sent unasked (heartbeat echoes, a
 * Shutdown) without blocking. 0, or LG_ECLOSED / LG_EPROTO when the
 * connection is gone (then reconnect). Same thread as net_client_call. */
int net_client_poll(net_client *c);
int net_client_shutdown_requested(const net_client *c);
uint64_t net_client_session(const net_client *c);
/* The daemon's heartbeat period (HelloReply.heartbeat_s; 5 if it sent
 * none), in seconds. */
double net_client_heartbeat_s(const net_client *c);
/* The HelloReply's league and env names (valid while c lives). */
const char *net_client_league(const net_client *c);
const char *net_client_env(const net_client *c);
void net_client_close(net_client *c); /* NULL is a no-op */

/* ---- trajectory segments (net/segment.c) ------------------------------ */

/* A Segment's header (net/league.proto), its shape aside. */
struct net_segment_hdr {
	uint32_t player, params_version, env_index;
	uint64_t job_id, segment_seq;
	int job_end; /* league.deterministic: the job's last segment (it may
		      * have no rows) ... */
	uint32_t job_segments; /* ... and the segments of the job sent to
				* this learner before it */
};

/* A Segment read in place: header, layout, shape and its seven columns
 * (eight with a recurrent state), pointing into the bytes it was parsed
 * from (unaligned little-endian values, each column exactly count times
 * its width). */
#define NET_SEGMENT_STATE_MAX 65536u /* floats of state a row */
struct net_segment {
	struct net_segment_hdr h;
	uint32_t layout, obs_len, num_actions, count, state_len;
	const uint8_t *obs, *mask, *action, *logp, *value, *reward, *done;
	const uint8_t *state; /* NULL when state_len is 0 */
	const uint8_t *visits; /* count x num_actions float32; NULL: none */
	/* more than LG_ROWS_DENSE_MAX actions: no mask but legal lists,
	 * count uint32 lengths and legal_len uint16 ids (util/rows.h) */
	const uint8_t *nlegal, *legal;
	size_t legal_len;
};

/* Append to out one frame (length included) of an Envelope (seq) whose
 * body is the layout-2 Segment of h and rows [0, rows->n), the columns
 * serialized as they lie in memory. LG_EINVAL (no rows outside a job's
 * end mark, sizes past uint32), LG_ENOMEM. */
int net_segment_encode(const struct net_segment_hdr *h,
		       const struct lg_rows *rows, uint64_t seq, lg_buf *out);

/* Find the body of the Envelope in buf[0, len) (a frame's bytes after its
 * length) without decoding it: *body_case its field number (the
 * LEAGUE__ENVELOPE__BODY_* value) and where its bytes are. LG_EPROTO for
 * bytes that are not an Envelope with exactly one body; err says why,
 * with a sanitized sample. */
int net_envelope_body(const uint8_t *buf, size_t len, int *body_case,
		      const uint8_t **body, size_t *body_len, char *err,
		      size_t errlen);

/* Parse the bytes of a Segment message in place into *seg (its columns
 * point into buf). LG_EPROTO, err saying which: not protobuf, a field of
 * the wrong type, another layout than SEGMENT_LAYOUT, a zero count,
 * obs_len or num_actions, a column whose length is not count times its
 * width (a segment of more than LG_ROWS_DENSE_MAX actions has legal lists
 * and no mask, one of fewer the mask and no lists). The values are not
 * checked here: net_segment_append does (each list's length against the
 * ids left, ids < num_actions and increasing, the action on its list). */
int net_segment_parse(const uint8_t *buf, size_t len, struct net_segment *seg,
		      char *err, size_t errlen);

/* Append seg's rows to the batch dst (copying each column once) after
 * checking them against it. LG_EINVAL with err naming the row: a shape
 * other than dst's, more rows than dst has room for (cap - n), a done
 * value past LG_ROW_CUT or a last row with LG_ROW_NEXT, an action out of
 * range or illegal, a non-finite number, a visits column where dst has
 * none or none where it has one, visit shares that are not a distribution
 * over the legal actions. dst->n is unchanged on error. */
int net_segment_append(const struct net_segment *seg, struct lg_rows *dst,
		       char *err, size_t errlen);

/*
 * league.deterministic: a trainer state (ppo_state_save's bytes) with the
 * rows waiting in the learner's batch, as one blob the daemon stores
 * beside a version: "LGTD", the state's length (be32), the state, then
 * the rows as one Segment frame (nothing when none wait). LG_EINVAL,
 * LG_ENOMEM.
 */
int net_trainer_pack(const void *state, size_t len, const struct lg_rows *rows,
		     lg_buf *out);
/* Split such a blob: *state and *state_len point into it, and the rows
 * are appended to dst (net_segment_append's checks: dst's shape and
 * room). LG_EPROTO with err for bytes that are not such a blob, LG_EINVAL
 * for rows dst refuses; dst->n is unchanged on error. */
int net_trainer_unpack(const uint8_t *blob, size_t len, const uint8_t **state,
		       size_t *state_len, struct lg_rows *dst, char *err,
		       size_t errlen);

/* ---- trajectory streams (collector -> learner) ------------------------- */

/*
 * The learner's trajectory endpoint. It runs its own thread and event loop,
 * accepts senders (Hello with the shared token), and queues the Segment
 * frames they send, parsed in place (net_segment_parse) but not decoded:
 * the learner appends them straight into its batch. A frame that is not a
 * well-formed layout-2 Segment (or a Heartbeat) closes its sender. Flow
 * control is by credit: each sender is granted `window` segments up front
 * and one more for each of its segments the learner releases, so at most
 * max_senders x window segments are ever queued and nothing is dropped. A
 * sender that sends without credit breaks the protocol and is closed.
 * Credits go back in batches (half a window at a time) so one wake-up
 * carries many.
 */
typedef struct net_traj_server net_traj_server;

struct net_traj_server_opts {
	const char *listen;   /* NULL: 127.0.0.1 */
	uint16_t port;        /* 0: any free port */
	const char *token;    /* NULL or "": none */
	net_tls *tls;         /* a server context: senders speak TLS;
				 NULL: plain TCP */
	uint32_t window;      /* credits per sender; 0: 8 */
	uint32_t max_senders; /* connections beyond this are refused; 0: 64 */
	size_t max_frame;     /* 0: NET_DEFAULT_MAX_FRAME */
};

/*
 * Liveness: every heartbeat_s / 2 (net_traj_server_set_heartbeat) the
 * loop thread sends a Heartbeat to each sender that has no credit left,
 * so a sender waiting for credit can tell a learner that is busy (its
 * update runs, no segment is popped) from one that is stopped or cut off
 * (nothing at all for NET_SILENT_HEARTBEATS periods).
 */
int net_traj_server_start(net_traj_server **out,
			  const struct net_traj_server_opts *o, char *err,
			  size_t errlen);
uint16_t net_traj_server_port(const net_traj_server *s);
/* The window senders that say hello from now on are granted (0: no
 * change); those connected keep theirs. For a learner that learns its
 * queue size from the daemon only after its endpoint exists. */
void net_traj_server_set_window(net_traj_server *s, uint32_t window);
/* Heartbeats to senders without credit every period_s / 2 (the daemon's
 * heartbeat_s); <= 0: none (the default). Any thread. */
void net_traj_server_set_heartbeat(net_traj_server *s, double period_s);
/* Take the oldest queued segment, waiting up to timeout_s: 0 and *seg
 * (valid until net_traj_release), or LG_ETIMEOUT. Segments of one sender
 * come out in the order it sent them. */
int net_traj_pop(net_traj_server *s, const struct net_segment **seg,
		 double timeout_s);
/* Done with seg: free it and return its credit to the sender. */
void net_traj_release(net_traj_server *s, const struct net_segment *seg);
/* Queued now, and the most ever queued at once. */
size_t net_traj_depth(net_traj_server *s);
size_t net_traj_max_depth(net_traj_server *s);
/* Stop the thread, close every sender, free queued segments. */
void net_traj_server_stop(net_traj_server *s);

/* The collector's side: a blocking sender that waits for credit. */
typedef struct net_traj_sender net_traj_sender;

int net_traj_sender_connect(net_traj_sender **out, const char *host,
			    uint16_t port, const char *token, net_tls *tls,
			    const char *name, double timeout_s, char *err,
			    size_t errlen);
/* Send the Segment of h and rows [0, rows->n) (net_segment_encode, into a
 * buffer the sender keeps), blocking up to timeout_s for credit and for
 * the write: 0, LG_ETIMEOUT, LG_ECLOSED, LG_EINVAL (no rows). With
 * silent_s > 0 it also gives up (LG_ETIMEOUT) once the learner sent
 * nothing (no credit, no heartbeat) for silent_s while the sender waits
 * for credit, or took no byte of the frame for silent_s: a stopped or
 * cut-off learner costs at most silent_s, a busy one that still
 * heartbeats is waited for (backpressure). After LG_ETIMEOUT the frame
 * may be half written: close the sender. */
int net_traj_send(net_traj_sender *s, const struct net_segment_hdr *h,
		  const struct lg_rows *rows, double timeout_s,
		  double silent_s);
/* Credit messages received so far (the hello's window is the first):
 * more than one means the learner releases segments, it reads. */
uint64_t net_traj_sender_grants(const net_traj_sender *s);
void net_traj_sender_close(net_traj_sender *s);

#endif
