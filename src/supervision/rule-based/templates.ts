import type { SourceRecord } from '../../../sandbox/contract.ts';
import type { AnswerType } from '../../history/record.ts';
import { daysBetween, formatDate, parseExactDate } from '../../text/date-parse.ts';
import { recordDate } from '../bundles.ts';
import type { AnswerPlan, Operation, PlanFact, QuestionType } from '../plan.ts';
import type { RuleContext } from './rule-context.ts';
import type { Rng } from '../rng.ts';
import { tokensIn } from './cues.ts';
import { splitSentences, type Sentence, type TextFact } from './facts.ts';
import { ambiguityWeight, pickGist, scopedMatches, stemsOf, type Gist } from './gist.ts';
import type { Kind } from './kinds.ts';
import { askFirst, monthOf, timePhrase } from './phrases.ts';
import { roleRange, whoAt } from './speakers.ts';

export { whoAt } from './speakers.ts';

/** A templated question with its computed plan, before the programmatic checks. */
export interface RuleCandidate {
  type: QuestionType;
  /** Which template made it (kept in the item's checks, so a weak template can be found and dropped). */
  template: string;
  question: string;
  plan: AnswerPlan;
  /**
   * The evidence record whose day the question asks about when its evidence spans days (a two-hop question's later
   * event): the situating step may place the question by another thing done that day.
   */
  askedRecord?: string;
}

export type { RuleContext } from './rule-context.ts';

type Fact<K extends TextFact['kind']> = Extract<TextFact, { kind: K }>;

/** A plan fact quoting `[s.start, s.end)` of a record. */
export function fact(r: SourceRecord, s: Pick<Sentence, 'start' | 'end'>, statement: string): PlanFact {
  return { record: r.id, quote: r.text.slice(s.start, s.end), statement };
}

/** An answer plan whose evidence is the records of `contributions`, in insertion order. */
export function plan(
  type: QuestionType,
  intent: string,
  answer: string,
  answerType: AnswerType,
  facts: PlanFact[],
  contributions: Map<string, string>,
  operations: Operation[],
): AnswerPlan {
  return {
    questionType: type,
    intent,
    answer,
    answerType,
    facts,
    evidence: [...contributions].map(([record, contribution]) => ({ record, contribution })),
    operations,
  };
}

/** Stems a question about `answer` must not use: the answer's own and the speakers'. */
export function excludeFor(ctx: RuleContext, answer: string): Set<string> {
  const s = stemsOf(answer);
  for (const x of ctx.speakerStems) s.add(x);
  return s;
}

/** Time scopes a question may place its passage in, least precise first. */
export const TIMED = ['any', 'month', 'day'] as const;

/**
 * Where the gist places a passage, as the tail of a question: "when talking about the choir concert in April
 * 2024", "in the e-mail about the field trip", "in the part about seasonal produce".
 */
function context(r: SourceRecord, g: Gist): string {
  const when = timePhrase(g.scope, recordDate(r));
  if (r.kind === 'email') return `in the e-mail about ${g.phrase.text}${when}`;
  if (r.kind === 'document') return `in the part about ${g.phrase.text}`;
  return `when talking about ${g.phrase.text}${when}`;
}

/** What a "what … did … mention" candidate states: its template, answer and the role of the record that says it. */
interface Mention {
  template: string;
  /** "What name", "How many minutes", "What date". */
  lead: string;
  intent: string;
  answer: string;
  answerType: AnswerType;
  /** What the record's sentence does for the answer ("states 40 minutes"). */
  statement: string;
  role: string;
}

/**
 * "What name did Ana mention when talking about …?" for fact `f` of record `i`, found by gist `g`. A
 * document's is asked by its title ("What date does the document “…” give in the part about …?"), except in a
 * user's own history: a person names their own document by the conversation they shared it in, never by its title
 * (see section-order.ts), and that turn joins the evidence. A document no turn shares is not asked there.
 */
