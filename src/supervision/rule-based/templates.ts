import type { SourceRecord } from '../../../sandbox/contract.ts';
import type { AnswerType } from '../../history/record.ts';
import { formatDate, parseExactDate } from '../../evaluate/date-parse.ts';
import { recordDate } from '../bundles.ts';
import type { AnswerPlan, Operation, PlanFact, QuestionType } from '../plan.ts';
import type { RecordGraph } from '../record-graph.ts';
import { joinWords, pickCues, tokensIn, type Cues, type Postings } from './cues.ts';
import { splitSentences, type Sentence, type TextFact } from './facts.ts';

/** A templated question with its computed plan, before the programmatic checks. */
export interface RuleCandidate {
  type: QuestionType;
  /** Which template made it (kept in the item's checks, so a weak template can be found and dropped). */
  template: string;
  question: string;
  plan: AnswerPlan;
}

/** What the templates read: the graph, a term index, facts per record, and who is who. */
export interface RuleContext {
  graph: RecordGraph;
  postings: Postings;
  facts(index: number): TextFact[];
  /** Lower-cased speaker names (never cues, never entity answers). */
  speakers: ReadonlySet<string>;
  /** Stems of the speaker names. */
  speakerStems: ReadonlySet<string>;
  /** True when turns have more than one named speaker (who-said questions make sense). */
  multiSpeaker: boolean;
}

/** Who said the text at `offset` of a record, as a question names them (undefined: no one in particular). */
export function whoAt(r: SourceRecord, offset: number): string | undefined {
  if (r.kind === 'turn' && r.text.startsWith('User: ')) {
    const a = r.text.indexOf('\nAssistant: ');
    return a >= 0 && offset > a ? 'the assistant' : 'the user';
  }
  if (!r.speaker) return undefined;
  const s = r.speaker.toLowerCase();
  if (s === 'user') return 'the user';
  if (s === 'assistant') return 'the assistant';
  return r.speaker;
}

function about(r: SourceRecord, offset: number, cues: Cues): string {
  const who = whoAt(r, offset);
  const topic = joinWords(cues.words);
  if (r.kind === 'email') return `in the e-mail about ${topic}`;
  if (r.kind === 'document') return `in the document section about ${topic}`;
  return who ? `as ${who} talked about ${topic}` : `in the conversation about ${topic}`;
}

function stemsOf(text: string): Set<string> {
  return new Set(tokensIn(text).map((t) => t.stem));
}

function excludeFor(ctx: RuleContext, answer: string): Set<string> {
  const s = stemsOf(answer);
  for (const x of ctx.speakerStems) s.add(x);
  return s;
}

function fact(r: SourceRecord, s: Sentence, statement: string): PlanFact {
  return { record: r.id, quote: r.text.slice(s.start, s.end), statement };
}

function plan(
  type: QuestionType,
  intent: string,
  answer: string,
  answerType: AnswerType,
  facts: PlanFact[],
  contributions: Map<string, string>,
  operations: Operation[],
): AnswerPlan {
  return { questionType: type, intent, answer, answerType, facts, evidence: [...contributions].map(([record, contribution]) => ({ record, contribution })), operations };
}

const only = (i: number) => (m: number[]) => m.length === 1 && m[0] === i;

