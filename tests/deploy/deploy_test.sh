#!/usr/bin/env bash
# tests/deploy/deploy_test.sh BIN [OUTDIR]: every file under deploy/ checked
# by a real tool (make test-deploy; docs/deploy.md says which checks what).
#
#   systemd     systemd-analyze verify on the three units (the templates as
#               instances), ExecStart pointed at BIN; any message fails.
#   Slurm       a single-node Slurm started here (munged, slurmctld, slurmd
#               in a scratch directory, root) runs deploy/slurm/league.sbatch
#               with sbatch --wait on configs/tiny.yaml: the job must end
#               0 and print the payoff matrix, the daemon, a learner and
#               collectors each having run as job steps.
#   Kubernetes  tests/deploy/k8s_check.py walks deploy/k8s/league.yaml
#               against the API's types (python3-kubernetes); the Secret
#               commands its header gives run with kubectl --dry-run=client
#               and their output is walked the same way.
#   Container   every shared library BIN loads comes from a package the
#               Containerfile's runtime stage installs (or their
#               dependencies), by ldd, dpkg -S and apt-cache depends;
#               every package either stage names exists (apt-cache show).
# The transcript goes to OUTDIR/deploy.txt.
set -euo pipefail

BIN=$(realpath "$1")
OUT=$(realpath -m "${2:-build/deploy}")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"
exec > >(tee "$OUT/deploy.txt") 2>&1
W=$(mktemp -d /tmp/league-deploy-XXXXXX)
chmod 755 "$W" # munged (user munge) reaches its directory through it
stop_pidfile() { [ -f "$1" ] && kill "$(cat "$1")" 2>/dev/null || true; }
cleanup() {
	if [ -f "$W/slurm/slurm.conf" ]; then
		# jobs first: their steps outlive a killed slurmd
		SLURM_CONF=$W/slurm/slurm.conf scancel --full --user=root 2>/dev/null || true
		for _ in $(seq 20); do
			[ -z "$(SLURM_CONF=$W/slurm/slurm.conf squeue -h 2>/dev/null)" ] && break
			sleep 0.5
		done
	fi
	stop_pidfile "$W/slurm/slurmd.pid"
	stop_pidfile "$W/slurm/slurmctld.pid"
	stop_pidfile "$W/slurm/munge/munged.pid"
	sleep 0.5
	rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# ---- systemd -----------------------------------------------------------------
mkdir -p "$W/units"
for f in "$SRC"/deploy/systemd/*.service; do
	sed "s#/usr/local/bin/league#$BIN#" "$f" >"$W/units/$(basename "$f")"
done
cp "$W/units/league-collector@.service" "$W/units/league-collector@1.service"
cp "$W/units/league-learner@.service" "$W/units/league-learner@0.service"
msgs=$(cd "$W/units" && systemd-analyze verify ./league.service \
	./league-collector@1.service ./league-learner@0.service 2>&1) ||
	fail "systemd-analyze verify: $msgs"
[ -z "$msgs" ] || fail "systemd-analyze verify said: $msgs"
echo "systemd: systemd-analyze verify league.service league-collector@1.service league-learner@0.service: no message ($(systemd-analyze --version | head -n1))"

# ---- Kubernetes ----------------------------------------------------------------
/usr/bin/python3 "$SRC/tests/deploy/k8s_check.py" "$SRC/deploy/k8s/league.yaml" ||
	fail "deploy/k8s/league.yaml"
"$BIN" tls init "$W/tls" \
	--names daemon,'worker=*.league-learner.league.svc.cluster.local' \
	--hosts league-daemon,127.0.0.1 >/dev/null
printf 'secret' >"$W/token"
(cd "$W/tls" &&
	kubectl create secret generic league-token --from-file=token="$W/token" \
		--dry-run=client -o yaml >"$W/secret-token.yaml" &&
	kubectl create secret generic league-tls --from-file=ca.pem \
		--from-file=daemon.pem --from-file=daemon.key \
		--from-file=worker.pem --from-file=worker.key \
		--dry-run=client -o yaml >"$W/secret-tls.yaml") ||
	fail "kubectl create secret --dry-run=client"
/usr/bin/python3 "$SRC/tests/deploy/k8s_check.py" "$W/secret-token.yaml" \
	"$W/secret-tls.yaml" || fail "the Secrets kubectl made"
echo "kubernetes: the Secret commands ran with kubectl --dry-run=client ($(kubectl version --client 2>/dev/null | head -n1))"
if kubectl apply --dry-run=client -f "$SRC/deploy/k8s/league.yaml" >"$W/kubectl.txt" 2>&1; then
	echo "kubernetes: kubectl apply --dry-run=client: ok"
else
	echo "kubernetes: kubectl apply --dry-run=client needs an API server for discovery, and none runs here: $(grep -m1 -o 'failed to download openapi[^;]*\|unable to recognize[^:]*' "$W/kubectl.txt" || head -c 120 "$W/kubectl.txt")"
fi

# ---- the container image's libraries -----------------------------------------------
stage_pkgs() { # the packages the n-th apt-get install line of the Containerfile names
	awk -v n="$1" '/apt-get install/ {k++} k == n {print} /&& rm|^COPY|^$/ && k == n {exit}' \
		"$SRC/deploy/Containerfile" | tr ' \\\t' '\n\n\n' |
		grep -E '^[a-z0-9][a-z0-9.+-]+$' |
		grep -vE '^(apt-get|install|update|rm|run|y|no-install-recommends|lib/apt/lists)$' |
		sort -u
}
build=$(stage_pkgs 1)
runtime=$(stage_pkgs 2)
for p in $build $runtime; do
	apt-cache show "$p" >/dev/null 2>&1 || fail "Containerfile: no Debian package $p"
done
closure=$(apt-cache depends --recurse --no-recommends --no-suggests \
	--no-conflicts --no-breaks --no-replaces --no-enhances $runtime 2>/dev/null |
	grep -v '^ ' | sed 's/:.*//' | sort -u)
missing=""
nlib=0
for lib in $(ldd "$BIN" | awk '$3 ~ /^\// {print $3}'); do
	real=$(realpath "$lib")
	pkg=$(dpkg -S "$real" 2>/dev/null || dpkg -S "/usr$real" 2>/dev/null ||
		dpkg -S "${real#/usr}" 2>/dev/null || true)
	pkg=${pkg%%:*}
	nlib=$((nlib + 1))
	[ -n "$pkg" ] || { missing="$missing $lib(no package)"; continue; }
	grep -qx "$pkg" <<<"$closure" || missing="$missing $lib($pkg)"
done
[ -z "$missing" ] || fail "Containerfile: the runtime stage lacks$missing"
echo "container: $(wc -w <<<"$build") build and $(wc -w <<<"$runtime") runtime packages exist; the runtime stage provides all $nlib libraries ldd lists"

# ---- Slurm ---------------------------------------------------------------------------
S=$W/slurm
mkdir -p "$S/state" "$S/spool" "$S/log" "$S/munge" "$S/job"
chown munge:munge "$S/munge"
chmod 755 "$S/munge" # munged wants its socket's directory searchable by all
mungekey -c -k "$S/munge/munge.key" -f >/dev/null 2>&1 ||
	dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null
chown munge:munge "$S/munge/munge.key"
chmod 400 "$S/munge/munge.key"
runuser -u munge -- /usr/sbin/munged --key-file="$S/munge/munge.key" \
	--socket="$S/munge/munge.sock" --pid-file="$S/munge/munged.pid" \
	--log-file="$S/munge/munged.log" --seed-file="$S/munge/seed" ||
	fail "munged did not start"
H=$(hostname)
cat >"$S/slurm.conf" <<EOF
ClusterName=league-test
SlurmctldHost=$H
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldPort=16917
SlurmdPort=16918
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
NodeName=$H NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
export SLURM_CONF=$S/slurm.conf
slurmctld -i || fail "slurmctld did not start"
slurmd || fail "slurmd did not start"
for _ in $(seq 60); do
	sinfo -h -o %t 2>/dev/null | grep -q idle && break
	sleep 0.5
done
sinfo -h -o %t | grep -q idle || fail "the Slurm node never became idle: $(tail -n 5 "$S/log/slurmctld.log")"
echo "slurm: a single-node Slurm here ($(sinfo --version)): $(sinfo -h -o '%P %D node(s) %t')"
rc=0
(cd "$S/job" && LEAGUE_BIN="$BIN" LEAGUE_CONFIG="$SRC/configs/tiny.yaml" \
	LEAGUE_LEARNER_LISTEN=127.0.0.1 LEAGUE_DAEMON_HOST=127.0.0.1 \
	timeout 180 sbatch --wait -N 1 -D "$S/job" "$SRC/deploy/slurm/league.sbatch") || rc=$?
out=$(ls "$S"/job/league-*.out 2>/dev/null | head -n1)
[ -n "$out" ] || fail "sbatch wrote no output (exit $rc)"
grep -v 'update [0-9]*:' "$out" >"$OUT/slurm-job.txt"
[ "$rc" = 0 ] || fail "the Slurm job failed ($rc): $(tail -n 20 "$out")"
grep -q '^league: daemon on' "$out" || fail "no daemon line"
grep -q 'info: learn: player .* registered' "$out" || fail "no learner ran"
grep -q 'info: collect: stops' "$out" || fail "no collector ran"
grep -q "win rate of row against column" "$out" || fail "no payoff matrix"
echo "slurm: sbatch --wait deploy/slurm/league.sbatch: exit 0; $(grep -m1 '^league: daemon on' "$out")"
echo "       $(grep -c 'info: collect: stops' "$out") collector(s) and $(grep -c 'info: learn: player .* stops' "$out") learner(s) ran as job steps; payoff printed"
echo "deploy: PASS"