function mentionCandidate(ctx: RuleContext, i: number, f: TextFact, g: Gist, m: Mention, rng: Rng): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  const said = fact(r, f.sentence, m.statement);
  const single = (question: string): RuleCandidate => ({
    type: 'single-hop',
    template: m.template,
    question,
    plan: plan('single-hop', m.intent, m.answer, m.answerType, [said], new Map([[r.id, m.role]]), ['lookup']),
  });
  if (r.kind !== 'document') {
    const who = whoAt(r, f.start);
    return who ? single(`${m.lead} did ${who} mention ${context(r, g)}?`) : undefined;
  }
  if (!ctx.userVoice) {
    const title = ctx.documentTitle(i);
    return title ? single(`${m.lead} does the document “${title}” give ${context(r, g)}?`) : undefined;
  }
  const shared = sharedIn(ctx, i, new Set([...excludeFor(ctx, m.answer), ...g.phrase.stems]), rng);
  if (!shared) return undefined;
  const { turn, hop } = shared;
  const talk = `${hop.ga.phrase.text}${timePhrase(hop.ga.scope, recordDate(turn))}`;
  return {
    type: 'multi-hop',
    template: m.template,
    question: `In the document ${hop.whoA} shared while talking about ${talk}, ${m.lead.toLowerCase()} does it give ${context(r, g)}?`,
    plan: plan(
      'multi-hop',
      `${m.intent}, in the document shared while talking about ${hop.ga.phrase.text}`,
      m.answer,
      m.answerType,
      [fact(turn, hop.sentence, `${hop.whoA} talks about ${hop.ga.phrase.text} and shares the document`), said],
      new Map([
        [turn.id, 'shares the document: it is how the document is found'],
        [r.id, m.role],
      ]),
      ['lookup', 'lookup'],
    ),
  };
}

/**
 * A turn that shares document record `i` (an `[Upload …]` or a reference), with the gist of one of the user's
 * sentences there that uses none of `exclude`; undefined when no turn shares it.
 */
export function sharedIn(
  ctx: RuleContext,
  i: number,
  exclude: ReadonlySet<string>,
  rng: Rng,
): { turn: SourceRecord; hop: NonNullable<ReturnType<typeof firstHop>> } | undefined {
  const turns = [...new Set(ctx.graph.edges[i]!.filter((e) => e.kind === 'upload' || e.kind === 'ref').map((e) => e.to))]
    .filter((j) => ctx.graph.records[j]!.kind === 'turn')
    .sort((a, b) => a - b);
  for (const j of rng.shuffle(turns)) {
    // The user shares the document: the conversation is named by what the user said, not by the assistant's reply.
    const hop = firstHop(ctx, j, exclude, rng, roleRange(ctx.graph.records[j]!, 'the user'));
    if (hop) return { turn: ctx.graph.records[j]!, hop };
  }
  return undefined;
}

/**
 * Facts of `kind` (and `same`) in the sentences of record `i` that contain every stem of the phrase: the answer is
 * unique when this is one.
 */
function factsNearPhrase<K extends TextFact['kind']>(
  ctx: RuleContext,
  i: number,
  stems: readonly string[],
  kind: K,
  same: (f: Fact<K>) => boolean,
): Array<Fact<K>> {
  const text = ctx.graph.records[i]!.text;
  const sentences = splitSentences(text).filter((s) => {
    const st = new Set(tokensIn(text, s.start, s.end).map((t) => t.stem));
    return stems.every((x) => st.has(x));
  });
  return ctx
    .facts(i)
    .filter((f): f is Fact<K> => f.kind === kind && same(f as Fact<K>) && sentences.some((s) => f.start >= s.start && f.start < s.end));
}

/** Unit abbreviations a "How many …" question spells out ("15 km" asks "How many kilometers"). */
const UNIT_WORDS: Record<string, string> = {
  km: 'kilometers',
  m: 'meters',
  cm: 'centimeters',
  mm: 'millimeters',
  kg: 'kilograms',
  g: 'grams',
  lb: 'pounds',
  lbs: 'pounds',
  mi: 'miles',
  min: 'minutes',
  mins: 'minutes',
  hr: 'hours',
  hrs: 'hours',
  ml: 'milliliters',
};

/** The unit words of a quantity as a "How many …" question needs them: "years" for "1 year". */
export function unitWordsOf(value: string): string {
  // "k" is a thousand only as a word of its own ("5k", "5 k"), not the start of "km" or "kilometers".
  const u = value
    .replace(/^[$€£]?\s?[\d.,]+\s?(?:(?:k|million|billion)\b)?|^[a-z ]+?(?=[\s-](\S+)$)/i, '')
    .replace(/^[\s-]+/, '')
    .trim();
  const spelled = UNIT_WORDS[u.toLowerCase()];
  if (spelled) return spelled;
  if (!u || /s$/i.test(u) || /^(people|feet|children|kids)$/i.test(u)) return u;
  return /[^aeiou]y$/i.test(u) ? `${u.slice(0, -1)}ies` : `${u}s`;
}

