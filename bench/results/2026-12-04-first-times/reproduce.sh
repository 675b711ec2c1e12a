#!/bin/bash
# rule-based@21 (first and last time of something done on several days) with the whole-set calibration figure, and
# bridges that need two conversations' support: RHELM calibration at generator seeds 1-3, LoCoMo calibration, the
# quick start, and code vs config under the ranking objective on RHELM (seed-1 set) and LoCoMo.
# Run from the repository root: bash bench/results/2026-12-04-first-times/reproduce.sh   (about 50 minutes)
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-04-first-times
for s in 1 2 3; do
  npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R$s.jsonl" --offline --report --seed "$s"  # ~3-4 min
  cp "$T/R$s.jsonl.calibration.json" "$D/calibration-rhelm-seed-$s.json"
done
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
npm start | tee "$T/start.out"
R=$(ls -td archive/start-* | head -1)
cp "$R/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"  # ~3 min
# ~8 min
npx memsteer compare --history locomo:../shared/data/locomo/locomo10.json --supervision "$T/L.jsonl" --iterations 20 \
  --test-categories 1,2,3,4 --offline --exclude-dev --rng-seed 1 --objective ranking --out "$T/loc-rank" | tee "$D/compare-locomo-ranking.txt"
cp "$T/loc-rank/compare.json" "$D/compare-locomo-ranking.json"
# ~25 min
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/R1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seed 1 --objective ranking --out "$T/cmp-rank" | tee "$D/compare-rhelm-ranking.txt"
cp "$T/cmp-rank/compare.json" "$D/compare-rhelm-ranking.json"
