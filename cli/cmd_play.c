/*
 * cli/cmd_play.c: `league play A B [C ...] [--games N] [--json]`, one
 * side per seat of a game: agent files (`league export`), the built-in
 * baselines (random, minimax, alphabeta:N) or a human at the terminal.
 * Seats rotate from game to game (side i sits in seat (i + g) mod n in
 * game g, so A moves first in the odd-numbered games of two); an agent
 * plays its network's most probable legal move (--sample: a sample of
 * its probabilities). The game comes from the agent files (all of one
 * game and its options; a plugin or remote game with the --plugin or
 * --remote the user names, eval/agent.h) or --game, --plugin, --remote.
 *
 * A human sees the state as the game describes it to that seat (its
 * describe() hook: cards, pot, bets), else the board (board games: their
 * planes drawn from the human's side, `X` the human's stones) or the
 * observation; the legal moves by name (action_name(), else number); and
 * types one, by name or number. Anything else is refused with the reason
 * and asked again. The end of input ends the match (exit 1).
 */
#include "cli/cli.h"
#include "eval/agent.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum side_kind { SIDE_AGENT, SIDE_BASELINE, SIDE_HUMAN };

struct side {
	const char *arg;
	enum side_kind kind;
	struct league_agent *agent;
	nn_ws *ws;
	env_baseline *b;
};

#define PLAY_SIDES_MAX ENV_MAX_PLAYERS

struct pargs {
	const char *side[PLAY_SIDES_MAX], *game, *plugin, *remote;
	struct env_params params;
	int n;
	unsigned long long games, seed;
	int json, sample;
};

/* ---- the human ---------------------------------------------------------- */

/* Board games (an observation of planes own/opponent/...): the board as
 * the human sees it. Connect Four's row 0 is the bottom row. Else the
 * observation's numbers. */
static void render(const env *e, int p, FILE *out)
{
	const struct env_spec *sp = env_spec_of(e);
	float obs[4096];
	uint8_t mask[ENV_MAX_ACTIONS];
	char text[ENV_TEXT_MAX];

	if (!env_describe(e, p, text, sizeof text)) {
		for (char *l = text, *nl; *l; l = nl) {
			nl = l + strcspn(l, "\n");
			fprintf(out, "  %.*s\n", (int)(nl - l), l);
			nl += *nl == '\n';
		}
		return;
	}
	if (sp->obs_len > LG_ARRAY_LEN(obs) ||
	    sp->num_actions > ENV_MAX_ACTIONS || env_observe(e, p, obs))
		return;
	env_legal(e, p, mask);
	if (sp->obs_rank == 3 && sp->obs_shape[0] >= 2) {
		uint32_t H = sp->obs_shape[1], W = sp->obs_shape[2];
		int up = !strcmp(sp->name, "connect4");
		int cells = sp->num_actions == (int)(H * W);
		for (uint32_t r = 0; r < H; r++) {
			uint32_t row = up ? H - 1 - r : r;
			fputs("  ", out);
			for (uint32_t c = 0; c < W; c++) {
				size_t i = (size_t)row * W + c;
				int ch = obs[i] > 0.5f ? 'X'
					 : obs[(size_t)H * W + i] > 0.5f ? 'O'
									: '.';
				fprintf(out, " %c", ch);
			}
			if (cells) { /* the cells' numbers beside the board */
				fputs("     ", out);
				for (uint32_t c = 0; c < W; c++) {
					size_t i = (size_t)row * W + c;
					if (mask[i])
						fprintf(out, " %zu", i);
					else
						fputs(" .", out);
				}
			}
			fputc('\n', out);
		}
		if (sp->num_actions == (int)W) { /* columns */
			fputs("  ", out);
			for (uint32_t c = 0; c < W; c++)
				fprintf(out, " %u", c);
			fputc('\n', out);
		}
		return;
	}
	fputs("  observation:", out);
	for (size_t i = 0; i < sp->obs_len && i < 64; i++)
		fprintf(out, " %g", (double)obs[i]);
	fputc('\n', out);
}

