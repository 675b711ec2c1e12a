#!/bin/bash
# Fidelity by generator template (rule-based@31) on the RHELM development personas, beside the quick start's.
# A quick-start-like search (seed 1, 20 iterations, offline) on each persona, then its fidelity report. From the
# repository root:
#   bash bench/results/2026-12-06-template-fidelity/reproduce.sh   (about 10 minutes on a quiet machine)
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-06-template-fidelity
T=$(mktemp -d)
for p in Jonas_Richter Justice_Arvind_Prakash_Mehra; do
  H="rhelm:$ROOT/../shared/data/rhelm#$p"
  npx memsteer generate --history "$H" --offline --seed 1 --out "$T/$p.jsonl" > /dev/null
  npx memsteer optimize --history "$H" --supervision "$T/$p.jsonl" --seed seeds/base-bm25.ts --iterations 20 --offline \
    --out "$T/$p" > /dev/null
  npx memsteer report "$T/$p" --fidelity --json > "$D/fidelity-$p.json"
  cp "$T/$p/manifest.json" "$D/manifest-$p.json"
done
npx memsteer start --out "$T/start" > /dev/null
npx memsteer report "$T/start" --fidelity --json > "$D/fidelity-start.json"
cp "$T/start/manifest.json" "$D/manifest-start.json"
