#!/bin/bash
# Template shares tried and not kept: in a user's own history, the date question placed by another day's event
# (event-when), the order yes/no (before) and the mention comparison (mention-compare) held to small shares, through an
# environment switch (tried/share-switch.patch; variant G is tried/rule-based-38.patch's generator but for its name).
# From the repository root, on a commit whose generator is rule-based@36 (this one):
#   bash bench/results/2026-12-07-template-caps/reproduce.sh   (about 2.5 hours on a quiet machine)
# Makes tried/: the development validation sets of @36 and of variants A, C, F, G, H at seeds 1-3; runs like the quick
# start's on the RHELM development personas (seeds/base-bm25.ts, 20 iterations, offline case-driven proposer) for G
# and H; the held-out calibration of A, F, G, H; then pool-analysis.txt: the candidates of the rule-based@37 runs at
# seeds 3 and 1 (../2026-12-07-document-counts, rebuilt from its patch) ranked by every one of those sets.
set -euo pipefail
ROOT=$PWD
D=$ROOT/bench/results/2026-12-07-template-caps
COUNTS=$ROOT/bench/results/2026-12-07-document-counts
T=$(mktemp -d)
DATA=$ROOT/../shared/data
RHELM_DEV="rhelm:$DATA/rhelm#Jonas_Richter,Justice_Arvind_Prakash_Mehra"
git worktree add -q --detach "$T/at37" HEAD
git -C "$T/at37" apply "$COUNTS/tried/rule-based-37.patch"
git worktree add -q --detach "$T/switch" HEAD
git -C "$T/switch" apply "$D/tried/share-switch.patch"
for w in at37 switch; do ln -s "$ROOT/node_modules" "$T/$w/node_modules"; done
trap 'for w in at37 switch; do git -C "$ROOT" worktree remove --force "$T/$w"; done' EXIT
sw() { node "$T/switch/bin/memsteer.js" "$@"; }
val() { grep '"split":"val"' "$1" > "${1%.jsonl}.val.jsonl"; }

declare -A VARIANT=(
  [A]="EXP_EW=0.03 EXP_MC=0.03"
  [C]="EXP_EW=0 EXP_MC=0"
  [F]="EXP_EW=0.03"
  [G]="EXP_EW=0.03 EXP_BEFORE=0.02"
  [H]="EXP_EW=0.03 EXP_MC=0.03 EXP_BEFORE=0.02"
)
for s in 1 2 3; do
  node bin/memsteer.js generate --history "$RHELM_DEV" --offline --seed "$s" --out "$T/at36-s$s.jsonl" > /dev/null
  val "$T/at36-s$s.jsonl"
  for v in A C F G H; do
    env ${VARIANT[$v]} node "$T/switch/bin/memsteer.js" generate --history "$RHELM_DEV" --offline --seed "$s" \
      --out "$T/$v-s$s.jsonl" > /dev/null
    val "$T/$v-s$s.jsonl"
  done
  for v in G H; do
    p=rhelm-dev-s$s
    sw optimize --history "$RHELM_DEV" --supervision "$T/$v-s$s.jsonl" --seed seeds/base-bm25.ts --iterations 20 \
      --offline --rng-seed "$s" --out "$T/$p-$v" > /dev/null
    sw report "$T/$p-$v" --fidelity > "$D/tried/fidelity-$p-$v.txt"
    cp "$T/$p-$v/fidelity.json" "$D/tried/fidelity-$p-$v.json"
    cp "$T/$p-$v/manifest.json" "$D/tried/manifest-$p-$v.json"
  done
done
npx tsx bench/results/2026-12-07-search-decisions/summary.mts "$D"/tried/fidelity-*.json > "$D/tried/summary.txt"
for v in A F G H; do
  env ${VARIANT[$v]} node "$T/switch/bin/memsteer.js" generate --history "rhelm:$DATA/rhelm" --out "$T/R1$v.jsonl" \
    --offline --seed 1 --report > "$T/R1$v.txt"
  sed -n '/^calibration (/,$p' "$T/R1$v.txt" > "$D/tried/calibration-rhelm-seed1-$v.txt"
done

# Fixed pools: the rule-based@37 runs' candidates at seeds 3 and 1, as in ../2026-12-07-document-counts.
# All sets in one file: per-question.mts evaluates an item that is in several sets once, by content (item-key.mts).
cat "$T"/*-s?.val.jsonl > "$T/all.val.jsonl"
POOLS=() SETS=()
for s in 3 1; do
  node "$T/at37/bin/memsteer.js" generate --history "$RHELM_DEV" --offline --seed "$s" --out "$T/at37-s$s.jsonl" > /dev/null
  node "$T/at37/bin/memsteer.js" optimize --history "$RHELM_DEV" --supervision "$T/at37-s$s.jsonl" \
    --seed "$T/at37/seeds/base-bm25.ts" --iterations 20 --offline --rng-seed "$s" --out "$T/at37-run-s$s" > /dev/null
  node "$T/at37/bin/memsteer.js" report "$T/at37-run-s$s" --fidelity > /dev/null
  npx tsx "$COUNTS/per-question.mts" "$T/at37-run-s$s" "$T/all.val.jsonl" "$T/per-question-s$s.json" 2> /dev/null
  POOLS+=(--pool "$T/at37-run-s$s/fidelity.json,$T/per-question-s$s.json")
done
for v in at36 A C F G H; do for s in 1 2 3; do SETS+=(--set "$v-s$s=$T/$v-s$s.val.jsonl"); done; done
npx tsx "$COUNTS/pool-analysis.mts" "${POOLS[@]}" "${SETS[@]}" > "$D/pool-analysis.txt"
