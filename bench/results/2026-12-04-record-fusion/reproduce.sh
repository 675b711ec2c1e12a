#!/bin/bash
# Record fusion. Run from the repository root (about 45 minutes):
#   bash bench/results/2026-12-04-record-fusion/reproduce.sh
# 1. The development-persona probes on the last compare's best code design (rebuilt from
#    ../2026-12-04-thread-kinds/compare-rhelm-ranking.json's diff over the seed at 135172f, the text the diff was taken on).
# 2. Code vs config on RHELM (seed-1 supervision) and LoCoMo with the record-fusion move, and the quick start's fidelity.
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-04-record-fusion
dev_r10() { # design name → R@10 on the development personas' own questions
  for p in Jonas_Richter Justice_Arvind_Prakash_Mehra; do
    npx memsteer eval --history "rhelm:../shared/data/rhelm#$p" --design "$1" --traces "$T/$2-$p.jsonl" --json > /dev/null
  done
  cat "$T/$2"-*.jsonl | python3 -c "import json,sys; r=[json.loads(l)['scores']['recallAt']['10'] for l in sys.stdin]; \
print('$2', round(100*sum(r)/len(r),2), len(r))"
}
B=$T/i017.ts
git show 135172f:seeds/configurable.ts > "$B"
python3 -c "import json,sys; sys.stdout.write(json.load(open('bench/results/2026-12-04-thread-kinds/compare-rhelm-ranking.json'))['arms'][0]['diff'])" \
  | patch -s "$B"
dev_r10 "$B" i017
for w in 0.5 1 2; do npx tsx $D/fuse-probe.mts "$B" "$T/pre$w.ts" $w pre; dev_r10 "$T/pre$w.ts" "fuse-pre-$w"; done
for w in 0.5 1; do npx tsx $D/fuse-probe.mts "$B" "$T/post$w.ts" $w post; dev_r10 "$T/post$w.ts" "fuse-post-$w"; done
git apply $D/possessive.patch && dev_r10 "$B" possessive; git apply -R $D/possessive.patch
for w in 160 10000; do sed "s/^const PASSAGE_WORDS = 80;/const PASSAGE_WORDS = $w;/" "$B" > "$T/pw$w.ts"; dev_r10 "$T/pw$w.ts" "pw$w"; done
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R1.jsonl" --offline --report --seed 1  # ~4 min
sed 's/^const LTR_WEIGHTS = \[.*\];/const LTR_WEIGHTS = [1, 0, 0, 0, 0, 0];/' "$B" > "$T/identity.ts"
npx memsteer eval --history rhelm:../shared/data/rhelm --design "$T/identity.ts" --questions "$T/R1.jsonl" --traces "$T/identity.jsonl" \
  --json > /dev/null
npx tsx $D/refit-ranking.mts "$T/R1.jsonl" "$T/identity.jsonl" "$B" "$T/refit-dev.ts" dev
dev_r10 "$T/refit-dev.ts" refit-dev
# ~30 min
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/R1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seed 1 --objective ranking --out "$T/cmp-rank" | tee "$D/compare-rhelm-ranking.txt"
cp "$T/cmp-rank/compare.json" "$D/compare-rhelm-ranking.json"
N=$(ls "$T"/cmp-rank/code/programs/*.ts | grep "$(python3 -c "import json; print(json.load(open('$D/compare-rhelm-ranking.json'))['arms'][0]['bestHash'][:12])")")
dev_r10 "$N" best
sed 's/^const RECORD_WEIGHT = 1;/const RECORD_WEIGHT = 0;/' "$N" > "$T/best-nofuse.ts"; dev_r10 "$T/best-nofuse.ts" best-nofuse
sed 's/^const PASSAGE_WORDS = 80;/const PASSAGE_WORDS = 10000;/' "$N" > "$T/best-whole.ts"; dev_r10 "$T/best-whole.ts" best-whole
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report
npx memsteer compare --history locomo:../shared/data/locomo/locomo10.json --supervision "$T/L.jsonl" --iterations 20 \
  --test-categories 1,2,3,4 --offline --exclude-dev --rng-seed 1 --objective ranking --out "$T/loc-rank" | tee "$D/compare-locomo-ranking.txt"
cp "$T/loc-rank/compare.json" "$D/compare-locomo-ranking.json"
npm start | grep -v '^[-+ @]' | tee "$D/start.txt"
npx memsteer report "$(ls -d archive/start-* | tail -1)" --fidelity --json > "$D/fidelity-start.json"
