#!/bin/bash
# rule-based@19 (a false premise in a user's own history: the companion swapped): RHELM calibration at generator
# seeds 1-3, the quick start and its fidelity. LoCoMo is unchanged: its set is byte-identical to rule-based@18's but
# for the generator label, so bench/results/2026-12-03-user-voice/ keeps its LoCoMo figures and compares.
# Run from the repository root: bash bench/results/2026-12-03-companions/reproduce.sh   (about 15 minutes)
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-03-companions
for s in 1 2 3; do
  npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R$s.jsonl" --offline --report --seed "$s"  # ~2-3 min
  cp "$T/R$s.jsonl.calibration.json" "$D/calibration-rhelm-seed-$s.json"
done
npm start | tee "$T/start.out"
R=$(ls -td archive/start-* | head -1)
cp "$R/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"  # ~3 min