/* The legal moves of seat p, by name, on one line. */
static void list_moves(const env *e, int p, const uint8_t *mask)
{
	char name[ENV_ACTION_NAME_MAX];

	printf("legal moves:");
	for (int a = 0; a < env_spec_of(e)->seat[p].num_actions; a++)
		if (mask[a]) {
			env_action_name(e, p, a, name, sizeof name);
			printf(" %s", name);
		}
}

/* The human's move: asked until it is a legal one, by name or number.
 * LG_EIO at the end of input. */
static int human_act(const env *e, int p, int *action)
{
	const struct env_spec *sp = env_spec_of(e);
	int na = sp->seat[p].num_actions;
	uint8_t *mask = malloc((size_t)na);
	char line[128];
	int rc = LG_EIO;

	if (!mask)
		return LG_ENOMEM;
	if (sp->flags & ENV_F_TEXT)
		printf("\nYou are seat %d (%s).\n", p,
		       sp->role_name[sp->seat[p].role]);
	else
		printf("\nYou are X (seat %d). The board:\n", p);
	render(e, p, stdout);
	env_legal(e, p, mask);
	for (;;) {
		list_moves(e, p, mask);
		printf("\nyour move> ");
		fflush(stdout);
		if (!fgets(line, sizeof line, stdin))
			break;
		line[strcspn(line, "\r\n")] = 0;
		if (!env_action_parse(e, p, line, action)) {
			rc = 0;
			break;
		}
		if (!line[0] || strspn(line, "0123456789") != strlen(line))
			printf("'%s' is not a move: type one of the legal "
			       "moves%s\n", line,
			       sp->flags & ENV_F_TEXT ? "" : "' numbers");
		else if (strlen(line) > 6 || atoi(line) >= na)
			printf("%s is not a move: moves are 0 to %d\n", line,
			       na - 1);
		else
			printf("%s is not legal here (%s)\n", line,
			       !strcmp(sp->name, "connect4")
				       ? "the column is full"
			       : !strcmp(sp->name, "tictactoe")
				       ? "the cell is taken"
				       : "not among the legal moves");
	}
	free(mask);
	return rc;
}

/* ---- the sides ------------------------------------------------------------ */

/* Side arg: a human, a baseline or an agent file, whose plugin or
 * remote game opens only with the plugin or address in `with`. */
static int side_open(struct side *s, const char *arg,
		     const struct league_agent_with *with, char *err,
		     size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->arg = arg;
	if (!strcmp(arg, "human")) {
		s->kind = SIDE_HUMAN;
		return 0;
	}
	if (!strcmp(arg, "random") || !strcmp(arg, "minimax") ||
	    !strncmp(arg, "alphabeta", 9)) {
		s->kind = SIDE_BASELINE;
		return 0;
	}
	s->kind = SIDE_AGENT;
	if (!(s->agent = calloc(1, sizeof *s->agent))) {
		lg_errf(err, errlen, "%s: out of memory", arg);
		return LG_ENOMEM;
	}
	return league_agent_load(s->agent, arg, with, err, errlen);
}

/* Baselines and workspaces for game e. */
static int side_bind(struct side *s, const env *e, char *err, size_t errlen)
{
	if (s->kind == SIDE_BASELINE)
		return env_baseline_new(&s->b, s->arg, e, err, errlen);
	if (s->kind == SIDE_AGENT)
		return nn_ws_new(&s->ws, s->agent->net, 1);
	return 0;
}

static void side_free(struct side *s)
{
	if (s->agent) {
		league_agent_free(s->agent);
		free(s->agent);
	}
	nn_ws_free(s->ws);
	env_baseline_free(s->b);
}

