#!/usr/bin/env bash
# tests/browser/page_test.sh: the live page in a real browser. Headless
# Chromium (Debian `chromium`, installed by util/deps.sh browser) loads the
# page of a running `league run` and of `league inspect` on the stopped
# league, lets its script poll, and the rendered DOM must show the data:
# the title names the league, the status line its counters, the heatmap
# canvas painted pixels and cells (web/heatmap.js writes what it drew
# into the canvas's data- attributes), the ladder its rows, its α-Rank
# column and the meta-Nash line, the NashConv chart its points, the
# throughput and learner charts, the matchmaking mix, the lineage and the
# jobs (web/views.js), no error line. Then on a synthetic league of 60
# players (`league bench payoff --keep`, where a later player is
# stronger), the heatmap sorted by Elo or by α-Rank must draw the players
# in the order of /ratings, and filtered to the main player's family only
# those, each a different picture from the one by id. Then two running
# leagues beyond two symmetric players (check_roles_league): 3-player
# Kuhn under payoff.measure return (the ladder a Plackett-Luce fit, jobs
# of three seats listed, the heatmap's tooltip a mean return with its
# games, never-met cells null in /payoff) and sheriff (one population
# per role: a ladder per population, the two roles' meta-Nash, a
# heatmap of the role pair whose tooltip gives both roles' returns, each
# job's seat roles). The browser's console must hold no error
# and no failed load. A screenshot of each goes to OUT
# (docs/screenshots). No browser: the test fails, it never skips.
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
	# with a fourth argument, the whole page too: every view
	[ -z "${4:-}" ] && return
	"$CHROME" "${flags[@]}" --window-size=1000,2000 \
		--screenshot="${shot%.png}-full.png" "$url" >/dev/null \
		2>>"$T/$name.log"
	test -s "${shot%.png}-full.png" ||
		{ echo "page_test: $name: no full screenshot" >&2; exit 1; }
}

# Inside check: flag the load when the extended regex PATTERN is not in
# its DOM; and count PATTERN's matches into VAR, flagging fewer than N.
need() { # PATTERN WHAT
	grep -qE "$1" "$dom" || { echo "page_test: $name: $2" >&2; fail=1; }
}
count() { # VAR PATTERN N WHAT
	local c
	c=$(grep -oE "$2" "$dom" | wc -l || true)
	printf -v "$1" %s "$c"
	[ "$c" -ge "$3" ] ||
		{ echo "page_test: $name: $c $4, want >= $3" >&2; fail=1; }
}

# The DOM and the console of a load, checked.
check() {
	local name=$1 what=$2 dom="$T/$1.dom" log="$T/$1.log"
	local fail=0 cells painted rungs armass points charts mixrows lin
	need '<h1 id="title">league browser \(rps\)</h1>' "title not set from /status"
	need 'players [0-9]' "no player count in the status line"
	need "$what" "no '$what' in the status line"
	# the canvas heatmap: cells of pairs that met, painted pixels
	cells=$(attr cells "$dom")
	painted=$(attr painted "$dom")
	[ "${cells:-0}" -ge 4 ] ||
		{ echo "page_test: $name: ${cells:-no} heatmap cells drawn, want >= 4" >&2; fail=1; }
	[ "${painted:-0}" -ge 1000 ] ||
		{ echo "page_test: $name: ${painted:-no} heatmap pixels painted, want >= 1000" >&2; fail=1; }
	count rungs '<tr class="rung' 3 "ladder rows"
	need '<th>95% CI</th>.*<td>±[0-9]+\.[0-9]</td>' "no rating interval in the ladder"
	need '<div id="gap" class="note">meta-Nash duality gap' "no meta-Nash line under the ladder"
	# the α-Rank column (/ratings carries it up to 256 players) and its
	# parameters after the meta-Nash line
	need '<th>nash</th><th>α-rank</th></tr>' "no α-Rank column in the ladder"
	count armass '<td>[0-9]\.[0-9]{3}</td><td>(0|[0-9]\.[0-9]{3}|[0-9]\.[0-9]e-[0-9]+)</td></tr>' 3 "α-Rank masses after the Nash weights"
	need 'α-Rank: alpha 100, population 50</div>' "no α-Rank parameters under the ladder"
	count points '<circle class="pt"' 1 "points in the NashConv chart"
	need '<div id="err"></div>' "the page shows an error"
	# views.js: the run over time and its structure
	need '<div id="verr"></div>' "the views show an error"
	need '<div id="tpnote" class="note">[0-9]+ points?' "no throughput points"
	need '<div id="lsnote" class="note">[0-9]+ learner' "no learner statistics"
	count charts '<svg[^>]*class="small"' 9 "small charts"
	count mixrows '<div class="mixrow">' 2 "matchmaking mix rows"
	count lin '<tr class="lin">' 3 "lineage rows"
	need '<div id="jobsnote" class="note">[0-9]+ job' "no jobs line"
	if grep -E 'CONSOLE.*(Error|error|Uncaught)|Failed to load resource' "$log"; then
		echo "page_test: $name: errors in the browser console (above)" >&2
		fail=1
	fi
	[ $fail = 0 ] || { echo "--- $name DOM:" >&2; cat "$dom" >&2; exit 1; }
	echo "page_test: $name: title, status line, $cells heatmap cells ($painted pixels), $rungs ladder rows ($armass α-Rank masses), $points chart points, $charts time-series charts, $mixrows mix rows, $lin lineage rows, clean console"
}

