import { z } from 'zod';
import type { SourceRecord } from '../../sandbox/contract.ts';
import type { MemsteerError } from '../errors.ts';
import type { LlmClient, LlmRole, StructuredResult, TokenUsage } from '../llm/types.ts';
import { checkAudit, AuditReplySchema } from './audit.ts';
import { BlindReadingSchema, checkBlindReading, type BlindReader } from './blind-recovery.ts';
import { renderBundle, renderRecord, type Bundle } from './bundles.ts';
import type { AcceptedItem, BundleProcessor } from './candidate.ts';
import { checkPlan } from './plan-checks.ts';
import { PlannerReplySchema, type AnswerPlan, type QuestionType } from './plan.ts';
import { loadPrompt, type PromptRole } from './prompts.ts';
import { checkQuestion } from './question-checks.ts';
import { type RecordGraph, userVoiceOf } from './record-graph.ts';
import { createRng } from './rng.ts';
import { createAskedDays } from './rule-based/asked-dates.ts';
import { LEXICAL_GAP, wordsToAvoid } from './rule-based/lexical-gap.ts';
import { emptyStats, reject, type RunStats } from './summary.ts';

/** The questioner's reply. */
export const QuestionReplySchema = z.object({ question: z.string().min(1) });

// Failures that mean "the run cannot go on" rather than "this candidate failed".
const FATAL = new Set(['E_BUDGET', 'E_LLM_AUTH', 'E_LLM_CONFIG', 'E_LLM_NO_MODEL', 'E_LLM_CIRCUIT']);

/**
 * True for a failed call that says nothing about the candidate: the endpoint was down, slow or overloaded (after
 * the client's retries). The bundle's work is then unfinished, not rejected, and a later run redoes it. A reply
 * that failed the schema, or a 4xx, would fail the same way again: those reject the candidate.
 */
export function isRetryableLlmFailure(err: unknown): boolean {
  const e = err as Partial<MemsteerError> & { status?: number };
  switch (e?.code) {
    case 'E_LLM_TIMEOUT':
    case 'E_LLM_CONNECTION':
    case 'E_LLM_RATE_LIMIT':
      return true;
    case 'E_LLM_HTTP':
      return e.status === undefined || e.status >= 500 || e.status === 408 || e.status === 409;
    default:
      return false;
  }
}

/**
 * Calls one role, counting tokens (a failed call's billed tokens too). A reply that failed for good (after the
 * client's retries and repairs) returns undefined; a fatal or retryable failure (see isRetryableLlmFailure) throws.
 */
async function call<T>(
  llm: LlmClient,
  role: PromptRole,
  user: string,
  schema: z.ZodType<T>,
  schemaName: string,
  stats: RunStats,
): Promise<T | undefined> {
  const prompt = loadPrompt(role);
  let res: StructuredResult<T>;
  try {
    res = await llm.structured({
      role: role as LlmRole,
      messages: [
        { role: 'system', content: prompt.text },
        { role: 'user', content: user },
      ],
      schema,
      schemaName,
      temperature: 0,
    });
  } catch (err) {
    const billed = (err as { billed?: TokenUsage }).billed;
    if (billed) {
      stats.tokens.calls++;
      stats.tokens.prompt += billed.promptTokens;
      stats.tokens.completion += billed.completionTokens;
    }
    const code = (err as MemsteerError).code;
    if ((code && FATAL.has(code)) || isRetryableLlmFailure(err)) throw err;
    reject(stats, `llm:${role}-failed`);
    return undefined;
  }
  stats.tokens.calls++;
  if (res.cached) stats.tokens.cachedCalls++;
  else {
    stats.tokens.prompt += res.usage.promptTokens;
    stats.tokens.completion += res.usage.completionTokens;
  }
  return res.value;
}

function planForQuestioner(plan: AnswerPlan): string {
  return JSON.stringify(
    {
      questionType: plan.questionType,
      intent: plan.intent,
      answer: plan.answer,
      answerType: plan.answerType,
      facts: plan.facts.map((f) => ({ statement: f.statement, quote: f.quote })),
      operations: plan.operations,
      ...(plan.premise ? { premise: plan.premise } : {}),
    },
    null,
    2,
  );
}

