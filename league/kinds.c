/*
 * league/kinds.c: the job kinds the daemon runs (daemon_internal.h has
 * their interface). Order matters twice: kinds make their jobs in this
 * order on every JobRequest (the league's own first, so the others can
 * spend the credit its jobs paid), and their /status fields come in it.
 * Also what the kinds other than the brain's share: how they fill the
 * seats of a game of any number of players.
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

int daemon_seats(const league_daemon *d)
{
	return d->have_game ? d->spec.players : 2;
}

int daemon_seat_fits(const league_daemon *d, uint32_t player, int seat)
{
	struct brain_player p;

	if (!d->have_game || d->spec.roles < 2 ||
	    brain_player_info(d->br, player, &p))
		return 1;
	return d->spec.seat[seat].role == (int)p.pop;
}

void daemon_seats_fill(const league_daemon *d, struct league_job *j,
		       int subject, const struct league_seat *mine,
		       const struct league_seat *other)
{
	int n = daemon_seats(d);
	int teams = d->have_game && d->spec.teams > 1;

	j->nseats = (uint8_t)n;
	j->subject = (uint8_t)subject;
	for (int s = 0; s < n; s++)
		j->seat[s] = s == subject ||
				     (teams && d->spec.seat[s].team ==
						       d->spec.seat[subject].team)
			? *mine
			: *other;
}
