import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import Table from 'cli-table3';
import { z } from 'zod';
import { ConfigError, MemsteerError } from '../../errors.ts';
import { loadHistories } from '../../history/load.ts';
import { QAItemSchema, type QAItem } from '../../history/record.ts';
import { openLlmClient } from '../../llm/client.ts';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import { readJsonl, writeJsonl } from '../../util/jsonl.ts';
import { generateSupervision } from '../../supervision/generate.ts';
import { createLlmBlindReader } from '../../supervision/llm-generator.ts';
import { QuestionType } from '../../supervision/plan.ts';
import { progressPath } from '../../supervision/progress-store.ts';
import { scoreSupervision, QualityReportSchema } from '../../supervision/quality.ts';
import { GenerationSummarySchema, type GenerationSummary } from '../../supervision/summary.ts';
import type { CliIO } from '../io.ts';

interface GenerateFlags {
  history: string;
  out?: string;
  n: string;
  val: string;
  offline?: boolean;
  types?: string;
  budget?: string;
  seed: string;
  json?: boolean;
  quality?: string;
}

function positiveInt(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new ConfigError('E_BAD_OPTION', `--${name} must be a positive integer, got "${v}"`);
  return n;
}

function parseTypes(v: string | undefined): QuestionType[] | undefined {
  if (!v) return undefined;
  return v.split(',').map((t) => {
    const r = QuestionType.safeParse(t.trim());
    if (!r.success) throw new ConfigError('E_BAD_OPTION', `--types: unknown type "${t.trim()}"; use ${QuestionType.options.join(', ')}`);
    return r.data;
  });
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
    `${s.history}: ${s.kept}/${s.target} items by ${s.generator} (reader ${s.reader}), ${s.bundles} bundles, ${(s.durationMs / 1000).toFixed(1)} s` +
      (s.mode === 'llm'
        ? `, ${s.tokens.prompt} prompt tokens (${s.tokens.promptPerKept} per kept item), ${s.tokens.cachedCalls}/${s.tokens.calls} calls cached`
        : '') +
      (s.budgetExhausted ? ' — stopped at the token budget' : '') +
      (s.resumedBundles ? ` — resumed ${s.resumedBundles} finished bundles` : '') +
      (s.failedBundles ? ` — ${s.failedBundles} bundles failed on the LLM endpoint (run again to retry them)` : ''),
    types.toString(),
    stages.toString(),
    rej.toString(),
  ].join('\n');
}

/** `memsteer generate`: supervision from unlabeled histories, or (`--quality`) the pass rates of an existing set. */
export function register(program: Command, io: CliIO): void {
  program
    .command('generate')
    .description('Generate question–answer–evidence supervision from a history (offline rule-based unless an LLM is configured)')
    .requiredOption('--history <source>', 'history source, <format>:<path>[#<history>]')
    .option('--out <file>', 'supervision JSONL to write (a summary goes to <file>.summary.json, progress to <file>.progress.jsonl)')
    .option('--n <count>', 'target number of items per history', '400')
    .option('--val <share>', 'share of items in the validation split', '0.4')
    .option('--offline', 'use the rule-based generator even when an LLM is configured')
    .option('--types <list>', `comma-separated question types (${QuestionType.options.join(', ')})`)
    .option('--budget <tokens>', 'stop after this many LLM tokens (prompt + completion)')
    .option('--seed <n>', 'random seed', '1')
    .option('--quality <file>', 'score an existing supervision file instead of generating')
    .option('--json', 'print the summary as JSON')
    .action(async (flags: GenerateFlags) => {
      const histories = await loadHistories(flags.history);
      if (flags.quality) {
        const items = readJsonl(flags.quality, QAItemSchema);
        const llm = flags.offline ? null : openLlmClient();
        // With a model for the reader role, answer support is judged by the LLM blind reader (the generator's own
        // recovery gate); evidence, clarity and premise stay programmatic checks either way.
        const reader = llm?.hasRole('reader') ? createLlmBlindReader(llm) : undefined;
        const report = QualityReportSchema.parse(await scoreSupervision(items, histories, reader));
        if (flags.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
        else {
          const t = new Table({ head: ['check', 'pass rate'], style: PLAIN });
          for (const [k, v] of Object.entries(report.rates)) t.push([k, `${(v * 100).toFixed(1)}%`]);
          io.out(`${report.items} items, ${report.method}\n${t.toString()}\n`);
        }
        return;
      }
      if (!flags.out) throw new ConfigError('E_BAD_OPTION', 'generate needs --out <file> (or --quality <file> to score one)');
      const n = positiveInt('n', flags.n);
      const val = Number(flags.val);
      if (!(val >= 0 && val < 1)) throw new ConfigError('E_BAD_OPTION', `--val must be a number in [0, 1), got "${flags.val}"`);
      const budgetTokens = flags.budget === undefined ? undefined : positiveInt('budget', flags.budget);
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
            seed: positiveInt('seed', flags.seed),
            ...(parseTypes(flags.types) ? { types: parseTypes(flags.types)! } : {}),
            ...(budgetTokens !== undefined ? { budgetTokens } : {}),
            progressFile: progressPath(flags.out),
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
      writeJsonl(flags.out, all, QAItemSchema);
      writeFileAtomic(`${flags.out}.summary.json`, `${JSON.stringify(z.array(GenerationSummarySchema).parse(summaries), null, 2)}\n`);
      if (flags.json) io.out(`${JSON.stringify(summaries.length === 1 ? summaries[0] : summaries, null, 2)}\n`);
      else io.out(`${summaries.map(summaryTable).join('\n\n')}\nwrote ${all.length} items to ${flags.out}\n`);
    });
}
