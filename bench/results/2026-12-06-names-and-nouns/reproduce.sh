#!/bin/bash
# rule-based@31: names are not cut, topics end on a noun, no day as a thing done, no document by its file's name.
# Calibration on RHELM (seeds 1-3) and LoCoMo, issue 11's LoCoMo compare (RNG seeds 1-3) with each code arm's
# fidelity, and the quick start with its fidelity. From the repository root:
#   bash bench/results/2026-12-06-names-and-nouns/reproduce.sh   (about 50 minutes on a quiet machine)
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-06-names-and-nouns
RHELM=$ROOT/../shared/data/rhelm
LOCOMO=$ROOT/../shared/data/locomo/locomo10.json
T=$(mktemp -d)
for s in 1 2 3; do
  npx memsteer generate --history "rhelm:$RHELM" --out "$T/S$s.jsonl" --offline --seed "$s" --report | tee "$T/generate-$s.out"
  cp "$T/S$s.jsonl.calibration.json" "$D/calibration-rhelm-seed$s.json"
  sed 's/\x1b\[[0-9;]*m//g' "$T/generate-$s.out" | grep -A40 '^calibration' > "$D/calibration-rhelm-seed$s.txt"
done
sha256sum "$T/S1.jsonl"   # 0ce78a9e3e1b4bd7... on rule-based@31
npx memsteer generate --history "locomo:$LOCOMO" --out "$T/L.jsonl" --offline --report > /dev/null
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
npx memsteer compare --history "locomo:$LOCOMO" --supervision "$T/L.jsonl" --iterations 20 --test-categories 1,2,3,4 \
  --offline --exclude-dev --rng-seeds 1,2,3 --objective ranking --out "$T/loc" | sed 's/\x1b\[[0-9;]*m//g' > "$D/compare-locomo-rng123.txt"
cp "$T/loc/compare-seeds.json" "$D/compare-locomo-rng123.json"
for s in 1 2 3; do
  cp "$T/loc/seed-$s/compare.json" "$D/compare-locomo-rng$s.json"
  npx memsteer report "$T/loc/seed-$s/code" --fidelity --exclude-dev --json > "$D/fidelity-locomo-rng$s-code.json"
done
npm start | tee "$T/start.out"
R=$(ls -td archive/start-* | head -1)
cp "$R/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"
