#!/bin/bash
# rule-based@30 (undated items for chats between people), tried and not kept: LoCoMo code against config search at
# RNG seeds 1-3 and the fidelity of each code arm, as in ../2026-12-06-compare-at-29/. From the repository root:
#   bash bench/results/2026-12-06-undated-conversations/reproduce.sh   (about 25 minutes on a quiet machine)
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-06-undated-conversations
LOCOMO=$ROOT/../shared/data/locomo/locomo10.json
T=$(mktemp -d)
git worktree add -q --detach "$T/w" 89bb4de
ln -s "$ROOT/node_modules" "$T/w/node_modules"
cd "$T/w"
npx memsteer generate --history "locomo:$LOCOMO" --out "$T/L.jsonl" --offline --report > /dev/null
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
npx memsteer compare --history "locomo:$LOCOMO" --supervision "$T/L.jsonl" --iterations 20 --test-categories 1,2,3,4 \
  --offline --exclude-dev --rng-seeds 1,2,3 --objective ranking --out "$T/loc" | sed 's/\x1b\[[0-9;]*m//g' > "$D/compare-locomo-rng123.txt"
cp "$T/loc/compare-seeds.json" "$D/compare-locomo-rng123.json"
for s in 1 2 3; do
  cp "$T/loc/seed-$s/compare.json" "$D/compare-locomo-rng$s.json"
  npx memsteer report "$T/loc/seed-$s/code" --fidelity --exclude-dev --json > "$D/fidelity-locomo-rng$s-code.json"
done
cd "$ROOT"
rm "$T/w/node_modules"
git worktree remove --force "$T/w"
