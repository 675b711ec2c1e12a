#!/bin/bash
# rule-based@36 (a person's own document named by its kind and month in outline questions) against @35, on the RHELM
# development personas together at RNG seeds 1-3 (generator and search), runs like the quick start's
# (seeds/base-bm25.ts, 20 iterations, offline case-driven proposer, context recall as the objective); the RHELM seed-1
# calibration (development personas for tuning, held-out ones reported); the quick start; and LoCoMo, which has no
# documents and whose calibration is unchanged. From the repository root:
#   bash bench/results/2026-12-07-document-questions/reproduce.sh [base]   (about 60 minutes on a quiet machine)
set -euo pipefail
ROOT=$PWD
BASE=${1:-24ad03a}
D=$ROOT/bench/results/2026-12-07-document-questions
T=$(mktemp -d)
DATA=$ROOT/../shared/data
git worktree add -q --detach "$T/base" "$BASE"
ln -s "$ROOT/node_modules" "$T/base/node_modules"
trap 'git -C "$ROOT" worktree remove --force "$T/base"' EXIT
run() { # <tree> <name> <history source> <seed>
  local tree=$1 p=$2 H=$3 s=$4
  node "$tree/bin/memsteer.js" generate --history "$H" --offline --seed "$s" --out "$T/$p.jsonl" > /dev/null
  node "$tree/bin/memsteer.js" optimize --history "$H" --supervision "$T/$p.jsonl" --seed "$tree/seeds/base-bm25.ts" \
    --iterations 20 --offline --rng-seed "$s" --out "$T/$p" > /dev/null
  # This tree's report for both arms, so they are read alike.
  npx memsteer report "$T/$p" --fidelity > "$D/fidelity-$p.txt"
  cp "$T/$p/fidelity.json" "$D/fidelity-$p.json"
  cp "$T/$p/manifest.json" "$D/manifest-$p.json"
}
RHELM_DEV="rhelm:$DATA/rhelm#Jonas_Richter,Justice_Arvind_Prakash_Mehra"
for s in 1 2 3; do
  run "$ROOT" "rhelm-dev-s$s" "$RHELM_DEV" "$s"
  run "$T/base" "rhelm-dev-s$s-at35" "$RHELM_DEV" "$s"
done
npx memsteer start --out "$T/start" > /dev/null
npx memsteer report "$T/start" --fidelity > "$D/fidelity-start.txt"
cp "$T/start/fidelity.json" "$D/fidelity-start.json"
cp "$T/start/manifest.json" "$D/manifest-start.json"
npx tsx bench/results/2026-12-07-search-decisions/summary.mts "$D"/fidelity-*.json > "$D/summary.txt"
npx memsteer generate --history "rhelm:$DATA/rhelm" --out "$T/R1.jsonl" --offline --seed 1 --report > "$T/R1.txt"
sed -n '/^calibration (/,$p' "$T/R1.txt" > "$D/calibration-rhelm-seed1.txt"
cp "$T/R1.jsonl.calibration.json" "$D/calibration-rhelm-seed1.json"
# LoCoMo has no documents: its sets are @35's apart from the label, so its calibration is the committed one.
npx memsteer generate --history "locomo:$DATA/locomo/locomo10.json" --out "$T/L.jsonl" --offline --report > /dev/null
cmp "$T/L.jsonl.calibration.json" bench/results/2026-12-07-search-decisions/calibration-locomo.json && echo "LoCoMo calibration unchanged"
