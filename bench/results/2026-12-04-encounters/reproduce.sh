#!/bin/bash
# rule-based@20 (a companion false premise cites the whole encounter): RHELM calibration at generator seeds 1-3,
# the quick start and its fidelity, and RHELM code vs config under the ranking objective on the seed-1 set.
# LoCoMo is unchanged: its set is byte-identical to rule-based@19's but for the generator label (the family fires
# only in a user's own history); its seed-1 ranking compare is rerun because the search changed (inert constants).
# compare-rhelm-ranking-at-5c796ff.* is the same compare at commit 5c796ff (before inert constants were skipped):
# check that commit out to reproduce it.
# Run from the repository root: bash bench/results/2026-12-04-encounters/reproduce.sh   (about 55 minutes)
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-04-encounters
for s in 1 2 3; do
  npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R$s.jsonl" --offline --report --seed "$s"  # ~2-3 min
  cp "$T/R$s.jsonl.calibration.json" "$D/calibration-rhelm-seed-$s.json"
done
npm start | tee "$T/start.out"
R=$(ls -td archive/start-* | head -1)
cp "$R/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"  # ~3 min
# ~27 min
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/R1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seed 1 --objective ranking --out "$T/cmp-rank" | tee "$D/compare-rhelm-ranking.txt"
cp "$T/cmp-rank/compare.json" "$D/compare-rhelm-ranking.json"
# ~8 min; the LoCoMo set is rule-based@20's (byte-identical to @19's but for the label)
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline
npx memsteer compare --history locomo:../shared/data/locomo/locomo10.json --supervision "$T/L.jsonl" --iterations 20 \
  --test-categories 1,2,3,4 --offline --exclude-dev --rng-seed 1 --objective ranking --out "$T/loc-rank" | tee "$D/compare-locomo-ranking-seed-1.txt"
cp "$T/loc-rank/compare.json" "$D/compare-locomo-ranking-seed-1.json"
