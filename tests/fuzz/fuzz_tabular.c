/* tests/fuzz/fuzz_tabular.c: libFuzzer harness for tabular policy files
 * (env_tabular_load; `league eval nashconv --policy FILE`), a text format
 * a user hands in. The loader reads a path, so each input is written to
 * one file in a directory of its own under $TMPDIR, removed at exit.
 *
 * Input: one byte for the action count (1 + low 4 bits, 1..16 =
 * ENV_MAX_ACTIONS), then the file.
 *
 * Checked: 0, LG_EINVAL (with a message naming the file), LG_EFULL or
 * LG_ENOMEM; a table that loads answers for the infostate the file
 * starts with a distribution over the actions, or says why not. */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "envs/env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[512], path[600];
static int fd = -1;

static void remove_file(void)
{
	close(fd);
	unlink(path);
	rmdir(dir);
}

/* The input file, made on the first call and kept open: an open with
 * O_TRUNC and a close per input made ext4 flush the file each time
 * (1,600 inputs/s instead of 49,000 on the machine of docs/fuzzing.md). */
static const char *file_path(void)
{
	const char *tmp = getenv("TMPDIR");

	if (fd >= 0)
		return path;
	snprintf(dir, sizeof dir, "%s/league-fuzz-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		exit(2);
	}
	snprintf(path, sizeof path, "%s/policy.txt", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	atexit(remove_file);
	return path;
}

static void write_file(const uint8_t *data, size_t size)
{
	if ((size && pwrite(fd, data, size, 0) != (ssize_t)size) ||
	    ftruncate(fd, (off_t)size)) {
		perror(path);
		exit(2);
	}
}

/* Ask t for the first blank-separated token of the file. */
static void ask(env_tabular *t, const uint8_t *data, size_t size, int A)
{
	struct env_policy pol = env_tabular_policy(t);
	char key[256], err[256] = ""; /* longer keys never load */
	uint8_t mask[ENV_MAX_ACTIONS];
	double probs[ENV_MAX_ACTIONS], sum = 0;
	size_t i = 0, n = 0;
	int rc;

	while (i < size && (data[i] == ' ' || data[i] == '\t'))
		i++;
	while (i < size && n < sizeof key - 1 && data[i] && data[i] != ' ' &&
	       data[i] != '\t' && data[i] != '\r' && data[i] != '\n')
		key[n++] = (char)data[i++];
	key[n] = 0;
	memset(mask, 1, sizeof mask);
	rc = pol.fn(pol.ctx, 0, key, NULL, mask, A, probs, err, sizeof err);
	if (rc) {
		if (!err[0])
			abort();
		return;
	}
	for (int a = 0; a < A; a++) {
		if (!(probs[a] >= 0 && probs[a] <= 1))
			abort();
		sum += probs[a];
	}
	if (fabs(sum - 1) > 1e-6)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = file_path();
	env_tabular *t = NULL;
	char err[512] = "";
	int A, rc;

	if (size < 1)
		return 0;
	A = 1 + (data[0] & 15);
	write_file(data + 1, size - 1);
	rc = env_tabular_load(&t, p, A, err, sizeof err);
	if (rc != 0 && rc != LG_EINVAL && rc != LG_EFULL && rc != LG_ENOMEM)
		abort();
	if (rc && (t || strncmp(err, p, strlen(p))))
		abort(); /* every rejection names the file */
	if (!rc) {
		ask(t, data + 1, size - 1, A);
		env_tabular_free(t);
	}
	return 0;
}
