#!/bin/bash
# rule-based@34: look-ups in a table of a shared document (section-cell), table nouns by the pluralize package.
# Calibration on RHELM (seeds 1-3) and LoCoMo, per-template difficulty on the development personas, and the quick
# start with its fidelity. From the repository root:
#   bash bench/results/2026-12-06-table-cells/reproduce.sh   (about 25 minutes on a quiet machine)
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-06-table-cells
RHELM=$ROOT/../shared/data/rhelm
LOCOMO=$ROOT/../shared/data/locomo/locomo10.json
T=$(mktemp -d)
for s in 1 2 3; do
  npx memsteer generate --history "rhelm:$RHELM" --out "$T/S$s.jsonl" --offline --seed "$s" --report | tee "$T/generate-$s.out"
  cp "$T/S$s.jsonl.calibration.json" "$D/calibration-rhelm-seed$s.json"
  sed 's/\x1b\[[0-9;]*m//g' "$T/generate-$s.out" | grep -A40 '^calibration' > "$D/calibration-rhelm-seed$s.txt"
done
sha256sum "$T/S1.jsonl"   # 6bde9f3783486973... on rule-based@34
npx tsx bench/results/2026-12-06-clauses-and-names/per-template.mts "$T/S1.jsonl" Jonas_Richter Justice_Arvind_Prakash_Mehra \
  > "$D/per-template-seed1.txt"
npx memsteer generate --history "locomo:$LOCOMO" --out "$T/L.jsonl" --offline --report > /dev/null
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
npx memsteer start --out "$T/start" | tee "$T/start.out"
cp "$T/start/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$T/start" --fidelity --json > "$D/fidelity-start.json"
