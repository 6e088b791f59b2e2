/*
 * net/tls.c: TLS for every socket league opens (see net.h, "TLS").
 *
 * One net_tls is an OpenSSL context made from PEM files: a certificate
 * and its key (a server always; a client for mutual TLS), and a CA that
 * peers must chain to. The daemon's and the learners' listeners wrap each
 * accepted socket in libevent's bufferevent_openssl (net/conn.c), HTTP
 * through evhttp's bufferevent callback (server/http.c); the blocking
 * clients (workers, the trajectory sender, tests) speak through a
 * net_stream, which is the plain socket or an SSL object over it.
 *
 * A client always verifies the server: its chain to the CA and its name
 * (the host it dialled, as a DNS name or an IP address in the
 * certificate's subjectAltName). A server with verify_peer asks for a
 * client certificate and refuses a handshake without one that chains to
 * the CA (mutual TLS); the client's common name then labels it in logs.
 *
 * Streams: an SSL stream's socket is non-blocking, each SSL call runs
 * under the stream's mutex (a worker's heartbeat thread writes while its
 * caller reads, and one SSL object must not be entered by two threads at
 * once), and the waits (poll) run outside it.
 *
 * Under TLS 1.3 the handshake ends before the server has judged the
 * client's certificate. A server sends one session ticket once it has
 * accepted the client, and net_stream_connect waits for it (or the
 * alert that replaces it) before it calls the connection made: so a
 * mutual-TLS refusal reaches the client as a refusal, never as a reset
 * of its first write, and no ticket arrives later to make the socket
 * readable with no message behind it. Sessions are never resumed.
 */
#include "net/net.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct net_tls {
	SSL_CTX *ctx;
	int server, verify_peer;
};

/* The newest OpenSSL error as text ("" when the queue is empty), and the
 * queue cleared. */
static const char *ssl_errstr(char *buf, size_t len)
{
	unsigned long e = ERR_peek_last_error();

	buf[0] = 0;
	if (e)
		ERR_error_string_n(e, buf, len);
	ERR_clear_error();
	return buf;
}

/* The certificate's validity window against now: 0, or an error naming
 * what and when. */
static int check_dates(X509 *x, const char *what, const char *path,
		       char *err, size_t errlen)
{
	const ASN1_TIME *nb = X509_get0_notBefore(x), *na = X509_get0_notAfter(x);
	char when[64] = "";
	BIO *b;

	if (X509_cmp_current_time(na) >= 0 && X509_cmp_current_time(nb) <= 0)
		return 0;
	int expired = X509_cmp_current_time(na) < 0;
	if ((b = BIO_new(BIO_s_mem()))) {
		ASN1_TIME_print(b, expired ? na : nb);
		int n = BIO_read(b, when, sizeof when - 1);
		when[n > 0 ? n : 0] = 0;
		BIO_free(b);
	}
	lg_errf(err, errlen, "%s %s %s %s", what, path,
		expired ? "expired on" : "is not valid before", when);
	return LG_EINVAL;
}

/* Every certificate in a PEM file: at least one, each within its dates. */
static int check_pem_certs(const char *path, const char *what, char *err,
			   size_t errlen)
{
	FILE *f = fopen(path, "r");
	X509 *x;
	int n = 0, rc = 0;

	if (!f) {
		lg_errf(err, errlen, "%s %s: %s", what, path, strerror(errno));
		return LG_EINVAL;
	}
	while (!rc && (x = PEM_read_X509(f, NULL, NULL, NULL))) {
		rc = check_dates(x, what, path, err, errlen);
		X509_free(x);
		n++;
	}
	fclose(f);
	ERR_clear_error(); /* the end of the file reads as an error */
	if (!rc && !n) {
		lg_errf(err, errlen, "%s %s: no PEM certificate in it", what,
			path);
		rc = LG_EINVAL;
	}
	return rc;
}

/* A TLS 1.3 ticket arrived: the server has accepted the handshake,
 * client certificate included. The session is not kept (0). */
static int ticket_seen(SSL *ssl, SSL_SESSION *sess)
{
	int *seen = SSL_get_app_data(ssl);

	(void)sess;
	if (seen)
		*seen = 1;
	return 0;
}

