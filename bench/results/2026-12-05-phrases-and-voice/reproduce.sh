#!/bin/bash
# rule-based@26: clauses whose object stops short of the sentence's phrase are not read, cues are never a month or a
# weekday, and a user's context-linked and document questions are asked in the user's voice. From the repository root:
#   bash bench/results/2026-12-05-phrases-and-voice/reproduce.sh   (about 45 minutes)
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-05-phrases-and-voice
RHELM=$ROOT/../shared/data/rhelm
T=$(mktemp -d)
# The same counts on the rule-based@25 set (commit 06f38e0), the baseline.
git worktree add -q --detach "$T/w25" 06f38e0
ln -s "$ROOT/node_modules" "$T/w25/node_modules"
(cd "$T/w25" && npx memsteer generate --history "rhelm:$RHELM" --out "$T/S1-25.jsonl" --offline --seed 1 > /dev/null)
for s in 2 3; do
  (cd "$T/w25" && npx memsteer generate --history "rhelm:$RHELM" --out "$T/S$s-25.jsonl" --offline --seed "$s" --report > /dev/null)
  cp "$T/S$s-25.jsonl.calibration.json" "$D/calibration-rhelm-seed$s-at25.json"
done
git worktree remove --force "$T/w25"
npx tsx "$D/probe.mts" "$T/S1-25.jsonl" "$RHELM" > "$D/probe-rhelm-seed1-at25.json"
for s in 1 2 3; do
  npx memsteer generate --history "rhelm:$RHELM" --out "$T/S$s.jsonl" --offline --seed "$s" --report | tee "$T/generate-$s.out"
  cp "$T/S$s.jsonl.calibration.json" "$D/calibration-rhelm-seed$s.json"
  sed 's/\x1b\[[0-9;]*m//g' "$T/generate-$s.out" | grep -A40 '^calibration' > "$D/calibration-rhelm-seed$s.txt"
done
npx tsx "$D/probe.mts" "$T/S1.jsonl" "$RHELM" > "$D/probe-rhelm-seed1.json"
npx tsx "$D/voice-effect.mts" "$T/S2.jsonl" "$RHELM" > "$D/voice-effect-rhelm-seed2.json"
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report | tee "$T/generate-locomo.out"
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo-seed1.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/generate-locomo.out" | grep -A40 '^calibration' > "$D/calibration-locomo-seed1.txt"
npm start | tee "$T/start.out"
R=$(ls -td archive/start-* | head -1)
cp "$R/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"