/** The LLM blind reader: the `reader` role sees the question, its answer type and the bundle's records only. */
export function createLlmBlindReader(llm: LlmClient, name = 'llm:reader'): BlindReader & { stats?: RunStats } {
  const reader: BlindReader & { stats?: RunStats } = {
    name,
    async read(input) {
      const records = input.records.map((r) => renderRecord(r)).join('\n\n');
      const asked = input.date ? `Asked on: ${input.date}\n` : '';
      const user = `${asked}Question: ${input.question}\nAnswer type: ${input.answerType}\n\nRecords:\n${records}`;
      // Used alone (quality scoring) nobody hands it run stats: it keeps its own.
      const value = await call(llm, 'reader', user, BlindReadingSchema, 'blind_reading', (reader.stats ??= emptyStats()));
      return value ?? { answerable: false, answer: '', citations: [] };
    },
  };
  return reader;
}

export interface LlmProcessorOptions {
  graph: RecordGraph;
  llm: LlmClient;
  history: string;
  /** Model name for the generator tag (`llm:<model>`); read from the client when it can tell. */
  model?: string;
  /** Share of bundles whose questioner is asked to avoid the evidence's words (default {@link LLM_GAP_SHARE}). */
  gapShare?: number;
}

/**
 * Share of LLM questions asked with a list of the evidence's words to avoid. The questioner prompt already asks
 * for questions in other words than the records'; the explicit list pushes a share of items across the gap, as
 * the offline generator's rephrasing does. Not calibrated against a model yet: calibrate it on the development
 * histories with `generate --report`.
 */
export const LLM_GAP_SHARE = 0.5;

/** Whether a bundle's questioner gets the words to avoid: a draw from the bundle's own stream (ids follow the seed). */
export function gapAsked(bundleId: string, share: number = LLM_GAP_SHARE): boolean {
  return createRng(`${bundleId}:${LEXICAL_GAP}`).next() < share;
}

/**
 * The LLM pipeline for one bundle: planner → programmatic plan checks → questioner (separate call) → question
 * checks → auditor (every required judgment must be 'supported') → blind reader (answerable, same answer under
 * type normalisation, every evidence record cited). One item per bundle, of the most wanted type.
 */
