#!/bin/bash
# Calibration of rule-based@15 on RHELM (generator seeds 1 and 2; development and held-out histories reported apart)
# and LoCoMo; the paired effect of placing questions in their day, by kind; the quick start and its fidelity.
# all-dates-replaced/: the same with IN_PLACE_SHARE = 1 in src/supervision/rule-based/situation.ts.
# Run from the repository root: bash bench/results/2026-12-03-situated-days/reproduce.sh
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-03-situated-days
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R.jsonl" --offline --report                  # ~3 min
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R2.jsonl" --offline --report --seed 2        # ~3 min
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report  # ~1 min
cp "$T/R.jsonl.calibration.json" "$D/calibration-rhelm-seed-1.json"
cp "$T/R2.jsonl.calibration.json" "$D/calibration-rhelm-seed-2.json"
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
# The situated items of seed 1, as generated and with the question they were before, scored by Base-BM25.
npx tsx bench/situation-paired.ts "$T/R.jsonl" "$D/situation-paired.json"
npm start
npx memsteer report "$(ls -td archive/start-* | head -1)" --fidelity --json > "$D/fidelity-start.json"
