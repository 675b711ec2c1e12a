#!/bin/bash
# rule-based@18: calibration on RHELM (generator seeds 1, 2 and 3) and LoCoMo, development and held-out histories apart;
# the quick start and its fidelity; code vs config search on LoCoMo (held out: RNG seeds 1-3; development
# conversations one by one) with this generator's set and with rule-based@17's, and on held-out RHELM with @17's
# seed-1 set (as measured). Sets of @17 are generated from its commit (1655fe5) in a temporary worktree.
# Run from the repository root: bash bench/results/2026-12-03-user-voice/reproduce.sh   (about 90 minutes)
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-03-user-voice
LOCOMO=locomo:../shared/data/locomo/locomo10.json
for s in 1 2 3; do
  npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R$s.jsonl" --offline --report --seed "$s"  # ~2-3 min
  cp "$T/R$s.jsonl.calibration.json" "$D/calibration-rhelm-seed-$s.json"
done
npx memsteer generate --history "$LOCOMO" --out "$T/L.jsonl" --offline --report  # ~1 min
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
npm start
npx memsteer report "$(ls -td archive/start-* | head -1)" --fidelity --json > "$D/fidelity-start.json"

# rule-based@17's sets, from its own commit.
git worktree add -q "$T/at17" 1655fe5
ln -s "$PWD/node_modules" "$T/at17/node_modules"
DATA=$(cd ../shared/data && pwd)
(cd "$T/at17" && node bin/memsteer.js generate --history "locomo:$DATA/locomo/locomo10.json" --out "$T/L17.jsonl" --offline --report)
(cd "$T/at17" && node bin/memsteer.js generate --history "rhelm:$DATA/rhelm" --out "$T/R1-at-17.jsonl" --offline --seed 1)
git worktree remove --force "$T/at17"
cp "$T/L17.jsonl.calibration.json" "$D/calibration-locomo-at-17.json"

# Code vs config on held-out LoCoMo (~5 min per RNG seed and set).
npx memsteer compare --history "$LOCOMO" --supervision "$T/L.jsonl" --iterations 20 --test-categories 1,2,3,4 \
  --offline --exclude-dev --rng-seed 1 --out "$T/cmp-locomo"
cp "$T/cmp-locomo/compare.json" "$D/compare-locomo.json"
npx memsteer compare --history "$LOCOMO" --supervision "$T/L17.jsonl" --iterations 20 --test-categories 1,2,3,4 \
  --offline --exclude-dev --rng-seed 1 --out "$T/cmp-locomo-17"
cp "$T/cmp-locomo-17/compare.json" "$D/compare-locomo-at-17.json"
for v in L L17; do
  npx memsteer compare --history "$LOCOMO" --supervision "$T/$v.jsonl" --iterations 20 --test-categories 1,2,3,4 \
    --offline --exclude-dev --rng-seeds 2,3 --out "$T/s23-$v"
  cp "$T/s23-$v/compare-seeds.json" "$D/compare-locomo-seeds-2-3$([ "$v" = L17 ] && echo -at-17).json"
done
# The same on each development conversation alone (the evidence the set-shares change was decided on).
for c in conv-26 conv-30; do
  for v in L L17; do
    npx memsteer compare --history "$LOCOMO#$c" --supervision "$T/$v.jsonl" --iterations 20 --test-categories 1,2,3,4 \
      --offline --rng-seed 1 --out "$T/dev-$c-$v"
    cp "$T/dev-$c-$v/compare.json" "$D/locomo-dev/compare-$c-at-$([ "$v" = L17 ] && echo 17 || echo 18).json"
  done
done
# Code vs config on held-out RHELM (~30 min) on @17's seed-1 set.
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/R1-at-17.jsonl" \
  --iterations 20 --offline --exclude-dev --rng-seed 1 --out "$T/cmp-rhelm"
cp "$T/cmp-rhelm/compare.json" "$D/compare-rhelm.json"