# data-NAME of the heatmap canvas in a dumped DOM ("" when absent).
attr() {
	grep -o '<canvas id="heat"[^>]*>' "$2" |
		sed -n "s/.* data-$1=\"\\([^\"]*\\)\".*/\\1/p"
}

# The console of a load: no error, no failed load.
console_clean() {
	if grep -E 'CONSOLE.*(Error|error|Uncaught)|Failed to load resource' "$T/$1.log"; then
		echo "page_test: $1: errors in the browser console (above)" >&2
		exit 1
	fi
}

# The heatmap's sort and role filter (set through the URL's hash, as the
# controls set it) against /ratings, on the league served at $1.
check_heatmap_views() {
	local base=$1 want_elo want_role n_role want_ar v
	browse by_id "$OUT/heatmap-60.png" "$base#sort=id"
	browse sort_elo "$T/sort-elo.png" "$base#sort=elo"
	browse sort_ar "$T/sort-ar.png" "$base#sort=alpha_rank"
	browse role_main "$T/role-main.png" "$base#role=family:main"
	for v in by_id sort_elo sort_ar role_main; do console_clean $v; done
	curl -fsS "$base""ratings" >"$T/ratings.json"
	curl -fsS "$base""payoff" >"$T/payoff.json"
	# the expected orders: by rating, highest first (ties by id), by
	# α-Rank mass, highest first (ties by rating, then id), and the main
	# player and its snapshots by id, over the players /payoff shows
	read -r want_elo want_role n_role want_ar < <(/usr/bin/python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
r = json.load(open(t + "/ratings.json"))["ratings"]
shown = set(json.load(open(t + "/payoff.json"))["players"])
role = {x["id"]: x["role"] for x in r}
def family(x):
    if x["role"] == "historical" and x["parent"] in role:
        return role[x["parent"]]
    return x["role"]
by = sorted((x for x in r if x["id"] in shown),
            key=lambda x: (-x["rating"], x["id"]))
main = sorted(x["id"] for x in r if x["id"] in shown and family(x) == "main")
ar = sorted((x for x in r if x["id"] in shown),
            key=lambda x: (-x["alpha_rank"], -x["rating"], x["id"]))
print(",".join(str(x["id"]) for x in by[:64]),
      ",".join(map(str, main[:64])) or "-", len(main),
      ",".join(str(x["id"]) for x in ar[:64]))
PY
)
	local got_id got_elo got_role cells
	got_id=$(attr order "$T/by_id.dom")
	got_elo=$(attr order "$T/sort_elo.dom")
	got_role=$(attr order "$T/role_main.dom")
	cells=$(attr cells "$T/by_id.dom")
	[ "$(attr n "$T/by_id.dom")" = 60 ] && [ "${cells:-0}" -ge 1000 ] ||
		{ echo "page_test: synthetic league: $(attr n "$T/by_id.dom") players, ${cells:-no} cells drawn, want 60 and >= 1000" >&2; exit 1; }
	[ "$got_elo" = "$want_elo" ] && [ "$got_elo" != "$got_id" ] ||
		{ echo "page_test: sorted by Elo: drew $got_elo, want $want_elo (by id: $got_id)" >&2; exit 1; }
	[ "$(attr sort "$T/sort_elo.dom")" = elo ] ||
		{ echo "page_test: sort=elo in the hash did not set the sort" >&2; exit 1; }
	[ "$(attr order "$T/sort_ar.dom")" = "$want_ar" ] && [ "$want_ar" != "$got_id" ] ||
		{ echo "page_test: sorted by α-Rank: drew $(attr order "$T/sort_ar.dom"), want $want_ar (by id: $got_id)" >&2; exit 1; }
	[ "$got_role" = "$want_role" ] && [ "$(attr n "$T/role_main.dom")" = "$n_role" ] ||
		{ echo "page_test: role=family:main: drew $got_role ($(attr n "$T/role_main.dom") players), want $want_role ($n_role)" >&2; exit 1; }
	[ "$n_role" -lt 60 ] ||
		{ echo "page_test: the role filter kept every player" >&2; exit 1; }
	# a different order or set must be a different picture
	[ "$(attr digest "$T/sort_elo.dom")" != "$(attr digest "$T/by_id.dom")" ] ||
		{ echo "page_test: sorting by Elo did not change the pixels" >&2; exit 1; }
	[ "$(attr digest "$T/role_main.dom")" != "$(attr digest "$T/by_id.dom")" ] ||
		{ echo "page_test: filtering by role did not change the pixels" >&2; exit 1; }
	echo "page_test: heatmap of 60: $cells cells; sorted by Elo (${got_elo:0:40}...), by α-Rank (${want_ar:0:40}...), filtered to main + snapshots ($n_role players), each a different picture"
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
browse running "$OUT/page-running.png" "http://127.0.0.1:$HP/" full
check running 'jobs done [1-9]'
kill -INT "$LEAGUE_PID"
wait "$LEAGUE_PID" || true
LEAGUE_PID=

# The same league, stopped, through league inspect (read-only).
"$BIN" inspect "$T/league" --port 0 --ports-file "$T/inspect.ports" >/dev/null 2>&1 &
INSPECT_PID=$!
for _ in $(seq 100); do [ -s "$T/inspect.ports" ] && break; sleep 0.05; done
IP=$(awk '/^http_port/{print $2}' "$T/inspect.ports")
browse inspect "$OUT/page-inspect.png" "http://127.0.0.1:$IP/" full
check inspect 'jobs done [1-9]'
# The time slider: a stop per throughput point, and #at=0 shows the
# league before anything was played (fewer players, the ones it began
# with), rebuilt from the decision log.
browse at0 "$OUT/page-at0.png" "http://127.0.0.1:$IP/#at=0"
console_clean at0
stops=$(grep -o '<input type="range" id="slider"[^>]*>' "$T/inspect.dom" |
	sed -n 's/.* max="\([0-9]*\)".*/\1/p')
n_now=$(attr n "$T/inspect.dom")
n_at0=$(attr n "$T/at0.dom")
[ "${stops:-0}" -ge 1 ] ||
	{ echo "page_test: the time slider has ${stops:-no} stops" >&2; exit 1; }
# (a throughput point taken before the first decision has log_seq 0:
# the label then names its time too)
grep -qE '<span id="slidertime">at ([0-9]+ s \()?log position 0\)?</span>' "$T/at0.dom" ||
	{ echo "page_test: #at=0 did not set the moment" >&2; exit 1; }
[ -n "$n_at0" ] && [ "$n_at0" -ge 2 ] && [ "$n_at0" -lt "${n_now:-0}" ] ||
	{ echo "page_test: at 0 the heatmap drew ${n_at0:-no} players, now ${n_now:-no}" >&2; exit 1; }
grep -q '<div id="err"></div>' "$T/at0.dom" ||
	{ echo "page_test: at0: the page shows an error" >&2; exit 1; }
echo "page_test: time slider: $stops stops; at log position 0 the heatmap drew $n_at0 players, now $n_now"
kill "$INSPECT_PID"
wait "$INSPECT_PID" || true

# A synthetic league of 60 players, every pair met (bench/bench_payoff.c).
"$BIN" bench payoff --players 60 --reps 1 --keep "$T/synth" >/dev/null
rm -f "$T/inspect.ports"
"$BIN" inspect "$T/synth" --port 0 --ports-file "$T/inspect.ports" >/dev/null 2>&1 &
INSPECT_PID=$!
for _ in $(seq 200); do [ -s "$T/inspect.ports" ] && break; sleep 0.05; done
IP=$(awk '/^http_port/{print $2}' "$T/inspect.ports")
[ -n "$IP" ] || { echo "page_test: league inspect of the synthetic league did not start" >&2; exit 1; }
check_heatmap_views "http://127.0.0.1:$IP/"
kill "$INSPECT_PID"
wait "$INSPECT_PID" || true
INSPECT_PID=

# Hover the first cell of canvas SELECTOR whose tooltip matches RE (a
# mousemove every 3 px, as a pointer would) on the page at URL; prints
# the tooltip, or fails.
hover_tip() { # URL SELECTOR RE
	/usr/bin/python3 "$(dirname "$0")/cdp.py" "$1" --timeout 60 \
		--wait "document.querySelector('$2') && +(document.querySelector('$2').dataset.cells || 0) > 0" \
		--run "(() => { var cv = document.querySelector('$2'), b = cv.getBoundingClientRect(), tip = document.getElementById('htip'), re = new RegExp('$3');
	for (var y = 1; y < b.height; y += 3) for (var x = 1; x < b.width; x += 3) {
		cv.dispatchEvent(new MouseEvent('mousemove', {clientX: b.left + x, clientY: b.top + y, bubbles: true}));
		if (re.test(tip.textContent)) return tip.textContent; }
	return 'no tooltip matched: ' + tip.textContent; })()" >"$T/tip.json"
	/usr/bin/python3 - "$T/tip.json" "$3" <<'PY'
