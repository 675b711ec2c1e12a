#!/bin/bash
# Calibration of rule-based@14 on RHELM (generator seeds 1 and 2) and LoCoMo, development and held-out histories
# reported apart; the paired effect of placing questions in their day; the quick start.
# Run from the repository root: bash bench/results/2026-12-03-coverage/reproduce.sh
# The tried event families: git apply bench/results/2026-12-03-coverage/tried-event-families.patch on b4f9379.
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-03-coverage
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R.jsonl" --offline --report                  # ~3 min
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R2.jsonl" --offline --report --seed 2        # ~3 min
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report  # ~1 min
cp "$T/R.jsonl.calibration.json" "$D/calibration-rhelm-all.json"
cp "$T/R2.jsonl.calibration.json" "$D/calibration-rhelm-all-seed-2.json"
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo-all.json"
# The situated items of seed 1, as generated and with the question they were before, scored by Base-BM25.
npx tsx bench/situation-paired.ts "$T/R.jsonl" "$D/situation-paired.json"
npm start
