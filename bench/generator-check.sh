#!/bin/bash
# What a change to the offline generator is judged by (issue 14): runs like the quick start's on the RHELM development
# personas together at RNG seeds 1-5 (seeds/base-bm25.ts, 20 iterations, offline case-driven proposer) with their
# fidelity reports, the quick start with its fidelity report, one line per report (summary.txt), and the held-out
# calibration of RHELM (seed 1) and LoCoMo. Writes into <out-dir>. From the repository root:
#   bash bench/generator-check.sh <out-dir>   (about 50 minutes on a quiet machine)
set -euo pipefail
ROOT=$PWD
mkdir -p "${1:?usage: bash bench/generator-check.sh <out-dir>}"
D=$(realpath "$1")
T=$(mktemp -d)
DATA=$ROOT/../shared/data
RHELM_DEV="rhelm:$DATA/rhelm#Jonas_Richter,Justice_Arvind_Prakash_Mehra"
ms() { node "$ROOT/bin/memsteer.js" "$@"; }
for s in 1 2 3 4 5; do
  p=$T/rhelm-dev-s$s
  ms generate --history "$RHELM_DEV" --offline --seed "$s" --out "$p.jsonl" > /dev/null
  ms optimize --history "$RHELM_DEV" --supervision "$p.jsonl" --seed "$ROOT/seeds/base-bm25.ts" --iterations 20 \
    --offline --rng-seed "$s" --out "$p" > /dev/null
  ms report "$p" --fidelity > "$D/fidelity-rhelm-dev-s$s.txt"
  cp "$p/fidelity.json" "$D/fidelity-rhelm-dev-s$s.json"
  cp "$p/manifest.json" "$D/manifest-rhelm-dev-s$s.json"
done
ms start --out "$T/start" > /dev/null
ms report "$T/start" --fidelity > "$D/fidelity-start.txt"
cp "$T/start/fidelity.json" "$D/fidelity-start.json"
cp "$T/start/manifest.json" "$D/manifest-start.json"
npx tsx bench/results/2026-12-07-search-decisions/summary.mts "$D"/fidelity-*.json > "$D/summary.txt"
ms generate --history "rhelm:$DATA/rhelm" --out "$T/R1.jsonl" --offline --seed 1 --report > "$T/R1.txt"
sed -n '/^calibration (/,$p' "$T/R1.txt" > "$D/calibration-rhelm-seed1.txt"
cp "$T/R1.jsonl.calibration.json" "$D/calibration-rhelm-seed1.json"
ms generate --history "locomo:$DATA/locomo/locomo10.json" --out "$T/L.jsonl" --offline --report > "$T/L.txt"
sed -n '/^calibration (/,$p' "$T/L.txt" > "$D/calibration-locomo.txt"
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