/** "How many years" / "How much money" / "What percentage" for a quantity, or undefined when its unit has no words. */
export function quantityLead(f: Fact<'quantity'>): string | undefined {
  const unitWords = unitWordsOf(f.value);
  if (/^[$€£]/.test(f.value)) return 'How much money';
  if (f.unit === 'percent' || /%$/.test(f.value)) return 'What percentage';
  if (unitWords && !/\d/.test(unitWords) && !/%/.test(unitWords)) return `How many ${unitWords}`;
  return undefined;
}

/** Single-hop: a quantity with its unit, asked by a phrase of its sentence, its speaker and (when needed) its time. */
export function quantityQuestion(ctx: RuleContext, i: number, f: Fact<'quantity'>, rng: Rng): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  const g = pickGist(ctx, i, f.sentence, rng, {
    bySpeaker: true,
    scopes: r.kind === 'document' ? ['any'] : TIMED,
    avoid: f,
    exclude: excludeFor(ctx, f.value),
    filter: (p) => factsNearPhrase(ctx, i, p.stems, 'quantity', (x) => x.unit === f.unit).length === 1,
  });
  if (!g) return undefined;
  const lead = quantityLead(f);
  if (!lead) return undefined;
  return mentionCandidate(
    ctx,
    i,
    f,
    g,
    {
      template: 'quantity',
      lead,
      intent: `the quantity (${f.unit || 'count'}) stated about ${g.phrase.text}`,
      answer: f.value,
      answerType: 'number',
      statement: `states ${f.value}`,
      role: 'states the quantity',
    },
    rng,
  );
}

/** Single-hop: the one proper name said near a phrase. */
export function entityQuestion(ctx: RuleContext, i: number, f: Fact<'entity'>, rng: Rng): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  if (everywhere(ctx, f.value)) return undefined;
  const g = pickGist(ctx, i, f.sentence, rng, {
    bySpeaker: true,
    scopes: r.kind === 'document' ? ['any'] : TIMED,
    avoid: f,
    exclude: excludeFor(ctx, f.value),
    filter: (p) => new Set(factsNearPhrase(ctx, i, p.stems, 'entity', () => true).map((x) => x.value.toLowerCase())).size === 1,
  });
  if (!g) return undefined;
  return mentionCandidate(
    ctx,
    i,
    f,
    g,
    {
      template: 'entity',
      lead: 'What name',
      intent: `the proper name mentioned about ${g.phrase.text}`,
      answer: f.value,
      answerType: 'text',
      statement: `names ${f.value}`,
      role: 'names the entity',
    },
    rng,
  );
}

/** A name the history uses so often (the user's dog, the group they belong to) that asking for it says little. */
export function everywhere(ctx: RuleContext, name: string): boolean {
  const last = tokensIn(name).pop();
  const df = last ? (ctx.postings.get(last.stem)?.length ?? 0) : 0;
  return df > Math.max(8, ctx.graph.records.length * 0.03);
}

/** Single-hop: a calendar date written in the text. */
export function dateQuestion(ctx: RuleContext, i: number, f: Fact<'date'>, rng: Rng): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  const g = pickGist(ctx, i, f.sentence, rng, {
    bySpeaker: true,
    scopes: r.kind === 'document' ? ['any'] : ['any', 'month'],
    avoid: f,
    exclude: excludeFor(ctx, f.value),
    filter: (p) => factsNearPhrase(ctx, i, p.stems, 'date', () => true).length === 1,
  });
  if (!g) return undefined;
  return mentionCandidate(
    ctx,
    i,
    f,
    g,
    {
      template: 'date-in-text',
      lead: 'What date',
      intent: `the calendar date written about ${g.phrase.text}`,
      answer: formatDate(f.date),
      answerType: 'date',
      statement: `gives the date ${f.value}`,
      role: 'states the date',
    },
    rng,
  );
}

/** Content sentences of a record worth asking about (enough words, not a greeting). */
export function contentSentences(r: SourceRecord): Sentence[] {
  return splitSentences(r.text).filter((s) => s.text.split(/\s+/).length >= 6 && !/^(Sender|Recipient|Subject):/.test(s.text));
}

