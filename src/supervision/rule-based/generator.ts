import { isStopword, stem } from '../../text/text.ts';
import { roleRange, whoAt } from './speakers.ts';
import { nounUsage } from './phrases.ts';
import type { Bundle } from '../bundles.ts';
import type { QuestionType } from '../plan.ts';
import type { RecordGraph } from '../record-graph.ts';
import type { Rng } from '../rng.ts';
import { buildPostings, isTopicWord, tokensIn } from './cues.ts';
import { contextualCandidate } from './contextual.ts';
import { extractFacts, type TextFact } from './facts.ts';
import {
  bridgeQuestion,
  contentSentences,
  countQuestion,
  dateQuestion,
  daysBetweenQuestion,
  entityQuestion,
  linkedQuestion,
  linkedRecords,
  linkedWhichQuestion,
  whichQuestion,
  quantityQuestion,
  whenQuestion,
  whoQuestion,
  type RuleCandidate,
  type RuleContext,
} from './templates.ts';

/** Name and version of the offline generator, written into every item it makes. */
export const RULE_BASED_GENERATOR = 'rule-based@3';

/** Question types the rule-based generator can write (it has no false-premise template). */
export const RULE_BASED_TYPES: readonly QuestionType[] = ['single-hop', 'multi-hop', 'temporal', 'aggregation'];

