/* tests/fuzz/fuzz_payoff.c: libFuzzer harness for the stored payoff
 * records (STORE_DB_PAYOFF pairs, STORE_DB_RATINGS), decoded by
 * payoff_entry_decode and loaded by payoff_load when the brain opens a
 * league or `league payoff DIR` reads one. The records go into a scratch
 * store (scratch.h) and payoff_load reads them into a table of four
 * agents, 0 and 1 tracked as learners are.
 *
 * Input: records, each a selector byte (bit 0: ratings, else payoff), a
 * key length byte (low 4 bits; 0 is taken as 1), a value length byte (low
 * 6 bits), the key, the value; a record cut short by the end of the input
 * is dropped.
 *
 * Checked: 0 or LG_ECORRUPT; whatever got loaded gives win rates in
 * [0, 1] that the tracked rows agree with, a finite online Elo and Elo
 * fit, and a meta-Nash of the win-rate game whose mixtures are
 * distributions. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "payoff/payoff.h"
#include "tests/fuzz/scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define AGENTS 4

static int distribution(const double *x, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(x[i] >= -1e-9 && x[i] <= 1 + 1e-9))
			return 0;
		sum += x[i];
	}
	return fabs(sum - 1) < 1e-6;
}

static void check_table(const payoff *p)
{
	double A[AGENTS * AGENTS], x[AGENTS], y[AGENTS];
	uint32_t ids[AGENTS];

	for (uint32_t a = 0; a < AGENTS; a++) {
		const double *row = payoff_row(p, a);
		ids[a] = a;
		if (!isfinite(payoff_elo(p, a)) ||
		    !isfinite(payoff_elo_games(p, a)))
			abort();
		for (uint32_t b = 0; b < AGENTS; b++) {
			double w = payoff_win_rate(p, a, b);
			if (!(w >= 0 && w <= 1) || (row && row[b] != w))
				abort();
		}
		if ((a < 2) != (row != NULL))
			abort();
	}
	if (payoff_matrix(p, ids, AGENTS, A, NULL))
		abort();
	if (payoff_elo_fit(p, ids, AGENTS, 1.0, x))
		abort();
	for (size_t i = 0; i < AGENTS; i++)
		if (!isfinite(x[i]))
			abort();
	for (size_t i = 0; i < AGENTS * AGENTS; i++)
		A[i] = 2 * A[i] - 1;
	if (payoff_nash(A, AGENTS, AGENTS, x, y, NULL, NULL) ||
	    !distribution(x, AGENTS) || !distribution(y, AGENTS))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size;
	payoff *p = NULL;
	store_txn *t = scratch_txn();
	int rc;

	while (end - data >= 3) {
		enum store_db db = data[0] & 1 ? STORE_DB_RATINGS
					       : STORE_DB_PAYOFF;
		size_t klen = data[1] & 15, vlen = data[2] & 63;
		if (!klen)
			klen = 1;
		data += 3;
		if ((size_t)(end - data) < klen + vlen)
			break;
		if (store_put(t, db, data, klen, data + klen, vlen))
			abort();
		data += klen + vlen;
	}
	if (payoff_new(&p, NULL))
		abort();
	for (uint32_t a = 0; a < AGENTS; a++)
		if (payoff_add(p, a) || (a < 2 && payoff_track(p, a)))
			abort();
	rc = payoff_load(p, t);
	if (rc != 0 && rc != LG_ECORRUPT)
		abort();
	check_table(p);
	payoff_free(p);
	store_txn_abort(t);
	return 0;
}
