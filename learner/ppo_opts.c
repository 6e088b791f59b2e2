/*
 * learner/ppo_opts.c: PPO's options: the defaults (conf/options.c maps
 * the config onto them; tests/check_config.c ties the two) and the check
 * ppo_new applies, with the caps learner.h exports for the config.
 */
#include "learner/learner.h"

#include <string.h>

void ppo_opts_default(struct ppo_opts *o)
{
	memset(o, 0, sizeof *o);
	o->lr = 3e-4;
	o->lr_schedule = PPO_LR_CONSTANT;
	o->lr_final_frac = 0.1;
	o->gamma = 0.99;
	o->gae_lambda = 0.95;
	o->clip = 0.2;
	o->value_clip = 0;
	o->vf_coef = 0.5;
	o->ent_coef = 0.01;
	o->ent_final_frac = 1;
	o->pg_coef = 1;
	o->policy_coef = 1;
	o->magnet_coef = 0;
	o->magnet_every = 10;
	o->mmd_alpha = 0.1;
	o->epochs = 4;
	o->minibatch = 256;
	o->batch_max = 1u << 26;
	o->max_grad_norm = 0.5;
	o->adam_beta1 = 0.9;
	o->adam_beta2 = 0.999;
	o->adam_eps = 1e-8;
	o->norm_adv = 1;
	o->seq_len = 16;
	o->threads = 0;
}

int ppo_opts_check(const struct ppo_opts *o, char *err, size_t errlen)
{
#define BAD(...)                                                               \
	do {                                                                   \
		lg_errf(err, errlen, __VA_ARGS__);                             \
		return LG_EINVAL;                                              \
	} while (0)
	if (!(o->lr >= 0 && o->lr <= 1))
		BAD("lr %g not in [0, 1]", o->lr);
	if (o->lr_schedule != PPO_LR_CONSTANT &&
	    o->lr_schedule != PPO_LR_LINEAR)
		BAD("unknown lr schedule %d", o->lr_schedule);
	if (!(o->lr_final_frac >= 0 && o->lr_final_frac <= 1))
		BAD("lr_final_frac %g not in [0, 1]", o->lr_final_frac);
	if (!(o->gamma >= 0 && o->gamma <= 1))
		BAD("gamma %g not in [0, 1]", o->gamma);
	if (!(o->gae_lambda >= 0 && o->gae_lambda <= 1))
		BAD("gae_lambda %g not in [0, 1]", o->gae_lambda);
	if (!(o->clip >= 0 && o->clip <= 10))
		BAD("clip %g not in [0, 10]", o->clip);
	if (!(o->value_clip >= 0 && o->value_clip <= 1e6))
		BAD("value_clip %g not in [0, 1e6]", o->value_clip);
	if (!(o->vf_coef >= 0 && o->vf_coef <= 1e3))
		BAD("vf_coef %g not in [0, 1e3]", o->vf_coef);
	if (!(o->ent_coef >= 0 && o->ent_coef <= 10))
		BAD("ent_coef %g not in [0, 10]", o->ent_coef);
	if (!(o->ent_final_frac >= 0 && o->ent_final_frac <= 1))
		BAD("ent_final_frac %g not in [0, 1]", o->ent_final_frac);
	if (!(o->pg_coef >= 0 && o->pg_coef <= 10))
		BAD("pg_coef %g not in [0, 10]", o->pg_coef);
	if (!(o->policy_coef >= 0 && o->policy_coef <= 1e4))
		BAD("policy_coef %g not in [0, 1e4]", o->policy_coef);
	if (!(o->magnet_coef >= 0 && o->magnet_coef <= 10))
		BAD("magnet_coef %g not in [0, 10]", o->magnet_coef);
	if (!(o->state_weight == 0 ||
	      (o->state_weight >= 1 && o->state_weight <= 1e6)))
		BAD("state_weight %g not 0 or in [1, 1e6]", o->state_weight);
	if (!(o->mmd_eta >= 0 && o->mmd_eta <= 100))
		BAD("mmd_eta %g not in [0, 100]", o->mmd_eta);
	if (!(o->mmd_alpha >= 0 && o->mmd_alpha <= 100))
		BAD("mmd_alpha %g not in [0, 100]", o->mmd_alpha);
	if (!(o->mmd_clip >= 0 && o->mmd_clip <= 1e6))
		BAD("mmd_clip %g not in [0, 1e6]", o->mmd_clip);
	if (o->mmd_eta > 0 && !(o->policy_coef > 0))
		BAD("mmd_eta needs policy_coef > 0 (the weight of its "
		    "cross-entropy; the surrogate is off)");
	if (o->magnet_coef > 0 &&
	    !(o->magnet_every >= 1 && o->magnet_every <= PPO_MAGNET_EVERY_MAX))
		BAD("magnet_every %llu not in [1, %u]",
		    (unsigned long long)o->magnet_every, PPO_MAGNET_EVERY_MAX);
	if (o->epochs < 1 || o->epochs > PPO_EPOCHS_MAX)
		BAD("epochs %llu not in [1, %u]",
		    (unsigned long long)o->epochs, PPO_EPOCHS_MAX);
	if (o->minibatch < 1 || o->minibatch > PPO_MINIBATCH_MAX)
		BAD("minibatch %llu not in [1, 2^24]",
		    (unsigned long long)o->minibatch);
	if (o->batch_max < 1 || o->batch_max > PPO_BATCH_MAX)
		BAD("batch_max %llu not in [1, 2^26]",
		    (unsigned long long)o->batch_max);
	if (!(o->max_grad_norm >= 0 && o->max_grad_norm <= 1e6))
		BAD("max_grad_norm %g not in [0, 1e6]", o->max_grad_norm);
	if (!(o->adam_beta1 >= 0 && o->adam_beta1 < 1) ||
	    !(o->adam_beta2 >= 0 && o->adam_beta2 < 1))
		BAD("Adam betas must be in [0, 1)");
	if (!(o->adam_eps >= 1e-12 && o->adam_eps <= 1))
		BAD("adam_eps %g not in [1e-12, 1]", o->adam_eps);
	if (o->seq_len < 1 || o->seq_len > PPO_SEQ_MAX)
		BAD("seq_len %llu not in [1, %d]",
		    (unsigned long long)o->seq_len, PPO_SEQ_MAX);
	if (o->threads < 0 || o->threads > PPO_THREADS_MAX)
		BAD("threads %d not in [0, %d]", o->threads, PPO_THREADS_MAX);
	return 0;
#undef BAD
}

