#!/bin/bash
# Passages and the index window composed; `memsteer compare --accept`. RHELM, rule-based@22 seed-1 set.
# Run from the repository root: bash bench/results/2026-12-05-store-composition/reproduce.sh   (about 85 minutes)
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-05-store-composition
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/S1.jsonl" --offline --seed 1  # ~3 min
npm start | tee "$T/start.out"  # the quick start: same best, the window candidates keep their passages
R=$(ls -td archive/start-* | head -1)
cp "$R/manifest.json" "$D/start-manifest.json"
sed 's/\x1b\[[0-9;]*m//g' "$T/start.out" | grep -E '^[│├└┌]' > "$D/start-official.txt"
npx memsteer report "$R" --fidelity --json > "$D/fidelity-start.json"
run() {  # name, RNG seed, extra options; ~23 min each
  npx memsteer compare --history rhelm:../shared/data/rhelm --supervision "$T/S1.jsonl" --iterations 20 --offline \
    --exclude-dev --rng-seed "$2" --objective ranking --out "$T/$1" "${@:3}" | tee "$D/compare-rhelm-ranking-$1.txt"
  cp "$T/$1/compare.json" "$D/compare-rhelm-ranking-$1.json"
}
run rng2 2
run bootstrap 1 --accept bootstrap
run rng1 1  # the same best design as ../2026-12-04-shared-documents/compare-rhelm-ranking.json
cat > "$T/pool.mts" <<'TS'
import { readFileSync } from 'node:fs';
import { CompareReportSchema } from './src/optimize/compare.ts';
import { poolCompareReports } from './src/optimize/compare-seeds.ts';
const reports = process.argv.slice(2).map((f) => CompareReportSchema.parse(JSON.parse(readFileSync(f, 'utf8'))));
console.log(JSON.stringify(poolCompareReports(reports), null, 1));
TS
cp "$T/pool.mts" ./.pool.mts && npx tsx ./.pool.mts "$D/compare-rhelm-ranking-rng1.json" "$D/compare-rhelm-ranking-rng2.json" \
  > "$D/pooled-rng1-rng2.json"; rm ./.pool.mts
# development personas' own questions, R@10, on the seed-2 run's best code design
H=$(python3 -c "import json; print(json.load(open('$D/compare-rhelm-ranking-rng2.json'))['arms'][0]['bestHash'][:12])")
for p in Jonas_Richter Justice_Arvind_Prakash_Mehra; do
  npx memsteer eval --history "rhelm:../shared/data/rhelm#$p" --design "$(ls "$T"/rng2/code/programs/*"$H".ts)" \
    --traces "$T/dev-$p.jsonl" --json > /dev/null
done
cat "$T"/dev-*.jsonl | python3 -c "import json,sys; r=[json.loads(l)['scores']['recallAt']['10'] for l in sys.stdin]; \
print('dev R@10', round(100*sum(r)/len(r),2), len(r))"