/** Single-hop who-said: which named speaker talked about a phrase (only when turns have several speakers). */
export function whoQuestion(ctx: RuleContext, i: number, s: Sentence, rng: Rng): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  if (r.kind === 'email') return senderQuestion(ctx, i, s, rng);
  if (!ctx.multiSpeaker || r.kind !== 'turn' || !r.speaker) return undefined;
  const speaker = r.speaker;
  // Any phrase of the turn will do (a person remembers the topic, not the sentence): more candidates, so the
  // vaguer ones can be preferred.
  const g = pickGist(ctx, i, s, rng, {
    bySpeaker: false,
    scopes: TIMED,
    exclude: excludeFor(ctx, speaker),
    within: { start: 0, end: r.text.length },
  });
  if (!g) return undefined;
  s = splitSentences(r.text).find((x) => g.phrase.start >= x.start && g.phrase.start < x.end) ?? s;
  const when = timePhrase(g.scope, recordDate(r));
  const question = rng.next() < 0.5 ? `Who talked about ${g.phrase.text}${when}?` : `Who brought up ${g.phrase.text}${when}?`;
  return {
    type: 'single-hop',
    template: 'who-said',
    question,
    plan: plan(
      'single-hop',
      `who talked about ${g.phrase.text}${when}`,
      speaker,
      'text',
      [fact(r, s, `${speaker} says this`)],
      new Map([[r.id, 'its speaker is the answer']]),
      ['lookup'],
    ),
  };
}

function senderQuestion(ctx: RuleContext, i: number, s: Sentence, rng: Rng): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  const line = /^Sender:\s*([^<\n]+?)\s*(?:<[^>\n]*>)?\s*$/m.exec(r.text);
  if (!line) return undefined;
  const name = line[1]!.trim();
  if (name.length < 3) return undefined;
  const g = pickGist(ctx, i, s, rng, { bySpeaker: false, scopes: TIMED, exclude: excludeFor(ctx, name) });
  if (!g) return undefined;
  const senderSentence: Sentence = { start: line.index, end: line.index + line[0].length, text: line[0] };
  const when = timePhrase(g.scope, recordDate(r));
  return {
    type: 'single-hop',
    template: 'email-sender',
    question: `Who sent the e-mail about ${g.phrase.text}${when}?`,
    plan: plan(
      'single-hop',
      `the sender of the e-mail about ${g.phrase.text}`,
      name,
      'text',
      [fact(r, senderSentence, `sent by ${name}`), fact(r, s, 'the e-mail is about this')],
      new Map([[r.id, 'its sender line names the answer']]),
      ['lookup'],
    ),
  };
}

/** "Ana talked about the choir concert" / "the e-mail about the field trip was written": a dated event. */
function event(r: SourceRecord, offset: number, g: Gist): { when: string; clause: string } | undefined {
  const month = timePhrase(g.scope, recordDate(r));
  if (r.kind === 'email')
    return { when: `was the e-mail about ${g.phrase.text} written`, clause: `the e-mail about ${g.phrase.text}${month}` };
  const who = whoAt(r, offset);
  if (!who) return undefined;
  return { when: `did ${who} talk about ${g.phrase.text}`, clause: `when ${who} talked about ${g.phrase.text}${month}` };
}

/** Temporal: on what date something was said (the record's own date, from its metadata). */
export function whenQuestion(ctx: RuleContext, i: number, s: Sentence, rng: Rng): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  const iso = recordDate(r);
  if (!iso || r.kind === 'document') return undefined;
  // The month may narrow it ("When in May 2023 did …"): the answer is still the day.
  const g = pickGist(ctx, i, s, rng, { bySpeaker: true, scopes: ['any', 'month'], exclude: ctx.speakerStems });
  if (!g) return undefined;
  const ev = event(r, s.start, g);
  if (!ev) return undefined;
  const answer = formatDate(parseExactDate(iso)!);
  return {
    type: 'temporal',
    template: 'when',
    // A user recalling their own conversations asks for the day ("On which day did I talk about …?").
    question:
      g.scope === 'month'
        ? `${ctx.userVoice ? 'On which day' : 'When'} in ${monthOf(iso)} ${ev.when}?`
        : `${ctx.userVoice ? 'On which day' : 'When'} ${ev.when}?`,
    plan: plan(
      'temporal',
      `the date on which ${g.phrase.text} came up`,
      answer,
      'date',
      [fact(r, s, `said on ${iso} (the record's date)`)],
      new Map([[r.id, `dated ${iso}`]]),
      ['lookup'],
    ),
  };
}

