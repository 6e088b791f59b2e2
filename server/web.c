/*
 * server/web.c: finding the live page's embedded files (server/web.h);
 * the files themselves are web/index.html, web/app.js and web/style.css.
 */
#include "server/web.h"

#include <string.h>

const struct league_web_asset *league_web_find(const char *uri)
{
	size_t n = strcspn(uri, "?#");

	if (n == 1 && uri[0] == '/') {
		uri = "/index.html";
		n = strlen(uri);
	}
	for (const struct league_web_asset *a = league_web_assets; a->path; a++)
		if (strlen(a->path) == n && !strncmp(a->path, uri, n))
			return a;
	return NULL;
}
