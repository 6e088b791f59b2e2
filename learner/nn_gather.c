/*
 * learner/nn_gather.c: a gathered head's arithmetic (nn_gathered, a net
 * of more than NN_DENSE_ACTIONS actions): the logits of a legal list
 * from the head's rows, a mask as a list, the softmax over a list.
 * Inference (nn.c) and the PPO update (ppo_list.c) share it, so a row's
 * behaviour log-probability and the update's agree.
 */
#include "learner/learner_internal.h"

#include <math.h>
#include <string.h>

float nn_dot(const float *w, const float *x, size_t in)
{
	float acc[8] = { 0 }, sum = 0;
	size_t j = 0;

	/* eight partial sums: a float reduction vectorises only so
	 * (without -ffast-math), and rows of a few hundred floats cost less
	 * so than a BLAS call each */
	for (; j + 8 <= in; j += 8)
		for (int q = 0; q < 8; q++)
			acc[q] += w[j + q] * x[j + q];
	for (; j < in; j++)
		acc[0] += w[j] * x[j];
	for (int q = 0; q < 8; q++)
		sum += acc[q];
	return sum;
}

void nn_head_gather(const nn *n, const float *x, const uint16_t *ids,
		    size_t L, float *z, float *value)
{
	int l = n->nlayers - 1;
	size_t in = n->dims[l], A = n->s.actions;
	const float *W = n->p + n->t[2 * l].offset;
	const float *b = n->p + n->t[2 * l + 1].offset;

	for (size_t k = 0; k < L; k++)
		z[k] = b[ids[k]] + nn_dot(W + (size_t)ids[k] * in, x, in);
	if (value)
		*value = b[A] + nn_dot(W + A * in, x, in);
}

size_t nn_mask_list(const uint8_t *mask, size_t A, uint16_t *ids)
{
	size_t k = 0, a = 0;

	/* masks of many actions are mostly 0: skip them 8 bytes at once */
	for (; a + 8 <= A; a += 8) {
		uint64_t w;
		memcpy(&w, mask + a, sizeof w);
		if (!w)
			continue;
		for (size_t j = 0; j < 8; j++)
			if (mask[a + j])
				ids[k++] = (uint16_t)(a + j);
	}
	for (; a < A; a++)
		if (mask[a])
			ids[k++] = (uint16_t)a;
	return k;
}

int nn_list_softmax(const float *z, size_t L, float *logp, float *p)
{
	float mx = -INFINITY, lse;
	double sum = 0;

	if (!L)
		return 0;
	for (size_t k = 0; k < L; k++)
		if (z[k] > mx)
			mx = z[k];
	for (size_t k = 0; k < L; k++)
		sum += exp((double)(z[k] - mx));
	lse = mx + (float)log(sum);
	for (size_t k = 0; k < L; k++) {
		logp[k] = z[k] - lse;
		p[k] = expf(logp[k]);
	}
	return (int)L;
}

