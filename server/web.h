/*
 * server/web.h: the live page's files (web/), embedded into the binary at
 * build time (util/embed.sh writes build/<variant>/gen/web_assets.c), so
 * the daemon and `league inspect` serve every asset themselves: no CDN,
 * nothing fetched at run time.
 */
#ifndef LG_WEB_H
#define LG_WEB_H

#include <stddef.h>

struct league_web_asset {
	const char *path; /* "/index.html", "/app.js", ... */
	const char *type; /* its Content-Type */
	const unsigned char *data;
	size_t len;
};

/* Every file of web/, then { NULL }. */
extern const struct league_web_asset league_web_assets[];

/* The asset a request URI names ("/" is "/index.html"; a query string is
 * ignored), or NULL. */
const struct league_web_asset *league_web_find(const char *uri);

#endif