int net_tls_check(const struct net_tls_opts *o, int server, int *which,
		  char *err, size_t errlen)
{
	net_tls *t;
	int rc;

	if ((rc = net_tls_new(&t, o, server, which, err, errlen)))
		return rc;
	net_tls_free(t);
	return 0;
}

/* The files o names, as a server or a client needs them: a CA always,
 * a certificate and its key together (a server always). LG_EINVAL with
 * the reason in err and the field at fault in *which. */
static int tls_opts_check(const struct net_tls_opts *o, int server,
			  int *which, char *err, size_t errlen)
{
	if (!o->ca || !o->ca[0]) {
		lg_errf(err, errlen, "TLS needs a CA file (peers are verified "
			"against it)");
		*which = NET_TLS_CA;
		return LG_EINVAL;
	}
	if ((server || o->cert[0] || o->key[0]) &&
	    (!o->cert[0] || !o->key[0])) {
		lg_errf(err, errlen, "TLS %s needs both a certificate and its "
			"key", server ? "on a listener" : "with a client "
			"certificate");
		*which = o->cert[0] ? NET_TLS_KEY : NET_TLS_CERT;
		return LG_EINVAL;
	}
	return 0;
}

/* A new context for a server or a client: protocol floor, ciphers, write
 * modes, tickets and the session cache. NULL: out of memory. */
static SSL_CTX *tls_ctx_new(int server)
{
	SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method()
					  : TLS_client_method());

	if (!ctx)
		return NULL;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	/* A peer closing without close_notify (a killed worker, a port
	 * check) is the end of the stream, not an error: frames carry their
	 * lengths, so a truncated one is still caught. */
	SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
	/* AEAD only; AES-128-GCM first (frames are small, so the per-record
	 * cost dominates, and AES-NI makes 128 the cheapest). */
	SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256:"
				      "TLS_AES_256_GCM_SHA384:"
				      "TLS_CHACHA20_POLY1305_SHA256");
	SSL_CTX_set_cipher_list(ctx, "ECDHE+AESGCM:ECDHE+CHACHA20");
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
				      SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (server) {
		/* One TLS 1.3 ticket, sent once the client's certificate is
		 * accepted: the client waits for it (net_stream_connect), so
		 * a refusal reaches it as the handshake's outcome, not as a
		 * reset of its first write. Sessions are never resumed. */
		SSL_CTX_set_num_tickets(ctx, 1);
		SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	} else {
		SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT |
						    SSL_SESS_CACHE_NO_INTERNAL);
		SSL_CTX_sess_set_new_cb(ctx, ticket_seen);
	}
	return ctx;
}

/* o->key into ctx, whose certificate is o->cert: readable, a PEM private
 * key, the certificate's. LG_EINVAL with the reason in err. */
static int tls_load_key(SSL_CTX *ctx, const struct net_tls_opts *o,
			char *err, size_t errlen)
{
	char es[256];

	if (access(o->key, R_OK)) {
		lg_errf(err, errlen, "key %s: %s", o->key, strerror(errno));
		return LG_EINVAL;
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, o->key, SSL_FILETYPE_PEM) != 1) {
		unsigned long e = ERR_peek_last_error();
		if (ERR_GET_LIB(e) == ERR_LIB_X509 &&
		    ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH)
			lg_errf(err, errlen, "key %s does not match "
				"certificate %s", o->key, o->cert);
		else
			lg_errf(err, errlen, "key %s: not a PEM private "
				"key (%s)", o->key, ssl_errstr(es, sizeof es));
		ERR_clear_error();
		return LG_EINVAL;
	}
	if (SSL_CTX_check_private_key(ctx) != 1) {
		ERR_clear_error();
		lg_errf(err, errlen, "key %s does not match certificate "
			"%s", o->key, o->cert);
		return LG_EINVAL;
	}
	return 0;
}

/* The certificate must chain to the CA: a peer would refuse it at every
 * handshake, so refuse it here, once. LG_EINVAL with the reason in err. */
