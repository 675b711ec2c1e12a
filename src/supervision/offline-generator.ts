import type { SourceRecord } from '../../sandbox/contract.ts';
import type { Evidence } from '../history/record.ts';
import type { BlindReader, BlindReading } from './blind-recovery.ts';
import { checkBlindReading } from './blind-recovery.ts';
import type { Bundle } from './bundles.ts';
import type { AcceptedItem, BundleProcessor } from './candidate.ts';
import { checkPlan } from './plan-checks.ts';
import type { AnswerPlan, QuestionType } from './plan.ts';
import { checkQuestion } from './question-checks.ts';
import type { RecordGraph } from './record-graph.ts';
import { createRng } from './rng.ts';
import { ASKED_DATES, askedForm, createAskedDays, KEEP_YEAR } from './rule-based/asked-dates.ts';
import { askedKeys } from './rule-based/contextual.ts';
import { fillCap } from './rule-based/fill-caps.ts';
import { RULE_BASED_GENERATOR, ruleCandidate } from './rule-based/generator.ts';
import { createLexicalGap, LEXICAL_GAP, type LexicalGapOptions, type Rephrasing } from './rule-based/lexical-gap.ts';
import { createSituating, SITUATION, situationChecks } from './rule-based/situation.ts';
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
  /** Rephrasing questions away from their evidence's words (rule-based/lexical-gap.ts); false: none. */
  lexicalGap?: LexicalGapOptions | false;
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
  // Unchecked items have no blind gate, and a rephrased question is only kept when the gate recovers its answer.
  const gap =
    o.checks === false || o.lexicalGap === false
      ? undefined
      : createLexicalGap(o.graph.records, o.ctx.speakers, o.reader, o.ctx.userVoice, o.lexicalGap || {});
  // A user's own questions are placed in their day (rule-based/situation.ts). Unchecked items have no blind gate to
  // read a situated question with: they stay as templated.
  const situating = o.checks === false || !o.ctx.userVoice ? undefined : createSituating(o.ctx, o.graph);
  // Every item is asked on a day (a user's, on its own day after its evidence), and a share of its dates lose their
  // year (rule-based/asked-dates.ts).
  const askedDays = createAskedDays(o.graph.records, o.ctx.userVoice);
  const keepYear = o.ctx.userVoice ? KEEP_YEAR.userAssistant : KEEP_YEAR.conversation;
  return {
    generator: RULE_BASED_GENERATOR,
    reader: o.reader.name,
    // The rephrasing and situating rules' versions are part of what made the items (and of the resume journal's run key).
    prompts: {
      ...(gap ? { 'lexical-gap': `${LEXICAL_GAP} target ${gap.target}` } : {}),
      ...(situating ? { situation: SITUATION } : {}),
      ...(askedDays.dated ? { 'asked-dates': `${ASKED_DATES} keep-year ${keepYear}${askedDays.perItem ? ' per-item' : ''}` } : {}),
    },
    ...(gap ? { gapTarget: gap.target } : {}),
    fillCap,
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
      // Its own stream: rephrasing draws must not shift the templates' choices.
      const gapRng = createRng(`${o.seed}:${bundle.id}:gap`);
      const situationRng = createRng(`${o.seed}:${bundle.id}:situation`);
      const dateRng = createRng(`${o.seed}:${bundle.id}:asked`);
      const dayRng = createRng(`${o.seed}:${bundle.id}:day`);
      // The question as asked on its day. Readers read it with its dates in full, as the resolver reads it back.
      const asAsked = (
        question: string,
        day: string | undefined,
        answer: string,
        answerType: AnswerPlan['answerType'],
        members: ReadonlySet<string>,
      ) => {
        if (!day) return question;
        const q = askedForm(question, day, keepYear, dateRng);
        return q === question || (o.checks !== false && !checkQuestion(q, answer, answerType, members).ok) ? question : q;
      };
      const dated = (question: string, explicit: string, day: string | undefined) => ({
        ...(day ? { date: day } : {}),
        question,
        ...(question !== explicit ? { explicit } : {}),
      });
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
          const day = askedDays.dayFor(
            located.evidence.map((e) => e.record),
            dayRng,
          );
          const d = dated(asAsked(cand.question, day, cand.plan.answer, cand.plan.answerType, members), cand.question, day);
          out.push({
            type: cand.type,
            question: d.question,
            ...(d.date ? { date: d.date } : {}),
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
              ...(d.explicit ? { explicitQuestion: d.explicit } : {}),
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
        const records = [...members].map((id) => byId.get(id)!).sort((a, b) => o.graph.index.get(a.id)! - o.graph.index.get(b.id)!);
        const evidenceRecords = [...new Set(pc.evidence.map((e) => e.record))];
        // The question checks and blind recovery; `count` books the stages (a rejected rephrasing is not a candidate).
        const gate = async (question: string, reader: BlindReader, count: boolean) => {
          if (count) stats.stages['question-checks'].in++;
          const qc = checkQuestion(question, cand.plan.answer, cand.plan.answerType, members);
          if (!qc.ok) return qc;
          if (count) {
            stats.stages['question-checks'].out++;
            stats.stages.blind.in++;
          }
          const reading = await reader.read({ question, answerType: cand.plan.answerType, records });
          const bc = checkBlindReading(reading, { answer: cand.plan.answer, answerType: cand.plan.answerType, evidenceRecords });
          if (!bc.ok) return bc;
          if (count) stats.stages.blind.out++;
          return { ok: true as const, reading };
        };
        // Every question is first tried rephrased away from the evidence's words; it is kept only when it passes the
        // same question checks and the blind reader still recovers the answer, else the original is tried. When both
        // pass, the original rides along so the set can be brought to its no-overlap target (gap-target.ts).
        let question = cand.question;
        let rephrased: Rephrasing | undefined;
        let reading: BlindReading | undefined;
        let originalReading: BlindReading | undefined;
        if (gap) {
          const r = await gap.rephrase(cand.question, cand.plan.answer, evidenceRecords, gapRng);
          const g = r && (await gate(r.question, gap.reader, false));
          if (g?.ok) {
            question = r!.question;
            reading = g.reading;
            rephrased = r;
            for (const st of ['question-checks', 'blind'] as const) {
              stats.stages[st].in++;
              stats.stages[st].out++;
            }
            const og = await gate(cand.question, o.reader, false);
            if (og.ok) originalReading = og.reading;
          } else if (g) reject(stats, `gap:${g.reason}`);
        }
        if (!reading) {
          const g = await gate(cand.question, o.reader, true);
          if (!g.ok) {
            reject(stats, g.reason);
            continue;
          }
          reading = g.reading;
        }
        // Then placed in its day, kept only when the same gate still passes (with the reader that read it so far).
        let reader = rephrased ? gap!.reader : o.reader;
        let situated: Record<string, string> = {};
        const s = situating?.situate(
          {
            question,
            answer: cand.plan.answer,
            answerType: cand.plan.answerType,
            evidence: evidenceRecords,
            ...(cand.askedRecord ? { askedRecord: cand.askedRecord } : {}),
          },
          situationRng,
        );
        if (s) {
          const situatedReader = situating!.reader(reader);
          const g = await gate(s.question, situatedReader, false);
          if (g.ok) {
            situated = situationChecks(s, question);
            question = s.question;
            reader = situatedReader;
            reading = g.reading;
          } else reject(stats, `situation:${g.reason}`);
        }
        // Asked once the question can be: after its evidence and after the event that names its day, which for a day
        // answered may come up to a month later ("When did I repair the tire, some time before I flew to Lisbon?").
        const told = situated.situationRecord;
        const day = askedDays.dayFor(told ? [...evidenceRecords, told] : evidenceRecords, dayRng);
        const d = dated(asAsked(question, day, cand.plan.answer, cand.plan.answerType, members), question, day);
        const original =
          rephrased && originalReading ? asAsked(cand.question, day, cand.plan.answer, cand.plan.answerType, members) : undefined;
        out.push({
          type: cand.type,
          question: d.question,
          ...(d.date ? { date: d.date } : {}),
          plan: pc.plan,
          evidence: pc.evidence,
          checks: {
            template: cand.template,
            planChecks: 'pass',
            spansVerified: true,
            questionChecks: 'pass',
            audit: 'not-run:offline',
            blindReader: reader.name,
            blindAnswer: reading.answer,
            ...(rephrased
              ? {
                  lexicalGap: rephrased.changes.map((c) => `${c.how}: ${c.from} → ${c.to}`).join('; '),
                  originalQuestion: original ?? cand.question,
                  ...(original !== undefined && original !== cand.question ? { originalExplicitQuestion: cand.question } : {}),
                  ...(originalReading ? { originalBlindAnswer: originalReading.answer } : {}),
                }
              : {}),
            ...situated,
            bundleRecords: members.size,
            bundleExtendedBy: extra.length,
            ...(d.explicit ? { explicitQuestion: d.explicit } : {}),
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
