/* tests/fuzz/trainer.h: the trainer fuzz_trainer loads states into and
 * seeds.c saves them from: a tiny MLP (obs 4, actions 3, hidden 5), with
 * or without a magnet. Shared so the seeds fit the harness's net. */
#ifndef FUZZ_TRAINER_H
#define FUZZ_TRAINER_H

#include <stdlib.h>

#include "learner/learner.h"

static inline ppo *fuzz_trainer(int magnet)
{
	struct nn_shape s = { .obs = 4, .actions = 3, .nhidden = 1,
			      .hidden = { 5 }, .act = NN_TANH };
	struct ppo_opts o;
	char err[256];
	ppo *p = NULL;

	ppo_opts_default(&o);
	o.minibatch = 8;
	o.magnet_coef = magnet ? 0.1 : 0;
	if (ppo_new(&p, NULL, &s, &o, 3, err, sizeof err))
		abort();
	return p;
}

#endif