/** Temporal over two records: how many days passed between two things that were said. */
export function daysBetweenQuestion(
  ctx: RuleContext,
  i: number,
  si: Sentence,
  j: number,
  sj: Sentence,
  rng: Rng,
): RuleCandidate | undefined {
  const a = ctx.graph.records[i]!;
  const b = ctx.graph.records[j]!;
  const da = recordDate(a);
  const db = recordDate(b);
  if (!da || !db || da === db || a.kind === 'document' || b.kind === 'document') return undefined;
  const [first, second, sf, ss, fi, se] = da < db ? [a, b, si, sj, i, j] : [b, a, sj, si, j, i];
  const gf = pickGist(ctx, fi, sf, rng, { bySpeaker: true, scopes: ['any', 'month'], exclude: ctx.speakerStems });
  const gs = pickGist(ctx, se, ss, rng, { bySpeaker: true, scopes: ['any', 'month'], exclude: ctx.speakerStems });
  if (!gf || !gs || gf.phrase.text.toLowerCase() === gs.phrase.text.toLowerCase()) return undefined;
  const ef = event(first, sf.start, gf);
  const es = event(second, ss.start, gs);
  if (!ef || !es) return undefined;
  const days = daysBetween(recordDate(first)!, recordDate(second)!);
  return {
    type: 'temporal',
    template: 'days-between',
    question: `How many days passed between ${ef.clause} and ${es.clause}?`,
    plan: plan(
      'temporal',
      'the number of days between two mentions',
      `${days} days`,
      'number',
      [fact(first, sf, `said on ${recordDate(first)}`), fact(second, ss, `said on ${recordDate(second)}`)],
      new Map([
        [first.id, `the earlier mention, dated ${recordDate(first)}`],
        [second.id, `the later mention, dated ${recordDate(second)}`],
      ]),
      ['lookup', 'date-arithmetic'],
    ),
  };
}

/** Multi-hop over two records: the proper name that both of two separately described passages mention. */
export function bridgeQuestion(ctx: RuleContext, i: number, f: Fact<'entity'>, j: number, rng: Rng): RuleCandidate | undefined {
  const a = ctx.graph.records[i]!;
  const b = ctx.graph.records[j]!;
  if (ctx.graph.threadOf[i] === ctx.graph.threadOf[j] || a.kind === 'document' || b.kind === 'document') return undefined;
  const g = ctx.facts(j).find((x): x is Fact<'entity'> => x.kind === 'entity' && x.value === f.value);
  if (!g) return undefined;
  const namesA = new Set(
    ctx
      .facts(i)
      .filter((x) => x.kind === 'entity')
      .map((x) => x.value.toLowerCase()),
  );
  const shared = ctx.facts(j).filter((x) => x.kind === 'entity' && namesA.has(x.value.toLowerCase()));
  if (new Set(shared.map((x) => x.value.toLowerCase())).size !== 1) return undefined;
  const ex = excludeFor(ctx, f.value);
  const ga = pickGist(ctx, i, f.sentence, rng, { bySpeaker: true, scopes: TIMED, avoid: f, exclude: ex });
  const gb = pickGist(ctx, j, g.sentence, rng, { bySpeaker: true, scopes: TIMED, avoid: g, exclude: ex });
  if (!ga || !gb || ga.phrase.text.toLowerCase() === gb.phrase.text.toLowerCase()) return undefined;
  const ca = passage(a, f.start, ga);
  const cb = passage(b, g.start, gb);
  if (!ca || !cb) return undefined;
  return {
    type: 'multi-hop',
    template: 'shared-name',
    question: `Which name came up both ${ca} and ${cb}?`,
    plan: plan(
      'multi-hop',
      'the proper name two separately described passages have in common',
      f.value,
      'text',
      [fact(a, f.sentence, `mentions ${f.value}`), fact(b, g.sentence, `mentions ${f.value}`)],
      new Map([
        [a.id, 'first passage naming the entity'],
        [b.id, 'second passage naming the entity'],
      ]),
      ['lookup', 'intersect'],
    ),
  };
}

