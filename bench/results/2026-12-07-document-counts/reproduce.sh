#!/bin/bash
# rule-based@37, tried and not kept (tried/rule-based-37.patch on this commit's @36: a count over a table of the
# person's own document asked of the document alone, named by its kind and month and the table by what its rows are).
# Runs like the quick start's on the RHELM development personas together at RNG seeds 1-3 (seeds/base-bm25.ts, 20
# iterations, offline case-driven proposer, context recall as the objective), the quick start, the held-out RHELM
# calibration; then the @37 runs' candidates of seeds 3 and 1 ranked by every validation set of @36 and @37 at seeds
# 1-3 (fixed pools: no search re-run); per-template Base-BM25 recall of the @37 validation sets. The @36 runs are
# ../2026-12-07-document-questions/fidelity-rhelm-dev-s*.json. From the repository root:
#   bash bench/results/2026-12-07-document-counts/reproduce.sh [commit]   (about 60 minutes on a quiet machine)
set -euo pipefail
ROOT=$PWD
AT36=${1:-HEAD}
D=$ROOT/bench/results/2026-12-07-document-counts
T=$(mktemp -d)
DATA=$ROOT/../shared/data
RHELM_DEV="rhelm:$DATA/rhelm#Jonas_Richter,Justice_Arvind_Prakash_Mehra"
git worktree add -q --detach "$T/at36" "$AT36"
git worktree add -q --detach "$T/at37" "$AT36"
git -C "$T/at37" apply "$D/tried/rule-based-37.patch"
ln -s "$ROOT/node_modules" "$T/at36/node_modules"
ln -s "$ROOT/node_modules" "$T/at37/node_modules"
trap 'git -C "$ROOT" worktree remove --force "$T/at36"; git -C "$ROOT" worktree remove --force "$T/at37"' EXIT
ms() { node "$T/at37/bin/memsteer.js" "$@"; }
for s in 1 2 3; do
  node "$T/at36/bin/memsteer.js" generate --history "$RHELM_DEV" --offline --seed "$s" --out "$T/at36-s$s.jsonl" > /dev/null
  grep '"split":"val"' "$T/at36-s$s.jsonl" > "$T/at36-s$s.val.jsonl"
  p=rhelm-dev-s$s
  ms generate --history "$RHELM_DEV" --offline --seed "$s" --out "$T/at37-s$s.jsonl" > /dev/null
  grep '"split":"val"' "$T/at37-s$s.jsonl" > "$T/at37-s$s.val.jsonl"
  ms optimize --history "$RHELM_DEV" --supervision "$T/at37-s$s.jsonl" --seed "$T/at37/seeds/base-bm25.ts" \
    --iterations 20 --offline --rng-seed "$s" --out "$T/$p" > /dev/null
  ms report "$T/$p" --fidelity > "$D/tried/fidelity-$p-at37.txt"
  cp "$T/$p/fidelity.json" "$D/tried/fidelity-$p-at37.json"
  cp "$T/$p/manifest.json" "$D/tried/manifest-$p-at37.json"
  ms eval --history "$RHELM_DEV" --design seeds/base-bm25.ts --questions "$T/at37-s$s.val.jsonl" --traces "$T/t$s.jsonl" > /dev/null
  npx tsx "$D/template-recall.mts" "$T/at37-s$s.val.jsonl" "$T/t$s.jsonl" > "$D/tried/template-recall-at37-s$s.txt"
done
ms start --out "$T/start" > /dev/null
ms report "$T/start" --fidelity > "$D/tried/fidelity-start-at37.txt"
cp "$T/start/fidelity.json" "$D/tried/fidelity-start-at37.json"
cp "$T/start/manifest.json" "$D/tried/manifest-start-at37.json"
npx tsx bench/results/2026-12-07-search-decisions/summary.mts "$D"/tried/fidelity-*-at37.json > "$D/tried/summary.txt"
ms generate --history "rhelm:$DATA/rhelm" --out "$T/R1.jsonl" --offline --seed 1 --report > "$T/R1.txt"
sed -n '/^calibration (/,$p' "$T/R1.txt" > "$D/tried/calibration-rhelm-seed1-at37.txt"
cp "$T/R1.jsonl.calibration.json" "$D/tried/calibration-rhelm-seed1-at37.json"

# Fixed pools: the candidates of the @37 runs at seeds 3 and 1, ranked by every validation set of both generators.
# All sets in one file: per-question.mts evaluates an item that is in several sets once, by content (item-key.mts).
cat "$T"/at36-s?.val.jsonl "$T"/at37-s?.val.jsonl > "$T/all.val.jsonl"
POOLS=() SETS=()
for s in 3 1; do
  npx tsx "$D/per-question.mts" "$T/rhelm-dev-s$s" "$T/all.val.jsonl" "$T/per-question-s$s.json" 2> /dev/null
  POOLS+=(--pool "$D/tried/fidelity-rhelm-dev-s$s-at37.json,$T/per-question-s$s.json")
done
for v in at36 at37; do for s in 1 2 3; do SETS+=(--set "$v-s$s=$T/$v-s$s.val.jsonl"); done; done
npx tsx "$D/pool-analysis.mts" "${POOLS[@]}" "${SETS[@]}" > "$D/pool-analysis.txt"
