/*
 * cli/cmd_play.c: `league play A B [--games N] [--json]`, two players in
 * games of one game: agent files (`league export`), the built-in
 * baselines (random, minimax, alphabeta:N) or a human at the terminal.
 * Games alternate seats (A moves first in the odd-numbered games); an
 * agent plays its network's most probable legal move (--sample: a sample
 * of its probabilities). The game comes from the agent files (both must
 * be of one game and its options) or --game.
 *
 * A human sees the board (board games: their planes drawn from the
 * human's side, `X` the human's stones) or the observation, the legal
 * moves, and types one; anything else is refused with the reason and
 * asked again. The end of input ends the match (exit 1).
 */
#include "cli/cli.h"
#include "eval/agent.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
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

struct pargs {
	const char *a, *b, *game;
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

	if (sp->obs_len > LG_ARRAY_LEN(obs) || env_observe(e, p, obs))
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

/* The human's move: asked until it is a legal one. LG_EIO at the end of
 * input. */
static int human_act(const env *e, int p, int *action)
{
	const struct env_spec *sp = env_spec_of(e);
	uint8_t mask[ENV_MAX_ACTIONS];
	char line[128], *end;

	printf("\nYou are X (seat %d). The board:\n", p);
	render(e, p, stdout);
	env_legal(e, p, mask);
	for (;;) {
		printf("legal moves:");
		for (int a = 0; a < sp->num_actions; a++)
			if (mask[a])
				printf(" %d", a);
		printf("\nyour move> ");
		fflush(stdout);
		if (!fgets(line, sizeof line, stdin))
			return LG_EIO;
		line[strcspn(line, "\r\n")] = 0;
		errno = 0;
		long v = strtol(line, &end, 10);
		while (*end == ' ')
			end++;
		if (!line[0] || end == line || *end || errno) {
			printf("'%s' is not a move: type one of the legal "
			       "moves' numbers\n", line);
			continue;
		}
		if (v < 0 || v >= sp->num_actions) {
			printf("%ld is not a move: moves are 0 to %d\n", v,
			       sp->num_actions - 1);
			continue;
		}
		if (!mask[v]) {
			printf("%ld is not legal here (%s)\n", v,
			       !strcmp(sp->name, "connect4") ? "the column is "
							       "full"
			       : !strcmp(sp->name, "tictactoe")
				       ? "the cell is taken"
				       : "not among the legal moves");
			continue;
		}
		*action = (int)v;
		return 0;
	}
}

/* ---- the sides ------------------------------------------------------------ */

static int side_open(struct side *s, const char *arg, char *err,
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
	return league_agent_load(s->agent, arg, err, errlen);
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

/* The game both sides play: the agents' (one game, the same options) or
 * --game. CLI_OK with *e open, else the reason on stderr. */
static int open_game(const struct pargs *a, struct side *sd, env **e)
{
	const struct league_agent *ag = NULL;
	struct env_opts eo;
	char err[512];

	for (int i = 0; i < 2; i++) {
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
				sd[0].arg, sd[1].arg, ag->spec.name,
				x->spec.name);
			return CLI_USAGE;
		}
		ag = x;
	}
	if (!ag && !a->game) {
		fprintf(stderr, "league play: no agent file names the game: "
			"pass --game NAME\n");
		return CLI_USAGE;
	}
	if (ag && a->game && strcmp(a->game, ag->spec.name)) {
		fprintf(stderr, "league play: --game %s, but the agents play "
			"%s\n", a->game, ag->spec.name);
		return CLI_USAGE;
	}
	if (ag)
		league_env_opts(&ag->cfg, &eo);
	else
		env_opts_default(&eo);
	if (env_new(e, ag ? ag->cfg.env.name : a->game, &eo, err,
		    sizeof err)) {
		fprintf(stderr, "league play: %s\n", err);
		return CLI_USAGE;
	}
	for (int i = 0; i < 2; i++)
		if (side_bind(&sd[i], *e, err, sizeof err)) {
			fprintf(stderr, "league play: %s: %s\n", sd[i].arg,
				err);
			env_free(*e);
			*e = NULL;
			return CLI_USAGE;
		}
	return CLI_OK;
}

struct score {
	uint64_t games, wins_a, wins_b, draws;
	uint64_t seat_games[2], seat_wins_a[2]; /* by A's seat */
};

/* One game, A in seat seat_a: the returns into ret. */
static int play_one(env *e, struct side *sd, int seat_a, uint64_t seed,
		    int sample, lg_rng *rng, double *ret)
{
	const struct env_spec *sp = env_spec_of(e);
	int rc;

	if ((rc = env_reset(e, seed)))
		return rc;
	while (!env_is_terminal(e)) {
		int p = env_current_player(e), acts[ENV_MAX_PLAYERS];
		if (p == ENV_SIMULTANEOUS) {
			for (int q = 0; q < sp->players; q++)
				if ((rc = side_act(&sd[q == seat_a ? 0 : 1], e,
						   q, sample, rng, &acts[q])))
					return rc;
			rc = env_step_joint(e, acts);
		} else {
			if ((rc = side_act(&sd[p == seat_a ? 0 : 1], e, p,
					   sample, rng, &acts[0])))
				return rc;
			rc = env_step(e, acts[0]);
		}
		if (rc)
			return rc;
	}
	env_returns(e, ret);
	return 0;
}

