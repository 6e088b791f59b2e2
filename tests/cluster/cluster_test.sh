#!/usr/bin/env bash
# tests/cluster/cluster_test.sh BIN [OUTDIR]: a league on three "hosts" over
# mutual TLS (make test-cluster; docs/cluster.md says what it shows).
#
# Hosts are network namespaces, each joined by a veth pair to a bridge in a
# fourth (the switch): the daemon on 10.77.0.1, host A (a learner and a
# collector) on 10.77.0.2, host B (the same) on 10.77.0.3. Collectors on one
# host stream trajectories to the learner on the other, so every kind of
# socket crosses the switch: the daemon's port, HTTPS, the learners'
# trajectory endpoints. Every check prints a line; the first failure stops
# the test (exit 1) after printing the logs' tails. The transcript goes to
# OUTDIR/cluster.txt.
#
# Cases (issue 19):
#   1. the league runs across the hosts; /status names each worker by its
#      certificate;
#   2. a worker with a certificate from another CA, and one with none, are
#      refused (exit 2, "refused"), and the daemon counts TLS failures;
#   3. a partition (host A's link down for 5 s) heals: A's sessions time
#      out, its jobs are re-queued, its workers reconnect with backoff and
#      the league goes on; the acknowledged job count never goes back;
#   4. SIGKILL of the daemon, then --resume: workers reconnect, nothing
#      acknowledged is lost (the committed counts are at least what /status
#      showed a second before the kill), and each learner keeps its
#      parameters and optimizer state (its log says so and its versions go
#      on from the one it pushed).
set -euo pipefail

BIN=$(realpath "$1")
OUT=$(realpath -m "${2:-build/cluster}")
mkdir -p "$OUT"
exec > >(tee "$OUT/cluster.txt") 2>&1

if [ "$(id -u)" != 0 ]; then
	echo "cluster: needs root (network namespaces)" >&2
	exit 1
fi
for c in ip curl /usr/bin/python3; do
	command -v "$c" >/dev/null || { echo "cluster: $c missing" >&2; exit 1; }
done

T=$$
SW=lc$T-sw; ND=lc$T-d; NA=lc$T-a; NB=lc$T-b
W=$(mktemp -d /tmp/league-cluster-XXXXXX)
declare -A PID=()

T0=$(date +%s%N)
log() {
	local ms=$((($(date +%s%N) - T0) / 1000000))
	printf '[%4d.%01ds] %s\n' $((ms / 1000)) $((ms % 1000 / 100)) "$*"
}

