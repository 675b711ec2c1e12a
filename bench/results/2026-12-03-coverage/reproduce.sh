#!/bin/bash
# Calibration of rule-based@14 on RHELM (generator seeds 1 and 2) and LoCoMo, development and held-out histories
# reported apart; the paired effect of placing questions in their day; the quick start.
# Run from the repository root: bash bench/results/2026-12-03-coverage/reproduce.sh
# The tried event families: git apply bench/results/2026-12-03-coverage/tried-event-families.patch on b4f9379.
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-03-coverage
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R.jsonl" --offline --report                  # ~3 min
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R2.jsonl" --offline --report --seed 2        # ~3 min
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report  # ~1 min
cp "$T/R.jsonl.calibration.json" "$D/calibration-rhelm-all.json"
cp "$T/R2.jsonl.calibration.json" "$D/calibration-rhelm-all-seed-2.json"
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo-all.json"
# The situated items of seed 1, as generated and with their unsituated question, scored by Base-BM25.
node -e '
const fs = require("fs");
const items = fs.readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse).filter((x) => x.checks && x.checks.situation);
fs.writeFileSync(process.argv[2], items.map((x) => JSON.stringify(x)).join("\n") + "\n");
fs.writeFileSync(process.argv[3], items.map((x) => JSON.stringify({ ...x, question: x.checks.unsituatedQuestion })).join("\n") + "\n");
' "$T/R.jsonl" "$T/sit.jsonl" "$T/unsit.jsonl"
for v in sit unsit; do
  npx memsteer eval --history rhelm:../shared/data/rhelm --design seeds/base-bm25.ts --questions "$T/$v.jsonl" --jobs 2 \
    --traces "$T/tr-$v.jsonl" --json > /dev/null
done
node -e '
const fs = require("fs");
const load = (f) => new Map(fs.readFileSync(f, "utf8").trim().split("\n").map(JSON.parse).map((t) => [t.question, t]));
const [a, b] = [load(process.argv[1]), load(process.argv[2])];
const dev = new Set(["Jonas_Richter", "Justice_Arvind_Prakash_Mehra"]);
const out = {};
for (const part of ["dev", "heldout"]) {
  const xs = [...a.keys()].filter((k) => b.has(k) && dev.has(a.get(k).history) === (part === "dev"));
  const mean = (m, f) => xs.reduce((s, k) => s + f(m.get(k).scores), 0) / xs.length;
  out[part] = { items: xs.length,
    contextRecall: { situated: mean(a, (s) => s.contextRecall), unsituated: mean(b, (s) => s.contextRecall) },
    recallAt10: { situated: mean(a, (s) => s.recallAt["10"]), unsituated: mean(b, (s) => s.recallAt["10"]) } };
}
fs.writeFileSync(process.argv[3], JSON.stringify(out, null, 2) + "\n");
' "$T/tr-sit.jsonl" "$T/tr-unsit.jsonl" "$D/situation-paired.json"
npm start
