/* net/frame.c: frame encode/decode, sockets and blocking helpers. */
#include "net/net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int net_frame_encode(const net_msg *m, lg_buf *out)
{
	size_t n = league__envelope__get_packed_size(m);
	int rc;

	if (n == 0 || n > UINT32_MAX)
		return LG_EINVAL;
	if ((rc = lg_buf_reserve(out, NET_FRAME_HDR + n)))
		return rc;
	lg_put_be32(out->data + out->len, (uint32_t)n);
	league__envelope__pack(m, out->data + out->len + NET_FRAME_HDR);
	out->len += NET_FRAME_HDR + n;
	return 0;
}

void net_sample(const void *p, size_t n, char *out, size_t outlen)
{
	const uint8_t *b = p;
	size_t o = 0;

	if (!outlen)
		return;
	out[0] = 0;
	for (size_t i = 0; i < n && i < 32 && o + 5 < outlen; i++) {
		if (b[i] >= 0x20 && b[i] < 0x7f && b[i] != '\\')
			out[o++] = (char)b[i];
		else
			o += (size_t)snprintf(out + o, outlen - o, "\\x%02x",
					      b[i]);
	}
	if (n > 32 && o + 4 < outlen)
		o += (size_t)snprintf(out + o, outlen - o, "...");
	out[o < outlen ? o : outlen - 1] = 0;
}

int net_frame_decode(const uint8_t *buf, size_t len, size_t max_frame,
		     net_msg **msg, size_t *used, char *err, size_t errlen)
{
	uint32_t n;
	net_msg *m;
	char sample[160];

	*msg = NULL;
	*used = 0;
	if (len < NET_FRAME_HDR)
		return 1;
	n = lg_get_be32(buf);
	if (n == 0 || n > max_frame) {
		net_sample(buf, len < 16 ? len : 16, sample, sizeof sample);
		lg_errf(err, errlen, "frame length %u outside [1, %zu] "
			"(bytes: %s)", n, max_frame, sample);
		return LG_EPROTO;
	}
	if (len - NET_FRAME_HDR < n)
		return 1;
	m = league__envelope__unpack(NULL, n, buf + NET_FRAME_HDR);
	if (!m || m->body_case == LEAGUE__ENVELOPE__BODY__NOT_SET) {
		net_sample(buf + NET_FRAME_HDR, n, sample, sizeof sample);
		lg_errf(err, errlen, "%s in a %u-byte frame (bytes: %s)",
			m ? "message without a body" : "undecodable message", n,
			sample);
		if (m)
			league__envelope__free_unpacked(m, NULL);
		return LG_EPROTO;
	}
	*msg = m;
	*used = NET_FRAME_HDR + n;
	return 0;
}

void net_msg_free(net_msg *m)
{
	if (m)
		league__envelope__free_unpacked(m, NULL);
}

const char *net_msg_name(const net_msg *m)
{
	switch (m ? m->body_case : LEAGUE__ENVELOPE__BODY__NOT_SET) {
	case LEAGUE__ENVELOPE__BODY_HELLO: return "hello";
	case LEAGUE__ENVELOPE__BODY_HELLO_REPLY: return "hello_reply";
	case LEAGUE__ENVELOPE__BODY_REGISTER: return "register";
	case LEAGUE__ENVELOPE__BODY_REGISTER_REPLY: return "register_reply";
	case LEAGUE__ENVELOPE__BODY_JOB_REQUEST: return "job_request";
	case LEAGUE__ENVELOPE__BODY_JOBS: return "jobs";
	case LEAGUE__ENVELOPE__BODY_JOB_RESULT: return "job_result";
	case LEAGUE__ENVELOPE__BODY_PARAMS_GET: return "params_get";
	case LEAGUE__ENVELOPE__BODY_PARAMS: return "params";
	case LEAGUE__ENVELOPE__BODY_PARAMS_PUT: return "params_put";
	case LEAGUE__ENVELOPE__BODY_ACK: return "ack";
	case LEAGUE__ENVELOPE__BODY_HEARTBEAT: return "heartbeat";
	case LEAGUE__ENVELOPE__BODY_SHUTDOWN: return "shutdown";
	case LEAGUE__ENVELOPE__BODY_SEGMENT: return "segment";
	case LEAGUE__ENVELOPE__BODY_CREDIT: return "credit";
	case LEAGUE__ENVELOPE__BODY_EVAL_REQUEST: return "eval_request";
	case LEAGUE__ENVELOPE__BODY_EVAL_WORK: return "eval_work";
	case LEAGUE__ENVELOPE__BODY_EVAL_REPORT: return "eval_report";
	default: return "none";
	}
}

