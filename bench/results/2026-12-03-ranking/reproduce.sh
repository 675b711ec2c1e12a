#!/bin/bash
# The ranking objective (R@10 of the gold evidence among the ranked records) against the evidence objective (context
# recall), code vs config search, offline, development histories excluded: LoCoMo (cat 1-4) at RNG seeds 1-3, RHELM
# at seed 1 on rule-based@19's seed-1 set, and RHELM's evidence-objective compare on the same set.
# Run from the repository root: bash bench/results/2026-12-03-ranking/reproduce.sh   (about 90 minutes, 2 cores)
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-03-ranking
LOCOMO=locomo:../shared/data/locomo/locomo10.json
RHELM=rhelm:../shared/data/rhelm
npx memsteer generate --history "$LOCOMO" --out "$T/L.jsonl" --offline             # ~1-2 min
npx memsteer generate --history "$RHELM" --out "$T/R1.jsonl" --offline --seed 1    # ~2-3 min
for s in 1 2 3; do                                                                 # ~7 min each
  npx memsteer compare --history "$LOCOMO" --supervision "$T/L.jsonl" --iterations 20 --test-categories 1,2,3,4 \
    --offline --exclude-dev --rng-seed "$s" --objective ranking --out "$T/loc-rank-$s" > "$D/compare-locomo-ranking-seed-$s.txt"
  cp "$T/loc-rank-$s/compare.json" "$D/compare-locomo-ranking-seed-$s.json"
done
for o in ranking evidence; do                                                      # ~27 min each
  npx memsteer compare --history "$RHELM" --supervision "$T/R1.jsonl" --iterations 20 --offline --exclude-dev \
    --rng-seed 1 --objective "$o" --out "$T/rhelm-$o" > "$D/compare-rhelm-$o.txt"
  cp "$T/rhelm-$o/compare.json" "$D/compare-rhelm-$o.json"
done
