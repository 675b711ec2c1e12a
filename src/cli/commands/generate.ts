import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import Table from 'cli-table3';
import { z } from 'zod';
import { ConfigError, MemsteerError } from '../../errors.ts';
import { QAItemSchema, type QAItem } from '../../history/record.ts';
import { openLlmClient } from '../../llm/client.ts';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import { writeJsonl } from '../../util/jsonl.ts';
import { generateSupervision } from '../../supervision/generate.ts';
import { createLlmBlindReader } from '../../supervision/llm-generator.ts';
import { QuestionType } from '../../supervision/plan.ts';
import { progressPath } from '../../supervision/progress-store.ts';
import { scoreSupervision, QualityReportSchema } from '../../supervision/quality.ts';
import { CalibrationReportSchema } from '../../supervision/calibration.ts';
import { GenerationSummarySchema, type GenerationSummary } from '../../supervision/summary.ts';
import { calibrationReport, seedContextRecall } from '../../experiments/calibration-report.ts';
import { calibrationTable } from './generate-report.ts';
import type { CliIO } from '../io.ts';
import { count, GenerateItems, LIMITS, ValShare } from '../../config/run-options.ts';
import { checkPaths, tablePathChecks } from '../check-paths.ts';
import * as common from '../common-options.ts';
import { loadCommandInputs } from '../history-warnings.ts';
import { addOptions, optionTable, parseOptions, type OptionsInput, type OptionsOf } from '../option-table.ts';

/** `memsteer generate`'s options, each declared once (see option-table.ts). */
export const GENERATE_OPTIONS = optionTable({
  history: { ...common.history, description: 'history source, <format>:<path>[#<history>[,…]]' },
  out: {
    flags: '--out <file>',
    description: 'supervision JSONL to write (a summary goes to <file>.summary.json, progress to <file>.progress.jsonl)',
    schema: z.string().min(1).optional(),
    path: 'out-file',
  },
  n: { flags: '--n <count>', description: 'target number of items per history', schema: GenerateItems },
  val: { flags: '--val <share>', description: 'share of items in the validation split', schema: ValShare },
  offline: { ...common.offline, description: 'use the rule-based generator even when an LLM is configured' },
  gapTarget: {
    flags: '--gap-target <share>',
    description:
      'rule-based generator: share of items whose question shares no content word with its evidence (default: calibrated ' +
      'per kind of history, 0.16 for chats between people, 0.02 for a user talking to an assistant)',
    schema: z.number().min(0).max(1).optional(),
  },
  types: {
    flags: '--types <list>',
    description: `comma-separated question types (${QuestionType.options.join(', ')})`,
    schema: z.array(QuestionType).min(1).optional(),
  },
  budget: {
    flags: '--budget <tokens>',
    description: 'stop after this many LLM tokens (prompt + completion)',
    schema: count(LIMITS.tokens).optional(),
  },
  seed: { ...common.rngSeed, flags: '--seed <n>', description: 'random seed' },
  quality: {
    flags: '--quality <file>',
    description: 'score an existing supervision file instead of generating',
    schema: z.string().min(1).optional(),
    path: 'file',
  },
  report: {
    flags: '--report',
    description:
      'also report calibration against the official questions: question forms, lexical gap, evidence counts, seed difficulty ' +
      '(written to <out>.calibration.json)',
    schema: z.boolean().default(false),
  },
  strict: common.strict,
  json: { ...common.json, description: 'print the summary as JSON' },
});

/** `memsteer generate`'s typed options. */
export type GenerateCliOptions = OptionsOf<typeof GENERATE_OPTIONS>;

/** Options and every path `generate` reads or writes, checked before any work. */
export function prepareGenerate(input: OptionsInput<typeof GENERATE_OPTIONS>): GenerateCliOptions {
  const f = parseOptions(GENERATE_OPTIONS, input);
  if (!f.quality && !f.out) throw new ConfigError('E_MISSING_FLAG', 'generate needs --out <file> (or --quality <file> to score one)');
  const checks = tablePathChecks(GENERATE_OPTIONS, f);
  if (f.out && !f.quality) {
    checks.push({ flag: '--out', value: `${f.out}.summary.json`, role: 'out-file' });
    checks.push({ flag: '--out', value: progressPath(f.out), role: 'out-file' });
    if (f.report) checks.push({ flag: '--out', value: calibrationPath(f.out), role: 'out-file' });
  }
  checkPaths(f.quality ? checks.filter((c) => c.flag !== '--out') : checks);
  return f;
}

/** Where `--report` writes the calibration report of a generated set. */
export function calibrationPath(out: string): string {
  return `${out}.calibration.json`;
}

// Tables go to files and pipes as often as to terminals: no colour codes.
const PLAIN = { head: [] as string[], border: [] as string[] };

