#!/bin/bash
# rule-based@27: in a user's own history a swapped companion is also asked as a request that takes the premise for
# granted ("Can you remind me what Rohan and I talked about when we …?" → "It was with Justice Banerjee."). From the
# repository root:
#   bash bench/results/2026-12-05-premise-requests/reproduce.sh   (about 25 minutes)
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-05-premise-requests
RHELM=$ROOT/../shared/data/rhelm
T=$(mktemp -d)
# The rule-based@26 seed-1 set (commit fb0cc7a), for the per-template probe's baseline.
git worktree add -q --detach "$T/w26" fb0cc7a
ln -s "$ROOT/node_modules" "$T/w26/node_modules"
(cd "$T/w26" && npx memsteer generate --history "rhelm:$RHELM" --out "$T/S1-26.jsonl" --offline --seed 1 > /dev/null)
git worktree remove --force "$T/w26"
npx tsx "$D/probe.mts" "$T/S1-26.jsonl" "$RHELM" > "$D/probe-dev-seed1-at26.json"
for s in 1 2 3; do
  npx memsteer generate --history "rhelm:$RHELM" --out "$T/S$s.jsonl" --offline --seed "$s" --report | tee "$T/generate-$s.out"
  cp "$T/S$s.jsonl.calibration.json" "$D/calibration-rhelm-seed$s.json"
  sed 's/\x1b\[[0-9;]*m//g' "$T/generate-$s.out" | grep -A40 '^calibration' > "$D/calibration-rhelm-seed$s.txt"
done
npx tsx "$D/probe.mts" "$T/S1.jsonl" "$RHELM" > "$D/probe-dev-seed1.json"
# LoCoMo's chats are between people, never in a user's voice: its set is the same as at @26.
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report | tee "$T/generate-locomo.out"
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo-seed1.json"
npm start | tee "$T/start.out"
R=$(ls -td archive/start-* | head -1)
cp "$R/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"