import json, re, sys
o = json.load(open(sys.argv[1]))
tip = o["results"][0]
if not re.search(sys.argv[2], tip) or o["console_errors"]:
    sys.exit("page_test: tooltip %r, console errors %s" % (tip, o["console_errors"]))
print(tip)
PY
}

# A league of NAME on game ENV (a YAML flow mapping) with EXTRA config
# lines, running until its ladder has snapshots and jobs are in flight;
# its HTTP base in $base.
start_league() { # NAME ENV EXTRA
	cat >"$T/$1.yaml" <<YAML
league: {name: browser-$1, seed: 3}
env: $2
model: {hidden: [8]}
learner: {batch: 64, minibatch: 32, epochs: 1}
players: {main: 1, main_exploiter: 1, league_exploiter: 0}
snapshot: {steps: 300}
matchmaking: {job_episodes: 64}
eval: {nashconv: false}
collectors: {count: 1, envs: 4, wait_num: 4}
budget: {seconds: 180}
$3
YAML
	"$BIN" run "$T/$1.yaml" --dir "$T/$1" --quiet >"$T/$1.out" 2>&1 &
	LEAGUE_PID=$!
	for _ in $(seq 200); do
		[ -s "$T/$1/ports" ] && grep -q http_port "$T/$1/ports" && break
		sleep 0.1
	done
	base="http://127.0.0.1:$(awk '/^http_port/{print $2}' "$T/$1/ports")/"
	for _ in $(seq 900); do
		curl -fsS "$base""status" 2>/dev/null | grep -q '"jobs_done": [1-9][0-9]' &&
			[ "$(curl -fsS "$base""ratings" 2>/dev/null | grep -o '"historical"' | wc -l)" -ge 4 ] &&
			curl -fsS "$base""jobs" 2>/dev/null | grep -q '"seats":\[{' && break
		sleep 0.1
	done
}

