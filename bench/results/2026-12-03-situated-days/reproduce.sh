#!/bin/bash
# Calibration of rule-based@15 on RHELM (generator seeds 1 and 2; development and held-out histories reported apart)
# and LoCoMo; the paired effect of placing questions in their day, by kind; the quick start and its fidelity.
# all-dates-replaced/: the same with IN_PLACE_SHARE = 1 in src/supervision/rule-based/situation.ts.
# Run from the repository root: bash bench/results/2026-12-03-situated-days/reproduce.sh
set -euo pipefail
T=$(mktemp -d)
D=bench/results/2026-12-03-situated-days
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R.jsonl" --offline --report                  # ~3 min
npx memsteer generate --history rhelm:../shared/data/rhelm --out "$T/R2.jsonl" --offline --report --seed 2        # ~3 min
npx memsteer generate --history locomo:../shared/data/locomo/locomo10.json --out "$T/L.jsonl" --offline --report  # ~1 min
cp "$T/R.jsonl.calibration.json" "$D/calibration-rhelm-seed-1.json"
cp "$T/R2.jsonl.calibration.json" "$D/calibration-rhelm-seed-2.json"
cp "$T/L.jsonl.calibration.json" "$D/calibration-locomo.json"
# The situated items of seed 1, as generated and with the question they were before, scored by Base-BM25.
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
const items = new Map(fs.readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse).map((x) => [x.id, x]));
const load = (f) => new Map(fs.readFileSync(f, "utf8").trim().split("\n").map(JSON.parse).map((t) => [t.question, t]));
const [a, b] = [load(process.argv[2]), load(process.argv[3])];
const dev = new Set(["Jonas_Richter", "Justice_Arvind_Prakash_Mehra"]);
// Appended to a question of the same day, in place of the date it named, or another day for a day asked for.
const kind = (x) => x.answerType === "date" ? "another-day" : /\b(?:on \d{1,2} |in )[A-Z][a-z]+ \d{4}\b/.test(x.checks.unsituatedQuestion) ? "in-place-of-date" : "same-day-appended";
const out = {};
for (const part of ["dev", "heldout"]) {
  out[part] = {};
  for (const k of ["all", "same-day-appended", "in-place-of-date", "another-day"]) {
    const xs = [...a.keys()].filter((q) => b.has(q) && dev.has(a.get(q).history) === (part === "dev") && (k === "all" || kind(items.get(q)) === k));
    const mean = (m, f) => xs.reduce((s, q) => s + f(m.get(q).scores), 0) / xs.length;
    out[part][k] = { items: xs.length,
      contextRecall: { situated: mean(a, (s) => s.contextRecall), before: mean(b, (s) => s.contextRecall) },
      recallAt10: { situated: mean(a, (s) => s.recallAt["10"]), before: mean(b, (s) => s.recallAt["10"]) } };
  }
}
fs.writeFileSync(process.argv[4], JSON.stringify(out, null, 2) + "\n");
' "$T/sit.jsonl" "$T/tr-sit.jsonl" "$T/tr-unsit.jsonl" "$D/situation-paired.json"
npm start
npx memsteer report "$(ls -td archive/start-* | head -1)" --fidelity --json > "$D/fidelity-start.json"