static int tls_check_chain(SSL_CTX *ctx, const struct net_tls_opts *o,
			   char *err, size_t errlen)
{
	X509_STORE_CTX *sc = X509_STORE_CTX_new();
	X509 *leaf = SSL_CTX_get0_certificate(ctx);
	STACK_OF(X509) *chain = NULL;
	int ok;

	SSL_CTX_get0_chain_certs(ctx, &chain);
	ok = sc && X509_STORE_CTX_init(sc, SSL_CTX_get_cert_store(ctx), leaf,
				       chain) == 1 &&
	     X509_verify_cert(sc) == 1;
	if (!ok) {
		int e = sc ? X509_STORE_CTX_get_error(sc) : 0;
		lg_errf(err, errlen, "certificate %s does not verify "
			"against CA %s: %s", o->cert, o->ca,
			X509_verify_cert_error_string(e));
	}
	X509_STORE_CTX_free(sc);
	ERR_clear_error();
	return ok ? 0 : LG_EINVAL;
}

/* The PEM files of o into ctx: the CA, then (if named) the certificate
 * chain, its key and the chain's check against the CA. LG_EINVAL with
 * the reason in err and the field at fault in *w. */
static int tls_load_files(SSL_CTX *ctx, const struct net_tls_opts *o,
			  int *w, char *err, size_t errlen)
{
	char es[256];
	int rc;

	*w = NET_TLS_CA;
	if ((rc = check_pem_certs(o->ca, "CA", err, errlen)))
		return rc;
	if (SSL_CTX_load_verify_locations(ctx, o->ca, NULL) != 1) {
		lg_errf(err, errlen, "CA %s: %s", o->ca, ssl_errstr(es, sizeof es));
		return LG_EINVAL;
	}
	if (!o->cert[0])
		return 0;
	*w = NET_TLS_CERT;
	if ((rc = check_pem_certs(o->cert, "certificate", err, errlen)))
		return rc;
	if (SSL_CTX_use_certificate_chain_file(ctx, o->cert) != 1) {
		lg_errf(err, errlen, "certificate %s: %s", o->cert,
			ssl_errstr(es, sizeof es));
		return LG_EINVAL;
	}
	*w = NET_TLS_KEY;
	if ((rc = tls_load_key(ctx, o, err, errlen)))
		return rc;
	*w = NET_TLS_CERT;
	return tls_check_chain(ctx, o, err, errlen);
}

int net_tls_new(net_tls **out, const struct net_tls_opts *o, int server,
		int *which, char *err, size_t errlen)
{
	int w = 0, rc, dummy;
	net_tls *t;

	*out = NULL;
	if (!which)
		which = &dummy;
	*which = 0;
	if ((rc = tls_opts_check(o, server, which, err, errlen)))
		return rc;
	if (!(t = calloc(1, sizeof *t)))
		return LG_ENOMEM;
	t->server = server;
	t->verify_peer = o->verify_peer;
	t->ctx = tls_ctx_new(server);
	if (!t->ctx) {
		rc = LG_ENOMEM;
		goto fail;
	}
	if ((rc = tls_load_files(t->ctx, o, &w, err, errlen)))
		goto fail;
	if (server)
		SSL_CTX_set_verify(t->ctx, o->verify_peer
				   ? SSL_VERIFY_PEER |
					     SSL_VERIFY_FAIL_IF_NO_PEER_CERT
				   : SSL_VERIFY_NONE, NULL);
	else
		SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
	*out = t;
	return 0;
fail:
	*which = w;
	net_tls_free(t);
	return rc;
}

void net_tls_free(net_tls *t)
{
	if (!t)
		return;
	SSL_CTX_free(t->ctx);
	free(t);
}

void net_tls_set_verify_peer(net_tls *t, int on)
{
	t->verify_peer = on;
	SSL_CTX_set_verify(t->ctx, on ? SSL_VERIFY_PEER |
						SSL_VERIFY_FAIL_IF_NO_PEER_CERT
				      : SSL_VERIFY_NONE, NULL);
}

int net_tls_is_server(const net_tls *t)
{
	return t->server;
}

struct ssl_st *net_tls_ssl_new(net_tls *t)
{
	return SSL_new(t->ctx);
}

void net_tls_peer_name(struct ssl_st *ssl, char *out, size_t len)
{
	X509 *x = ssl ? SSL_get0_peer_certificate(ssl) : NULL;

	if (!len)
		return;
	out[0] = 0;
	if (x)
		X509_NAME_get_text_by_NID(X509_get_subject_name(x),
					  NID_commonName, out, (int)len);
}

