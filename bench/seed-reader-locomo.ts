/**
 * End-to-end offline numbers on LoCoMo for one seed, run in-process (trusted code, no sandbox): the seed
 * builds memory per conversation, retrieves and packs a context for each question (history up to the question
 * is the whole conversation here: LoCoMo questions carry no date), the extractive reader answers, and
 * scoreQuestion/summarize score it.
 *
 *   npx tsx bench/seed-reader-locomo.ts [seed-name] [budget-tokens]
 *
 * A calibration script: it reads only the development conversations (DEV_SUBSETS.locomo, see the README's
 * "Development subsets").
 */
import type { MemoryDesign } from '../sandbox/contract.ts';
import { devOnly } from '../src/experiments/dev-subsets.ts';
import { loadLocomo } from '../src/history/loaders/locomo.ts';
import { createAnswerer } from '../src/scoring/answerer.ts';
import { toolsFromHost } from '../src/isolate/direct-sandbox.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import { createJudge } from '../src/scoring/judge.ts';
import { scoreQuestion } from '../src/scoring/score.ts';
import { summarize } from '../src/scoring/summary.ts';
import type { QuestionTrace } from '../src/scoring/trace.ts';
import { countTokens } from '../src/text/text.ts';

const seed = process.argv[2] ?? 'base-bm25';
const budget = Number(process.argv[3] ?? 1000);
const design = (await import(`../seeds/${seed}.ts`)).default as MemoryDesign;
const histories = devOnly('locomo', loadLocomo('/work/shared/data/locomo/locomo10.json'));
const answerer = createAnswerer();
const judge = createJudge();
const traces: QuestionTrace[] = [];
for (const h of histories) {
  const tools = toolsFromHost(createHostTools());
  const memory = await design.store(h.records, tools);
  const byId = new Map(memory.units.map((u) => [u.id, u]));
  for (const item of h.qa) {
    const q = { id: item.id, text: item.question };
    const hits = await design.retrieve(q, memory, tools);
    const ctx = await design.context(q, hits, memory, tools, { tokens: budget });
    const rankedRecords = [...new Set(hits.flatMap((x) => byId.get(x.unit)?.sources ?? []))];
    const deliveredRecords = [...new Set(ctx.units.flatMap((u) => byId.get(u)?.sources ?? []))];
    const { answer } = await answerer.answer({ question: item.question, context: ctx.text, answerType: item.answerType });
    const scores = await scoreQuestion(item, { rankedRecords, deliveredRecords, answer }, { ks: [1, 5, 10], judge });
    traces.push({
      question: item.id,
      history: h.id,
      ...(item.category ? { category: item.category } : {}),
      ranked: [],
      rankedRecords,
      delivered: ctx.units,
      deliveredRecords,
      contextTokens: countTokens(ctx.text),
      contextText: '',
      answer,
      reference: item.answer,
      scores,
      timeMs: { store: 0, retrieve: 0, context: 0, answer: 0 },
      toolCalls: {},
    });
  }
}
const s = summarize(traces);
const f = (x: number | null | undefined) => (x === null || x === undefined ? '-' : x.toFixed(3));
process.stdout.write(
  `${seed} budget ${budget}: n ${s.n} accuracy ${f(s.accuracy)} F1 ${f(s.f1)} LoCoMo-F1 1-4 ${f(s.locomo?.categories1to4)} ` +
    `R@1/5/10 ${f(s.recallAt['1'])}/${f(s.recallAt['5'])}/${f(s.recallAt['10'])} ctxRecall ${f(s.contextRecall)}\n`,
);
for (const [c, b] of Object.entries(s.perCategory))
  process.stdout.write(
    `  cat ${c}: n ${b.n} acc ${f(b.accuracy)} LoCoMo-F1 ${f(b.locomoF1)} R@10 ${f(b.recallAt['10'])} ctxRecall ${f(b.contextRecall)}\n`,
  );