static int side_act(struct side *s, const env *e, int p, int sample,
		    lg_rng *rng, int *action)
{
	switch (s->kind) {
	case SIDE_HUMAN: return human_act(e, p, action);
	case SIDE_BASELINE: return env_baseline_act(s->b, e, p, rng, action);
	default:
		return cli_policy_act(s->agent->net, s->ws, e, p, sample, rng,
				      action);
	}
}

/* The game every side plays: the agents' (one game, the same options)
 * or --game, with one side per seat. CLI_OK with *e open, else the
 * reason on stderr. */
static int open_game(const struct pargs *a, struct side *sd, env **e)
{
	const struct league_agent *ag = NULL;
	const char *first = NULL;
	struct env_opts eo;
	char err[512];

	for (int i = 0; i < a->n; i++) {
		const struct league_agent *x = sd[i].agent;
		if (!x)
			continue;
		if (ag && (strcmp(ag->spec.name, x->spec.name) ||
			   ag->spec.obs_len != x->spec.obs_len ||
			   ag->spec.num_actions != x->spec.num_actions ||
			   memcmp(&ag->cfg.env, &x->cfg.env,
				  sizeof ag->cfg.env))) {
			fprintf(stderr, "league play: %s and %s are agents of "
				"different games (%s, %s) or game options\n",
				first, sd[i].arg, ag->spec.name,
				x->spec.name);
			return CLI_USAGE;
		}
		if (!ag)
			first = sd[i].arg;
		ag = x;
	}
	if (!ag && !a->game && !a->plugin && !a->remote) {
		fprintf(stderr, "league play: no agent file names the game: "
			"pass --game NAME, --plugin PATH or --remote ADDR\n");
		return CLI_USAGE;
	}
	if (a->plugin && a->remote) {
		fprintf(stderr, "league play: a game is either a plugin or "
			"remote: --plugin or --remote, not both\n");
		return CLI_USAGE;
	}
	if (ag && a->game && strcmp(a->game, ag->spec.name)) {
		fprintf(stderr, "league play: --game %s, but the agents play "
			"%s\n", a->game, ag->spec.name);
		return CLI_USAGE;
	}
	if (ag && a->params.n) {
		fprintf(stderr, "league play: --param is for a game no agent "
			"names; the agents play %s with their own options\n",
			ag->spec.name);
		return CLI_USAGE;
	}
	if (ag) {
		league_env_opts(&ag->cfg, &eo);
	} else {
		env_opts_default(&eo);
		eo.params = a->params;
		if ((a->plugin && strlen(a->plugin) >= sizeof eo.plugin) ||
		    (a->remote && strlen(a->remote) >= sizeof eo.remote)) {
			fprintf(stderr, "league play: --%s: longer than %zu "
				"bytes\n", a->plugin ? "plugin" : "remote",
				(a->plugin ? sizeof eo.plugin : sizeof eo.remote)
					- 1);
			return CLI_USAGE;
		}
		if (a->plugin)
			snprintf(eo.plugin, sizeof eo.plugin, "%s", a->plugin);
		if (a->remote)
			snprintf(eo.remote, sizeof eo.remote, "%s", a->remote);
	}
	if (env_new(e, ag ? ag->cfg.env.name : a->game, &eo, err,
		    sizeof err)) {
		fprintf(stderr, "league play: %s\n", err);
		return CLI_USAGE;
	}
	if (env_spec_of(*e)->players != a->n) {
		fprintf(stderr, "league play: %s has %d seats: name a player "
			"for each (%d given)\n", env_spec_of(*e)->name,
			env_spec_of(*e)->players, a->n);
		goto fail;
	}
	for (int i = 0; i < a->n; i++)
		if (side_bind(&sd[i], *e, err, sizeof err)) {
			fprintf(stderr, "league play: %s: %s\n", sd[i].arg,
				err);
			goto fail;
		}
	return CLI_OK;
fail:
	env_free(*e);
	*e = NULL;
	return CLI_USAGE;
}