stop_league() {
	kill -INT "$LEAGUE_PID"
	wait "$LEAGUE_PID" || true
	LEAGUE_PID=
}

# 3-player Kuhn: N seats, measure return.
start_league kuhn3 '{name: kuhn, params: {players: "3"}}' \
	'payoff: {measure: return, return_scale: 2}'
name=kuhn3
browse kuhn3 "$OUT/page-kuhn3.png" "$base" full
dom="$T/kuhn3.dom"
fail=0
need '<h1 id="title">league browser-kuhn3 \(kuhn\)</h1>' "title not set from /status"
count rungs '<tr class="rung' 4 "ladder rows"
need 'ratings: Plackett-Luce fit of the newest [0-9]+ episodes' "the ladder is not the Plackett-Luce fit"
need '<td>±[0-9]+\.[0-9]</td>' "no rating interval in the ladder"
need 'meta-Nash duality gap' "no meta-Nash line"
count jobs3 '<tr class="job">(<td>[^<]*</td>){3}<td>[^<]* vs [^<]* vs [^<]*</td>' 1 "jobs of three seats"
need '<div id="err"></div>' "the page shows an error"
need '<div id="verr"></div>' "the views show an error"
[ "$(attr cells "$dom")" -ge 4 ] 2>/dev/null || { echo "page_test: kuhn3: $(attr cells "$dom") heatmap cells" >&2; fail=1; }
console_clean kuhn3
[ $fail = 0 ] || { echo "--- kuhn3 DOM:" >&2; cat "$dom" >&2; exit 1; }
curl -fsS "$base""payoff" >"$T/kuhn3-payoff.json"
/usr/bin/python3 - "$T/kuhn3-payoff.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["measure"] == "return", p["measure"]
n = len(p["players"])
met = never = 0
for i in range(n):
    for j in range(n):
        g, m, w = p["games"][i][j], p["mean_return"][i][j], p["win_rate"][i][j]
        if i == j:
            continue
        if g > 0:
            assert m is not None and w is not None, (i, j)
            met += 1
        else:
            assert m is None and w is None, (i, j, m, w)
            never += 1
