#!/bin/bash
# A user's questions asked on their own day (rule-based@24) and the recency boost. RHELM seed-1 set; two RHELM
# compares (RNG seeds 2 and 1, pooled); the LoCoMo compare; the quick start and its fidelity. From the repository root:
#   bash bench/results/2026-12-05-asked-per-item/reproduce.sh   (about 2 hours)
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-05-asked-per-item
# ~4 min; the calibration table (forms, no-overlap share, difficulty gap) is the report's
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/S1.jsonl" --offline --seed 1 --report | tee "$T/generate.out"
cp "$T/S1.jsonl.calibration.json" "$D/calibration-rhelm-seed1.json"
# ~50 min: the code arm replays each history's asked days (about one a month); the config seed has no `add`
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/S1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seed 2 --objective ranking --out "$T/rng2" | tee "$D/compare-rhelm-ranking-rng2.txt"
cp "$T/rng2/compare.json" "$D/compare-rhelm-ranking-rng2.json"
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/S1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seed 1 --objective ranking --out "$T/rng1" | tee "$D/compare-rhelm-ranking-rng1.txt"
cp "$T/rng1/compare.json" "$D/compare-rhelm-ranking-rng1.json"
cat > ./.pool.mts <<'TS'
import { readFileSync } from 'node:fs';
import { CompareReportSchema } from './src/optimize/compare.ts';
import { poolCompareReports } from './src/optimize/compare-seeds.ts';
const reports = process.argv.slice(2).map((f) => CompareReportSchema.parse(JSON.parse(readFileSync(f, 'utf8'))));
console.log(JSON.stringify(poolCompareReports(reports), null, 1));
TS
npx tsx ./.pool.mts "$D/compare-rhelm-ranking-rng1.json" "$D/compare-rhelm-ranking-rng2.json" > "$D/pooled-rng1-rng2.json"
rm ./.pool.mts
# LoCoMo: the set (~4 min; its items are asked after the chats, as before) and one compare (~10 min)
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo-seed1.json"
npx memsteer compare --history locomo:../shared/data/locomo/locomo10.json --supervision "$T/L.jsonl" --iterations 20 \
  --test-categories 1,2,3,4 --offline --exclude-dev --rng-seed 1 --objective ranking --out "$T/loc-rank" | tee "$D/compare-locomo-ranking.txt"
cp "$T/loc-rank/compare.json" "$D/compare-locomo-ranking.json"
npm start | tee "$T/start.out"  # the quick start
R=$(ls -td archive/start-* | head -1)
cp "$R/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"