/** Single-hop: a quantity with its unit, asked by its unit and cue words of its sentence. */
export function quantityQuestion(ctx: RuleContext, i: number, f: Extract<TextFact, { kind: 'quantity' }>): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  const sameUnit = ctx.facts(i).filter((g) => g.kind === 'quantity' && g.unit === f.unit && g.sentence.start === f.sentence.start);
  if (sameUnit.length !== 1) return undefined;
  const cues = pickCues(ctx.graph, ctx.postings, i, f.sentence.start, f.sentence.end, only(i), { exclude: excludeFor(ctx, f.value) });
  if (!cues) return undefined;
  const unitWords = f.value.replace(/^[$€£]?\s?[\d.,]+\s?(k|million|billion)?|^[a-z ]+?(?=[\s-](\S+)$)/i, '').replace(/^[\s-]+/, '').trim();
  const where = about(r, f.start, cues);
  let question: string;
  if (/^[$€£]/.test(f.value)) question = `How much money was mentioned ${where}?`;
  else if (f.unit === 'percent') question = `What percentage was mentioned ${where}?`;
  else if (unitWords && !/\d/.test(unitWords)) question = `How many ${unitWords} were mentioned ${where}?`;
  else return undefined;
  return {
    type: 'single-hop',
    template: 'quantity',
    question,
    plan: plan('single-hop', `the quantity (${f.unit || 'count'}) stated ${where}`, f.value, 'number', [fact(r, f.sentence, `states ${f.value}`)], new Map([[r.id, 'states the quantity']]), ['lookup']),
  };
}

/** Single-hop: the one proper name in a sentence, asked by cue words of that sentence. */
export function entityQuestion(ctx: RuleContext, i: number, f: Extract<TextFact, { kind: 'entity' }>): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  const inSentence = ctx.facts(i).filter((g) => g.kind === 'entity' && g.sentence.start === f.sentence.start);
  if (inSentence.length !== 1) return undefined;
  const cues = pickCues(ctx.graph, ctx.postings, i, f.sentence.start, f.sentence.end, only(i), { exclude: excludeFor(ctx, f.value) });
  if (!cues) return undefined;
  const where = about(r, f.start, cues);
  return {
    type: 'single-hop',
    template: 'entity',
    question: `What was the name mentioned ${where}?`,
    plan: plan('single-hop', `the proper name mentioned ${where}`, f.value, 'text', [fact(r, f.sentence, `names ${f.value}`)], new Map([[r.id, 'names the entity']]), ['lookup']),
  };
}

/** Single-hop: a calendar date written in the text. */
export function dateQuestion(ctx: RuleContext, i: number, f: Extract<TextFact, { kind: 'date' }>): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  const inSentence = ctx.facts(i).filter((g) => g.kind === 'date' && g.sentence.start === f.sentence.start);
  if (inSentence.length !== 1) return undefined;
  const cues = pickCues(ctx.graph, ctx.postings, i, f.sentence.start, f.sentence.end, only(i), { exclude: excludeFor(ctx, f.value) });
  if (!cues) return undefined;
  const where = about(r, f.start, cues);
  const answer = formatDate(f.date);
  return {
    type: 'single-hop',
    template: 'date-in-text',
    question: `What date was given ${where}?`,
    plan: plan('single-hop', `the calendar date written ${where}`, answer, 'date', [fact(r, f.sentence, `gives the date ${f.value}`)], new Map([[r.id, 'states the date']]), ['lookup']),
  };
}

/** Content sentences of a record worth asking about (enough words, not a greeting). */
export function contentSentences(r: SourceRecord): Sentence[] {
  return splitSentences(r.text).filter((s) => s.text.split(/\s+/).length >= 6 && !/^(Sender|Recipient|Subject):/.test(s.text));
}

/** Single-hop who-said: which named speaker talked about the cue words (only when turns have several speakers). */
export function whoQuestion(ctx: RuleContext, i: number, s: Sentence): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  if (r.kind === 'email') return senderQuestion(ctx, i, s);
  if (!ctx.multiSpeaker || r.kind !== 'turn' || !r.speaker) return undefined;
  const speaker = r.speaker;
  const cues = pickCues(ctx.graph, ctx.postings, i, s.start, s.end, only(i), { exclude: excludeFor(ctx, speaker) });
  if (!cues) return undefined;
  return {
    type: 'single-hop',
    template: 'who-said',
    question: `Who talked about ${joinWords(cues.words)}?`,
    plan: plan('single-hop', `who talked about ${joinWords(cues.words)}`, speaker, 'text', [fact(r, s, `${speaker} says this`)], new Map([[r.id, 'its speaker is the answer']]), ['lookup']),
  };
}

