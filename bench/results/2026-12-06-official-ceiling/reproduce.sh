#!/bin/bash
# The official questions' ceiling on fidelity, and which generated items rank a run's candidates like the official
# questions, on the development histories (RHELM Jonas_Richter and Justice_Arvind_Prakash_Mehra, LoCoMo conv-26 and
# conv-30), and the quick start's ceiling (held out, reported only). From the repository root:
#   bash bench/results/2026-12-06-official-ceiling/reproduce.sh   (about 35 minutes on a quiet machine)
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-06-official-ceiling
T=$(mktemp -d)
run() { # <name> <history source>
  local p=$1 H=$2
  npx memsteer generate --history "$H" --offline --seed 1 --out "$T/$p.jsonl" > /dev/null
  npx memsteer optimize --history "$H" --supervision "$T/$p.jsonl" --seed seeds/base-bm25.ts --iterations 20 --offline \
    --out "$T/$p" > /dev/null
  npx memsteer report "$T/$p" --fidelity --json > "$D/fidelity-$p.json"
  cp "$T/$p/manifest.json" "$D/manifest-$p.json"
  # Every candidate on every generated item (training and validation), for the what-if over item subsets.
  mkdir -p "$T/$p-all"
  for f in "$T/$p"/programs/*.ts; do
    npx memsteer eval --history "$H" --design "$f" --questions "$T/$p.jsonl" --traces "$T/$p-all/$(basename "$f" .ts).jsonl" \
      --json > /dev/null
  done
  npx tsx "$D/item-subsets.ts" "$T/$p" "$T/$p-all" > "$D/item-subsets-$p.json"
}
for p in Jonas_Richter Justice_Arvind_Prakash_Mehra; do run "$p" "rhelm:$ROOT/../shared/data/rhelm#$p"; done
for c in conv-26 conv-30; do run "$c" "locomo:$ROOT/../shared/data/locomo/locomo10.json#$c"; done
npx memsteer start --out "$T/start" > /dev/null
npx memsteer report "$T/start" --fidelity --json > "$D/fidelity-start.json"
cp "$T/start/manifest.json" "$D/manifest-start.json"