struct score {
	uint64_t games, draws;
	uint64_t wins[PLAY_SIDES_MAX];    /* the side alone had the most */
	double ret[PLAY_SIDES_MAX];       /* sum of the side's returns */
	double ret2[PLAY_SIDES_MAX];      /* ... and of their squares */
	uint64_t first_games, first_wins; /* of A, moving first (seat 0) */
};

/* The seat of side i in game g of n sides. */
static int seat_of(int i, uint64_t g, int n)
{
	return (int)(((uint64_t)i + g) % (uint64_t)n);
}

/* One game, side i in seat seat_of(i, g, n) (side_at[seat] = i): the
 * returns by seat into ret. */
static int play_one(env *e, struct side *sd, const int *side_at,
		    uint64_t seed, int sample, lg_rng *rng, double *ret)
{
	const struct env_spec *sp = env_spec_of(e);
	int rc;

	if ((rc = env_reset(e, seed)))
		return rc;
	while (!env_is_terminal(e)) {
		int p = env_current_player(e), acts[ENV_MAX_PLAYERS];
		if (p == ENV_SIMULTANEOUS) {
			for (int q = 0; q < sp->players; q++)
				if ((rc = side_act(&sd[side_at[q]], e, q,
						   sample, rng, &acts[q])))
					return rc;
			rc = env_step_joint(e, acts);
		} else {
			if ((rc = side_act(&sd[side_at[p]], e, p, sample, rng,
					   &acts[0])))
				return rc;
			rc = env_step(e, acts[0]);
		}
		if (rc)
			return rc;
	}
	env_returns(e, ret);
	return 0;
}

/* Game g's returns (by seat) into the score by side: the side whose
 * team alone got the best return wins (with teams, every side of that
 * team wins); a best return shared by two teams is a draw. Returns the
 * first winning side (-1: a draw). */
static int score_game(struct score *sc, const struct env_spec *sp, int n,
		      uint64_t g, const double *ret)
{
	int best = -1, shared = 0, first = -1;

	sc->games++;
	for (int i = 0; i < n; i++) {
		double r = ret[seat_of(i, g, n)];
		sc->ret[i] += r;
		sc->ret2[i] += r * r;
	}
	/* the best team: its seats' return (teammates get the same) */
	for (int q = 0; q < sp->players; q++) {
		if (best >= 0 && sp->seat[q].team == sp->seat[best].team)
			continue;
		if (best < 0 || ret[q] > ret[best]) {
			best = q;
			shared = 0;
		} else if (ret[q] == ret[best]) {
			shared = 1;
		}
	}
	if (shared) {
		sc->draws++;
	} else {
		for (int i = n - 1; i >= 0; i--)
			if (sp->seat[seat_of(i, g, n)].team ==
			    sp->seat[best].team) {
				sc->wins[i]++;
				first = i;
			}
	}
	if (seat_of(0, g, n) == 0) {
		sc->first_games++;
		sc->first_wins += first >= 0 &&
				  sp->seat[0].team == sp->seat[best].team;
	}
	return first;
}

/* Side i's mean return and the half-width of its 95% interval (normal
 * approximation, 1.96 standard errors of the sample mean; 0 for one
 * game). */
static double mean_return(const struct score *sc, int i, double *half)
{
	double n = (double)sc->games, m = sc->ret[i] / n;
	double var = n > 1 ? (sc->ret2[i] - n * m * m) / (n - 1) : 0;

	*half = 1.96 * sqrt(var > 0 ? var / n : 0);
	return m;
}

