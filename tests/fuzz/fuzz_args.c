/* tests/fuzz/fuzz_args.c: libFuzzer harness for the commands' flag
 * parser (cli_args_parse, cli/args.h): argv is whatever a user or a
 * script types. The input is one mode byte (bit 0: name an extra
 * positional argument; bits 1-2: the fewest positional arguments, the
 * most two more), then the words after the command's name, separated by
 * NUL bytes (at most 24). A table with every kind of flag parses them.
 * Either LG_EINVAL with a message, or 0 with the positional count within
 * the table's, every positional argument and every string value one of
 * the words, every number within its flag's bounds (finite), the bits
 * only the flags', a set flag's value its own. The same words parse the
 * same way twice: same code, message and values. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define WORDS_MAX 24

struct vals {
	const char *name, *out;
	unsigned long long count, seed;
	double rate;
	int quiet, fmt, seed_seen;
	unsigned bits;
	int calls;
};

/* --key: refuses a value without '=', counts the others. */
static int key(void *dest, const char *val, char *err, size_t len)
{
	struct vals *v = dest;

	if (!strchr(val, '=')) {
		snprintf(err, len, "--key: expected K=V, got '%s'", val);
		return -1;
	}
	v->calls++;
	return 0;
}

struct run {
	struct vals v;
	char err[512];
	char **pos;
	int npos, rc;
};

/* Parse the argc words of av by the table on mode into r. */
static void parse(uint8_t mode, int argc, char **av, struct run *r)
{
	struct vals *v = &r->v;
	const struct cli_arg flags[] = {
		CLI_STRING("name", 0, &v->name),
		CLI_STRING("output", 'o', &v->out),
		CLI_U64("count", 'n', &v->count, 1, 10),
		{ .name = "seed", .letter = 's', .kind = CLI_ARG_U64,
		  .dest = &v->seed, .max = UINT64_MAX, .seen = &v->seed_seen },
		CLI_DOUBLE("rate", 0, &v->rate, -1, 1),
		CLI_BOOL("quiet", 'q', &v->quiet),
		CLI_SET("json", 'j', &v->fmt, 2),
		CLI_BITS("follow", 0, &v->bits, 4),
		CLI_BITS("sync", 0, &v->bits, 1),
		CLI_CALL("key", 'k', v, key),
		{ .name = "top", .letter = 't', .kind = CLI_ARG_U64,
		  .dest = &v->count, .max = 5, .refused = 1 },
		{ .name = "all", .kind = CLI_ARG_SET, .dest = &v->quiet,
		  .set = 1, .refused = 1 },
		CLI_END,
	};
	int lo = (mode >> 1) & 3;
	const struct cli_args a = { "fuzz", flags, lo, lo + 2, "want",
				    mode & 1 };

	memset(r, 0, sizeof *r);
	v->count = 3;
	v->rate = 0.5;
	r->rc = cli_args_parse(&a, argc, av, &r->pos, &r->npos, r->err,
			       sizeof r->err);
}

/* Whether p is one of the argc words of av. */
static int is_word(const char *p, char *const *av, int argc)
{
	for (int i = 0; i < argc; i++)
		if (p >= av[i] && p <= av[i] + strlen(av[i]))
			return 1;
	return 0;
}

/* The checks on one parse of words w (argc of them, av the pointers). */
static void check(uint8_t mode, const struct run *r, char *const *av,
		  int argc)
{
	const struct vals *v = &r->v;
	int lo = (mode >> 1) & 3;

	if (r->rc) {
		if (r->rc != LG_EINVAL || !r->err[0] ||
		    !memchr(r->err, 0, sizeof r->err))
			abort();
		return;
	}
	if (r->npos < lo || r->npos > lo + 2)
		abort();
	for (int i = 0; i < r->npos; i++)
		if (!is_word(r->pos[i], av, argc))
			abort();
	if ((v->name && !is_word(v->name, av, argc)) ||
	    (v->out && !is_word(v->out, av, argc)))
		abort();
	if (v->count < 1 || v->count > 10 || !isfinite(v->rate) ||
	    v->rate < -1 || v->rate > 1 || (v->bits & ~5u) ||
	    (v->quiet != 0 && v->quiet != 1) || (v->fmt != 0 && v->fmt != 2) ||
	    (!v->seed_seen && v->seed))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf[2] = { NULL, NULL }, *av[2][WORDS_MAX + 2];
	struct run r[2];
	int argc = 1;

	if (size < 1)
		return 0;
	for (int k = 0; k < 2; k++) {
		/* the words, each NUL-terminated, after "fuzz" */
		if (!(buf[k] = malloc(size + 5)))
			abort();
		memcpy(buf[k], "fuzz", 5);
		memcpy(buf[k] + 5, data + 1, size - 1);
		buf[k][size + 4] = 0;
		argc = 1;
		av[k][0] = buf[k];
		for (size_t i = 5; i < size + 4 && argc <= WORDS_MAX; i++)
			if (i == 5 || buf[k][i - 1] == 0)
				av[k][argc++] = buf[k] + i;
		av[k][argc] = NULL;
		parse(data[0], argc, av[k], &r[k]);
		check(data[0], &r[k], av[k], argc);
	}
	/* the same words: the same outcome */
	if (r[0].rc != r[1].rc || strcmp(r[0].err, r[1].err) ||
	    r[0].npos != r[1].npos || r[0].v.count != r[1].v.count ||
	    r[0].v.seed != r[1].v.seed || r[0].v.bits != r[1].v.bits ||
	    r[0].v.calls != r[1].v.calls || r[0].v.fmt != r[1].v.fmt ||
	    memcmp(&r[0].v.rate, &r[1].v.rate, sizeof r[0].v.rate))
		abort();
	for (int i = 0; !r[0].rc && i < r[0].npos; i++)
		if (strcmp(r[0].pos[i], r[1].pos[i]))
			abort();
	free(buf[0]);
	free(buf[1]);
	return 0;
}