/* ---- blocking streams ------------------------------------------------- */

void net_stream_plain(net_stream *s, int fd)
{
	memset(s, 0, sizeof *s);
	s->fd = fd;
}

/* Wait for the socket to be readable (want_write 0) or writable until
 * deadline (<= 0: no deadline). 0, LG_ETIMEOUT or LG_EIO. */
static int wait_fd(int fd, int want_write, double deadline)
{
	for (;;) {
		struct pollfd p = { fd, want_write ? POLLOUT : POLLIN, 0 };
		int ms = -1;
		if (deadline > 0) {
			double left = deadline - lg_now_s();
			if (left <= 0)
				return LG_ETIMEOUT;
			ms = (int)(left * 1000) + 1;
		}
		int r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		return r > 0 ? 0 : r == 0 ? LG_ETIMEOUT : LG_EIO;
	}
}

/* Whether the peer's alert says it refused our certificate (a mutual-TLS
 * server does so on the client's first read under TLS 1.3). */
static int cert_refused(unsigned long e)
{
	switch (ERR_GET_LIB(e) == ERR_LIB_SSL ? ERR_GET_REASON(e) : 0) {
	case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
	case SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED:
	case SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED:
	case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
	case SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE:
	case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
	case SSL_R_TLSV1_ALERT_ACCESS_DENIED:
	case SSL_R_TLSV1_ALERT_DECRYPT_ERROR:
	case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
	case SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE:
		return 1;
	}
	return 0;
}

/* One SSL call's outcome: > 0 bytes done; 0 with *want set (1 read,
 * 2 write) to wait and retry; < 0 an LG_E* code (LG_EAUTH: the peer
 * refused our certificate). */
static int ssl_result(SSL *ssl, int r, int *want)
{
	unsigned long e;

	*want = 0;
	if (r > 0)
		return r;
	switch (SSL_get_error(ssl, r)) {
	case SSL_ERROR_WANT_READ:
		*want = 1;
		return 0;
	case SSL_ERROR_WANT_WRITE:
		*want = 2;
		return 0;
	case SSL_ERROR_SYSCALL:
		if (errno == EINTR) {
			*want = 1;
			return 0;
		}
		ERR_clear_error();
		return LG_ECLOSED;
	default:
		e = ERR_peek_last_error();
		ERR_clear_error();
		return cert_refused(e) ? LG_EAUTH : LG_ECLOSED;
	}
}

int net_stream_write(net_stream *s, const void *p, size_t n)
{
	return net_stream_write_idle(s, p, n, 0);
}

int net_stream_write_idle(net_stream *s, const void *p, size_t n,
			  double idle_s)
{
	const uint8_t *b = p;
	double deadline = idle_s > 0 ? lg_now_s() + idle_s : 0;
	int rc;

	while (n) {
		if (!s->ssl) {
			/* MSG_DONTWAIT: a full window waits in wait_fd,
			 * where the deadline holds */
			ssize_t w = send(s->fd, b, n, MSG_NOSIGNAL |
						      MSG_DONTWAIT);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				if ((rc = wait_fd(s->fd, 1, deadline)))
					return rc == LG_ETIMEOUT ? rc
								 : LG_ECLOSED;
				continue;
			}
			if (w <= 0)
				return LG_ECLOSED;
			b += w;
			n -= (size_t)w;
			if (idle_s > 0) /* bytes taken: the peer reads */
				deadline = lg_now_s() + idle_s;
			continue;
		}
		int want;
		pthread_mutex_lock(&s->mu);
		ERR_clear_error();
		errno = 0;
		int r = ssl_result(s->ssl, SSL_write(s->ssl, b, n > INT32_MAX
								 ? INT32_MAX
								 : (int)n),
				   &want);
		pthread_mutex_unlock(&s->mu);
		if (r < 0)
			return r;
		if (r > 0) {
			b += r;
			n -= (size_t)r;
			if (idle_s > 0)
				deadline = lg_now_s() + idle_s;
		} else if ((rc = wait_fd(s->fd, want == 2, deadline))) {
			return rc == LG_ETIMEOUT ? rc : LG_ECLOSED;
		}
	}
	return 0;
}

