/*
 * learner/vmath.c: elementwise transcendental loops, built so that the
 * vectoriser may call glibc's vector math library (libmvec) for them.
 *
 * glibc declares the vector variants of tanhf and friends only under
 * __FAST_MATH__, so this file alone is compiled with -ffast-math (the
 * Makefile). Nothing here but the loops: the only licence the flag takes
 * is to replace a scalar call by the vector one, which libmvec documents
 * within 4 ulp (measured here: a relative error of at most 6.3e-8 on
 * [-12, 12], against 1.6e-7 for the scalar tanhf) and which handles NaN,
 * infinities and large arguments itself (tests/check_learner.c,
 * vector_tanh). A compiler without libmvec (clang's fuzz builds) keeps
 * the scalar call: the same function, slower.
 *
 * Why: the scalar tanhf costs about 23 ns an element on this machine,
 * the four-wide one about 2.4 ns; a Leduc net's update (32-128-4, tanh)
 * spent 45% of its time in tanhf before (docs/benchmarks.md, "tanh").
 */
#include "learner/learner_internal.h"

#include <math.h>

void nn_tanh_inplace(float *y, size_t len)
{
	for (size_t i = 0; i < len; i++)
		y[i] = tanhf(y[i]);
}

/* The exponential of the recurrent core's gates (gru.c), through
 * libmvec the same way (_ZGVbN4v_expf). The sigmoid's division stays in
 * gru.c: under -ffast-math GCC divides by a reciprocal estimate and a
 * Newton step, which is not exact and turns 1 / (1 + inf) into NaN. */
void nn_expneg_inplace(float *y, size_t len)
{
	for (size_t i = 0; i < len; i++)
		y[i] = expf(-y[i]);
}