static void print_score(const struct pargs *a, const struct score *sc,
			const struct side *sd, const char *game)
{
	double h;

	if (a->json) {
		printf("{\"games\": %llu, ", (unsigned long long)sc->games);
		for (int i = 0; i < a->n; i++)
			printf("\"wins_%c\": %llu, ", 'a' + i,
			       (unsigned long long)sc->wins[i]);
		printf("\"draws\": %llu, \"game\": \"%s\"",
		       (unsigned long long)sc->draws, game);
		for (int i = 0; i < a->n; i++)
			printf(", \"%c\": \"%s\"", 'a' + i,
			       sd[i].kind == SIDE_AGENT ? "agent" : a->side[i]);
		for (int i = 0; i < a->n; i++) {
			double m = mean_return(sc, i, &h);
			printf(", \"mean_return_%c\": %.6g, "
			       "\"mean_return_ci95_%c\": %.6g", 'a' + i, m,
			       'a' + i, h);
		}
		printf("}\n");
		return;
	}
	if (a->n == 2) {
		double m0 = mean_return(sc, 0, &h), h1, m1 = mean_return(sc, 1,
								       &h1);
		printf("league play: %llu games of %s: A %s wins %llu (%llu of "
		       "%llu moving first; mean return %.4g +- %.2g), B %s "
		       "wins %llu (mean return %.4g +- %.2g), draws %llu\n",
		       (unsigned long long)sc->games, game, a->side[0],
		       (unsigned long long)sc->wins[0],
		       (unsigned long long)sc->first_wins,
		       (unsigned long long)sc->first_games, m0, h, a->side[1],
		       (unsigned long long)sc->wins[1], m1, h1,
		       (unsigned long long)sc->draws);
		return;
	}
	printf("league play: %llu games of %s:", (unsigned long long)sc->games,
	       game);
	for (int i = 0; i < a->n; i++) {
		/* h is set by mean_return before it is printed: not both in
		 * one call's arguments, whose order C leaves open */
		double m = mean_return(sc, i, &h);
		printf("%s %c %s wins %llu (mean return %.4g +- %.2g)",
		       i ? "," : "", 'A' + i, a->side[i],
		       (unsigned long long)sc->wins[i], m, h);
	}
	printf(", draws %llu\n", (unsigned long long)sc->draws);
}

static int parse(int argc, char **argv, struct pargs *a)
{
	const struct cli_arg flags[] = {
		CLI_U64("games", 0, &a->games, 1, 1000000),
		CLI_STRING("game", 0, &a->game),
		CLI_STRING("plugin", 0, &a->plugin),
		CLI_STRING("remote", 0, &a->remote),
		CLI_CALL("param", 0, &a->params, cli_env_param),
		CLI_U64("seed", 0, &a->seed, 0, UINT64_MAX / 2),
		CLI_BOOL("json", 0, &a->json),
		CLI_BOOL("sample", 0, &a->sample),
		CLI_END,
	};
	const struct cli_args args = { "play", flags, 2, PLAY_SIDES_MAX,
				       "expected a player per seat: A B ...",
				       0 };
	char **pos;

	memset(a, 0, sizeof *a);
	a->games = 2;
	a->seed = 1;
	if (cli_args(&args, argc, argv, &pos, &a->n))
		return CLI_USAGE;
	for (int i = 0; i < a->n; i++)
		a->side[i] = pos[i];
	return CLI_OK;
}

/* After a game with a human: the end as the human's seat sees it. */
static void tell_human(const struct pargs *a, const struct side *sd, env *e,
		       uint64_t g, int winner)
{
	for (int i = 0; i < a->n; i++) {
		if (sd[i].kind != SIDE_HUMAN)
			continue;
		int hs = seat_of(i, g, a->n);
		printf("\ngame %llu over, as seat %d sees it:\n",
		       (unsigned long long)g + 1, hs);
		render(e, hs, stdout);
		printf("%s %s\n", winner < 0 ? "nobody" : a->side[winner],
		       winner < 0 ? "won: a draw" : "won");
		return;
	}
}

