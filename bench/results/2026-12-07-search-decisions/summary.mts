/**
 * One line per fidelity report: τ-b by context recall against the official ceiling and split-halves, the search's
 * decisions replayed on official scores, and the official context recall the run reached.
 *   npx tsx bench/results/2026-12-07-search-decisions/summary.mts <fidelity.json>…
 */
import { basename } from 'node:path';
import { readFileSync } from 'node:fs';
import { FidelityReportSchema } from '../../../src/experiments/fidelity-schema.ts';

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '–' : (x * 100).toFixed(1));
for (const file of process.argv.slice(2)) {
  const f = FidelityReportSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const ctx = (id: string | null) => f.candidates.find((c) => c.id === id)?.official?.contextRecall;
  const best = Math.max(...f.candidates.map((c) => c.official?.contextRecall ?? 0));
  const d = f.decisions;
  const contradicted = d?.decisions
    .filter((x) => x.agrees === false)
    .map((x) => `${x.move.replace('case-driven:', '')} ${x.accepted ? 'kept' : 'dropped'}`);
  const half = (h: { meanTauB: number } | null | undefined) => h?.meanTauB.toFixed(2);
  console.log(
    [
      basename(file, '.json').replace('fidelity-', ''),
      `${f.distinct} candidates, ${f.questionCount} official questions`,
      `τ-b ${f.contextRecall.kendallTauB?.toFixed(2)} [${f.tauInterval?.lower.toFixed(2)}, ${f.tauInterval?.upper.toFixed(2)}]`,
      `ceiling ${f.officialCeiling?.meanTauB.toFixed(2)}`,
      `split-half official ${half(f.reliability?.official)} validation ${half(f.reliability?.validation)}`,
      `decisions ${d?.agree} confirmed / ${d?.disagree} contradicted / ${d?.unclear} unclear`,
      `official ctx recall ${pct(f.candidates[0]?.official?.contextRecall)} → run best ${pct(ctx(f.runBest))}` +
        ` (best candidate ${pct(best)})`,
      `contradicted: ${contradicted?.join(', ') || 'none'}`,
    ].join(' | '),
  );
}
