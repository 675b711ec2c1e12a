#!/bin/bash
# rule-based@25: a situated question is asked after the event that names its day. RHELM seed-1 set and its
# calibration table; the RHELM compares at RNG seeds 2 and 1, pooled; the quick start and its fidelity. From the repository root:
#   bash bench/results/2026-12-05-asked-after-situation/reproduce.sh   (about two hours and a half)
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-05-asked-after-situation
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/S1.jsonl" --offline --seed 1 --report | tee "$T/generate.out"
cp "$T/S1.jsonl.calibration.json" "$D/calibration-rhelm-seed1.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/generate.out" | grep -A40 '^calibration' > "$D/calibration-rhelm-seed1.txt"
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/S1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seed 2 --objective ranking --out "$T/rng2" | tee "$D/compare-rhelm-ranking-rng2.txt"
cp "$T/rng2/compare.json" "$D/compare-rhelm-ranking-rng2.json"
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/S1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seed 1 --objective ranking --out "$T/rng1" | tee "$D/compare-rhelm-ranking-rng1.txt"
cp "$T/rng1/compare.json" "$D/compare-rhelm-ranking-rng1.json"
npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/S1.jsonl" --iterations 20 --offline \
  --exclude-dev --rng-seed 3 --objective ranking --out "$T/rng3" | tee "$D/compare-rhelm-ranking-rng3.txt"
cp "$T/rng3/compare.json" "$D/compare-rhelm-ranking-rng3.json"
cat > ./.pool.mts <<'TS'
import { readFileSync } from 'node:fs';
import { CompareReportSchema } from './src/optimize/compare.ts';
import { poolCompareReports } from './src/optimize/compare-seeds.ts';
const reports = process.argv.slice(2).map((f) => CompareReportSchema.parse(JSON.parse(readFileSync(f, 'utf8'))));
console.log(JSON.stringify(poolCompareReports(reports), null, 1));
TS
npx tsx ./.pool.mts "$D/compare-rhelm-ranking-rng1.json" "$D/compare-rhelm-ranking-rng2.json" > "$D/pooled-rng1-rng2.json"
npx tsx ./.pool.mts "$D/compare-rhelm-ranking-rng1.json" "$D/compare-rhelm-ranking-rng2.json" \
  "$D/compare-rhelm-ranking-rng3.json" > "$D/pooled-rng1-rng2-rng3.json"
rm ./.pool.mts
npm start | tee "$T/start.out"
R=$(ls -td archive/start-* | head -1)
cp "$R/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"
