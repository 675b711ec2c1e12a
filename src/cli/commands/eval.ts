import type { Command } from 'commander';
import Table from 'cli-table3';
import cliProgress from 'cli-progress';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { basename, join, resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { InputError, MemsteerError } from '../../errors.ts';
import { QAItemSchema, type History, type QAItem } from '../../history/record.ts';
import { readJsonl, writeJsonl } from '../../util/jsonl.ts';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import { openLlmClient } from '../../llm/client.ts';
import { compileDesign } from '../../design/compile.ts';
import { createEvalPool, evaluateProgram, type EvalProgress, type EvaluationStats } from '../../evaluate/evaluate.ts';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../../evaluate/eval-adapters.ts';
import { z } from 'zod';
import { EvalSummarySchema, type EvalSummary, type MetricBlock } from '../../scoring/summary.ts';
import { QuestionTraceSchema, traceForFile } from '../../scoring/trace-schema.ts';
import type { QuestionTrace } from '../../scoring/trace.ts';
import { checkPaths, tablePathChecks } from '../check-paths.ts';
import * as common from '../common-options.ts';
import { loadCommandInputs } from '../history-warnings.ts';
import { addOptions, optionTable, parseOptions, type OptionsInput, type OptionsOf } from '../option-table.ts';

/** `memsteer eval`'s options, each declared once (see option-table.ts). */
export const EVAL_OPTIONS = optionTable({
  history: common.history,
  design: {
    flags: '--design <file.ts>',
    description: 'the memory design (a TypeScript module against sandbox/contract.ts)',
    schema: z.string().min(1),
    path: 'file',
    required: true,
  },
  questions: {
    flags: '--questions <official|file>',
    description: "'official' (the histories' own QA) or a supervision.jsonl file",
    schema: z.string().min(1).default('official'),
    path: 'file',
    notPaths: ['official'],
  },
  budget: { ...common.contextBudget, flags: '--budget <tokens>', description: 'context budget in tokens' },
  categories: {
    flags: '--categories <list>',
    description: 'only these question categories, comma-separated (e.g. 1,2,3,4)',
    schema: z.array(z.string()).optional(),
  },
  limit: { ...common.limit, description: 'only the first n questions (after --categories)' },
  jobs: common.jobs,
  queue: common.queue,
  cache: {
    flags: '--cache <dir>',
    description: 'cache evaluation results on disk here',
    schema: z.string().min(1).optional(),
    path: 'out-dir',
  },
  traces: {
    flags: '--traces <file>',
    description: 'where to write traces (JSONL; default archive/eval-<timestamp>/traces.jsonl)',
    schema: z.string().min(1).optional(),
  },
  strict: common.strict,
  json: { ...common.json, description: 'print the report as JSON' },
});

/** `memsteer eval`'s typed options. */
export type EvalCommandOptions = OptionsOf<typeof EVAL_OPTIONS>;

/** The question set: the histories' official QA, or a supervision.jsonl file; then category filter and limit. */
export function selectQuestions(
  histories: readonly History[],
  questions: string,
  categories?: readonly string[],
  limit?: number,
  /** The items of the `questions` file when already read. */
  read?: readonly QAItem[],
): QAItem[] {
  let items: QAItem[];
  if (questions === 'official') {
    items = histories.flatMap((h) => h.qa);
    if (items.length === 0) {
      throw new InputError(
        'E_NO_QUESTIONS',
        'these histories have no official QA; pass --questions <supervision.jsonl> (e.g. from memsteer generate)',
      );
    }
  } else {
    const ids = new Set(histories.map((h) => h.id));
    items = (read ?? readJsonl(resolve(questions), QAItemSchema)).filter((q) => ids.has(q.history));
    if (items.length === 0)
      throw new InputError(
        'E_NO_QUESTIONS',
        `${questions}: no question is about a loaded history ` + `(${[...ids].slice(0, 3).join(', ')}…)`,
        {
          file: questions,
        },
      );
  }
  if (categories?.length) {
    const keep = new Set(categories);
    items = items.filter((q) => q.category !== undefined && keep.has(q.category));
    if (items.length === 0) throw new InputError('E_NO_QUESTIONS', `no question has a category in {${[...keep].join(', ')}}`);
  }
  return limit === undefined ? items : items.slice(0, limit);
}

/** What `--json` prints and what is written beside the traces (`<traces>.summary.json`). */
export const EvalReportSchema = z.object({
  design: z.string(),
  program: z.string(),
  history: z.string(),
  questions: z.number().int(),
  budget: z.number().int(),
  answerer: z.string(),
  judge: z.string(),
  cached: z.boolean(),
  summary: EvalSummarySchema,
  stats: z.record(z.string(), z.unknown()),
  traces: z.string(),
});

const pct = (x: number) => (x * 100).toFixed(1);

/** The summary table `memsteer eval` prints: one row per category (when there are several), then all. */
export function renderEvalTable(summary: EvalSummary, ks: readonly number[]): string {
  const table = new Table({
    head: ['category', 'n', ...ks.map((k) => `R@${k}`), 'R@budget', 'ctx recall', 'accuracy', 'F1', 'LoCoMo F1', 'ctx tokens', 'errors'],
    style: { head: [], border: [], compact: true },
  });
  const row = (name: string, b: MetricBlock) => [
    name,
    String(b.n),
    ...ks.map((k) => (b.withEvidence ? pct(b.recallAt[String(k)] ?? 0) : '–')),
    b.recallAtBudget === null ? '–' : pct(b.recallAtBudget),
    b.contextRecall === null ? '–' : pct(b.contextRecall),
    pct(b.accuracy),
    pct(b.f1),
    b.locomoF1 === null ? '–' : pct(b.locomoF1),
    b.meanContextTokens.toFixed(0),
    String(Object.values(b.errors).reduce((a, c) => a + c, 0)),
  ];
  const cats = Object.keys(summary.perCategory).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (cats.length > 1) for (const c of cats) table.push(row(c, summary.perCategory[c]!));
  table.push(row('all', summary));
  return table.toString();
}

function errorLines(traces: readonly QuestionTrace[]): string[] {
  const counts = new Map<string, number>();
  for (const t of traces) {
    if (!t.error) continue;
    const key = `${t.error.stage}/${t.error.kind}: ${t.error.message.split('\n')[0]!.slice(0, 160)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([k, n]) => `  ${n} × ${k}`);
}

function defaultTracesPath(): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return resolve('archive', `eval-${stamp}`, 'traces.jsonl');
}

/** The summary written beside the traces. */
const summaryPathOf = (tracesPath: string) => join(tracesPath, '..', `${basename(tracesPath, '.jsonl')}.summary.json`);

/** `memsteer eval`: run a design over histories and a question set in the sandbox pool and score it. */
export async function runEvalCommand(input: OptionsInput<typeof EVAL_OPTIONS>, io: CliIO): Promise<void> {
  const opts = parseOptions(EVAL_OPTIONS, input);
  const tracesPath = resolve(opts.traces ?? defaultTracesPath());
  checkPaths([
    ...tablePathChecks(EVAL_OPTIONS, opts),
    { flag: '--traces', value: tracesPath, role: 'out-file' },
    { flag: '--traces', value: summaryPathOf(tracesPath), role: 'out-file' },
  ]);
  const designPath = resolve(opts.design);
  const { budget, limit, jobs } = opts;
  const ks = [1, 5, 10];
  // Histories (and their warnings, refused under --strict) come before the first piece of work.
  const { histories, items } = await loadCommandInputs(opts.history, io, {
    strict: opts.strict,
    questions: opts.questions === 'official' ? undefined : opts.questions,
  });

  const compiled = await compileDesign(readFileSync(designPath, 'utf8'), { fileName: basename(designPath) });
  if (!compiled.ok) {
    const first = compiled.diagnostics[0];
    for (const d of compiled.diagnostics.slice(1, 20)) io.err(`${opts.design}:${d.line}:${d.column}: ${d.code}: ${d.message}\n`);
    throw new InputError(
      'E_COMPILE',
      `${opts.design}:${first?.line ?? 1}:${first?.column ?? 1}: ${first ? `${first.code}: ${first.message}` : 'does not compile'}` +
        (compiled.diagnostics.length > 1 ? ` (and ${compiled.diagnostics.length - 1} more above)` : ''),
      { file: opts.design, ...(first ? { line: first.line } : {}) },
    );
  }

  const questions = selectQuestions(histories, opts.questions, opts.categories, limit, items);
  const client = openLlmClient();
  const answerer = evalAnswererFrom(client);
  const scorer = evalScorerFrom(client);
  const queue = opts.queue ? { url: opts.queue, runId: `eval-${randomUUID()}` } : undefined;
  const pool = createEvalPool({ ...(jobs ? { size: jobs } : {}), ...(client ? { llm: client } : {}), ...(queue ? { queue } : {}) });

  const bar = io.interactive
    ? new cliProgress.SingleBar(
        {
          format:
            'eval {bar} {value}/{total} questions | groups {groupsDone}/{groups} | failed {failed}' +
            `${queue ? ' | {workers} workers, {queued} queued' : ''} | {history}`,
          stream: { write: (s: string) => io.err(s), isTTY: true } as unknown as NodeJS.WritableStream,
          hideCursor: true,
          clearOnComplete: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const poolLoad = () => ({ workers: pool.stats().size, queued: pool.stats().queued });
  bar?.start(questions.length, 0, { groupsDone: 0, groups: 0, failed: 0, history: '', ...poolLoad() });
  const onProgress = (p: EvalProgress) =>
    bar?.update(p.done, { groupsDone: p.groupsDone, groups: p.groups, failed: p.failed, history: p.history, ...poolLoad() });
  // With a queue, workers and queued groups change while no question finishes.
  const ticker = queue && bar ? setInterval(() => bar.update(poolLoad()), 1000) : null;

  let result;
  try {
    result = await evaluateProgram({
      program: compiled.program,
      histories,
      questions,
      budget: { tokens: budget },
      answerer,
      score: scorer.score,
      judgeId: scorer.judgeId,
      summarize: summarizeTraces,
      pool,
      ks,
      onProgress,
      ...(opts.cache ? { cacheDir: resolve(opts.cache) } : {}),
    });
  } finally {
    if (ticker) clearInterval(ticker);
    bar?.stop();
    await pool.close();
  }

  writeJsonl(tracesPath, result.traces.map(traceForFile), QuestionTraceSchema);
  const report = {
    design: designPath,
    program: compiled.program.hash,
    history: opts.history,
    questions: questions.length,
    budget,
    answerer: answerer.id,
    judge: scorer.judgeId,
    cached: result.cached,
    summary: result.summary,
    stats: result.stats,
    traces: tracesPath,
  };
  writeFileAtomic(summaryPathOf(tracesPath), `${JSON.stringify(EvalReportSchema.parse(report), null, 2)}\n`);
  if (opts.json) {
    io.out(`${JSON.stringify(report, null, 2)}\n`);
    failIfNothingWorked(result.traces, client, tracesPath);
    return;
  }
  io.out(
    `${basename(designPath)} on ${opts.history}: ${questions.length} questions, budget ${budget} tokens, ` +
      `answerer ${answerer.id}${result.cached ? ' (cached)' : ''}\n`,
  );
  io.out(`${renderEvalTable(result.summary, ks)}\n`);
  io.out(`${describeStats(result.stats)}\n`);
  const errs = errorLines(result.traces);
  if (errs.length) io.out(`errors:\n${errs.join('\n')}\n`);
  io.out(`traces: ${tracesPath}\n`);
  failIfNothingWorked(result.traces, client, tracesPath);
}

/**
 * Exits non-zero (after the traces and the report are written) when the evaluation produced nothing usable: the
 * LLM circuit breaker stopped the answerer or judge (a 401, a dead endpoint), or every question failed.
 */
function failIfNothingWorked(traces: readonly QuestionTrace[], client: ReturnType<typeof openLlmClient>, tracesPath: string): void {
  const breaker = client?.breaker.openError;
  if (breaker) throw breaker;
  const failed = traces.filter((t) => t.error).length;
  if (traces.length === 0 || failed < traces.length) return;
  const causes = errorLines(traces).slice(0, 3).join(';').replace(/\s+/g, ' ').trim();
  throw new MemsteerError('E_EVAL_FAILED', `all ${failed} questions failed (${causes}); traces: ${tracesPath}`);
}

function describeStats(s: EvaluationStats): string {
  const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const tokens = s.llmTokens.prompt + s.llmTokens.completion;
  return (
    `time ${sec(s.ms)} (${(s.questions / Math.max(s.ms / 1000, 1e-9)).toFixed(1)} questions/s); ` +
    `${s.groups} memory builds, ${s.failedGroups} failed, ${s.crashes} sandbox crashes; ` +
    `store ${sec(s.phaseMs.store)}, retrieve ${sec(s.phaseMs.retrieve)}, context ${sec(s.phaseMs.context)}, ` +
    `answer+score ${sec(s.phaseMs.answer)} (summed over processes); ` +
    `LLM tokens ${tokens}`
  );
}

export function register(program: Command, io: CliIO): void {
  const command = program
    .command('eval')
    .description('Run a memory design over histories and a question set in the sandbox pool, and score it');
  addOptions(command, EVAL_OPTIONS).action(async (raw: Record<string, unknown>) => runEvalCommand(raw, io));
}