export function createLlmProcessor(o: LlmProcessorOptions): BundleProcessor {
  const byId = new Map<string, SourceRecord>(o.graph.records.map((r) => [r.id, r]));
  const withModel = o.llm as LlmClient & { modelFor?: (role: LlmRole) => string | undefined };
  const model = o.model ?? withModel.modelFor?.('planner') ?? 'model';
  const reader = createLlmBlindReader(o.llm, `llm:${withModel.modelFor?.('reader') ?? model}`);
  const gapShare = o.gapShare ?? LLM_GAP_SHARE;
  // Asked on a day, as the offline generator's questions are (rule-based/asked-dates.ts): the questioner writes
  // dates as someone asking that day would, and the auditor and the blind reader read them against it.
  const askedDays = createAskedDays(o.graph.records, userVoiceOf(o.graph));
  const prompts: Record<string, string> = {
    ...Object.fromEntries((['planner', 'questioner', 'auditor', 'reader'] as const).map((r) => [r, loadPrompt(r).version])),
    'lexical-gap': `${LEXICAL_GAP} share ${gapShare}`,
  };
  // Names the history is about stay in questions: never on the list of words to avoid.
  const names = new Set<string>();
  for (const r of o.graph.records) for (const part of (r.speaker ?? '').toLowerCase().split(/\s+/)) if (part) names.add(part);
  return {
    generator: `llm:${model}`,
    reader: reader.name,
    prompts,
    async process(bundle: Bundle, types: readonly QuestionType[], stats: RunStats): Promise<AcceptedItem[]> {
      const type = types[0]!;
      const material = renderBundle(o.graph, bundle);
      const members = new Set(bundle.records);
      stats.stages.plan.in++;
      const reply = await call(
        o.llm,
        'planner',
        `Requested question type: ${type}\n\nRecords:\n${material}`,
        PlannerReplySchema,
        'answer_plan',
        stats,
      );
      if (!reply) return [];
      if (!reply.plan) {
        reject(stats, 'planner:no-plan');
        return [];
      }
      stats.stages.plan.out++;

      stats.stages['plan-checks'].in++;
      const pc = checkPlan(reply.plan, { bundle: members, records: byId, allowedTypes: new Set(types) });
      if (!pc.ok) {
        reject(stats, pc.reason);
        return [];
      }
      stats.stages['plan-checks'].out++;
      const plan = pc.plan;

      const askedDay = askedDays.dayFor(
        plan.facts.map((f) => f.record),
        createRng(`${bundle.id}:asked-day`),
      );
      const askedLine = askedDay ? `Asked on: ${askedDay}\n\n` : '';
      stats.stages.question.in++;
      const avoid = gapAsked(bundle.id, gapShare)
        ? wordsToAvoid(
            plan.facts.map((f) => f.quote),
            plan.answer,
            names,
          )
        : [];
      // Before the plan, so the plan and the records stay the message's last two blocks.
      const avoidLine = avoid.length ? `Words to avoid (the evidence's own words): ${avoid.join(', ')}\n\n` : '';
      const q = await call(
        o.llm,
        'questioner',
        `${askedLine}${avoidLine}Answer plan:\n${planForQuestioner(plan)}\n\nRecords:\n${material}`,
        QuestionReplySchema,
        'question',
        stats,
      );
      if (!q) return [];
      stats.stages.question.out++;
      const question = q.question.trim();
      stats.stages['question-checks'].in++;
      const qc = checkQuestion(question, plan.answer, plan.answerType, members);
      if (!qc.ok) {
        reject(stats, qc.reason);
        return [];
      }
      stats.stages['question-checks'].out++;

      stats.stages.audit.in++;
      const evidenceText = [...new Set(plan.evidence.map((e) => e.record))].map((id) => renderRecord(byId.get(id)!)).join('\n\n');
      const auditInput = JSON.stringify(
        {
          question,
          answer: plan.answer,
          answerType: plan.answerType,
          facts: plan.facts.map((f, i) => ({ n: i + 1, record: f.record, quote: f.quote, statement: f.statement })),
          evidence: plan.evidence,
          operations: plan.operations,
          ...(plan.premise ? { premise: plan.premise } : {}),
        },
        null,
        2,
      );
      const audit = await call(
        o.llm,
        'auditor',
        `${askedLine}Candidate:\n${auditInput}\n\nEvidence records:\n${evidenceText}`,
        AuditReplySchema,
        'audit',
        stats,
      );
      if (!audit) return [];
      const ac = checkAudit(audit, plan);
      if (!ac.ok) {
        reject(stats, ac.reason);
        return [];
      }
      stats.stages.audit.out++;

      stats.stages.blind.in++;
      reader.stats = stats;
      const records = bundle.records.map((id) => byId.get(id)!);
      const reading = await reader.read({ question, answerType: plan.answerType, records, ...(askedDay ? { date: askedDay } : {}) });
      const evidenceRecords = [...new Set(pc.evidence.map((e) => e.record))];
      const bc = checkBlindReading(reading, { answer: plan.answer, answerType: plan.answerType, evidenceRecords });
      if (!bc.ok) {
        reject(stats, bc.reason);
        return [];
      }
      stats.stages.blind.out++;
      return [
        {
          type: plan.questionType,
          question,
          ...(askedDay ? { date: askedDay } : {}),
          plan,
          evidence: pc.evidence,
          checks: {
            planChecks: 'pass',
            spansVerified: true,
            questionChecks: 'pass',
            audit: 'pass',
            auditJudgments: audit.judgments.length,
            blindReader: reader.name,
            blindAnswer: reading.answer,
            bundleRecords: members.size,
            ...(avoid.length ? { lexicalGap: `avoid: ${avoid.join(', ')}` } : {}),
          },
        },
      ];
    },
  };
}
