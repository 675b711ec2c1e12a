#!/bin/bash
# rule-based@25: a situated question is asked after the event that names its day. RHELM seed-1 set and its
# calibration table; the RHELM compare at RNG seed 2; the quick start and its fidelity. From the repository root:
#   bash bench/results/2026-12-05-asked-after-situation/reproduce.sh   (about 50 minutes)
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-05-asked-after-situation
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/S1.jsonl" --offline --seed 1 --report | tee "$T/generate.out"
cp "$T/S1.jsonl.calibration.json" "$D/calibration-rhelm-seed1.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/generate.out" | grep -A40 '^calibration' > "$D/calibration-rhelm-seed1.txt"
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/S1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seed 2 --objective ranking --out "$T/rng2" | tee "$D/compare-rhelm-ranking-rng2.txt"
cp "$T/rng2/compare.json" "$D/compare-rhelm-ranking-rng2.json"
npm start | tee "$T/start.out"
R=$(ls -td archive/start-* | head -1)
cp "$R/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"
