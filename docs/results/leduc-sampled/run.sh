#!/bin/sh
# Leduc's MMD dynamics with sampled steps (docs/results.md, "Sampled
# steps on the tree"): each row one `league eval nashconv` run, 1,800
# iterations of 16,000 self-play episodes, ALPHA 0.1, the league's moving
# magnet (0.5, every 10 iterations), on the seeds given (default 1).
# Prints CSV. Usage: docs/results/leduc-sampled/run.sh [LEAGUE_BIN [SEED...]]
L=${1:-bin/league}
[ $# -gt 0 ] && shift
SEEDS=${*:-1}
echo "estimator,clip,reach,eta,seed,last,average"
row() { # estimator clip reach eta seed
	last=$($L eval nashconv --game leduc --policy "mmd:0.1:$4:1800:0.5:10" \
		--sampled 16000 --estimator $1 --clip $2 --reach $3 --seed $5 |
		awk '$1 == "nashconv" { print $2 }')
	avg=$($L eval nashconv --game leduc --policy "mmdavg:0.1:$4:1800:0.5:10" \
		--sampled 16000 --estimator $1 --clip $2 --reach $3 --seed $5 |
		awk '$1 == "nashconv" { print $2 }')
	echo "$1,$2,$3,$4,$5,$last,$avg"
}
for seed in $SEEDS; do
	row outcome 0 0 0.1 $seed     # unclipped importance weights
	row outcome 13 0 0.1 $seed    # clipped to the return range
	row history 13 0 0.1 $seed    # a perfect history critic
	row allq 0 0 0.1 $seed        # its all-actions form
	row outcome 13 1 0.1 $seed    # steps in proportion to visits
	row outcome 13 1 0.4 $seed
	row outcome 13 1 0.8 $seed
	row outcome 13 4 0.1 $seed    # up to 4x faster at rare infosets
	row outcome 13 4 0.4 $seed
	row outcome 13 16 0.4 $seed
done
