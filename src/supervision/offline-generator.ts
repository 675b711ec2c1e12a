import type { SourceRecord } from '../../sandbox/contract.ts';
import type { Evidence } from '../history/record.ts';
import type { BlindReader } from './blind-recovery.ts';
import { checkBlindReading } from './blind-recovery.ts';
import type { Bundle } from './bundles.ts';
import type { AcceptedItem, BundleProcessor } from './candidate.ts';
import { checkPlan } from './plan-checks.ts';
import type { AnswerPlan, QuestionType } from './plan.ts';
import { checkQuestion } from './question-checks.ts';
import type { RecordGraph } from './record-graph.ts';
import { createRng } from './rng.ts';
import { askedKeys } from './rule-based/contextual.ts';
import { RULE_BASED_GENERATOR, ruleCandidate } from './rule-based/generator.ts';
import type { RuleContext } from './rule-based/templates.ts';
import { locateQuote, verifySpan } from './spans.ts';
import { reject, type RunStats } from './summary.ts';

/** Options of the offline (rule-based) bundle processor. */
export interface OfflineProcessorOptions {
  graph: RecordGraph;
  ctx: RuleContext;
  reader: BlindReader;
  /**
   * Seed of the random choices. Each bundle draws from its own stream (seed × bundle id), so a bundle's items do
   * not depend on which bundles ran before it: a resumed run makes exactly the items of an uninterrupted one.
   */
  seed: number;
  /** At most this many items from one bundle. Default 3. */
  perBundle?: number;
  /** False: no plan checks, question checks or blind reading (the supervision ablation's unchecked arm). Default true. */
  checks?: boolean;
}

/**
 * The offline pipeline: templated candidates from the rule-based generator, then the same programmatic plan
 * and question checks as the LLM path, then blind recovery by the offline reader. There is no audit offline
 * (the plan is computed, not claimed): items say so in `checks.audit`.
 */
export function createOfflineProcessor(o: OfflineProcessorOptions): BundleProcessor {
  const perBundle = o.perBundle ?? 3;
  const byId = new Map<string, SourceRecord>(o.graph.records.map((r) => [r.id, r]));
  const asked = askedKeys(o.ctx);
  let askedBefore = asked.size;
  return {
    generator: RULE_BASED_GENERATOR,
    reader: o.reader.name,
    prompts: {},
    memoSince() {
      // a Set iterates in insertion order: the keys past the old size are this bundle's
      return [...asked].slice(askedBefore);
    },
    restoreMemo(memo) {
      for (const key of memo) asked.add(key);
      askedBefore = asked.size;
    },
    async process(bundle: Bundle, types: readonly QuestionType[], stats: RunStats): Promise<AcceptedItem[]> {
      askedBefore = asked.size;
      const out: AcceptedItem[] = [];
      const rng = createRng(`${o.seed}:${bundle.id}`);
      for (const type of types) {
        if (out.length >= perBundle) break;
        stats.stages.plan.in++;
        const cand = ruleCandidate(o.ctx, bundle, type, rng);
        if (!cand) {
          reject(stats, `rule:no-${type}-fact`);
          continue;
        }
        stats.stages.plan.out++;
        // Aggregation and bridge evidence may lie outside the sampled bundle: the bundle grows by those records.
        const members = new Set(bundle.records);
        const extra = cand.plan.evidence.map((e) => e.record).filter((id) => !members.has(id));
        for (const id of extra) members.add(id);
        if (o.checks === false) {
          const located = locateFacts(cand.plan, byId);
          if (!located) {
            reject(stats, 'plan:quote-not-in-record');
            continue;
          }
          out.push({
            type: cand.type,
            question: cand.question,
            plan: located.plan,
            evidence: located.evidence,
            checks: {
              template: cand.template,
              planChecks: 'skipped',
              spansVerified: true,
              questionChecks: 'skipped',
              audit: 'not-run:offline',
              blindReader: 'skipped',
              bundleRecords: members.size,
              bundleExtendedBy: extra.length,
            },
          });
          continue;
        }
        stats.stages['plan-checks'].in++;
        const pc = checkPlan(cand.plan, { bundle: members, records: byId, allowedTypes: new Set(types) });
        if (!pc.ok) {
          reject(stats, pc.reason);
          continue;
        }
        if (!pc.evidence.every((e) => verifySpan(byId.get(e.record)!.text, e.span!, e.quote))) {
          reject(stats, 'plan:span-verification');
          continue;
        }
        stats.stages['plan-checks'].out++;
        stats.stages.question.in++;
        stats.stages.question.out++;
        stats.stages['question-checks'].in++;
        const qc = checkQuestion(cand.question, cand.plan.answer, cand.plan.answerType, members);
        if (!qc.ok) {
          reject(stats, qc.reason);
          continue;
        }
        stats.stages['question-checks'].out++;
        stats.stages.blind.in++;
        const records = [...members].map((id) => byId.get(id)!).sort((a, b) => o.graph.index.get(a.id)! - o.graph.index.get(b.id)!);
        const reading = await o.reader.read({ question: cand.question, answerType: cand.plan.answerType, records });
        const bc = checkBlindReading(reading, {
          answer: cand.plan.answer,
          answerType: cand.plan.answerType,
          evidenceRecords: [...new Set(pc.evidence.map((e) => e.record))],
        });
        if (!bc.ok) {
          reject(stats, bc.reason);
          continue;
        }
        stats.stages.blind.out++;
        out.push({
          type: cand.type,
          question: cand.question,
          plan: pc.plan,
          evidence: pc.evidence,
          checks: {
            template: cand.template,
            planChecks: 'pass',
            spansVerified: true,
            questionChecks: 'pass',
            audit: 'not-run:offline',
            blindReader: o.reader.name,
            blindAnswer: reading.answer,
            bundleRecords: members.size,
            bundleExtendedBy: extra.length,
          },
        });
      }
      return out;
    },
  };
}

/**
 * Spans of a plan's quotes without any other check, so unchecked items still point at text the same way checked
 * ones do (one evidence entry per fact, as checkPlan makes them). Null when a quote is not in its record.
 */
function locateFacts(plan: AnswerPlan, byId: ReadonlyMap<string, SourceRecord>): { plan: AnswerPlan; evidence: Evidence[] } | null {
  const facts = [];
  for (const f of plan.facts) {
    const text = byId.get(f.record)?.text;
    const span = text === undefined ? undefined : locateQuote(text, f.quote);
    if (!span) return null;
    facts.push({ ...f, span });
  }
  const evidence = facts.map((f) => ({ record: f.record, span: f.span, quote: byId.get(f.record)!.text.slice(f.span[0], f.span[1]) }));
  return { plan: { ...plan, facts }, evidence };
}