int net_parse_hostport(const char *s, char *host, size_t hostlen,
		       uint16_t *port)
{
	const char *colon = strrchr(s, ':');
	uint64_t p;
	size_t hl;

	if (!colon)
		return LG_EINVAL;
	hl = (size_t)(colon - s);
	if (hl >= hostlen)
		return LG_EINVAL;
	if (lg_parse_u64(colon + 1, 0, 65535, &p))
		return LG_EINVAL;
	if (hl == 0)
		snprintf(host, hostlen, "127.0.0.1");
	else
		snprintf(host, hostlen, "%.*s", (int)hl, s);
	*port = (uint16_t)p;
	return 0;
}

static int resolve(const char *host, uint16_t port, int passive,
		   struct addrinfo **res, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = passive ? AI_PASSIVE : 0 };
	char ps[8];
	int g;

	snprintf(ps, sizeof ps, "%u", port);
	if ((g = getaddrinfo(host, ps, &hints, res))) {
		lg_errf(err, errlen, "%s:%u: %s", host, port, gai_strerror(g));
		return LG_EINVAL;
	}
	return 0;
}

int net_listen_tcp(const char *host, uint16_t port, int *fd,
		   uint16_t *bound, char *err, size_t errlen)
{
	struct addrinfo *res;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int s, one = 1, rc;

	if ((rc = resolve(host, port, 1, &res, err, errlen)))
		return rc;
	s = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
	    bind(s, res->ai_addr, res->ai_addrlen) || listen(s, 512) ||
	    getsockname(s, (struct sockaddr *)&ss, &sl)) {
		lg_errf(err, errlen, "listen on %s:%u: %s", host, port,
			strerror(errno));
		if (s >= 0)
			close(s);
		freeaddrinfo(res);
		return LG_EIO;
	}
	freeaddrinfo(res);
	*bound = ntohs(ss.ss_family == AF_INET6
			       ? ((struct sockaddr_in6 *)&ss)->sin6_port
			       : ((struct sockaddr_in *)&ss)->sin_port);
	*fd = s;
	return 0;
}

int net_connect_tcp(const char *host, uint16_t port, int *fd, char *err,
		    size_t errlen)
{
	struct addrinfo *res;
	int s, one = 1, rc;

	if ((rc = resolve(host, port, 0, &res, err, errlen)))
		return rc;
	s = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, res->ai_addr, res->ai_addrlen)) {
		lg_errf(err, errlen, "connect to %s:%u: %s", host, port,
			strerror(errno));
		if (s >= 0)
			close(s);
		freeaddrinfo(res);
		return errno == ECONNREFUSED ? LG_ECLOSED : LG_EIO;
	}
	freeaddrinfo(res);
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	*fd = s;
	return 0;
}

int net_http_get(uint16_t port, const char *path, double timeout_s,
		 char *out, size_t len)
{
	return net_http_get_hdr(port, path, NULL, timeout_s, out, len);
}

int net_http_get_hdr(uint16_t port, const char *path, const char *headers,
		     double timeout_s, char *out, size_t len)
{
	return net_http_get_tls(NULL, port, path, headers, timeout_s, out,
				len);
}

int net_http_get_tls(net_tls *tls, uint16_t port, const char *path,
		     const char *headers, double timeout_s, char *out,
		     size_t len)
{
	double deadline = lg_now_s() + timeout_s;
	char req[1024];
	size_t used = 0;
	net_stream st;
	long n;

	if (!len || net_stream_connect(&st, "127.0.0.1", port, tls, timeout_s,
				       NULL, 0))
		return -1;
	snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: x\r\n%s\r\n", path,
		 headers ? headers : "");
	if (net_stream_write(&st, req, strlen(req))) {
		net_stream_close(&st);
		return -1;
	}
	while (used + 1 < len &&
	       (n = net_stream_read_some(&st, out + used, len - 1 - used,
					 deadline)) > 0)
		used += (size_t)n;
	out[used] = 0;
	net_stream_close(&st);
	return 0;
}

/* The plain-socket forms of net_stream_send / net_stream_recv. */
int net_send_blocking(int fd, const net_msg *m)
{
	net_stream s;

	net_stream_plain(&s, fd);
	return net_stream_send(&s, m);
}

int net_recv_blocking(int fd, size_t max_frame, double timeout_s,
		      net_msg **out, char *err, size_t errlen)
{
	net_stream s;

	net_stream_plain(&s, fd);
	return net_stream_recv(&s, max_frame, timeout_s, out, err, errlen);
}