function senderQuestion(ctx: RuleContext, i: number, s: Sentence): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  const line = /^Sender:\s*([^<\n]+?)\s*(?:<[^>\n]*>)?\s*$/m.exec(r.text);
  if (!line) return undefined;
  const name = line[1]!.trim();
  if (name.length < 3) return undefined;
  const cues = pickCues(ctx.graph, ctx.postings, i, s.start, s.end, only(i), { exclude: excludeFor(ctx, name) });
  if (!cues) return undefined;
  const senderSentence: Sentence = { start: line.index, end: line.index + line[0].length, text: line[0] };
  const topic = joinWords(cues.words);
  return {
    type: 'single-hop',
    template: 'email-sender',
    question: `Who sent the e-mail about ${topic}?`,
    plan: plan(
      'single-hop',
      `the sender of the e-mail about ${topic}`,
      name,
      'text',
      [fact(r, senderSentence, `sent by ${name}`), fact(r, s, 'the e-mail is about this')],
      new Map([[r.id, 'its sender line names the answer']]),
      ['lookup'],
    ),
  };
}

/** Temporal: on what date something was said (the record's own date, from its metadata). */
export function whenQuestion(ctx: RuleContext, i: number, s: Sentence): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  const iso = recordDate(r);
  if (!iso || r.kind === 'document') return undefined;
  const cues = pickCues(ctx.graph, ctx.postings, i, s.start, s.end, only(i), { exclude: ctx.speakerStems });
  if (!cues) return undefined;
  const answer = formatDate(parseExactDate(iso)!);
  const topic = joinWords(cues.words);
  const who = whoAt(r, s.start);
  const question = r.kind === 'email' ? `On what date was the e-mail about ${topic} written?` : who ? `On what date did ${who} talk about ${topic}?` : `On what date did the conversation about ${topic} take place?`;
  return {
    type: 'temporal',
    template: 'when',
    question,
    plan: plan('temporal', `the date on which ${topic} came up`, answer, 'date', [fact(r, s, `said on ${iso} (the record's date)`)], new Map([[r.id, `dated ${iso}`]]), ['lookup']),
  };
}

function dayNumber(iso: string): number {
  return Date.UTC(+iso.slice(0, 4), +iso.slice(5, 7) - 1, +iso.slice(8, 10)) / 86_400_000;
}

