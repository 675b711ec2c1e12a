/**
 * Official-QA evaluation of a design, one history at a time. Per-history evaluations are the unit of caching:
 * Base-BM25 on a RHELM persona is evaluated once and read back by every experiment that reports it, and any
 * group of histories (all personas, the transfer targets, the ablation personas) is scored from the pooled traces.
 */
import type { QueueStatus } from '../pool/queue-pool.ts';
import { createHash } from 'node:crypto';
import { compileDesign } from '../design/compile.ts';
import { MemsteerError } from '../errors.ts';
import { evalAnswererFrom, evalScorerFrom } from '../evaluate/eval-adapters.ts';
import { createEvalPool, evaluateProgram, type EvalPool } from '../evaluate/evaluate.ts';
import { summarize } from '../scoring/summary.ts';
import type { CompiledProgram } from '../isolate/sandbox-api.ts';
import type { QuestionTrace } from '../scoring/trace.ts';
import type { History, QAItem } from '../history/record.ts';
import type { Scores } from './schemas.ts';
import { scoresFromTraces } from './scores.ts';

export interface OfficialEvaluation {
  scores: Scores;
  /** Traces per history id (for per-persona rows). */
  byHistory: Map<string, QuestionTrace[]>;
}

export interface OfficialEvaluator {
  /** Scores `source` on the official QA of `histories`, pooled. */
  evaluate(
    source: string,
    histories: readonly History[],
    questions: OfficialQuestions,
    onProgress?: (done: number, total: number) => void,
  ): Promise<OfficialEvaluation>;
  /** Stops the sandbox pool (if one was started). */
  close(): Promise<void>;
}

/** Which official questions of a history are tested. */
export interface OfficialQuestions {
  /** Official categories (empty: all). */
  categories: readonly string[];
  /** At most this many questions per history: the first in hash order of their ids (a fixed sample), kept in data order. */
  perHistory?: number | undefined;
}

/** The official questions of `history` that {@link OfficialQuestions} selects. */
export function officialQuestions(history: History, q: OfficialQuestions): QAItem[] {
  const keep = new Set(q.categories);
  const all = history.qa.filter((x) => keep.size === 0 || (x.category !== undefined && keep.has(x.category)));
  if (q.perHistory === undefined || all.length <= q.perHistory) return all;
  const hash = (id: string) => createHash('sha256').update(`${history.id}/${id}`).digest('hex');
  const chosen = new Set(
    all
      .map((x) => ({ x, h: hash(x.id) }))
      .sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0))
      .slice(0, q.perHistory)
      .map((e) => e.x),
  );
  return all.filter((x) => chosen.has(x));
}

export interface OfficialEvaluatorOptions {
  cacheDir: string;
  contextBudget: number;
  jobs?: number;
  /** Run groups on `memsteer worker`s through this queue instead of a local pool. */
  queue?: { url: string; runId: string; onStatus?: (s: QueueStatus) => void };
}

/** An offline evaluator (extractive reader, token-F1 judge) over a lazily started sandbox pool. */
export function createOfficialEvaluator(o: OfficialEvaluatorOptions): OfficialEvaluator {
  let pool: EvalPool | null = null;
  const answerer = evalAnswererFrom(null);
  const scorer = evalScorerFrom(null);
  const memo = new Map<string, Promise<QuestionTrace[]>>();

  const one = (
    program: CompiledProgram,
    history: History,
    which: OfficialQuestions,
    tick: (n: number) => void,
  ): Promise<QuestionTrace[]> => {
    const key = `${program.hash}\0${history.id}\0${which.categories.join(',')}\0${which.perHistory ?? 'all'}`;
    let hit = memo.get(key);
    if (!hit) {
      const questions = officialQuestions(history, which);
      pool ??= createEvalPool({ ...(o.jobs ? { size: o.jobs } : {}), ...(o.queue ? { queue: o.queue } : {}) });
      let last = 0;
      hit = evaluateProgram({
        program,
        histories: [history],
        questions,
        budget: { tokens: o.contextBudget },
        answerer,
        score: scorer.score,
        judgeId: scorer.judgeId,
        summarize,
        pool,
        cacheDir: o.cacheDir,
        onProgress: (p) => {
          tick(p.done - last);
          last = p.done;
        },
      }).then((r) => {
        tick(questions.length - last);
        return r.traces;
      });
      memo.set(key, hit);
    } else {
      void hit.then((t) => tick(t.length));
    }
    return hit;
  };

  return {
    async evaluate(source, histories, which, onProgress) {
      const program = await compileProgram(source);
      const total = histories.reduce((n, h) => n + officialQuestions(h, which).length, 0);
      let done = 0;
      const tick = (n: number) => {
        if (n === 0) return;
        done += n;
        onProgress?.(done, total);
      };
      const traces = await Promise.all(histories.map((h) => one(program, h, which, tick)));
      const byHistory = new Map(histories.map((h, i) => [h.id, traces[i]!]));
      return { scores: scoresFromTraces(traces.flat()), byHistory };
    },
    async close() {
      await pool?.close();
      pool = null;
    },
  };
}

async function compileProgram(source: string): Promise<CompiledProgram> {
  const c = await compileDesign(source);
  if (!c.ok)
    throw new MemsteerError(
      'E_BENCH_COMPILE',
      `a design to evaluate does not compile: line ${c.diagnostics[0]?.line}: ${c.diagnostics[0]?.message}`,
    );
  return c.program;
}
