/* tests/learner_fixture.h: helpers shared by the learner's suites
 * (check_nn, check_conv, check_gru, check_ppo, check_mmd), defined in
 * tests/learner_fixture.c. */
#ifndef LG_TESTS_LEARNER_FIXTURE_H
#define LG_TESTS_LEARNER_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "learner/learner.h"
#include "util/util.h"

/* A dense net's shape: obs inputs, nh hidden layers of widths h, actions
 * outputs, activation act (no convolutions, no recurrent core). */
struct nn_shape shape3(uint32_t obs, uint32_t actions, int act,
		       uint32_t nh, const uint32_t *h);

/* ---- double-precision reference of the loss --------------------------- */

struct refbatch {
	size_t n;
	float *obs, *logp, *value, *adv, *ret;
	float *mlogp; /* magnet log-probs, n x actions */
	float *visits; /* search visit shares, n x actions */
	int use_visits; /* ref_loss adds the policy term */
	uint8_t *mask;
	int32_t *action;
};

/* The PPO loss of learner/ppo.c, written out naively in double, at the
 * parameters p (the net supplies only its shape and tensor layout). */
double ref_loss(const nn *net, const double *p, const struct ppo_opts *o,
		const struct refbatch *b);
void refbatch_free(struct refbatch *b);
/* n rows for net from seed (see refbatch_make in learner_fixture.c). */
void refbatch_make(struct refbatch *b, const nn *net, size_t n,
		   uint64_t seed);

/* Switches for grad_check_shape, set and cleared by gradcheck_wino and
 * gradcheck_search (learner_fixture.c says what each does). */
extern int wino_force;
extern int search_force;

/* The gradient of a trainer of shape sp (seeded with seed, magnet_coef
 * magnet) on a refbatch against central differences of ref_loss, tensor
 * by tensor; both_branches: the batch must have rows clipped and not. */
void grad_check_shape(const struct nn_shape *sp, uint64_t seed,
		      double magnet, int both_branches);
/* grad_check_shape on an MLP of 5 inputs, hidden 6 and 5, 4 actions. */
void grad_check(int act, uint64_t seed, double magnet);

/* ---- PPO on a fixed batch ------------------------------------------ */

struct fixed {
	struct lg_rows b;
	float *obs, *logp, *value, *reward;
	uint8_t *mask, *done;
	int32_t *action;
};

/* n rows played by net (seeded by seed), done every 8th, reward +1 for
 * an even action at an episode's end, -1 for an odd one; f->b holds
 * them. */
void fixed_make(struct fixed *f, const nn *net, size_t n, uint64_t seed);
void fixed_free(struct fixed *f);

/* n standard normal floats from r. */
void fill_normal(float *v, size_t n, lg_rng *r);

/* ---- gradients against central differences ----------------------------- */

/* For every step-th of the n entries of v: L at v[i] + eps and at
 * v[i] - eps, by loss(arg) (v[i] restored after), against the analytic
 * grad[i]; fails the test unless |num - grad[i]| <= rel |num| + abs,
 * naming the entry "what[i]" ("dW[3]", "case 2 dx[17]"). */
void grad_vs_differences(float *v, size_t n, size_t step, const float *grad,
			 float eps, double rel, double abs,
			 double (*loss)(void *), void *arg, const char *what);

/* ---- a convolution's buffers ---------------------------------------------- */

/* What a conv2d's forward and backward read and write for a batch of n:
 * kernel W (cout x cin x k x k) and bias b, input x and its gradient dx
 * (n x cin x h x w), output y and its gradient g (n x cout x oh x ow),
 * the accumulated dW and db (zeroed) and the scratch sc. */
struct conv_bufs {
	const struct conv2d *c;
	size_t n, nw, nx, ny;
	float *W, *b, *x, *y, *g, *dx, *dW, *db, *sc;
};
#define CONV_FILL_B 1 /* b from r (after W, before x) */
#define CONV_FILL_G 2 /* g from r (after x) */
/* Allocate B's buffers for c and n, and fill W, then b (CONV_FILL_B),
 * x, then g (CONV_FILL_G) with standard normals from r, in that order. */
void conv_bufs_open(struct conv_bufs *B, const struct conv2d *c, size_t n,
		    lg_rng *r, int fill);
void conv_bufs_close(struct conv_bufs *B);
/* L = sum(y * g) of B's forward pass (y overwritten): the loss whose
 * gradient is conv2d_backward's with dy = g. Its arg is B. */
double conv_bufs_loss(void *B);

#endif