/** Temporal over two records: how many days passed between two things that were said. */
export function daysBetweenQuestion(ctx: RuleContext, i: number, si: Sentence, j: number, sj: Sentence): RuleCandidate | undefined {
  const a = ctx.graph.records[i]!;
  const b = ctx.graph.records[j]!;
  const da = recordDate(a);
  const db = recordDate(b);
  if (!da || !db || da === db || a.kind === 'document' || b.kind === 'document') return undefined;
  const [first, second, sf, ss, fi, se] = da < db ? [a, b, si, sj, i, j] : [b, a, sj, si, j, i];
  const cf = pickCues(ctx.graph, ctx.postings, fi, sf.start, sf.end, only(fi), { exclude: ctx.speakerStems, max: 3 });
  const cs = pickCues(ctx.graph, ctx.postings, se, ss.start, ss.end, only(se), { exclude: ctx.speakerStems, max: 3 });
  if (!cf || !cs) return undefined;
  const days = dayNumber(recordDate(second)!) - dayNumber(recordDate(first)!);
  const answer = `${days} days`;
  const q = `How many days passed between the mention of ${joinWords(cf.words)} and the later mention of ${joinWords(cs.words)}?`;
  return {
    type: 'temporal',
    template: 'days-between',
    question: q,
    plan: plan(
      'temporal',
      'the number of days between two mentions',
      answer,
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
export function bridgeQuestion(ctx: RuleContext, i: number, f: Extract<TextFact, { kind: 'entity' }>, j: number): RuleCandidate | undefined {
  const a = ctx.graph.records[i]!;
  const b = ctx.graph.records[j]!;
  if (ctx.graph.threadOf[i] === ctx.graph.threadOf[j]) return undefined;
  const g = ctx.facts(j).find((x) => x.kind === 'entity' && x.value === f.value);
  if (!g) return undefined;
  const namesA = new Set(ctx.facts(i).filter((x) => x.kind === 'entity').map((x) => x.value.toLowerCase()));
  const shared = ctx.facts(j).filter((x) => x.kind === 'entity' && namesA.has(x.value.toLowerCase()));
  if (new Set(shared.map((x) => x.value.toLowerCase())).size !== 1) return undefined;
  const ex = excludeFor(ctx, f.value);
  const ca = pickCues(ctx.graph, ctx.postings, i, f.sentence.start, f.sentence.end, only(i), { exclude: ex, max: 3 });
  const cb = pickCues(ctx.graph, ctx.postings, j, g.sentence.start, g.sentence.end, only(j), { exclude: ex, max: 3 });
  if (!ca || !cb) return undefined;
  return {
    type: 'multi-hop',
    template: 'shared-name',
    question: `Which name came up both ${about(a, f.start, ca)} and ${about(b, g.start, cb)}?`,
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

/** Aggregation: in how many separate sessions (or e-mails) a term came up within a date window. */
export function countQuestion(ctx: RuleContext, i: number, term: { word: string; stem: string }, pick: (n: number) => number): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  if (r.kind !== 'turn' && r.kind !== 'email') return undefined;
  const list = (ctx.postings.get(term.stem) ?? []).filter((k) => ctx.graph.records[k]!.kind === r.kind && recordDate(ctx.graph.records[k]!));
  const unit = r.kind === 'email' ? 'e-mails' : 'separate conversations';
  // Group mentions by thread (conversation) or by e-mail.
  const groups = new Map<string, number[]>();
  for (const k of list) {
    const key = r.kind === 'email' ? ctx.graph.records[k]!.id : ctx.graph.threadOf[k]!;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(k);
  }
  const ordered = [...groups.values()].map((g) => ({ g, date: recordDate(ctx.graph.records[g[0]!]!)! })).sort((x, y) => x.date.localeCompare(y.date));
  const at = ordered.findIndex((o) => o.g.includes(i));
  if (at < 0 || ordered.length < 2) return undefined;
  const size = Math.min(ordered.length, 2 + pick(4));
  const from = Math.max(0, Math.min(at - pick(size), ordered.length - size));
  const window = ordered.slice(from, from + size);
  const start = window[0]!.date;
  const end = window[window.length - 1]!.date;
  if (start === end) return undefined;
  // The window's bounds must not cut a day in half: every mention dated inside it is counted.
  if (ordered.some((o, k) => (k < from || k >= from + size) && o.date >= start && o.date <= end)) return undefined;
  const evidence = window.flatMap((o) => o.g);
  if (evidence.length > 8) return undefined;
  const facts: PlanFact[] = [];
  const contributions = new Map<string, string>();
  for (const k of evidence) {
    const rec = ctx.graph.records[k]!;
    const tok = tokensIn(rec.text).find((t) => t.stem === term.stem);
    if (!tok) return undefined; // the term came from the title only
    const s = splitSentences(rec.text).find((x) => tok.start >= x.start && tok.start < x.end);
    if (!s) return undefined;
    facts.push(fact(rec, s, `mentions ${term.word} on ${recordDate(rec)}`));
    contributions.set(rec.id, `one mention, dated ${recordDate(rec)}`);
  }
  const fmt = (iso: string): string => formatDate(parseExactDate(iso)!);
  return {
    type: 'aggregation',
    template: 'count-mentions',
    question: `In how many ${unit} between ${fmt(start)} and ${fmt(end)} did ${term.word} come up?`,
    plan: plan('aggregation', `count the ${unit} mentioning ${term.word} in a date window`, String(window.length), 'number', facts, contributions, ['lookup', 'count']),
  };
}