/** "when Ana talked about the choir concert in April 2024" / "in the e-mail about …". */
function passage(r: SourceRecord, offset: number, g: Gist): string | undefined {
  const when = timePhrase(g.scope, recordDate(r));
  if (r.kind === 'email') return `in the e-mail about ${g.phrase.text}${when}`;
  const who = whoAt(r, offset);
  return who ? `when ${who} talked about ${g.phrase.text}${when}` : undefined;
}

/** How a linked pair of records is joined in the record graph. */
export type Link = 'thread' | 'attachment';

/** How many records after the first a same-thread second hop may lie. */
export const THREAD_HOP_WINDOW = 12;

/**
 * The records a linked multi-hop question's second hop ranges over, given its first record `a`: the next
 * records of `a`'s thread, or the document sections `a` shares or refers to.
 */
export function linkedRecords(ctx: RuleContext, a: number, link: Link): number[] {
  if (link === 'thread') {
    const mates = ctx.graph.threads.get(ctx.graph.threadOf[a]!)!;
    const at = mates.indexOf(a);
    return mates.slice(at + 1, at + 1 + THREAD_HOP_WINDOW);
  }
  const out = new Set<number>();
  for (const e of ctx.graph.edges[a]!)
    if ((e.kind === 'ref' || e.kind === 'upload') && ctx.graph.records[e.to]!.kind === 'document') out.add(e.to);
  return [...out].sort((x, y) => x - y);
}

/**
 * Multi-hop over two linked records: the first (`a`) is described by its gist, the second (`b`, later in the
 * same conversation, or a section of a document `a` shared) holds the answer near a noun phrase it shares with
 * `a`. "After Ana talked about the flat hunt, what name did Ben mention about the landlord?";
 * "In the document the user shared while talking about the shopping list, how many weeks does it give for the
 * garden?". The answer is computed from `b`; both records are evidence; `b` is the only record the link reaches
 * that says the shared phrase (by that speaker) next to a fact of that kind.
 */
export function linkedQuestion(
  ctx: RuleContext,
  a: number,
  b: number,
  f: Fact<'entity' | 'quantity'>,
  link: Link,
  rng: Rng,
): RuleCandidate | undefined {
  const ra = ctx.graph.records[a]!;
  const rb = ctx.graph.records[b]!;
  if (ra.kind !== 'turn' || (link === 'attachment') !== (rb.kind === 'document') || (link === 'thread' && rb.kind !== 'turn'))
    return undefined;
  if (f.kind === 'entity' && everywhere(ctx, f.value)) return undefined;
  const reach = linkedRecords(ctx, a, link);
  if (!reach.includes(b)) return undefined;
  const ex = excludeFor(ctx, f.value);
  const whoB = link === 'thread' ? whoAt(rb, f.start) : undefined;
  const sameKind = (x: TextFact): boolean => (f.kind === 'quantity' ? x.kind === 'quantity' && x.unit === f.unit : x.kind === 'entity');
  // The second hop: a phrase of b's fact sentence that a also uses (the shared topic); among the reached records
  // only b says it (by that speaker), next to exactly one answer of the fact's kind.
  const gb = pickGist(ctx, b, f.sentence, rng, {
    bySpeaker: false,
    scopes: ['any'],
    avoid: f,
    exclude: ex,
    accept: () => true,
    filter: (p) => {
      if (!p.stems.every((s) => ctx.graph.termSets[a]!.has(s))) return false;
      const hits = reach.filter((k) => (whoB ? ctx.saidBy(k, whoB, p.stems) : p.stems.every((s) => ctx.graph.termSets[k]!.has(s))));
      if (hits.length !== 1 || hits[0] !== b) return false;
      const near = factsNearPhrase(ctx, b, p.stems, f.kind, (x) => sameKind(x));
      return new Set(near.map((x) => x.value.toLowerCase())).size === 1;
    },
  });
  if (!gb) return undefined;
  const hop = firstHop(ctx, a, new Set([...ex, ...gb.phrase.stems]), rng);
  if (!hop) return undefined;
  const { ga, whoA, sentence: firstSentence } = hop;
  const lead = f.kind === 'entity' ? 'what name' : quantityLead(f)?.toLowerCase();
  if (!lead) return undefined;
  const whenA = timePhrase(ga.scope, recordDate(ra));
  const question =
    link === 'thread'
      ? ctx.userVoice
        ? `After ${whoA} talked about ${ga.phrase.text}${whenA}, ${lead} did ${whoB} mention about ${gb.phrase.text}?`
        : `${askFirst(lead)} did ${whoB} mention about ${gb.phrase.text} after ${whoA} talked about ${ga.phrase.text}${whenA}?`
      : `In the document ${whoA} shared while talking about ${ga.phrase.text}${whenA}, ${lead} is given about ${gb.phrase.text}?`;
  const answerType: AnswerType = f.kind === 'entity' ? 'text' : 'number';
  return {
    type: 'multi-hop',
    template: link === 'thread' ? 'linked-thread' : 'linked-attachment',
    question,
    plan: plan(
      'multi-hop',
      link === 'thread'
        ? `what ${whoB} said about ${gb.phrase.text} after ${whoA} talked about ${ga.phrase.text}`
        : `what the document shared while talking about ${ga.phrase.text} says about ${gb.phrase.text}`,
      f.value,
      answerType,
      [
        fact(ra, firstSentence, `${whoA} talks about ${ga.phrase.text}`),
        fact(rb, f.sentence, `${f.kind === 'entity' ? 'names' : 'states'} ${f.value}`),
      ],
      new Map([
        [ra.id, link === 'thread' ? 'locates the conversation and the moment the second hop follows' : 'shares the document'],
        [rb.id, 'holds the answer'],
      ]),
      ['lookup', 'lookup'],
    ),
  };
}

