#!/bin/bash
# rule-based@18: calibration on RHELM (generator seeds 1, 2 and 3) and LoCoMo, development and held-out histories apart;
# the quick start and its fidelity; code vs config search on held-out RHELM (rule-based@17's seed-1 set, as measured)
# and on held-out LoCoMo (this generator's set).
# Run from the repository root: bash bench/results/2026-12-03-user-voice/reproduce.sh
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-03-user-voice
for s in 1 2 3; do
  npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R$s.jsonl" --offline --report --seed "$s"  # ~2-3 min
  cp "$T/R$s.jsonl.calibration.json" "$D/calibration-rhelm-seed-$s.json"
done
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report  # ~1 min
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
npm start
npx memsteer report "$(ls -td archive/start-* | head -1)" --fidelity --json > "$D/fidelity-start.json"
# Code vs config, LoCoMo held out (~10 min).
npx memsteer compare --history locomo:../shared/data/locomo/locomo10.json --supervision "$T/L.jsonl" \
  --iterations 20 --test-categories 1,2,3,4 --offline --exclude-dev --rng-seed 1 --out "$T/cmp-locomo"
cp "$T/cmp-locomo/compare.json" "$D/compare-locomo.json"
# Code vs config, RHELM held out (~35 min), on the set rule-based@17 wrote for seed 1 (generated from its commit).
git worktree add -q "$T/at17" 1655fe5
ln -s "$PWD/node_modules" "$T/at17/node_modules"
RHELM=$(cd ../shared/data/rhelm && pwd)
(cd "$T/at17" && node bin/memsteer.js generate --history "rhelm:$RHELM" --out "$T/R1-at-17.jsonl" --offline --seed 1)
git worktree remove --force "$T/at17"
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/R1-at-17.jsonl" \
  --iterations 20 --offline --exclude-dev --rng-seed 1 --out "$T/cmp-rhelm"
cp "$T/cmp-rhelm/compare.json" "$D/compare-rhelm.json"
