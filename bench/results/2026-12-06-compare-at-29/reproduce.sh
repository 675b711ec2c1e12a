#!/bin/bash
# Issue 11 on the current generator (rule-based@29): code search against config search, held-out histories,
# 20 iterations per arm, ranking objective. LoCoMo at RNG seeds 1-3 with the fidelity of each code arm's candidates,
# RHELM (seed-1 set) at RNG seeds 1 and 2. From the repository root:
#   bash bench/results/2026-12-06-compare-at-29/reproduce.sh   (about 2 hours on a quiet machine; RHELM is most of it)
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-06-compare-at-29
RHELM=$ROOT/../shared/data/rhelm
LOCOMO=$ROOT/../shared/data/locomo/locomo10.json
T=$(mktemp -d)
npx memsteer generate --history "locomo:$LOCOMO" --out "$T/L.jsonl" --offline --report > /dev/null
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
npx memsteer compare --history "locomo:$LOCOMO" --supervision "$T/L.jsonl" --iterations 20 --test-categories 1,2,3,4 \
  --offline --exclude-dev --rng-seeds 1,2,3 --objective ranking --out "$T/loc" | sed 's/\x1b\[[0-9;]*m//g' > "$D/compare-locomo-rng123.txt"
cp "$T/loc/compare-seeds.json" "$D/compare-locomo-rng123.json"
for s in 1 2 3; do
  cp "$T/loc/seed-$s/compare.json" "$D/compare-locomo-rng$s.json"
  npx memsteer report "$T/loc/seed-$s/code" --fidelity --exclude-dev --json > "$D/fidelity-locomo-rng$s-code.json"
done
npx memsteer generate --history "rhelm:$RHELM" --out "$T/S1.jsonl" --offline --seed 1 --report > /dev/null
cp "$T/S1.jsonl.calibration.json" "$D/calibration-rhelm-seed1.json"
sha256sum "$T/S1.jsonl"   # 0d4495c196ff39a4... on rule-based@29
npx memsteer compare --history "rhelm:$RHELM" --supervision "$T/S1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seeds 1,2 --objective ranking --out "$T/rh" | sed 's/\x1b\[[0-9;]*m//g' > "$D/compare-rhelm-rng12.txt"
cp "$T/rh/compare-seeds.json" "$D/compare-rhelm-rng12.json"
for s in 1 2; do cp "$T/rh/seed-$s/compare.json" "$D/compare-rhelm-rng$s.json"; done