assert met > 0, "no pair met"
print("page_test: kuhn3 /payoff: %d players, %d cells met, %d never met (null)" % (n, met, never))
PY
tip=$(hover_tip "$base" '#heat' 'mean return -?[0-9.]+ .the column.s -?[0-9.]+. over [0-9.]+ games')
echo "page_test: kuhn3: $rungs ladder rows (Plackett-Luce), $jobs3 three-seat jobs; tooltip: $tip"
stop_league

# Sheriff: two roles, one population each.
start_league sheriff '{name: sheriff}' ''
name=sheriff
browse sheriff "$OUT/page-sheriff.png" "$base" full
dom="$T/sheriff.dom"
fail=0
need '<h1 id="title">league browser-sheriff \(sheriff\)</h1>' "title not set from /status"
count ladders '<table class="ladder" data-pop="[01]">' 2 "ladders (one per population)"
need '<div class="pophead">population 1 \([0-9]+ players\)</div>' "no heading of population 1's ladder"
need "meta-Nash of the two roles' bimatrix" "no two-role meta-Nash line"
need '<canvas [^>]*class="pairmap"[^>]*data-pair="0,1"' "no heatmap of the role pair"
count pairs '<canvas [^>]*class="pairmap"[^>]*data-cells="[1-9]' 1 "role-pair heatmaps with met cells"
count roles1 '<td>[^<]*\[r0\][^<]* vs [^<]*\[r1\][^<]*</td>' 1 "jobs naming their seats' roles"
need '<div id="err"></div>' "the page shows an error"
need '<div id="verr"></div>' "the views show an error"
console_clean sheriff
[ $fail = 0 ] || { echo "--- sheriff DOM:" >&2; cat "$dom" >&2; exit 1; }
curl -fsS "$base""ratings" >"$T/sheriff-ratings.json"
/usr/bin/python3 - "$T/sheriff-ratings.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["meta"] == "bimatrix" and r["model"] == "elo", (r["meta"], r["model"])
for q in (0, 1):
    s = sum(x["nash"] for x in r["ratings"] if x["pop"] == q)
    assert abs(s - 1) < 1e-6, (q, s)
print("page_test: sheriff /ratings: a bimatrix meta-Nash, each role's weights summing to 1")
PY
tip=$(hover_tip "$base" 'canvas.pairmap' 'mean return -?[0-9.]+ .the column.s -?[0-9.]+. over [0-9.]+ games')
echo "page_test: sheriff: $ladders ladders, $pairs role-pair heatmap, $roles1 jobs with seat roles; tooltip: $tip"
stop_league
echo "page_test: ok"
