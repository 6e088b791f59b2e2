/*
 * league/kinds.c: the job kinds the daemon runs (daemon_internal.h has
 * their interface). Order matters twice: kinds make their jobs in this
 * order on every JobRequest (the league's own first, so the others can
 * spend the credit its jobs paid), and their /status fields come in it.
 */
#include "league/daemon_internal.h"

static const struct league_kind *const kinds[] = {
	&league_kind_crossplay, /* PSRO's meta-strategy waits for its games */
	&league_kind_league,
	&league_kind_baseline_eval,
	&league_kind_baseline_train,
	&league_kind_probe,
};

const struct league_kind *const *league_kinds(size_t *n)
{
	*n = LG_ARRAY_LEN(kinds);
	return kinds;
}
