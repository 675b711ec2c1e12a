#!/bin/bash
# Questions about the assistant's replies. Run from the repository root (about 45 minutes):
#   bash bench/results/2026-12-04-reply-share/reproduce.sh
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-04-reply-share
# 1. The measure, for the current generator (seed 1): the calibration report prints it as "reply" beside the evidence
#    kinds; reply-share.mts reads it for any supervision file.
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R1.jsonl" --offline --report --seed 1  # ~5 min
npx tsx $D/reply-share.mts "$T/R1.jsonl"
# 2. The cap, tried and not kept: its calibration report, the RHELM compare and the quick start with its fidelity.
git apply $D/reply-cap.patch
trap 'git apply -R $D/reply-cap.patch' EXIT
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/C1.jsonl" --offline --report --seed 1 \
  | sed -n '/^calibration/,$p' > $D/calibration-reply-cap.txt
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/C1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seed 1 --objective ranking --out "$T/cmp" > $D/compare-rhelm-ranking-reply-cap.txt  # ~27 min
cp "$T/cmp/compare.json" $D/compare-rhelm-ranking-reply-cap.json
npm start > $D/start-reply-cap.txt
R=$(ls -td archive/start-* | head -1)
npx memsteer report "$R" --fidelity --json > $D/fidelity-start-reply-cap.json
# 3. The two probes on the development personas, on the best code design of ../2026-12-04-thread-kinds (rebuilt from
#    that compare's diff over the seed at 135172f).
B=$T/best.ts
git show 135172f:seeds/configurable.ts > "$B"
python3 -c "import json,sys; sys.stdout.write(json.load(open('bench/results/2026-12-04-thread-kinds/compare-rhelm-ranking.json'))['arms'][0]['diff'])" \
  | patch -s "$B"
cp "$B" "$T/clause.ts" && patch -s "$T/clause.ts" < $D/clause-search.patch
npx tsx $D/wordnet-expansion.mts "$B" "$T/wordnet"
# and that design with one block off at a time
sed 's/^const BRIDGE_TERMS = 6;/const BRIDGE_TERMS = 0;/' "$B" > "$T/no-bridges.ts"
sed 's/^const SPEAKER_WEIGHT = 0.15;/const SPEAKER_WEIGHT = 0;/' "$B" > "$T/no-speaker.ts"
sed 's/^const TIME_BOOST = 0.3;/const TIME_BOOST = 0;/' "$B" > "$T/no-time-boost.ts"
sed 's/^const LTR_WEIGHTS = \[1.5, 0.75, 0.2, 0, 0.5, 0.3\];/const LTR_WEIGHTS = [1, 0, 0, 0, 0, 0];/' "$B" > "$T/no-learned-rank.ts"
sed 's/^const LTR_WEIGHTS = \[1.5, 0.75,/const LTR_WEIGHTS = [1.5, 0,/' "$B" > "$T/no-ltr-session.ts"
sed 's/^const SESSION_WEIGHT = 0.6;/const SESSION_WEIGHT = 0;/' "$B" > "$T/no-fusion.ts"
sed 's/^const PASSAGE_WORDS = 80;/const PASSAGE_WORDS = 100000;/' "$B" > "$T/no-passage-split.ts"
for v in "$B" "$T/clause.ts" "$T/wordnet-syn.ts" "$T/wordnet-syn-hypo.ts" "$T"/no-*.ts; do
  n=$(basename "$v" .ts)
  mkdir -p "$T/$n"
  for p in Jonas_Richter Justice_Arvind_Prakash_Mehra; do
    npx memsteer eval --history "rhelm:../shared/data/rhelm#$p" --design "$v" --traces "$T/$n/$p.jsonl" --json > /dev/null
  done
  cat "$T/$n/Jonas_Richter.jsonl" "$T/$n/Justice_Arvind_Prakash_Mehra.jsonl" > "$T/dev-$n.jsonl"
  npx tsx bench/results/2026-12-04-thread-kinds/by-kind.mts --dev "$T/dev-$n.jsonl"
done