static int parse(int argc, char **argv, struct pargs *a)
{
	const struct cli_arg flags[] = {
		CLI_U64("games", 0, &a->games, 1, 1000000),
		CLI_STRING("game", 0, &a->game),
		CLI_U64("seed", 0, &a->seed, 0, UINT64_MAX / 2),
		CLI_BOOL("json", 0, &a->json),
		CLI_BOOL("sample", 0, &a->sample),
		CLI_END,
	};
	const struct cli_args args = { "play", flags, 2, 2,
				       "expected two players A B", 0 };
	char **pos;

	memset(a, 0, sizeof *a);
	a->games = 2;
	a->seed = 1;
	if (cli_args(&args, argc, argv, &pos, NULL))
		return CLI_USAGE;
	a->a = pos[0];
	a->b = pos[1];
	return CLI_OK;
}

static int run(int argc, char **argv)
{
	struct pargs a;
	struct side sd[2];
	struct score sc = { 0 };
	char err[1024] = "";
	env *e = NULL;
	lg_rng rng;
	int rc;

	if ((rc = parse(argc, argv, &a)))
		return rc;
	memset(sd, 0, sizeof sd);
	for (int i = 0; i < 2; i++)
		if ((rc = side_open(&sd[i], i ? a.b : a.a, err, sizeof err))) {
			fprintf(stderr, "league play: %s\n", err);
			rc = rc == LG_ENOMEM || rc == LG_EIO ? CLI_FAIL
							     : CLI_USAGE;
			goto done;
		}
	if ((rc = open_game(&a, sd, &e)))
		goto done;
	lg_rng_seed(&rng, a.seed);
	for (uint64_t g = 0; g < a.games; g++) {
		int seat_a = (int)(g % 2);
		double ret[ENV_MAX_PLAYERS];
		rc = play_one(e, sd, seat_a, a.seed + g, a.sample, &rng, ret);
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
		double ra = ret[seat_a], rb = ret[1 - seat_a];
		sc.games++;
		sc.seat_games[seat_a]++;
		sc.wins_a += ra > rb;
		sc.seat_wins_a[seat_a] += ra > rb;
		sc.wins_b += rb > ra;
		sc.draws += ra == rb;
		if (sd[0].kind == SIDE_HUMAN || sd[1].kind == SIDE_HUMAN) {
			int hs = sd[0].kind == SIDE_HUMAN ? seat_a : 1 - seat_a;
			printf("\ngame %llu over: the board from seat %d's "
			       "side:\n", (unsigned long long)g + 1, hs);
			render(e, hs, stdout);
			printf("%s %s\n", ra > rb ? a.a : rb > ra ? a.b : "nobody",
			       ra == rb ? "won: a draw" : "won");
		}
	}
	if (a.json)
		printf("{\"games\": %llu, \"wins_a\": %llu, \"wins_b\": %llu, "
		       "\"draws\": %llu, \"game\": \"%s\", \"a\": \"%s\", "
		       "\"b\": \"%s\"}\n",
		       (unsigned long long)sc.games,
		       (unsigned long long)sc.wins_a,
		       (unsigned long long)sc.wins_b,
		       (unsigned long long)sc.draws, env_spec_of(e)->name,
		       sd[0].kind == SIDE_AGENT ? "agent" : a.a,
		       sd[1].kind == SIDE_AGENT ? "agent" : a.b);
	else
		printf("%s: %llu games of %s: A %s wins %llu (%llu of %llu "
		       "moving first), B %s wins %llu, draws %llu\n",
		       "league play", (unsigned long long)sc.games,
		       env_spec_of(e)->name, a.a,
		       (unsigned long long)sc.wins_a,
		       (unsigned long long)sc.seat_wins_a[0],
		       (unsigned long long)sc.seat_games[0], a.b,
		       (unsigned long long)sc.wins_b,
		       (unsigned long long)sc.draws);
	rc = CLI_OK;
done:
	for (int i = 0; i < 2; i++)
		side_free(&sd[i]);
	env_free(e);
	return rc;
}

const struct cli_cmd cli_cmd_play = {
	.name = "play",
	.summary = "play agent files, baselines or a human against each other",
	.help =
	"usage: league play A B [--games N] [--game NAME] [--seed S]\n"
	"                   [--sample] [--json]\n"
	"\n"
	"A and B: an agent FILE (`league export`), random, minimax\n"
	"(tictactoe), alphabeta:N (connect4) or human (you, at this terminal:\n"
	"the board and the legal moves are shown, you type a move's number;\n"
	"an illegal one is refused with the reason). N games (default 2),\n"
	"seats alternating: A moves first in games 1, 3, ... Game g is\n"
	"seeded S + g - 1 (default S 1). An agent plays its network's most\n"
	"probable legal move; --sample samples its probabilities. The game\n"
	"is the agents' (both of one game and its options), else --game.\n"
	"\n"
	"Output: a line of wins by side; --json one object with games,\n"
	"wins_a, wins_b, draws (and game, a, b).\n"
	"\n"
	"Exit status: 0 played, 1 the input ended or a game failed, 2 a bad\n"
	"argument or agent file (the reason names it).\n",
	.run = run,
};
