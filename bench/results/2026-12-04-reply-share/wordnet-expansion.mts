/**
 * A probe on RHELM's development personas only: the design with each query word expanded by WordNet synonyms (and
 * hyponyms) that occur in the persona's records, for the words of the development personas' own questions.
 *   npx tsx bench/results/2026-12-04-reply-share/wordnet-expansion.mts <design.ts> <out-prefix>
 * writes <out-prefix>-syn.ts and <out-prefix>-syn-hypo.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DEV_SUBSETS } from '../../../src/experiments/dev-subsets.ts';
import { loadHistories } from '../../../src/history/load.ts';
import { createWordNetLexicon } from '../../../src/supervision/rule-based/wordnet.ts';
import { isStopword, terms, tokenize } from '../../../src/text/text.ts';

const [design, prefix] = process.argv.slice(2);
if (!design || !prefix) throw new Error('usage: wordnet-expansion.mts <design.ts> <out-prefix>');
const dev = (await loadHistories('rhelm:../shared/data/rhelm')).filter((h) => DEV_SUBSETS.rhelm!.includes(h.id));
const lex = createWordNetLexicon();
for (const [name, hyponyms] of [
  ['syn', false],
  ['syn-hypo', true],
] as const) {
  const table: Record<string, string[]> = {};
  for (const h of dev) {
    const df = new Map<string, number>();
    for (const r of h.records) for (const w of new Set(tokenize(r.text))) df.set(w, (df.get(w) ?? 0) + 1);
    for (const q of h.qa) {
      for (const w of new Set(tokenize(q.question))) {
        const key = terms(w)[0];
        if (isStopword(w) || w.length < 3 || !key) continue;
        const out = new Set(table[key] ?? []);
        for (const pos of ['noun', 'verb'] as const) {
          for (const s of (await lex.senses(w, pos)).slice(0, 2)) {
            for (const c of [...s.synonyms, ...(hyponyms ? s.hyponyms : [])]) {
              const l = c.toLowerCase();
              const d = df.get(l) ?? 0;
              if (!/\s/.test(l) && l !== w && terms(l)[0] !== key && d > 0 && d < 200) out.add(l);
            }
          }
        }
        if (out.size) table[key] = [...out].slice(0, 12);
      }
    }
  }
  let s = readFileSync(design, 'utf8');
  const data = `const LEXICON: Record<string, string[]> = ${JSON.stringify(table)};\nconst LEX_TERMS = 8;\n\n`;
  s = s.replace('const design = {', `${data}const design = {`);
  s = s.replace(
    "  return extra.length ? query + ' ' + extra.slice(0, BRIDGE_TERMS).join(' ') : query;",
    [
      '  const lexical: string[] = [];',
      '  for (const t of new Set(tools.text.terms(query))) for (const w of LEXICON[t] ?? []) if (!lexical.includes(w)) lexical.push(w);',
      '  const all = [...extra.slice(0, BRIDGE_TERMS), ...lexical.slice(0, LEX_TERMS)];',
      "  return all.length ? query + ' ' + all.join(' ') : query;",
    ].join('\n'),
  );
  if (!s.includes('LEXICON[t]')) throw new Error(`${design}: no bridge table to extend`);
  writeFileSync(`${prefix}-${name}.ts`, s);
}
