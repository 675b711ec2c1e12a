#!/bin/bash
# The search's decisions replayed on official scores (memsteer report --fidelity), and rule-based@35 (a context-linked
# question between people shares no content word with its answer's turn). Runs like the quick start's
# (seeds/base-bm25.ts, 20 iterations, offline case-driven proposer, context recall as the objective) spanning several
# histories of one file: the LoCoMo development conversations together at RNG seeds 1-3 (generator and search), on
# this tree and on <base> (rule-based@34, default e4e46af), and the held-out ones together (reported only); the RHELM development personas together; the six held-out
# RHELM personas together (reported only); the quick start. Then the LoCoMo calibration and the RHELM seed-1 set
# (unchanged by @35 apart from its label). From the repository root:
#   bash bench/results/2026-12-07-search-decisions/reproduce.sh [base]   (about 90 minutes on a quiet machine)
set -euo pipefail
ROOT=$PWD
BASE=${1:-e4e46af}
D=$ROOT/bench/results/2026-12-07-search-decisions
T=$(mktemp -d)
DATA=$ROOT/../shared/data
git worktree add -q --detach "$T/base" "$BASE"
ln -s "$ROOT/node_modules" "$T/base/node_modules"
trap 'git -C "$ROOT" worktree remove --force "$T/base"' EXIT
run() { # <tree> <name> <history source> <seed>
  local tree=$1 p=$2 H=$3 s=$4
  node "$tree/bin/memsteer.js" generate --history "$H" --offline --seed "$s" --out "$T/$p.jsonl" --report > /dev/null
  cp "$T/$p.jsonl.calibration.json" "$D/calibration-$p.json"
  node "$tree/bin/memsteer.js" optimize --history "$H" --supervision "$T/$p.jsonl" --seed "$tree/seeds/base-bm25.ts" \
    --iterations 20 --offline --rng-seed "$s" --out "$T/$p" > /dev/null
  # This tree's report for both arms, so they are read alike.
  npx memsteer report "$T/$p" --fidelity > "$D/fidelity-$p.txt"
  cp "$T/$p/fidelity.json" "$D/fidelity-$p.json"
  cp "$T/$p/manifest.json" "$D/manifest-$p.json"
}
LOCOMO_DEV="locomo:$DATA/locomo/locomo10.json#conv-26,conv-30"
for s in 1 2 3; do
  run "$ROOT" "locomo-dev-s$s" "$LOCOMO_DEV" "$s"
  run "$T/base" "locomo-dev-s$s-at34" "$LOCOMO_DEV" "$s"
done
# The held-out conversations together, reported only.
LOCOMO_HO="locomo:$DATA/locomo/locomo10.json#conv-41,conv-42,conv-43,conv-44,conv-47,conv-48,conv-49,conv-50"
run "$ROOT" locomo-heldout "$LOCOMO_HO" 1
run "$T/base" locomo-heldout-at34 "$LOCOMO_HO" 1
run "$ROOT" rhelm-dev "rhelm:$DATA/rhelm#Jonas_Richter,Justice_Arvind_Prakash_Mehra" 1
run "$ROOT" rhelm-heldout \
  "rhelm:$DATA/rhelm#David_Reyes,Dr._Alastair_McEwan,Dr._Elena_Markovic,Dr._Elias_Romero,Dr._Marcus_Ellison,Elena_Morales" 1
npx memsteer start --out "$T/start" > /dev/null
npx memsteer report "$T/start" --fidelity > "$D/fidelity-start.txt"
cp "$T/start/fidelity.json" "$D/fidelity-start.json"
cp "$T/start/manifest.json" "$D/manifest-start.json"
npx tsx "$D/summary.mts" "$D"/fidelity-*.json > "$D/summary.txt"
# Calibration: LoCoMo (development conversations for tuning, held-out ones reported), and the RHELM seed-1 set, which
# @35 leaves as @34 made it apart from the generator's label.
npx memsteer generate --history "locomo:$DATA/locomo/locomo10.json" --out "$T/L.jsonl" --offline --report > /dev/null
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
npx memsteer generate --history "rhelm:$DATA/rhelm" --out "$T/R1.jsonl" --offline --seed 1 > /dev/null
sed 's/rule-based@35/rule-based@34/g' "$T/R1.jsonl" | sha256sum   # 6bde9f3783486973... as at rule-based@34