/** Builds what the templates read: term postings, lazily extracted facts, and the speakers of the history. */
export function createRuleContext(graph: RecordGraph): RuleContext {
  const postings = buildPostings(graph);
  const turnSpeakers = new Set<string>();
  const speakers = new Set<string>();
  for (const r of graph.records) {
    if (!r.speaker) continue;
    const s = r.speaker.toLowerCase();
    speakers.add(s);
    for (const part of s.split(/\s+/)) if (part.length > 2) speakers.add(part);
    if (r.kind === 'turn' && s !== 'user' && s !== 'assistant') turnSpeakers.add(s);
  }
  const speakerStems = new Set<string>();
  for (const s of speakers) for (const t of tokensIn(s)) speakerStems.add(t.stem);
  // Words the history writes in lower case somewhere: never proper nouns.
  const lowerSeen = new Set<string>();
  for (const r of graph.records) for (const m of r.text.matchAll(/(?<![\p{L}\p{N}])[a-z][a-z'’-]+/gu)) lowerSeen.add(m[0]);
  const common = (w: string): boolean => lowerSeen.has(w);
  const cache = new Map<number, TextFact[]>();
  const usage = nounUsage(graph.records.map((r) => r.text));
  const roleStems = new Map<string, Set<string>>();
  return {
    graph,
    postings,
    speakers,
    speakerStems,
    multiSpeaker: turnSpeakers.size >= 2,
    nounUsage: usage,
    shortRecords: graph.records.reduce((n, r) => n + r.text.split(/\s+/).length, 0) / Math.max(1, graph.records.length) < 40,
    saidBy(k, who, stems) {
      const r = graph.records[k]!;
      if (r.kind === 'turn' && r.text.startsWith('User: ') && (who === 'the user' || who === 'the assistant')) {
        const key = `${k}\u0000${who}`;
        let set = roleStems.get(key);
        if (!set) {
          const [s, e] = roleRange(r, who);
          roleStems.set(key, (set = new Set(tokensIn(r.text, s, e).map((t) => t.stem))));
        }
        return stems.every((x) => set.has(x));
      }
      return whoAt(r, 0) === who && stems.every((x) => graph.termSets[k]!.has(x));
    },
    documentTitle(i) {
      const first = graph.threads.get(graph.threadOf[i]!)?.[0];
      const r = first === undefined ? undefined : graph.records[first];
      return r?.kind === 'document' ? r.title?.replace(/\s+/g, ' ').trim() : undefined;
    },
    facts(i) {
      let f = cache.get(i);
      if (!f) cache.set(i, (f = extractFacts(graph.records[i]!, speakers, common)));
      return f;
    },
  };
}

/** How many checkable facts a record holds, plus one: the offline generator's seed weight. */
export function factSeedWeight(ctx: RuleContext): (record: unknown, index: number) => number {
  return (_r, i) => 1 + Math.min(4, ctx.facts(i).length);
}

const MAX_TRIES = 40;
/** Tries a bundle's contextual (cue + answer turn) questions get before the other single-hop templates are tried. */
const CONTEXTUAL_TRIES = 24;
/**
 * How often a single-hop question is first tried as a context-linked one. Real questions about a conversation
 * mostly name what prompted the answer rather than the answer's own words; without this family the supervision
 * rewards designs that match a question against the evidence turn alone.
 */
const CONTEXTUAL_SHARE = 1;

/**
 * One templated candidate of `type` from a bundle, or undefined when the bundle holds no fact the type's
 * templates can use. Answers and evidence are computed from the records (and their dates), never guessed.
 */
export function ruleCandidate(ctx: RuleContext, bundle: Bundle, type: QuestionType, rng: Rng): RuleCandidate | undefined {
  const members = rng.shuffle(bundle.records.map((id) => ctx.graph.index.get(id)!));
  let tries = 0;
  const budget = (): boolean => ++tries <= MAX_TRIES;
  switch (type) {
    case 'single-hop': {
      if (rng.next() < CONTEXTUAL_SHARE) {
        let own = 0;
        const c = contextualCandidate(ctx, members, rng, () => ++own <= CONTEXTUAL_TRIES);
        if (c) return c;
      }
      for (const i of members) {
        const facts = rng.shuffle(ctx.facts(i));
        for (const f of facts) {
          if (!budget()) return undefined;
          const c =
            f.kind === 'quantity'
              ? quantityQuestion(ctx, i, f, rng)
              : f.kind === 'entity'
                ? entityQuestion(ctx, i, f, rng)
                : dateQuestion(ctx, i, f, rng);
          if (c) return c;
        }
        if (rng.next() < 0.5) {
          if (!budget()) return undefined;
          const c = whichQuestion(ctx, i, rng);
          if (c) return c;
        }
        const sentences = contentSentences(ctx.graph.records[i]!);
        if (sentences.length && rng.next() < 0.4) {
          if (!budget()) return undefined;
          const c = whoQuestion(ctx, i, sentences[rng.int(sentences.length)]!, rng);
          if (c) return c;
        }
      }
      return undefined;
    }
    case 'temporal': {
      const pairs = rng.next() < 0.4;
      for (const i of members) {
        const si = rng.shuffle(contentSentences(ctx.graph.records[i]!))[0];
        if (!si) continue;
        if (!budget()) return undefined;
        if (!pairs) {
          const c = whenQuestion(ctx, i, si, rng);
          if (c) return c;
          continue;
        }
        const j = members.find(
          (k) => k !== i && ctx.graph.threadOf[k] !== ctx.graph.threadOf[i] && contentSentences(ctx.graph.records[k]!).length > 0,
        );
        if (j === undefined) continue;
        const sj = rng.shuffle(contentSentences(ctx.graph.records[j]!))[0]!;
        const c = daysBetweenQuestion(ctx, i, si, j, sj, rng);
        if (c) return c;
      }
      return undefined;
    }
    case 'aggregation': {
      // A term in a few dozen records would make the count a census of common words, and its evidence a list no
      // retrieval could deliver in ten hits.
      const maxDf = Math.max(4, Math.min(12, Math.floor(ctx.graph.records.length * 0.03)));
      for (const i of members) {
        const r = ctx.graph.records[i]!;
        if (r.kind !== 'turn' && r.kind !== 'email') continue;
        const seen = new Set<string>();
        const words = tokensIn(r.text).filter((t) => {
          const lower = t.word.toLowerCase();
          // A topic is a thing ("cycling", "gardening"), not a verb or adjective a turn happened to use ("front", "motivate").
          if (
            lower.length < 5 ||
            !isTopicWord(lower) ||
            isStopword(lower) ||
            ctx.speakerStems.has(t.stem) ||
            seen.has(t.stem) ||
            ctx.nounUsage(lower) !== 'head'
          )
            return false;
          seen.add(t.stem);
          const df = ctx.postings.get(t.stem)?.length ?? 0;
          return df >= 2 && df <= maxDf;
        });
        for (const t of rng.shuffle(words).slice(0, 4)) {
          if (!budget()) return undefined;
          const opens = t.start === 0 || /[.!?:\n"“]\s*$/.test(r.text.slice(Math.max(0, t.start - 3), t.start));
          const word = /^[A-Z][a-z]/.test(t.word) && !opens ? t.word : t.word.toLowerCase();
          const c = countQuestion(ctx, i, { word, stem: t.stem }, (n) => rng.int(n));
          if (c) return c;
        }
      }
      return undefined;
    }
    case 'multi-hop': {
      // Two families: a pair linked in the record graph (same conversation, or a shared document), and two
      // passages of different conversations naming the same entity. The linked family is tried first; it is
      // the one most histories can support.
      if (rng.next() < 0.75) {
        const c = linkedCandidate(ctx, members, rng, budget);
        if (c) return c;
      }
      const inBundle = new Set(members);
      for (const i of members) {
        for (const f of rng.shuffle(ctx.facts(i).filter((x) => x.kind === 'entity'))) {
          if (f.kind !== 'entity') continue;
          const last = f.value.split(/\s+/).pop()!.toLowerCase();
          const others = (ctx.postings.get(stem(last.replace(/['’]s$/, ''))) ?? []).filter(
            (j) => j !== i && ctx.graph.threadOf[j] !== ctx.graph.threadOf[i] && ctx.graph.records[j]!.text.includes(f.value),
          );
          if (!others.length || others.length > 12) continue;
          const ordered = [...others.filter((j) => inBundle.has(j)), ...rng.shuffle(others.filter((j) => !inBundle.has(j)))];
          for (const j of ordered.slice(0, 3)) {
            if (!budget()) return undefined;
            const c = bridgeQuestion(ctx, i, f, j, rng);
            if (c) return c;
          }
        }
      }
      return linkedCandidate(ctx, members, rng, budget);
    }
    default:
      return undefined;
  }
}

/** A linked-pair multi-hop candidate whose first record is a turn of the bundle, or undefined. */
function linkedCandidate(ctx: RuleContext, members: readonly number[], rng: Rng, budget: () => boolean): RuleCandidate | undefined {
  for (const a of members) {
    if (ctx.graph.records[a]!.kind !== 'turn') continue;
    for (const link of ['attachment', 'thread'] as const) {
      const reach = linkedRecords(ctx, a, link);
      for (const b of rng.shuffle(reach).slice(0, 8)) {
        if (rng.next() < 0.8) {
          if (!budget()) return undefined;
          const c = linkedWhichQuestion(ctx, a, b, link, rng);
          if (c) return c;
        }
        for (const f of rng.shuffle(ctx.facts(b)).slice(0, 3)) {
          if (f.kind === 'date') continue;
          if (!budget()) return undefined;
          const c = linkedQuestion(ctx, a, b, f, link, rng);
          if (c) return c;
        }
      }
    }
  }
  return undefined;
}