cleanup() {
	for k in "${!PID[@]}"; do kill -9 "${PID[$k]}" 2>/dev/null || true; done
	# only ours: a bare wait would also wait for the tee below
	for k in "${!PID[@]}"; do wait "${PID[$k]}" 2>/dev/null || true; done
	for n in $SW $ND $NA $NB; do ip netns del "$n" 2>/dev/null || true; done
	rm -rf "$W"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*"
	for f in "$W"/*.log; do
		echo "---- $(basename "$f") (last 15 lines)"
		tail -n 15 "$f"
	done
	exit 1
}

# ---- the network ----------------------------------------------------------
ip netns add $SW
ip netns exec $SW ip link add br0 type bridge
ip netns exec $SW ip link set br0 up
i=1
for h in d a b; do
	ns=lc$T-$h
	ip netns add "$ns"
	ip link add "lc$T$h" type veth peer name "lc${T}s$h"
	ip link set "lc$T$h" netns "$ns"
	ip link set "lc${T}s$h" netns $SW
	ip netns exec $SW ip link set "lc${T}s$h" master br0
	ip netns exec $SW ip link set "lc${T}s$h" up
	ip netns exec "$ns" ip addr add "10.77.0.$i/24" dev "lc$T$h"
	ip netns exec "$ns" ip link set "lc$T$h" up
	ip netns exec "$ns" ip link set lo up
	i=$((i + 1))
done
DADDR=10.77.0.1
log "network: daemon $DADDR, host A 10.77.0.2, host B 10.77.0.3 (namespaces $ND $NA $NB, bridge in $SW)"

# ---- certificates, token, config -------------------------------------------
# The daemon's certificate for its address alone; each host's for client
# use and for its learner's endpoint at its own address (a worker's
# certificate cannot pose as the daemon).
"$BIN" tls init "$W/tls" --names daemon,hosta=10.77.0.2,hostb=10.77.0.3 \
	--hosts 10.77.0.1 >/dev/null
"$BIN" tls init "$W/other" --names hostb=10.77.0.3 >/dev/null
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$W/token"
TOKEN=$(cat "$W/token")
cat >"$W/cluster.yaml" <<EOF
league: {name: cluster, dir: $W/league, seed: 3}
env: {name: rps}
model: {hidden: [8]}
learner: {batch: 64, minibatch: 32, epochs: 1}
players: {main: 1, main_exploiter: 1}
snapshot: {steps: 4000}
matchmaking: {job_episodes: 8, job_lease_s: 3}
collectors: {count: 2, envs: 8}
budget: {seconds: 100000}
server:
  listen: $DADDR
  port: 7700
  http_port: 7701
  heartbeat_s: 1
  token_file: $W/token
  tls: {cert: tls/daemon.pem, key: tls/daemon.key, ca: tls/ca.pem, verify_peers: true}
EOF
log "certificates: CA and daemon, hosta, hostb in tls/; another CA's hostb in other/"

# A worker on host h (a or b) with certificate dir/name.
worker() {
	local h=$1 dir=$2 name=$3
	shift 3
	# exec: the background job's pid is the worker's own, so kill and
	# kill -0 reach it, not a subshell
	exec ip netns exec "lc$T-$h" env LEAGUE_TOKEN="$TOKEN" \
		LEAGUE_TLS_CA="$W/tls/ca.pem" LEAGUE_TLS_CERT="$W/$dir/$name.pem" \
		LEAGUE_TLS_KEY="$W/$dir/$name.key" "$BIN" "$@"
}

status() {
	ip netns exec $ND curl -s --max-time 3 --cacert "$W/tls/ca.pem" \
		--cert "$W/tls/hosta.pem" --key "$W/tls/hosta.key" \
		-H "Authorization: Bearer $TOKEN" "https://$DADDR:7701/status"
}

# field EXPR: a Python expression over the status object s.
field() {
	status | /usr/bin/python3 -c "import json,sys; s=json.load(sys.stdin); print($1)" 2>/dev/null || echo ERR
}

# wait_for SECONDS EXPR: until the Python expression over /status is true.
wait_for() {
	local until=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt "$until" ]; do
		[ "$(field "bool($2)")" = True ] && return 0
		sleep 0.5
	done
	return 1
}

start_daemon() {
	ip netns exec $ND "$BIN" serve "$W/cluster.yaml" "$@" \
		--ports-file "$W/ports" >>"$W/daemon.log" 2>&1 &
	PID[daemon]=$!
}

# ---- 1. the league across the hosts ----------------------------------------
start_daemon
wait_for 20 "s['env_steps'] >= 0" || fail "the daemon did not answer HTTPS"
read -r _ P0 P1 <<<"$(grep '^learners' "$W/ports")"
worker a tls hosta learn --connect $DADDR:7700 --player "$P0" \
	--listen 10.77.0.2 --name learner-a >"$W/learner-a.log" 2>&1 &
PID[learner_a]=$!
worker b tls hostb learn --connect $DADDR:7700 --player "$P1" \
	--listen 10.77.0.3 --name learner-b >"$W/learner-b.log" 2>&1 &
PID[learner_b]=$!
worker a tls hosta collect --connect $DADDR:7700 --name collector-a \
	>"$W/collector-a.log" 2>&1 &
PID[collector_a]=$!
worker b tls hostb collect --connect $DADDR:7700 --name collector-b \
	>"$W/collector-b.log" 2>&1 &
PID[collector_b]=$!

READY="len([x for x in s['sessions'] if x['state'] == 'ready']) == 4"
wait_for 30 "$READY and all(l['version'] >= 3 for l in s['learners'])" ||
	fail "the league did not get going across the hosts"
log "1. running: $(field "'%d env steps, %d jobs, learner versions %s' % (s['env_steps'], s['jobs_done'], [l['version'] for l in s['learners']])")"
certs=$(field "sorted((x['name'], x['peer'].split(':')[0], x['certificate']) for x in s['sessions'])")
log "   sessions (name, host, certificate): $certs"
for want in "'collector-a', '10.77.0.2', 'hosta'" "'collector-b', '10.77.0.3', 'hostb'" \
	"'learner-a', '10.77.0.2', 'hosta'" "'learner-b', '10.77.0.3', 'hostb'"; do
	case "$certs" in *"($want)"*) ;; *) fail "no session ($want)" ;; esac
done

# ---- 2. strangers are refused ------------------------------------------------
set +e
timeout 30 ip netns exec $NB env LEAGUE_TOKEN="$TOKEN" \
	LEAGUE_TLS_CA="$W/tls/ca.pem" LEAGUE_TLS_CERT="$W/other/hostb.pem" \
	LEAGUE_TLS_KEY="$W/other/hostb.key" "$BIN" collect \
	--connect $DADDR:7700 --name stranger >"$W/stranger.log" 2>&1
rc_other=$?
timeout 30 ip netns exec $NB env LEAGUE_TOKEN="$TOKEN" \
	LEAGUE_TLS_CA="$W/tls/ca.pem" "$BIN" collect \
	--connect $DADDR:7700 --name nocert >"$W/nocert.log" 2>&1
rc_none=$?
# The same foreign certificate presented to the daemon's worker port by a
# client that does send it (league's own worker refuses to load it).
ip netns exec $NB curl -s --max-time 5 --cacert "$W/tls/ca.pem" \
	--cert "$W/other/hostb.pem" --key "$W/other/hostb.key" \
	"https://$DADDR:7700/" >/dev/null 2>&1
rc_curl=$?
set -e
log "2. a worker given another CA's certificate: exit $rc_other: $(head -c 150 "$W/stranger.log")"
log "   a worker with no certificate: exit $rc_none: $(grep -m1 -o 'refused.*' "$W/nocert.log" || true)"
log "   curl presenting another CA's certificate to the worker port: exit $rc_curl"
[ $rc_other = 2 ] && grep -q "does not verify against CA" "$W/stranger.log" ||
	fail "a worker with another CA's certificate was not refused"
[ $rc_none = 2 ] && grep -q "the server refused this client's certificate" "$W/nocert.log" ||
	fail "a worker without a certificate was not refused"
[ $rc_curl != 0 ] || fail "the daemon took a certificate from another CA"
wait_for 10 "s['connections']['tls_failures'] >= 2" ||
	fail "the daemon did not count 2 TLS failures"
log "   daemon: tls_failures $(field "s['connections']['tls_failures']"); log:"
grep -o 'refused: TLS.*' "$W/daemon.log" | sed 's/^/             /'
[ "$(grep -c 'refused: TLS' "$W/daemon.log")" -ge 2 ] ||
	fail "the daemon did not log both refusals"

# ---- 3. a partition heals ------------------------------------------------------
j1=$(field "s['jobs_done']"); r1=$(field "s['jobs_requeued']")
ids1=$(field "sorted(x['id'] for x in s['sessions'] if x['peer'].startswith('10.77.0.2'))")
log "3. before: jobs_done $j1, jobs_requeued $r1, host A's sessions $ids1; host A's link down for 5 s"
ip netns exec $SW ip link set "lc${T}sa" down
last=$j1
for k in $(seq 10); do
	sleep 0.5
	j=$(field "s['jobs_done']")
	[ "$j" = ERR ] && continue
	[ "$j" -ge "$last" ] || fail "jobs_done went back from $last to $j"
	last=$j
done
during=$(field "len([x for x in s['sessions'] if x['peer'].startswith('10.77.0.2')])")
ip netns exec $SW ip link set "lc${T}sa" up
log "   during: host A's sessions left: $during; link up again"
wait_for 60 "$READY and sorted(x['id'] for x in s['sessions'] if x['peer'].startswith('10.77.0.2')) != $ids1 and len([x for x in s['sessions'] if x['peer'].startswith('10.77.0.2')]) == 2 and s['jobs_done'] > $last" ||
	fail "the partition did not heal"
# The jobs host A's collector held at the cut come back: re-queued when its
# session times out or their leases expire, whichever comes first. It may
# hold none (a collector no longer waits on a learner across the cut, so
# its short rps jobs can all be reported just before it), and then there
# is nothing to re-queue; what the daemon logged says which.
held=$(sed -n "/(collector-a): heartbeat timeout/,\$p" "$W/daemon.log" |
	grep -c 're-queued' || true)
if [ "$held" -gt 0 ] || [ "$(field "s['jobs_requeued']")" -gt "$r1" ]; then
	[ "$(field "s['jobs_requeued']")" -gt "$r1" ] ||
		fail "the daemon logged jobs re-queued, but jobs_requeued stayed $r1"
else
	log "   collector-a held no job at the cut: nothing to re-queue"
fi
log "   after: $(field "'jobs_done %d, jobs_requeued %d, host A sessions %s' % (s['jobs_done'], s['jobs_requeued'], sorted(x['id'] for x in s['sessions'] if x['peer'].startswith('10.77.0.2')))")"
log "   collector-a: $(grep -c -i 'reconnect' "$W/collector-a.log" || true) reconnect line(s), e.g. $(grep -m1 -i 'reconnect' "$W/collector-a.log" | cut -c1-110)"
[ "$during" = 0 ] || fail "host A's sessions were not dropped during the partition"
wait_for 20 "all(l['connected'] for l in s['learners'])" ||
	fail "a learner did not re-register after the partition"
log "   learner-a: $(grep "registered again" "$W/learner-a.log" | tail -n1 | sed 's/.*info: //')"
for k in learner_a learner_b collector_a collector_b; do
	kill -0 "${PID[$k]}" 2>/dev/null || fail "$k exited"
done

# ---- 4. SIGKILL of the daemon, then --resume -------------------------------------
before=$(field "'%d %d %d %d' % (s['jobs_done'], s['env_steps'], s['learners'][0]['version'], s['learners'][1]['version'])")
read -r j2 e2 va vb <<<"$before"
kept_a=$(grep -c "kept its parameters and optimizer state" "$W/learner-a.log" || true)
kept_b=$(grep -c "kept its parameters and optimizer state" "$W/learner-b.log" || true)
sleep 1
kill -9 "${PID[daemon]}"
wait "${PID[daemon]}" 2>/dev/null || true
log "4. kill -9 of the daemon (a second after /status said jobs_done $j2, env_steps $e2, versions $va $vb)"
start_daemon --resume
wait_for 60 "$READY and s['jobs_done'] > $j2 and s['learners'][0]['version'] > $va and s['learners'][1]['version'] > $vb" ||
	fail "the league did not resume with every worker"
resumed=$(grep "env steps so far" "$W/daemon.log" | tail -n1 | grep -o "[0-9]* env steps so far" | cut -d' ' -f1)
[ "$resumed" -ge "$e2" ] || fail "resumed at $resumed env steps, below the $e2 /status showed"
log "   resumed at $resumed committed env steps (>= $e2); now $(field "'jobs_done %d, versions %s' % (s['jobs_done'], [l['version'] for l in s['learners']])")"
for l in a b; do
	k=kept_$l
	line=$(grep "kept its parameters and optimizer state" "$W/learner-$l.log" |
		tail -n +$((${!k} + 1)) | head -n1)
	[ -n "$line" ] || fail "learner-$l did not keep its trainer across the restart"
	log "   learner-$l: ${line#*info: }"
done
for k in learner_a learner_b collector_a collector_b; do
	kill -0 "${PID[$k]}" 2>/dev/null || fail "$k exited"
done

# ---- stop ----------------------------------------------------------------------
kill -TERM "${PID[daemon]}"
for k in daemon learner_a learner_b collector_a collector_b; do
	for s in $(seq 60); do kill -0 "${PID[$k]}" 2>/dev/null || break; sleep 0.5; done
	kill -0 "${PID[$k]}" 2>/dev/null && fail "$k did not stop after the drain"
	unset "PID[$k]"
done
log "stopped: the daemon drained and every worker exited"
echo "cluster: PASS"
