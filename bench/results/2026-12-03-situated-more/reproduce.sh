#!/bin/bash
# rule-based@17 / situation@3: calibration on RHELM (generator seeds 1, 2 and 3) and LoCoMo, development and held-out
# histories apart; the paired effect of the situations; the quick start and its fidelity; the fidelity of one search
# on each of two more held-out personas.
# Run from the repository root: bash bench/results/2026-12-03-situated-more/reproduce.sh
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-03-situated-more
for s in 1 2 3; do
  npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R$s.jsonl" --offline --report --seed "$s"  # ~2-3 min
  cp "$T/R$s.jsonl.calibration.json" "$D/calibration-rhelm-seed-$s.json"
done
# rule-based@16's seed 3, for comparison (seeds 1 and 2 are in ../2026-12-03-fact-families), from its own commit.
git worktree add -q "$T/at16" 505b162
ln -s "$PWD/node_modules" "$T/at16/node_modules"
RHELM=$(cd ../shared/data/rhelm && pwd)
(cd "$T/at16" && node bin/memsteer.js generate --history "rhelm:$RHELM" --out "$T/R3-at-16.jsonl" --offline --report --seed 3)
cp "$T/R3-at-16.jsonl.calibration.json" "$D/calibration-rhelm-seed-3-at-16.json"
git worktree remove --force "$T/at16"
npx tsx bench/situation-paired.ts "$T/R1.jsonl" "$D/paired-seed-1.json"
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report  # ~1 min
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
npm start
npx memsteer report "$(ls -td archive/start-* | head -1)" --fidelity --json > "$D/fidelity-start.json"
for p in David_Reyes Dr._Elias_Romero; do  # ~10 min each
  grep "\"history\":\"$p\"" "$T/R1.jsonl" > "$T/$p.jsonl"
  npx memsteer optimize --history "rhelm:../shared/data/rhelm#$p" --supervision "$T/$p.jsonl" --offline --out "$T/opt-$p"
  npx memsteer report "$T/opt-$p" --fidelity --json > "$D/fidelity-$p.json"
done
