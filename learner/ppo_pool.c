/*
 * learner/ppo_pool.c: the trainer's worker threads (ppo.c, "Threads").
 * Workers park between minibatches: a short spin (PPO_SPIN polls, about
 * the serial gap between two minibatches), then a condition variable; a
 * job is a bump of the generation, and the last worker done wakes the
 * caller.
 */
#include "learner/ppo_internal.h"

#include <stdlib.h>

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

struct worker_arg {
	ppo *p;
	int i;
};

static void *worker_main(void *arg)
{
	ppo *p = ((struct worker_arg *)arg)->p;
	int i = ((struct worker_arg *)arg)->i;
	unsigned seen = 0;

	free(arg);
	for (;;) {
		int n = 0;
		while (atomic_load(&p->pool.gen) == seen && n++ < PPO_SPIN)
			cpu_relax();
		if (atomic_load(&p->pool.gen) == seen) {
			pthread_mutex_lock(&p->pool.mu);
			while (atomic_load(&p->pool.gen) == seen)
				pthread_cond_wait(&p->pool.cv, &p->pool.mu);
			pthread_mutex_unlock(&p->pool.mu);
		}
		seen = atomic_load(&p->pool.gen);
		if (atomic_load(&p->pool.quit))
			return NULL;
		if (i < p->pool.active)
			ppo_shard_run(&p->sh[i]);
		if (atomic_fetch_sub(&p->pool.pending, 1) == 1) {
			pthread_mutex_lock(&p->pool.mu);
			pthread_cond_broadcast(&p->pool.cv);
			pthread_mutex_unlock(&p->pool.mu);
		}
	}
}

/* Start nshards - 1 workers; on failure run with those that started. */
int ppo_pool_start(ppo *p)
{
	if (pthread_mutex_init(&p->pool.mu, NULL))
		return LG_ENOMEM;
	if (pthread_cond_init(&p->pool.cv, NULL)) {
		pthread_mutex_destroy(&p->pool.mu);
		return LG_ENOMEM;
	}
	p->pool.init = 1;
	atomic_init(&p->pool.gen, 0);
	atomic_init(&p->pool.pending, 0);
	atomic_init(&p->pool.quit, 0);
	for (int i = 1; i < p->nshards; i++) {
		struct worker_arg *a = malloc(sizeof *a);
		if (!a)
			break;
		a->p = p;
		a->i = i;
		if (pthread_create(&p->pool.th[i], NULL, worker_main, a)) {
			free(a);
			break;
		}
		p->pool.nworkers = i;
	}
	if (p->pool.nworkers + 1 < p->nshards)
		LG_WARN("learner: %d of %d training threads started",
			p->pool.nworkers + 1, p->nshards);
	p->nshards = p->pool.nworkers + 1;
	return 0;
}

void ppo_pool_stop(ppo *p)
{
	if (!p->pool.init)
		return;
	pthread_mutex_lock(&p->pool.mu);
	atomic_store(&p->pool.quit, 1);
	atomic_fetch_add(&p->pool.gen, 1);
	pthread_cond_broadcast(&p->pool.cv);
	pthread_mutex_unlock(&p->pool.mu);
	for (int i = 1; i <= p->pool.nworkers; i++)
		pthread_join(p->pool.th[i], NULL);
	pthread_cond_destroy(&p->pool.cv);
	pthread_mutex_destroy(&p->pool.mu);
	p->pool.init = 0;
	p->pool.nworkers = 0;
}

/* Run shards 0..k-1: 0 here, the rest on the workers; wait for all. */
void ppo_pool_run(ppo *p, int k)
{
	int n = 0;

	if (k <= 1 || !p->pool.nworkers) {
		for (int i = 0; i < k; i++)
			ppo_shard_run(&p->sh[i]);
		return;
	}
	p->pool.active = k;
	atomic_store(&p->pool.pending, p->pool.nworkers);
	pthread_mutex_lock(&p->pool.mu);
	atomic_fetch_add(&p->pool.gen, 1);
	pthread_cond_broadcast(&p->pool.cv);
	pthread_mutex_unlock(&p->pool.mu);
	ppo_shard_run(&p->sh[0]);
	while (atomic_load(&p->pool.pending) && n++ < PPO_SPIN)
		cpu_relax();
	if (atomic_load(&p->pool.pending)) {
		pthread_mutex_lock(&p->pool.mu);
		while (atomic_load(&p->pool.pending))
			pthread_cond_wait(&p->pool.cv, &p->pool.mu);
		pthread_mutex_unlock(&p->pool.mu);
	}
}
