/*
 * examples/tictactoe/tictactoe.c: the built-in tic-tac-toe (envs/board.c)
 * built as a plugin, so `league bench env --plugin` can price the plugin
 * path against the compiled-in one on the same game code. The Makefile
 * compiles envs/ (and the util files it needs) into the shared object
 * with hidden visibility; only league_game() is exported.
 */
#include "envs/env_internal.h"

__attribute__((visibility("default"))) const struct league_game *
league_game(void)
{
	return &env_game_tictactoe;
}
