#!/bin/bash
# rule-based@28: a user's own e-mails are asked in the first person ("What flyers did I mention in an e-mail?"), and a
# user's document's dates, quantities and names by the conversation that shared it, never by its title. From the
# repository root:
#   bash bench/results/2026-12-06-own-mail-and-documents/reproduce.sh   (about 70 minutes; the compare is most of it)
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-06-own-mail-and-documents
P=$ROOT/bench/results/2026-12-05-premise-requests/probe.mts
RHELM=$ROOT/../shared/data/rhelm
T=$(mktemp -d)
for s in 1 2 3; do
  npx memsteer generate --history "rhelm:$RHELM" --out "$T/S$s.jsonl" --offline --seed "$s" --report | tee "$T/generate-$s.out"
  cp "$T/S$s.jsonl.calibration.json" "$D/calibration-rhelm-seed$s.json"
  sed 's/\x1b\[[0-9;]*m//g' "$T/generate-$s.out" | grep -A40 '^calibration' > "$D/calibration-rhelm-seed$s.txt"
done
npx tsx "$P" "$T/S1.jsonl" "$RHELM" > "$D/probe-dev-seed1.json"
# LoCoMo has no e-mails, documents or user's voice: its set is the @27 set item for item.
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report | tee "$T/generate-locomo.out"
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo-seed1.json"
npm start | tee "$T/start.out"
R=$(ls -td archive/start-* | head -1)
cp "$R/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"
# Issue 11 on the rule-based@27 seed-1 set (the compare ran before this change; about 40 minutes):
git worktree add -q --detach "$T/w27" b3923fd
ln -s "$ROOT/node_modules" "$T/w27/node_modules"
(cd "$T/w27" && npx memsteer generate --history "rhelm:$RHELM" --out "$T/S1-27.jsonl" --offline --seed 1 > /dev/null &&
  npx memsteer compare --history "rhelm:$RHELM" --supervision "$T/S1-27.jsonl" --iterations 20 --offline \
    --exclude-dev --rng-seed 2 --objective ranking --out "$T/rng2" | tee "$D/compare-rhelm-ranking-rng2-at27.txt")
cp "$T/rng2/compare.json" "$D/compare-rhelm-ranking-rng2-at27.json"
git worktree remove --force "$T/w27"