int net_stream_read(net_stream *s, void *p, size_t n, double deadline)
{
	uint8_t *b = p;

	while (n) {
		long r = net_stream_read_some(s, b, n, deadline);
		if (r <= 0)
			return r == 0 ? LG_ECLOSED : (int)r;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

long net_stream_read_some(net_stream *s, void *p, size_t n, double deadline)
{
	int rc;

	for (;;) {
		if (!s->ssl) {
			if ((rc = wait_fd(s->fd, 0, deadline)))
				return rc;
			ssize_t r = recv(s->fd, p, n, 0);
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			return r < 0 ? LG_ECLOSED : (long)r;
		}
		int want;
		pthread_mutex_lock(&s->mu);
		ERR_clear_error();
		errno = 0;
		int r = SSL_read(s->ssl, p, n > INT32_MAX ? INT32_MAX : (int)n);
		int clean = r <= 0 && SSL_get_error(s->ssl, r) ==
						 SSL_ERROR_ZERO_RETURN;
		if (!clean)
			r = ssl_result(s->ssl, r, &want);
		pthread_mutex_unlock(&s->mu);
		if (clean)
			return 0;
		if (r != 0)
			return r;
		if ((rc = wait_fd(s->fd, want == 2, deadline)))
			return rc;
	}
}

int net_stream_pending(net_stream *s)
{
	int n;

	if (!s->ssl)
		return 0;
	pthread_mutex_lock(&s->mu);
	n = SSL_pending(s->ssl);
	pthread_mutex_unlock(&s->mu);
	return n > 0;
}

/* A client session of tls on fd. The name checked is the host dialled:
 * an IP address against the certificate's IP entries, else a DNS name
 * (also sent as SNI). NULL: out of memory. */
static SSL *tls_client_ssl(net_tls *tls, const char *host, int fd)
{
	SSL *ssl = SSL_new(tls->ctx);
	X509_VERIFY_PARAM *vp = ssl ? SSL_get0_param(ssl) : NULL;

	if (!ssl)
		return NULL;
	if (X509_VERIFY_PARAM_set1_ip_asc(vp, host) != 1) {
		/* SSL_set_tlsext_host_name is a macro that casts away const,
		 * which clang's -Wcast-qual rejects: call it on a copy. */
		char sni[256];
		ERR_clear_error();
		if (strlen(host) < sizeof sni) {
			memcpy(sni, host, strlen(host) + 1);
			SSL_set_tlsext_host_name(ssl, sni);
		}
		if (SSL_set1_host(ssl, host) != 1)
			goto fail;
	}
	if (SSL_set_fd(ssl, fd) != 1)
		goto fail;
	return ssl;
fail:
	SSL_free(ssl);
	return NULL;
}

/* The client's handshake on the non-blocking fd by deadline. LG_EAUTH
 * (a certificate refused: final), LG_ECLOSED, LG_ETIMEOUT, each with the
 * reason in err. */
static int tls_handshake(SSL *ssl, int fd, const char *host, uint16_t port,
			 double deadline, char *err, size_t errlen)
{
	char es[256];
	int rc;

	for (;;) {
		ERR_clear_error();
		int want, r = SSL_connect(ssl);
		if (r == 1)
			return 0;
		long v = SSL_get_verify_result(ssl);
		unsigned long e = ERR_peek_last_error(); /* before ssl_result
							    clears it */
		r = ssl_result(ssl, r, &want);
		if (r < 0 || !want) {
			es[0] = 0;
			if (e)
				ERR_error_string_n(e, es, sizeof es);
			if (v != X509_V_OK)
				lg_errf(err, errlen, "TLS to %s:%u: the server's "
					"certificate: %s", host, port,
					X509_verify_cert_error_string(v));
			else if (r == LG_EAUTH)
				lg_errf(err, errlen, "TLS to %s:%u: the server "
					"refused this client's certificate (or "
					"it has none): %s", host, port, es);
			else
				lg_errf(err, errlen, "TLS handshake with %s:%u "
					"failed%s%s", host, port,
					es[0] ? ": " : "", es);
			/* A refused certificate is final: retrying cannot
			 * change it. */
			return v != X509_V_OK || r == LG_EAUTH ? LG_EAUTH
							       : LG_ECLOSED;
		}
		if ((rc = wait_fd(fd, want == 2, deadline))) {
			lg_errf(err, errlen, "TLS handshake with %s:%u: %s", host,
				port, rc == LG_ETIMEOUT ? "timed out" : "failed");
			return rc;
		}
	}
}

/* TLS 1.3 ends the handshake before the server has judged our
 * certificate: wait for its ticket (accepted) or its alert (refused) by
 * deadline. SSL_peek takes no application data. LG_EAUTH, LG_ECLOSED,
 * LG_ETIMEOUT with the reason in err. */
static int tls_await_ticket(SSL *ssl, int fd, const char *host,
			    uint16_t port, double deadline, char *err,
			    size_t errlen)
{
	int seen = 0, rc = 0;

	SSL_set_app_data(ssl, &seen);
	while (SSL_version(ssl) == TLS1_3_VERSION && !seen) {
		char c;
		int want, r = ssl_result(ssl, SSL_peek(ssl, &c, 1), &want);
		if (seen || r > 0)
			break;
		if (r < 0) {
			lg_errf(err, errlen, r == LG_EAUTH
				? "TLS to %s:%u: the server refused this "
				  "client's certificate (or it has none)"
				: "TLS to %s:%u: closed after the handshake",
				host, port);
			rc = r;
			break;
		}
		if ((rc = wait_fd(fd, want == 2, deadline))) {
			lg_errf(err, errlen, "TLS to %s:%u: no word from the "
				"server after the handshake", host, port);
			break;
		}
	}
	SSL_set_app_data(ssl, NULL);
	return rc;
}

int net_stream_connect(net_stream *s, const char *host, uint16_t port,
		       net_tls *tls, double timeout_s, char *err, size_t errlen)
{
	double deadline;
	SSL *ssl = NULL;
	int fd, rc;

	net_stream_plain(s, -1);
	if ((rc = net_connect_tcp(host, port, &fd, err, errlen)))
		return rc;
	s->fd = fd;
	if (!tls)
		return 0;
	if (!(ssl = tls_client_ssl(tls, host, fd))) {
		rc = LG_ENOMEM;
		goto fail;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	deadline = lg_now_s() + (timeout_s > 0 ? timeout_s : 10);
	if ((rc = tls_handshake(ssl, fd, host, port, deadline, err, errlen)) ||
	    (rc = tls_await_ticket(ssl, fd, host, port, deadline, err,
				   errlen)))
		goto fail;
	pthread_mutex_init(&s->mu, NULL);
	s->ssl = ssl;
	return 0;
fail:
	SSL_free(ssl);
	close(fd);
	s->fd = -1;
	return rc;
}

void net_stream_close(net_stream *s)
{
	if (s->ssl) {
		/* No close_notify round trip: the peer takes the TCP close as
		 * the end (dirty shutdowns are allowed on the listeners). */
		SSL_free(s->ssl);
		pthread_mutex_destroy(&s->mu);
		s->ssl = NULL;
	}
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

int net_stream_send(net_stream *s, const net_msg *m)
{
	lg_buf b = { 0 };
	int rc = net_frame_encode(m, &b);

	if (!rc)
		rc = net_stream_write(s, b.data, b.len);
	lg_buf_free(&b);
	return rc;
}

int net_stream_recv(net_stream *s, size_t max_frame, double timeout_s,
		    net_msg **out, char *err, size_t errlen)
{
	double deadline = lg_now_s() + timeout_s;
	uint8_t hdr[NET_FRAME_HDR], *buf;
	size_t used;
	uint32_t n;
	int rc;

	*out = NULL;
	if ((rc = net_stream_read(s, hdr, sizeof hdr, deadline)))
		return rc;
	n = lg_get_be32(hdr);
	if (n == 0 || n > max_frame) {
		lg_errf(err, errlen, "frame length %u outside [1, %zu]", n,
			max_frame);
		return LG_EPROTO;
	}
	buf = malloc(NET_FRAME_HDR + (size_t)n);
	if (!buf)
		return LG_ENOMEM;
	memcpy(buf, hdr, sizeof hdr);
	rc = net_stream_read(s, buf + NET_FRAME_HDR, n, deadline);
	if (!rc)
		rc = net_frame_decode(buf, NET_FRAME_HDR + (size_t)n, max_frame,
				      out, &used, err, errlen);
	free(buf);
	return rc;
}