function summaryTable(s: GenerationSummary): string {
  const types = new Table({ head: ['type', 'train', 'val', 'total'], style: PLAIN });
  for (const [t, c] of Object.entries(s.byType).sort()) types.push([t, c.train, c.val, c.train + c.val]);
  types.push(['all', s.split.train, s.split.val, s.kept]);
  const stages = new Table({ head: ['stage', 'in', 'out', 'kept %'], style: PLAIN });
  for (const st of s.stages) stages.push([st.stage, st.in, st.out, st.in ? `${st.keptPct}%` : '—']);
  const rej = new Table({ head: ['rejection', 'count'], style: PLAIN });
  for (const [r, c] of Object.entries(s.rejections).sort((a, b) => b[1] - a[1])) rej.push([r, c]);
  return [
    `${s.history}: ${s.kept}/${s.target} items by ${s.generator} (reader ${s.reader}), ` +
      `${s.bundles} bundles, ${(s.durationMs / 1000).toFixed(1)} s` +
      (s.mode === 'llm'
        ? `, ${s.tokens.prompt} prompt tokens (${s.tokens.promptPerKept} per kept item), ` +
          `${s.tokens.cachedCalls}/${s.tokens.calls} calls cached`
        : '') +
      (s.budgetExhausted
        ? ' — stopped at the token budget'
        : s.kept < s.target
          ? ' — short of the target: the history yields no more questions within the type and template caps'
          : '') +
      (s.resumedBundles ? ` — resumed ${s.resumedBundles} finished bundles` : '') +
      (s.failedBundles ? ` — ${s.failedBundles} bundles failed on the LLM endpoint (run again to retry them)` : ''),
    types.toString(),
    stages.toString(),
    rej.toString(),
  ].join('\n');
}

/** `memsteer generate`: supervision from unlabeled histories, or (`--quality`) the pass rates of an existing set. */
export function register(program: Command, io: CliIO): void {
  const command = program
    .command('generate')
    .description('Generate question–answer–evidence supervision from a history (offline rule-based unless an LLM is configured)');
  addOptions(command, GENERATE_OPTIONS).action(async (raw: Record<string, unknown>) => {
    const flags = prepareGenerate(raw);
    const { histories, items } = await loadCommandInputs(flags.history, io, { strict: flags.strict, questions: flags.quality });
    if (items) {
      const llm = flags.offline ? null : openLlmClient();
      // With a model for the reader role, answer support is judged by the LLM blind reader (the generator's own
      // recovery gate); evidence, clarity and premise stay programmatic checks either way.
      const reader = llm?.hasRole('reader') ? createLlmBlindReader(llm) : undefined;
      const report = QualityReportSchema.parse(await scoreSupervision(items, histories, reader));
      const calibration = flags.report ? calibrationReport(histories, items, await seedContextRecall(histories, items)) : undefined;
      if (flags.json) io.out(`${JSON.stringify(calibration ? { quality: report, calibration } : report, null, 2)}\n`);
      else {
        const t = new Table({ head: ['check', 'pass rate'], style: PLAIN });
        for (const [k, v] of Object.entries(report.rates)) t.push([k, `${(v * 100).toFixed(1)}%`]);
        io.out(`${report.items} items, ${report.method}\n${t.toString()}\n${calibration ? `${calibrationTable(calibration)}\n` : ''}`);
      }
      return;
    }
    const out = flags.out!;
    const { n, val, budget: budgetTokens } = flags;
    const llm = flags.offline ? null : openLlmClient();
    const all: QAItem[] = [];
    const summaries: GenerationSummary[] = [];
    for (const history of histories) {
      const bar = io.interactive
        ? new cliProgress.SingleBar(
            { stream: process.stderr, format: `${history.id} [{bar}] {value}/{total} items | {bundles} bundles` },
            cliProgress.Presets.shades_classic,
          )
        : undefined;
      bar?.start(n, 0, { bundles: 0 });
      try {
        const { items, summary } = await generateSupervision(history, {
          mode: llm ? 'llm' : 'offline',
          ...(llm ? { llm } : {}),
          n,
          val,
          seed: flags.seed,
          ...(flags.gapTarget !== undefined ? { gapTarget: flags.gapTarget } : {}),
          ...(flags.types ? { types: flags.types } : {}),
          ...(budgetTokens !== undefined ? { budgetTokens } : {}),
          progressFile: progressPath(out),
          onProgress: (p) => bar?.update(p.kept, { bundles: p.bundlesDone }),
        });
        all.push(...items);
        summaries.push(GenerationSummarySchema.parse(summary));
      } finally {
        bar?.stop();
      }
    }
    if (all.length === 0) {
      // Nothing usable: no empty file that looks like a result. The journal keeps the work for a re-run.
      io.err(`${summaries.map(summaryTable).join('\n\n')}\n`);
      const failed = summaries.reduce((a, s) => a + s.failedBundles, 0);
      throw new MemsteerError(
        'E_NO_ITEMS',
        `no item was kept from ${summaries.reduce((a, s) => a + s.bundles, 0)} bundles` +
          (failed
            ? `; ${failed} bundles failed on the LLM endpoint: run the same command again to retry them`
            : '; see the rejections above'),
      );
    }
    writeJsonl(out, all, QAItemSchema);
    // The form mix and lexical gap are cheap and always recorded; the seed's difficulty costs an evaluation: --report.
    const calibration = calibrationReport(histories, all, flags.report ? await seedContextRecall(histories, all) : undefined);
    for (const s of summaries) {
      const part = calibration.byHistory.find((p) => p.histories[0] === s.history);
      if (part) s.calibration = part;
    }
    writeFileAtomic(`${out}.summary.json`, `${JSON.stringify(z.array(GenerationSummarySchema).parse(summaries), null, 2)}\n`);
    if (flags.report) writeFileAtomic(calibrationPath(out), `${JSON.stringify(CalibrationReportSchema.parse(calibration), null, 2)}\n`);
    const summaryJson = summaries.length === 1 ? summaries[0] : summaries;
    if (flags.json) io.out(`${JSON.stringify(flags.report ? { summary: summaryJson, calibration } : summaryJson, null, 2)}\n`);
    else {
      io.out(
        `${summaries.map(summaryTable).join('\n\n')}\n${flags.report ? `${calibrationTable(calibration)}\n` : ''}` +
          `wrote ${all.length} items to ${out}\n`,
      );
    }
  });
}