/**
 * The first hop of a linked question: a phrase of record `a` (of its sentences `within` a range of its text) that
 * singles it out for its speaker (by month at most).
 */
export function firstHop(
  ctx: RuleContext,
  a: number,
  exclude: ReadonlySet<string>,
  rng: Rng,
  within: readonly [number, number] = [0, Number.POSITIVE_INFINITY],
): { ga: Gist; whoA: string; sentence: Sentence } | undefined {
  const ra = ctx.graph.records[a]!;
  const inside = contentSentences(ra).filter((s) => s.start >= within[0] && s.end <= within[1]);
  for (const sentence of rng.shuffle(inside).slice(0, 3)) {
    const ga = pickGist(ctx, a, sentence, rng, { bySpeaker: true, scopes: ['any', 'month'], exclude });
    const whoA = whoAt(ra, sentence.start);
    if (ga && whoA) return { ga, whoA, sentence };
  }
  return undefined;
}

/** Stems that may not be a "which N" head: too common to say anything, or a speaker's name. */
export function headOk(ctx: RuleContext, k: Kind): boolean {
  const df = ctx.postings.get(k.head.stem)?.length ?? 0;
  return (
    df >= 1 &&
    df <= Math.max(6, ctx.graph.records.length * 0.12) &&
    !ctx.speakerStems.has(k.head.stem) &&
    k.head.word.length >= 4 &&
    !k.phrase.words.some((w) => ctx.speakerStems.has(w.stem))
  );
}

/**
 * Single-hop "which N": the kind of thing a speaker mentioned, asked by its head noun, the speaker and the
 * time: "Which studio did Maria mention in May 2023?" → "yoga studio". Only this record (of that speaker, in
 * that time) says the noun, and it says it in one phrase.
 */
