#!/bin/bash
# The evidence-kind mix of rule-based@21 (calibration report, RHELM seed 1), and code vs config under the ranking
# objective on RHELM (seed-1 set) and LoCoMo once the offline proposer skips constants only dead code reads.
# Run from the repository root: bash bench/results/2026-12-04-evidence-kinds/reproduce.sh   (about 45 minutes)
# The experiment files (experiment-*) come from kind-caps-and-table-counts.patch: `git apply` it first, and for the
# "kind caps" rows set TABLE_SHARE to 0 in src/supervision/rule-based/generator.ts.
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-04-evidence-kinds
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R1.jsonl" --offline --report --seed 1  # ~4 min
cp "$T/R1.jsonl.calibration.json" "$D/calibration-rhelm-seed-1.json"
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report
# ~8 min
npx memsteer compare --history locomo:../shared/data/locomo/locomo10.json --supervision "$T/L.jsonl" --iterations 20 \
  --test-categories 1,2,3,4 --offline --exclude-dev --rng-seed 1 --objective ranking --out "$T/loc-rank" | tee "$D/compare-locomo-ranking.txt"
cp "$T/loc-rank/compare.json" "$D/compare-locomo-ranking.json"
# ~25 min
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/R1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seed 1 --objective ranking --out "$T/cmp-rank" | tee "$D/compare-rhelm-ranking.txt"
cp "$T/cmp-rank/compare.json" "$D/compare-rhelm-ranking.json"
