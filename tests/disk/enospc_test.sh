#!/usr/bin/env bash
# tests/disk/enospc_test.sh BIN OUTDIR: a league whose disk fills up
# (issue 20). Its directory is on a 6 MiB tmpfs, and a Connect Four net
# of 256 x 256 pushes a version (and its trainer state) with every update,
# so the file system fills within seconds. Expected:
#   - the daemon's commit fails with ENOSPC, it says so and stops cleanly
#     (exit 1, no crash), `league run` stops its workers and exits 1;
#   - the league on disk is intact: `league players`, `league payoff` and
#     `league replay` (the whole decision log made again) read it;
#   - with the file system grown, `league run --resume` goes on to the
#     budget from where it stopped.
# Root (mount). The logs and a summary go to OUTDIR.
set -euo pipefail
BIN=$(readlink -f "${1:-bin/league}")
OUT=$(mkdir -p "${2:-build/disk}" && readlink -f "${2:-build/disk}")
[ "$(id -u)" = 0 ] || { echo "enospc_test: needs root (mount)" >&2; exit 1; }
W=$(mktemp -d)
MNT="$W/mnt"
mkdir -p "$MNT"
cleanup() { umount "$MNT" 2>/dev/null || true; rm -rf "$W"; }
trap cleanup EXIT
fail() { echo "enospc_test: $*" >&2; exit 1; }

mount -t tmpfs -o size=6m tmpfs "$MNT"
cat >"$W/league.yaml" <<YAML
league: {name: enospc, seed: 3}
env: {name: connect4}
model: {hidden: [256, 256]}
learner: {batch: 256, minibatch: 128}
players: {main: 1}
collectors: {count: 1, envs: 4, wait_num: 2}
matchmaking: {job_episodes: 4}
budget: {seconds: 40}
YAML
set +e
timeout 120 "$BIN" run "$W/league.yaml" --dir "$MNT/league" --quiet \
	>"$OUT/run1.out" 2>"$OUT/run1.err"
rc=$?
set -e
cp "$MNT/league/logs/daemon.log" "$OUT/daemon1.log"
df -k "$MNT" | tail -n 1 >"$OUT/df.txt"
[ "$rc" = 1 ] || fail "league run exited $rc, expected 1 (full disk)"
grep -q "no space left on the device; stopping (the league on disk is intact: free space" \
	"$OUT/daemon1.log" || fail "no ENOSPC line in the daemon's log"
grep -q "league run: the daemon exited (status 1)" "$OUT/run1.err" ||
	fail "league run did not say the daemon exited 1: $(tail -n 3 "$OUT/run1.err")"
"$BIN" players "$MNT/league" >"$OUT/players1.txt" || fail "league players"
"$BIN" payoff "$MNT/league" >"$OUT/payoff1.txt" || fail "league payoff"
"$BIN" replay "$MNT/league" >"$OUT/replay1.txt" || fail "league replay: $(cat "$OUT/replay1.txt")"

# More room, and on.
mount -o remount,size=256m "$MNT"
"$BIN" run "$W/league.yaml" --dir "$MNT/league" --resume --quiet \
	>"$OUT/run2.out" 2>"$OUT/run2.err" || fail "resume exited $?: $(tail -n 5 "$OUT/run2.err")"
cp "$MNT/league/logs/daemon.log" "$OUT/daemon2.log"
grep -q "budget: seconds reached" "$OUT/daemon2.log" || fail "the resumed league did not reach its budget"
"$BIN" replay "$MNT/league" >"$OUT/replay2.txt" || fail "league replay after the resume"
echo "enospc_test: ok: stopped on a full disk ($(cat "$OUT/df.txt" | awk '{print $3 " of " $2 " KiB used"}')), read back, $(cat "$OUT/replay1.txt" | grep -o '[0-9]* records' | head -1) replayed, resumed to the budget ($(grep -o '[0-9]* records' "$OUT/replay2.txt" | head -1) then)"