static int run(int argc, char **argv)
{
	struct pargs a;
	struct side sd[PLAY_SIDES_MAX];
	struct score sc;
	char err[1024] = "";
	env *e = NULL;
	lg_rng rng;
	int rc;

	if ((rc = parse(argc, argv, &a)))
		return rc;
	memset(sd, 0, sizeof sd);
	memset(&sc, 0, sizeof sc);
	const struct league_agent_with with = { a.plugin, a.remote };
	for (int i = 0; i < a.n; i++)
		if ((rc = side_open(&sd[i], a.side[i], &with, err,
				    sizeof err))) {
			fprintf(stderr, "league play: %s\n", err);
			rc = rc == LG_ENOMEM || rc == LG_EIO ? CLI_FAIL
							     : CLI_USAGE;
			goto done;
		}
	if ((rc = open_game(&a, sd, &e)))
		goto done;
	lg_rng_seed(&rng, a.seed);
	for (uint64_t g = 0; g < a.games; g++) {
		int side_at[ENV_MAX_PLAYERS];
		double ret[ENV_MAX_PLAYERS];
		for (int i = 0; i < a.n; i++)
			side_at[seat_of(i, g, a.n)] = i;
		rc = play_one(e, sd, side_at, a.seed + g, a.sample, &rng, ret);
		if (rc == LG_EIO) {
			fprintf(stderr, "league play: the input ended in game "
				"%llu\n", (unsigned long long)g + 1);
			rc = CLI_FAIL;
			goto done;
		}
		if (rc) {
			fprintf(stderr, "league play: game %llu: %s\n",
				(unsigned long long)g + 1, lg_strerror(rc));
			rc = CLI_FAIL;
			goto done;
		}
		tell_human(&a, sd, e, g,
			   score_game(&sc, env_spec_of(e), a.n, g, ret));
	}
	print_score(&a, &sc, sd, env_spec_of(e)->name);
	rc = CLI_OK;
done:
	for (int i = 0; i < PLAY_SIDES_MAX; i++)
		side_free(&sd[i]);
	env_free(e);
	return rc;
}

const struct cli_cmd cli_cmd_play = {
	.name = "play",
	.summary = "play agent files, baselines or a human against each other",
	.help =
	"usage: league play A B [C ...] [--games N] [--game NAME]\n"
	"                   [--plugin PATH | --remote ADDR] [--param KEY=VALUE]...\n"
	"                   [--seed S] [--sample] [--json]\n"
	"\n"
	"One player per seat of the game (two for two-player games, up to\n"
	"eight): an agent FILE (`league export`), random, minimax\n"
	"(tictactoe), alphabeta:N (connect4, othello) or human (you, at this\n"
	"terminal: the state as your seat sees it and the legal moves are\n"
	"shown, by name where the game names them; you type a move's name or\n"
	"number; an illegal one is refused with the reason). N games (default\n"
	"2), seats rotating: the i-th player sits in seat (i + g - 1) mod n\n"
	"in game g, so of two A moves first in games 1, 3, ... Game g is\n"
	"seeded S + g - 1 (default S 1). An agent plays its network's most\n"
	"probable legal move; --sample samples its probabilities. The game\n"
	"is the agents' (all of one game and its options), else --game, the\n"
	"game plugin --plugin PATH or the game server at --remote ADDR;\n"
	"--param sets its env.params. An agent file never loads code or\n"
	"dials by itself: an agent of a plugin game plays only with\n"
	"--plugin naming a plugin of the SHA-256 it recorded, one of a\n"
	"remote game only with --remote naming a server of that game.\n"
	"\n"
	"Output: a line of wins by side (the team with the best return wins,\n"
	"every side in it; a draw: the best return shared by two teams),\n"
	"with each side's mean return and its 95% interval (1.96 standard\n"
	"errors); --json one object\n"
	"with games, wins_a, wins_b, ..., draws (and game, a, b, ...).\n"
	"\n"
	"Exit status: 0 played, 1 the input ended or a game failed, 2 a bad\n"
	"argument or agent file (the reason names it).\n",
	.run = run,
};
