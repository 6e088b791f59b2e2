/*
 * server/history.c: the payoff matrix and the ladder at an earlier moment
 * of the run (the live page's time slider): GET /payoff?at=SEQ and
 * /ratings?at=SEQ, for the daemon and `league inspect` alike, rebuilt by
 * brain_open_at from the decision log and the stored results. Nothing is
 * written: the brain is a read-only view over the store. Also the query
 * helpers the endpoints share (?at=, and the pages of GET /jobs).
 */
#include "server/server.h"

#include "players/players.h"

#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int league_http_query_u64(struct evhttp_request *req, const char *name,
			  uint64_t *v)
{
	const char *uri = evhttp_request_get_uri(req), *q, *val;
	struct evkeyvalq kv;
	char *end;
	int rc = LG_ENOTFOUND;

	if (!uri || !(q = strchr(uri, '?')))
		return LG_ENOTFOUND;
	if (evhttp_parse_query_str(q + 1, &kv))
		return LG_EINVAL;
	if ((val = evhttp_find_header(&kv, name))) {
		unsigned long long x;
		errno = 0;
		x = strtoull(val, &end, 10);
		rc = !*val || *end || errno || *val == '-' ? LG_EINVAL : 0;
		if (!rc)
			*v = x;
	}
	evhttp_clear_headers(&kv);
	return rc;
}

/* name's value in kv as a whole number: 0 with *v, LG_ENOTFOUND when
 * absent, LG_EINVAL when not digits or out of range. */
static int kv_u64(struct evkeyvalq *kv, const char *name, uint64_t *v)
{
	const char *val = evhttp_find_header(kv, name);
	unsigned long long x;
	char *end;

	if (!val)
		return LG_ENOTFOUND;
	if (!*val || *val < '0' || *val > '9')
		return LG_EINVAL;
	errno = 0;
	x = strtoull(val, &end, 10);
	if (*end || errno)
		return LG_EINVAL;
	*v = x;
	return 0;
}

int league_page_parse(const char *uri, struct league_page *pg)
{
	struct evkeyvalq kv;
	const char *q = uri ? strchr(uri, '?') : NULL;
	uint64_t v;
	int rc = 0, r;

	*pg = (struct league_page){ .from_start = 1,
				    .limit = LEAGUE_PAGE_DEFAULT };
	if (!q)
		return 0;
	if (evhttp_parse_query_str(q + 1, &kv))
		return LG_EINVAL;
	if ((r = kv_u64(&kv, "after", &v)) == 0) {
		pg->after = v;
		pg->from_start = 0;
	} else if (r != LG_ENOTFOUND) {
		rc = r;
	}
	if (!rc && (r = kv_u64(&kv, "limit", &v)) == 0) {
		if (v == 0 || v > LEAGUE_PAGE_MAX)
			rc = LG_EINVAL;
		else
			pg->limit = (uint32_t)v;
	} else if (!rc && r != LG_ENOTFOUND) {
		rc = r;
	}
	evhttp_clear_headers(&kv);
	return rc;
}

int league_http_page(struct evhttp_request *req, struct league_page *pg)
{
	char why[96];
	int rc = league_page_parse(evhttp_request_get_uri(req), pg);

	if (rc) {
		snprintf(why, sizeof why, "after: an id; limit: a whole "
			 "number from 1 to %d", LEAGUE_PAGE_MAX);
		evhttp_send_error(req, 400, why);
	}
	return rc;
}

int league_page_end(lg_buf *b, const struct league_page *pg, size_t total,
		    size_t more, uint64_t last_id)
{
	int rc = lg_buf_printf(b, "],\"total\":%zu,\"limit\":%u,"
			       "\"truncated\":%s,\"next\":", total,
			       pg->limit, more ? "true" : "false");

	if (!rc)
		rc = more ? lg_buf_printf(b, "\"%llu\"}",
					  (unsigned long long)last_id)
			  : lg_buf_printf(b, "null}");
	return rc;
}

int league_lineage_page(const struct brain *b, const struct league_page *pg,
			lg_buf *out)
{
	uint32_t last = 0;
	int more = 0;
	int rc = lg_buf_printf(out, "{\"players\":[");

	/* an after past any player id: an empty page */
	rc = rc ? rc : brain_lineage_json(b, pg->after > UINT32_MAX ? UINT32_MAX
						: (uint32_t)pg->after,
					  pg->from_start, pg->limit, out,
					  &more, &last);
	return rc ? rc : league_page_end(out, pg, brain_count(b),
					 (size_t)more, last);
}

/* The payoff matrix of the newest max agents of b. */
static int payoff_of(brain *b, uint32_t max, lg_buf *out)
{
	uint32_t n = brain_count(b), first = n > max ? n - max : 0;
	uint32_t *ids = malloc(((size_t)n - first + 1) * sizeof *ids);
	int rc;

	if (!ids)
		return LG_ENOMEM;
	for (uint32_t i = first; i < n; i++)
		ids[i - first] = i;
	rc = brain_payoff_json(b, ids, n - first, out);
	free(ids);
	return rc;
}

int league_http_history(struct evhttp_request *req, store *st, int ratings,
			uint32_t max_agents, uint32_t max_nash)
{
	uint64_t at;
	brain *b = NULL;
	lg_buf out = { 0 };
	char err[256] = "";
	int rc = league_http_query_u64(req, "at", &at);

	if (rc == LG_ENOTFOUND)
		return 0;
	if (rc) {
		evhttp_send_error(req, 400, "at: a decision-log position "
			"(a whole number) expected");
		return 1;
	}
	rc = brain_open_at(&b, st, at, err, sizeof err);
	if (!rc)
		rc = ratings ? brain_ratings_json(b, max_nash, &out)
			     : payoff_of(b, max_agents, &out);
	if (!rc)
		rc = lg_buf_printf(&out, "\n");
	if (rc)
		evhttp_send_error(req, 500, err[0] ? err : lg_strerror(rc));
	else
		league_http_reply(req, "application/json", out.data, out.len);
	brain_close(b);
	lg_buf_free(&out);
	return 1;
}