export function whichQuestion(ctx: RuleContext, i: number, rng: Rng): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  if (r.kind === 'document') return undefined;
  const cands: Array<{ k: Kind; scope: (typeof TIMED)[number]; w: number }> = [];
  for (const who of r.kind === 'turn' && r.text.startsWith('User: ') ? ['the user', 'the assistant'] : [whoAt(r, 0)]) {
    if (!who) continue;
    const [from, to] = roleRange(r, who);
    // The owner's own e-mails, under any form of their name, are one person's: "did I mention in an e-mail".
    const names = r.kind === 'email' && ctx.owner.has(who) ? [...ctx.owner] : [who];
    for (const [, list] of ctx.kinds(i, from, to)) {
      if (list.length !== 1 || !headOk(ctx, list[0]!)) continue;
      const k = list[0]!;
      for (const scope of TIMED) {
        const m = names.flatMap((name) => scopedMatches(ctx, i, [k.head.stem], name, scope));
        if (m.length === 1 && m[0] === i) {
          cands.push({
            k,
            scope,
            w: ambiguityWeight(ctx.postings.get(k.head.stem)!.length, ctx.shortRecords) * (scope === 'day' ? 0.7 : 1),
          });
          break;
        }
      }
    }
  }
  if (!cands.length) return undefined;
  let pick = cands.reduce((x, c) => x + c.w, 0) * rng.next();
  const c = cands.find((x) => (pick -= x.w) < 0) ?? cands[cands.length - 1]!;
  const sender = whoAt(r, c.k.phrase.start)!;
  const who = r.kind === 'email' && ctx.owner.has(sender) ? 'the user' : sender;
  const when = timePhrase(c.scope, recordDate(r));
  const head = c.k.head.word.toLowerCase();
  const question = r.kind === 'email' ? `What ${head} did ${who} mention in an e-mail${when}?` : `What ${head} did ${who} mention${when}?`;
  return {
    type: 'single-hop',
    template: 'which-thing',
    question,
    plan: plan(
      'single-hop',
      `which ${head} ${who} mentioned${when}`,
      c.k.answer,
      'text',
      [fact(r, c.k.sentence, `mentions the ${c.k.answer}`)],
      new Map([[r.id, `names the ${head}`]]),
      ['lookup'],
    ),
  };
}

/**
 * Multi-hop "which N" over a linked pair: "After Ana talked about the flat hunt, which street did
 * Ben mention?" The head noun is one `a` also uses (the shared content noun); among the records the link
 * reaches, only `b` has that speaker say it, in one phrase.
 */
export function linkedWhichQuestion(ctx: RuleContext, a: number, b: number, link: Link, rng: Rng): RuleCandidate | undefined {
  const ra = ctx.graph.records[a]!;
  const rb = ctx.graph.records[b]!;
  if (ra.kind !== 'turn' || (link === 'attachment') !== (rb.kind === 'document') || (link === 'thread' && rb.kind !== 'turn'))
    return undefined;
  const reach = linkedRecords(ctx, a, link);
  if (!reach.includes(b)) return undefined;
  const whos = link === 'attachment' ? [undefined] : rb.text.startsWith('User: ') ? ['the user', 'the assistant'] : [whoAt(rb, 0)];
  for (const whoB of rng.shuffle(whos)) {
    if (link === 'thread' && !whoB) continue;
    const [from, to] = whoB ? roleRange(rb, whoB) : [0, rb.text.length];
    for (const [stem, list] of rng.shuffle([...ctx.kinds(b, from, to)])) {
      if (list.length !== 1 || !headOk(ctx, list[0]!) || !ctx.graph.termSets[a]!.has(stem)) continue;
      const hits = reach.filter((k) => (whoB ? ctx.saidBy(k, whoB, [stem]) : ctx.graph.termSets[k]!.has(stem)));
      if (hits.length !== 1 || hits[0] !== b) continue;
      const k = list[0]!;
      const hop = firstHop(ctx, a, new Set([stem, ...k.phrase.stems, ...ctx.speakerStems]), rng);
      if (!hop) return undefined;
      const head = k.head.word.toLowerCase();
      const whenA = timePhrase(hop.ga.scope, recordDate(ra));
      const question =
        link === 'thread'
          ? ctx.userVoice
            ? `After ${hop.whoA} talked about ${hop.ga.phrase.text}${whenA}, which ${head} did ${whoB} mention?`
            : `What ${head} did ${whoB} mention after ${hop.whoA} talked about ${hop.ga.phrase.text}${whenA}?`
          : `In the document ${hop.whoA} shared while talking about ${hop.ga.phrase.text}${whenA}, which ${head} is mentioned?`;
      return {
        type: 'multi-hop',
        template: link === 'thread' ? 'linked-thread-which' : 'linked-attachment-which',
        question,
        plan: plan(
          'multi-hop',
          `which ${head} came up after ${hop.whoA} talked about ${hop.ga.phrase.text}`,
          k.answer,
          'text',
          [fact(ra, hop.sentence, `${hop.whoA} talks about ${hop.ga.phrase.text}`), fact(rb, k.sentence, `mentions the ${k.answer}`)],
          new Map([
            [ra.id, link === 'thread' ? 'locates the conversation and the moment the second hop follows' : 'shares the document'],
            [rb.id, 'holds the answer'],
          ]),
          ['lookup', 'lookup'],
        ),
      };
    }
  }
  return undefined;
}
