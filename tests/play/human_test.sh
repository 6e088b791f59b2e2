#!/usr/bin/env bash
# tests/play/human_test.sh BIN OUTDIR: a human game of `league play`,
# driven through a real terminal (tmux): the board and the legal moves are
# shown, a word, an out-of-range number and a taken cell are refused with
# the reason, legal moves are taken, and the game ends with its result
# and the summary line, exit 0. The whole terminal transcript is kept in
# OUTDIR/human-game.txt (docs/agents.md quotes one). Then a hand of Kuhn
# poker: the game's own text (the human's card, the pot), moves by name
# (check/bet), a word refused, the hand's result (OUTDIR/human-kuhn.txt).
#
# The opponent is an agent file exported from a short tic-tac-toe league
# when `league run` can make one in time, so the human plays a trained
# network as a user would; the game's moves are whatever the agent
# answers, so the script reads the legal moves off the screen each turn.
set -euo pipefail
BIN=$(readlink -f "${1:-bin/league}")
OUT=$(mkdir -p "${2:-build/play}" && readlink -f "${2:-build/play}")
command -v tmux >/dev/null || { echo "human_test: tmux missing (util/deps.sh play)" >&2; exit 1; }
# tmux wants a terminal type even for a detached session (CI has none)
export TERM=${TERM:-xterm}
WORK=$(mktemp -d)
S="league-play-$$"
cleanup() { tmux kill-session -t "$S" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

# A small league to take an agent from (a few seconds).
cat >"$WORK/ttt.yaml" <<YAML
league: {name: human-test, seed: 4}
env: {name: tictactoe}
model: {hidden: [32]}
learner: {batch: 512, minibatch: 128, lr: 0.003}
players: {main: 1}
collectors: {count: 1, envs: 4, wait_num: 2}
budget: {env_steps: 20000}
YAML
"$BIN" run "$WORK/ttt.yaml" --dir "$WORK/league" --quiet >/dev/null
"$BIN" export "$WORK/league" --player 0 -o "$WORK/ttt.agent"

tmux new-session -d -s "$S" -x 100 -y 200 \
	"'$BIN' play human '$WORK/ttt.agent' --games 1; echo EXIT=\$?; sleep 600"
cap() { tmux capture-pane -t "$S" -p -S -1000; }
fail() { echo "human_test: $*" >&2; cap >&2; exit 1; }
# wait until the screen holds $1 (grep -F) at least $2 times (default 1)
wait_for() {
	local n
	for _ in $(seq 200); do
		n=$(cap | grep -cF -- "$1" || true)
		[ "$n" -ge "${2:-1}" ] && return 0
		sleep 0.05
	done
	fail "no '$1' (x${2:-1}) on the screen"
}
say() { tmux send-keys -t "$S" -l "$1"; tmux send-keys -t "$S" Enter; }

wait_for "your move>"
cap | grep -q "You are X (seat 0)" || fail "no seat line"
cap | grep -qE '^ +\. \. \.  +0 1 2$' || fail "no empty board with the cells' numbers"
say "abc";  wait_for "'abc' is not a move: type one of the legal moves' numbers"
say "9";    wait_for "9 is not a move: moves are 0 to 8"
say "4";    wait_for "You are X (seat 0)" 2
# the centre is ours now: X on the board, 4 no longer offered
cap | grep -v '^$' | tail -n 6 | grep -qE '^ +[.XO] X [.XO] ' || fail "the centre is not X"
say "4";    wait_for "4 is not legal here (the cell is taken)"
turns=2
while ! cap | grep -q "game 1 over"; do
	legal=$(cap | grep "^legal moves:" | tail -n 1 | awk '{print $3}')
	[ -n "$legal" ] || fail "no legal move listed"
	say "$legal"
	turns=$((turns + 1))
	for _ in $(seq 200); do
		cap | grep -q "game 1 over" && break
		[ "$(cap | grep -c 'You are X (seat 0)')" -ge "$turns" ] && break
		sleep 0.05
	done
	[ "$turns" -le 7 ] || fail "more turns than tic-tac-toe has"
done
wait_for "EXIT=0"
cap | grep -qE "^(/.*ttt.agent|human|nobody) (won|won: a draw)$" || fail "no result line"
cap | grep -q "^league play: 1 games of tictactoe: A human wins " || fail "no summary"
cap | sed -e '/^$/N;/^\n$/D' >"$OUT/human-game.txt"
ttt_prompts=$(grep -c 'your move>' "$OUT/human-game.txt")

# Kuhn poker at the same terminal: the game describes the human's seat
# (card, pot) and names the moves (check/bet, then call/fold after a
# bet); a number and a name both work, a word that is no move is refused.
tmux kill-session -t "$S" 2>/dev/null || true
tmux new-session -d -s "$S" -x 100 -y 200 \
	"'$BIN' play human random --game kuhn --games 1 --seed 3; echo EXIT=\$?; sleep 600"
wait_for "your move>"
cap | grep -q "You are seat 0 (player)." || fail "no kuhn seat line"
cap | grep -qE "^ +your card: [JQK]$" || fail "no card shown"
cap | grep -qE "^ +pot: 2 \(you put in 1\)$" || fail "no pot shown"
cap | grep -q "^legal moves: check bet$" || fail "no check/bet"
say "raise"; wait_for "'raise' is not a move: type one of the legal moves"
say "bet"
wait_for "EXIT=0"
cap | grep -q "seat0 bet, seat1 \(call\|fold\)" || fail "the bet and the answer are not shown"
cap | grep -qE "^ +hand over: your return [+-][12]$" || fail "no result of the hand"
cap | grep -q "^league play: 1 games of kuhn: A human wins " || fail "no kuhn summary"
cap | sed -e '/^$/N;/^\n$/D' >"$OUT/human-kuhn.txt"
echo "human_test: ok: $ttt_prompts prompts, 3 refusals, transcript in $OUT/human-game.txt; kuhn: card, pot and check/bet shown, bet taken by name, transcript in $OUT/human-kuhn.txt"
