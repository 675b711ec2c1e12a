/**
 * What the host's two text caches save, in one run, as ratios (most of the quick start's time is these two jobs):
 *   1. The offline answerer (extractive reader) parses each context line once: answering contexts whose lines recur
 *      (as a design's contexts do, question after question and candidate after candidate) with the parsed lines
 *      forgotten before every answer (cold) and kept (warm). The answers must be identical.
 *   2. `tools.bm25` analyses each document text once: an index rebuilt over a growing prefix at every cut (what a
 *      design whose `add` re-indexes does at every question date), with the caches cleared before every build
 *      (cold) and kept (warm). The top hits of a query must be identical.
 * Contexts and questions come from the embedded default history's records only (no official questions).
 *
 *   npx tsx bench/host-caches.ts [--cuts 80] [--contexts 600]
 *
 * Not part of `npm test`.
 */
import { DEFAULT_SOURCE } from '../src/history/default-source.ts';
import { loadHistories } from '../src/history/load.ts';
import { buildBm25Index, clearBm25Cache } from '../src/isolate/host-tools/bm25-index.ts';
import { clearParsedLines, extractiveAnswer } from '../src/scoring/extractive-reader.ts';
import { flag } from './args.ts';

const CUTS = Number(flag('cuts', '80'));
const CONTEXTS = Number(flag('contexts', '600'));

const [history] = await loadHistories(DEFAULT_SOURCE);
const records = history!.records;
const lineOf = (r: (typeof records)[number]) => `[${r.time ?? ''}] ${r.speaker ? `${r.speaker}: ` : ''}${r.text.replace(/\s+/g, ' ')}`;

// 1. Reader: a window of 20 records per context, moved 3 records at a time, asked the words of a middle record.
const jobs: Array<{ question: string; context: string }> = [];
for (let i = 0; jobs.length < CONTEXTS; i = (i + 3) % (records.length - 20)) {
  const window = records.slice(i, i + 20);
  const words = window[10]!.text.split(/\s+/).slice(0, 8).join(' ');
  jobs.push({ question: `What about ${words}?`, context: window.map(lineOf).join('\n') });
}
const answerAll = (cold: boolean) => {
  clearParsedLines();
  const t = performance.now();
  const answers = jobs.map((j) => {
    if (cold) clearParsedLines();
    return extractiveAnswer(j.question, j.context).answer;
  });
  return { ms: performance.now() - t, answers };
};
const rounds = [answerAll(true), answerAll(false), answerAll(true), answerAll(false)];
const coldMs = rounds[0]!.ms + rounds[2]!.ms;
const warmMs = rounds[1]!.ms + rounds[3]!.ms;
const differ = rounds[0]!.answers.filter((a, i) => a !== rounds[1]!.answers[i]).length;
console.log(`reader: ${jobs.length} contexts of 20 records, 2 rounds each way`);
console.log(
  `  lines parsed per answer ${coldMs.toFixed(0)} ms, lines parsed once ${warmMs.toFixed(0)} ms → ${(coldMs / warmMs).toFixed(1)}x`,
);
console.log(`  answers that differ: ${differ} of ${jobs.length}`);

// 2. bm25: rebuild over a growing prefix at every cut, as an `add` that re-indexes does.
const docs = records.map((r, i) => ({ id: String(i), text: lineOf(r) }));
const query = jobs[0]!.question;
const rebuildAll = (cold: boolean) => {
  clearBm25Cache();
  const t = performance.now();
  const tops: string[] = [];
  for (let c = 1; c <= CUTS; c++) {
    if (cold) clearBm25Cache();
    const index = buildBm25Index(docs.slice(0, Math.round((records.length * c) / CUTS)), { stem: true });
    tops.push(JSON.stringify(index.search(query, 10)));
  }
  return { ms: performance.now() - t, tops };
};
const builds = [rebuildAll(true), rebuildAll(false), rebuildAll(true), rebuildAll(false)];
const coldBuild = builds[0]!.ms + builds[2]!.ms;
const warmBuild = builds[1]!.ms + builds[3]!.ms;
const differTops = builds[0]!.tops.filter((t, i) => t !== builds[1]!.tops[i]).length;
console.log(`bm25: ${CUTS} rebuilds over a growing prefix of ${records.length} records, 2 rounds each way`);
const buildRatio = (coldBuild / warmBuild).toFixed(1);
console.log(`  texts analysed per build ${coldBuild.toFixed(0)} ms, analysed once ${warmBuild.toFixed(0)} ms → ${buildRatio}x`);
console.log(`  top-10 lists that differ: ${differTops} of ${CUTS}`);
