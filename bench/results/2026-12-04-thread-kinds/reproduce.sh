#!/bin/bash
# Session scores read per kind of thread. Run from the repository root:
#   bash bench/results/2026-12-04-thread-kinds/reproduce.sh   (about 50 minutes)
# 1. The diagnosis, on RHELM's development personas only (diagnosis-dev.txt): the previous best code design (rebuilt
#    below from ../2026-12-04-evidence-kinds/compare-rhelm-ranking.json's diff over the seed at 37140ee) with its session
#    features switched off one by one, and with thread scores read per kind (kind-normalised.patch: the kind from the
#    thread's name, for this check only).
# 2. Code vs config under the ranking objective on RHELM (seed-1 set) and LoCoMo, and the quick start's fidelity.
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-04-thread-kinds
B=$T/before-best-code.ts
git show 37140ee:seeds/configurable.ts > "$B"
python3 -c "import json,sys; sys.stdout.write(json.load(open('bench/results/2026-12-04-evidence-kinds/compare-rhelm-ranking.json'))['arms'][0]['diff'])" \
  | patch -s "$B"
cp "$B" "$T/before-best-code-kind-normalised.ts"
patch -s "$T/before-best-code-kind-normalised.ts" < $D/kind-normalised.patch
sed 's/^const LTR_WEIGHTS = \[1, 1,/const LTR_WEIGHTS = [1, 0,/' $B > "$T/no-ltr-session.ts"
sed 's/^const SESSION_WEIGHT = 0.6;/const SESSION_WEIGHT = 0;/' $B > "$T/no-fusion.ts"
sed 's/^const SESSION_WEIGHT = 0.6;/const SESSION_WEIGHT = 0;/' "$T/no-ltr-session.ts" > "$T/no-session.ts"
for v in "$B" "$T/no-fusion.ts" "$T/no-ltr-session.ts" "$T/no-session.ts" "$T/before-best-code-kind-normalised.ts"; do
  n=$(basename "$v" .ts)
  npx memsteer eval --history rhelm:../shared/data/rhelm --design "$v" --traces "$T/t-$n.jsonl" --json > /dev/null
  npx tsx $D/by-kind.mts --dev "$T/t-$n.jsonl"
done
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R1.jsonl" --offline --report --seed 1  # ~4 min
# ~30 min
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/R1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seed 1 --objective ranking --out "$T/cmp-rank" | tee "$D/compare-rhelm-ranking.txt"
cp "$T/cmp-rank/compare.json" "$D/compare-rhelm-ranking.json"
npx tsx $D/by-kind.mts "$D/compare-rhelm-ranking.json" bench/results/2026-12-04-evidence-kinds/compare-rhelm-ranking.json
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report
# ~8 min
npx memsteer compare --history locomo:../shared/data/locomo/locomo10.json --supervision "$T/L.jsonl" --iterations 20 \
  --test-categories 1,2,3,4 --offline --exclude-dev --rng-seed 1 --objective ranking --out "$T/loc-rank" | tee "$D/compare-locomo-ranking.txt"
cp "$T/loc-rank/compare.json" "$D/compare-locomo-ranking.json"
npm start | tee "$D/start.txt"
R=$(ls -td archive/start-* | head -1)
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"  # ~1 min
