#!/bin/bash
# rule-based@39, tried and not kept (tried/rule-based-39.patch on this commit's @36): "When did I first <do a thing>
# after <another event>?", the anchor's record and the answer's both evidence, as the RHELM development personas place
# their asked days. Runs like the quick start's on the RHELM development personas together at RNG seeds 1-5
# (seeds/base-bm25.ts, 20 iterations, offline case-driven proposer) for @39, and for @36 at seeds 4 and 5 (its seeds
# 1-3 are ../2026-12-07-document-questions/fidelity-rhelm-dev-s*.json); the held-out calibration of @39 on RHELM
# (seed 1) and LoCoMo; then both generators' sets at seeds 1-5 ranking the candidates of the rule-based@37 runs at
# seeds 1 and 3 (fixed pools, ../2026-12-07-document-counts).
# From the repository root, on a commit whose generator is rule-based@36:
#   bash bench/results/2026-12-07-first-after/reproduce.sh   (about 2.5 hours on a quiet machine)
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-07-first-after
COUNTS=$ROOT/bench/results/2026-12-07-document-counts
T=$(mktemp -d)
DATA=$ROOT/../shared/data
RHELM_DEV="rhelm:$DATA/rhelm#Jonas_Richter,Justice_Arvind_Prakash_Mehra"
git worktree add -q --detach "$T/at39" HEAD
git -C "$T/at39" apply "$D/tried/rule-based-39.patch"
git worktree add -q --detach "$T/at37" HEAD
git -C "$T/at37" apply "$COUNTS/tried/rule-based-37.patch"
for w in at39 at37; do ln -s "$ROOT/node_modules" "$T/$w/node_modules"; done
trap 'for w in at39 at37; do git -C "$ROOT" worktree remove --force "$T/$w"; done' EXIT

# run <worktree> <name> <seed>: its development set, a run like the quick start's, and the run's fidelity report.
run() {
  local ms="node $1/bin/memsteer.js" p=$T/$2
  $ms generate --history "$RHELM_DEV" --offline --seed "$3" --out "$p.jsonl" > /dev/null
  grep '"split":"val"' "$p.jsonl" > "$p.val.jsonl"
  $ms optimize --history "$RHELM_DEV" --supervision "$p.jsonl" --seed "$1/seeds/base-bm25.ts" --iterations 20 \
    --offline --rng-seed "$3" --out "$p" > /dev/null
  $ms report "$p" --fidelity > "$D/tried/fidelity-$2.txt"
  cp "$p/fidelity.json" "$D/tried/fidelity-$2.json"
  cp "$p/manifest.json" "$D/tried/manifest-$2.json"
}
for s in 1 2 3 4 5; do run "$T/at39" "rhelm-dev-s$s-at39" "$s"; done
for s in 4 5; do run "$ROOT" "rhelm-dev-s$s-at36" "$s"; done
npx tsx bench/results/2026-12-07-search-decisions/summary.mts "$D"/tried/fidelity-*.json > "$D/tried/summary.txt"

ms39() { node "$T/at39/bin/memsteer.js" "$@"; }
ms39 generate --history "rhelm:$DATA/rhelm" --out "$T/R1.jsonl" --offline --seed 1 --report > "$T/R1.txt"
sed -n '/^calibration (/,$p' "$T/R1.txt" > "$D/tried/calibration-rhelm-seed1-at39.txt"
ms39 generate --history "locomo:$DATA/locomo/locomo10.json" --out "$T/L.jsonl" --offline --report > "$T/L.txt"
sed -n '/^calibration (/,$p' "$T/L.txt" > "$D/tried/calibration-locomo-at39.txt"

# Fixed pools: the rule-based@37 runs' candidates at seeds 1 and 3, ranked by both generators' sets at seeds 1-5.
SETS=() POOLS=()
for s in 1 2 3; do
  node bin/memsteer.js generate --history "$RHELM_DEV" --offline --seed "$s" --out "$T/rhelm-dev-s$s-at36.jsonl" \
    > /dev/null
  grep '"split":"val"' "$T/rhelm-dev-s$s-at36.jsonl" > "$T/rhelm-dev-s$s-at36.val.jsonl"
done
for v in at36 at39; do for s in 1 2 3 4 5; do SETS+=(--set "$v-s$s=$T/rhelm-dev-s$s-$v.val.jsonl"); done; done
cat "$T"/rhelm-dev-s?-at3?.val.jsonl > "$T/all.val.jsonl"
ms37() { node "$T/at37/bin/memsteer.js" "$@"; }
for s in 1 3; do
  ms37 generate --history "$RHELM_DEV" --offline --seed "$s" --out "$T/at37-s$s.jsonl" > /dev/null
  ms37 optimize --history "$RHELM_DEV" --supervision "$T/at37-s$s.jsonl" --seed "$T/at37/seeds/base-bm25.ts" \
    --iterations 20 --offline --rng-seed "$s" --out "$T/at37-run-s$s" > /dev/null
  ms37 report "$T/at37-run-s$s" --fidelity > /dev/null
  npx tsx "$COUNTS/per-question.mts" "$T/at37-run-s$s" "$T/all.val.jsonl" "$T/per-question-s$s.json" 2> /dev/null
  POOLS+=(--pool "$T/at37-run-s$s/fidelity.json,$T/per-question-s$s.json")
done
npx tsx "$COUNTS/pool-analysis.mts" "${POOLS[@]}" "${SETS[@]}" > "$D/pool-analysis.txt"
