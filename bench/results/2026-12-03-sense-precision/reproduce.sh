#!/bin/bash
# Calibration of rule-based@12 on LoCoMo and RHELM (development and held-out histories reported apart) and the
# quick start. Run from the repository root: bash bench/results/2026-12-03-sense-precision/reproduce.sh
set -euo pipefail
T=$(mktemp -d)
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R.jsonl" --offline --report                 # ~3 min
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report  # ~1 min
cp "$T/R.jsonl.calibration.json" "$T/L.jsonl.calibration.json" .
npm start
