#!/bin/bash
# rule-based@16 (asksAFact): calibration on RHELM (generator seeds 1 and 2) and LoCoMo, development and held-out
# histories apart; the quick start and its fidelity.
# Run from the repository root: bash bench/results/2026-12-03-fact-families/reproduce.sh
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-03-fact-families
for s in 1 2; do
  npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R$s.jsonl" --offline --report --seed "$s"  # ~3 min
  cp "$T/R$s.jsonl.calibration.json" "$D/calibration-rhelm-seed-$s.json"
done
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report  # ~1 min
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
npm start
npx memsteer report "$(ls -td archive/start-* | head -1)" --fidelity --json > "$D/fidelity-start.json"
