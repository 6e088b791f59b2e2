#!/usr/bin/env bash
# tests/browser/page_test.sh: the live page in a real browser. Headless
# Chromium (Debian `chromium`, installed by util/deps.sh browser) loads the
# page of a running `league run` and of `league inspect` on the stopped
# league, lets its script poll, and the rendered DOM must show the data:
# the title names the league, the status line its counters, the heatmap
# coloured cells, the ladder its rows and the meta-Nash line, the
# NashConv chart its points, the throughput and learner charts, the
# matchmaking mix, the lineage and the jobs (web/views.js), no error
# line. The browser's console must hold no error
# and no failed load. A screenshot of each goes to OUT (docs/screenshots).
# No browser: the test fails, it never skips.
#
#   tests/browser/page_test.sh BIN OUTDIR
set -euo pipefail
BIN=${1:?league binary}
OUT=${2:?screenshot directory}
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
	echo "page_test: no chromium (install it: sh util/deps.sh browser)" >&2
	exit 1
fi
T=$(mktemp -d)
LEAGUE_PID=
INSPECT_PID=
cleanup() {
	[ -n "$LEAGUE_PID" ] && kill "$LEAGUE_PID" 2>/dev/null || true
	[ -n "$INSPECT_PID" ] && kill "$INSPECT_PID" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$OUT"

cat >"$T/league.yaml" <<YAML
league: {name: browser, seed: 3}
env: {name: rps}
model: {hidden: [8]}
learner: {batch: 64, minibatch: 32, epochs: 1}
players: {main: 1, main_exploiter: 1, league_exploiter: 0}
snapshot: {steps: 400}
matchmaking: {job_episodes: 4}
collectors: {count: 1, envs: 4, wait_num: 4}
budget: {seconds: 120}
YAML

# Load URL for a few virtual seconds; the DOM into $1.dom, the console
# (chromium's log) into $1.log, a screenshot into $2.
browse() {
	local name=$1 shot=$2 url=$3
	local flags=(--headless=new --no-sandbox --disable-gpu
		--disable-dev-shm-usage --no-first-run --hide-scrollbars
		--user-data-dir="$T/profile-$name" --virtual-time-budget=6000
		--enable-logging=stderr --v=0)
	"$CHROME" "${flags[@]}" --dump-dom "$url" >"$T/$name.dom" \
		2>"$T/$name.log"
	"$CHROME" "${flags[@]}" --window-size=900,780 \
		--screenshot="$shot" "$url" >/dev/null 2>>"$T/$name.log"
	test -s "$shot" || { echo "page_test: $name: no screenshot" >&2; exit 1; }
	# the whole page, every view
	"$CHROME" "${flags[@]}" --window-size=1000,1900 \
		--screenshot="${shot%.png}-full.png" "$url" >/dev/null \
		2>>"$T/$name.log"
	test -s "${shot%.png}-full.png" ||
		{ echo "page_test: $name: no full screenshot" >&2; exit 1; }
}

# The DOM and the console of a load, checked.
check() {
	local name=$1 what=$2 dom="$T/$1.dom" log="$T/$1.log"
	local fail=0
	grep -q '<h1 id="title">league browser (rps)</h1>' "$dom" ||
		{ echo "page_test: $name: title not set from /status" >&2; fail=1; }
	grep -q 'players [0-9]' "$dom" ||
		{ echo "page_test: $name: no player count in the status line" >&2; fail=1; }
	grep -q "$what" "$dom" ||
		{ echo "page_test: $name: no '$what' in the status line" >&2; fail=1; }
	local cells
	# cells of pairs that met: coloured, with their win rate written in
	cells=$(grep -oE '<td class="c"[^>]*style="background: rgb\([0-9, ]+\);">[01]\.[0-9]{2}</td>' "$dom" | wc -l || true)
	[ "$cells" -ge 4 ] ||
		{ echo "page_test: $name: $cells coloured heatmap cells, want >= 4" >&2; fail=1; }
	local rungs
	rungs=$(grep -o '<tr class="rung' "$dom" | wc -l || true)
	[ "$rungs" -ge 3 ] ||
		{ echo "page_test: $name: $rungs ladder rows, want >= 3" >&2; fail=1; }
	grep -q '<div id="gap" class="note">meta-Nash duality gap' "$dom" ||
		{ echo "page_test: $name: no meta-Nash line under the ladder" >&2; fail=1; }
	local points
	points=$(grep -o '<circle class="pt"' "$dom" | wc -l || true)
	[ "$points" -ge 1 ] ||
		{ echo "page_test: $name: no point in the NashConv chart" >&2; fail=1; }
	grep -q '<div id="err"></div>' "$dom" ||
		{ echo "page_test: $name: the page shows an error" >&2; fail=1; }
	# views.js: the run over time and its structure
	grep -q '<div id="verr"></div>' "$dom" ||
		{ echo "page_test: $name: the views show an error" >&2; fail=1; }
	grep -qE '<div id="tpnote" class="note">[0-9]+ points?' "$dom" ||
		{ echo "page_test: $name: no throughput points" >&2; fail=1; }
	grep -qE '<div id="lsnote" class="note">[0-9]+ learner' "$dom" ||
		{ echo "page_test: $name: no learner statistics" >&2; fail=1; }
	local charts mixrows lin
	charts=$(grep -o '<svg[^>]*class="small"' "$dom" | wc -l || true)
	[ "$charts" -ge 9 ] ||
		{ echo "page_test: $name: $charts small charts, want >= 9" >&2; fail=1; }
	mixrows=$(grep -o '<div class="mixrow">' "$dom" | wc -l || true)
	[ "$mixrows" -ge 2 ] ||
		{ echo "page_test: $name: $mixrows matchmaking mix rows, want >= 2" >&2; fail=1; }
	lin=$(grep -o '<tr class="lin">' "$dom" | wc -l || true)
	[ "$lin" -ge 3 ] ||
		{ echo "page_test: $name: $lin lineage rows, want >= 3" >&2; fail=1; }
	grep -qE '<div id="jobsnote" class="note">[0-9]+ job' "$dom" ||
		{ echo "page_test: $name: no jobs line" >&2; fail=1; }
	if grep -E 'CONSOLE.*(Error|error|Uncaught)|Failed to load resource' "$log"; then
		echo "page_test: $name: errors in the browser console (above)" >&2
		fail=1
	fi
	[ $fail = 0 ] || { echo "--- $name DOM:" >&2; cat "$dom" >&2; exit 1; }
	echo "page_test: $name: title, status line, $cells heatmap cells, $rungs ladder rows, $points chart points, $charts time-series charts, $mixrows mix rows, $lin lineage rows, clean console"
}

# A running league.
"$BIN" run "$T/league.yaml" --dir "$T/league" --quiet >"$T/run.out" 2>&1 &
LEAGUE_PID=$!
for _ in $(seq 200); do
	[ -s "$T/league/ports" ] && grep -q http_port "$T/league/ports" && break
	sleep 0.1
done
HP=$(awk '/^http_port/{print $2}' "$T/league/ports")
[ -n "$HP" ] || { echo "page_test: the league never served HTTP" >&2; cat "$T/run.out" >&2; exit 1; }
# wait until results have reached the payoff matrix and the evaluator
# has stored a NashConv point
for _ in $(seq 600); do
	curl -fsS "http://127.0.0.1:$HP/status" 2>/dev/null | grep -q '"jobs_done": [1-9]' &&
		curl -fsS "http://127.0.0.1:$HP/nashconv" 2>/dev/null | grep -q '"seconds"' &&
		curl -fsS "http://127.0.0.1:$HP/series" 2>/dev/null | grep -q '"learners":{"[0-9]' &&
		curl -fsS "http://127.0.0.1:$HP/series" 2>/dev/null | grep -q '"mix":{"[0-9]' && break
	sleep 0.1
done
browse running "$OUT/page-running.png" "http://127.0.0.1:$HP/"
check running 'jobs done [1-9]'
kill -INT "$LEAGUE_PID"
wait "$LEAGUE_PID" || true
LEAGUE_PID=

# The same league, stopped, through league inspect (read-only).
"$BIN" inspect "$T/league" --port 0 --ports-file "$T/inspect.ports" >/dev/null 2>&1 &
INSPECT_PID=$!
for _ in $(seq 100); do [ -s "$T/inspect.ports" ] && break; sleep 0.05; done
IP=$(awk '/^http_port/{print $2}' "$T/inspect.ports")
browse inspect "$OUT/page-inspect.png" "http://127.0.0.1:$IP/"
check inspect 'jobs done [1-9]'
echo "page_test: ok"
