#!/bin/bash
# rule-based@29 (situation@4): a user's question whose day names no event is placed by what the user talked about in
# another turn of that conversation ("Which jacket did I pack, the day we talked about the health check-up?"). From
# the repository root:
#   bash bench/results/2026-12-06-topic-situations/reproduce.sh   (about two hours; the compare is most of it)
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-06-topic-situations
P=$ROOT/bench/results/2026-12-05-premise-requests/probe.mts
RHELM=$ROOT/../shared/data/rhelm
T=$(mktemp -d)
for s in 1 2 3; do
  npx memsteer generate --history "rhelm:$RHELM" --out "$T/S$s.jsonl" --offline --seed "$s" --report | tee "$T/generate-$s.out"
  cp "$T/S$s.jsonl.calibration.json" "$D/calibration-rhelm-seed$s.json"
  sed 's/\x1b\[[0-9;]*m//g' "$T/generate-$s.out" | grep -A40 '^calibration' > "$D/calibration-rhelm-seed$s.txt"
done
npx tsx "$P" "$T/S1.jsonl" "$RHELM" > "$D/probe-dev-seed1.json"
# LoCoMo's chats are between people: nothing is situated there, and its set is the @28 set item for item.
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report | tee "$T/generate-locomo.out"
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo-seed1.json"
npm start | tee "$T/start.out"
R=$(ls -td archive/start-* | head -1)
cp "$R/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"
# Issue 11 on the rule-based@28 seed-1 set (the compare ran on main before this change), RNG seeds 1 and 3:
git worktree add -q --detach "$T/w28" 86535f9
ln -s "$ROOT/node_modules" "$T/w28/node_modules"
(cd "$T/w28" && npx memsteer generate --history "rhelm:$RHELM" --out "$T/S1-28.jsonl" --offline --seed 1 > /dev/null &&
  npx memsteer compare --history "rhelm:$RHELM" --supervision "$T/S1-28.jsonl" --iterations 20 --offline \
    --exclude-dev --rng-seeds 1,3 --objective ranking --out "$T/rng13" | tee "$D/compare-rhelm-ranking-rng13-at28.txt")
cp "$T/rng13/compare-seeds.json" "$D/compare-rhelm-ranking-rng13-at28.json"
for s in 1 3; do cp "$T/rng13/seed-$s/compare.json" "$D/compare-rhelm-ranking-rng$s-at28.json"; done
git worktree remove --force "$T/w28"
