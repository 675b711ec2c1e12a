import type { SourceRecord } from '../../sandbox/contract.ts';
import { extractiveAnswer, NOT_MENTIONED } from '../scoring/extractive-reader.ts';
import { daysBetween, formatDate, isoDate, monthNumber, parseExactDate } from '../text/date-parse.ts';
import { escapeRegExp, isStopword, stem, terms } from '../text/text.ts';
import type { BlindInput, BlindReader, BlindReading } from './blind-recovery.ts';
import { recordDate } from './bundles.ts';
import { adjacentSection, sameHeading, sectionPlace } from './document-outline.ts';
import { sectionList, sectionTable } from './section-lists.ts';
import {
  aspectOf,
  CLAUSE_CLASSES,
  clauseDate,
  ClauseIndex,
  distinctObjects,
  isoAsDate,
  type Stated,
  verbKey,
} from './rule-based/clause-index.ts';
import type { Clause } from './rule-based/clauses.ts';
import { before, daysDone, eventDayIn, eventPhrase, readDaysAfter } from './rule-based/families.ts';
import { readDescription } from './rule-based/descriptions.ts';
import { feelingsAbout, parseFeelingQuestion } from './rule-based/feelings.ts';
import { aboutUser } from './rule-based/voice.ts';
import { kindPhrase as documentKind } from './rule-based/document-description.ts';
import { readCompanionPremise } from './rule-based/companions.ts';
import { isTopicWord } from './rule-based/cues.ts';
import { mailboxOwner, roleRange, whoAt } from './rule-based/speakers.ts';

/** Name and version of the offline blind reader. */
export const OFFLINE_READER = 'localise+extract@8';

// Words of question phrasing that say nothing about which record is meant.
const FRAME = new Set(
  terms(
    'separate times conversations conversation sessions session e-mails emails mails come came mention mentioned talk talked ' +
      'talking passed later days many much name given date written document section brought bring part give shared percentage money',
  ),
);

const UNANSWERABLE: BlindReading = { answerable: false, answer: NOT_MENTIONED, citations: [] };

/** Who said it and roughly when, as a question states it ("… Ana … in March 2024", "… the user … on 3 May 2024"). */
interface Constraints {
  speaker?: string;
  day?: string;
  month?: string;
}

function constraintsOf(part: string, speakers: readonly string[], withSpeaker: boolean): Constraints {
  const c: Constraints = {};
  const day = /\bon (\d{1,2} [A-Z][a-z]+ \d{4})\b/.exec(part);
  const month = /\bin ([A-Z][a-z]+) (\d{4})\b/.exec(part);
  if (day) {
    const d = parseExactDate(day[1]!);
    if (d) c.day = isoDate(d);
  } else if (month && monthNumber(month[1]!)) {
    c.month = `${month[2]}-${String(monthNumber(month[1]!)).padStart(2, '0')}`;
  }
  if (withSpeaker) {
    let at = Number.POSITIVE_INFINITY;
    for (const s of speakers) {
      const m = new RegExp(`(?<![\\p{L}])${escapeRegExp(s)}(?![\\p{L}])`, 'u').exec(part);
      if (m && m.index < at) {
        at = m.index;
        c.speaker = s;
      }
    }
  }
  return c;
}

/** The text of a record a speaker said (their half of a User/Assistant turn), or undefined when they said none of it. */
function saidText(r: SourceRecord, speaker: string | undefined): string | undefined {
  if (!speaker) return `${r.title ?? ''} ${r.text}`;
  if (r.kind === 'turn' && r.text.startsWith('User: ')) {
    if (speaker !== 'the user' && speaker !== 'the assistant') return undefined;
    const [s, e] = roleRange(r, speaker);
    return r.text.slice(s, e);
  }
  return whoAt(r, 0) === speaker ? `${r.title ?? ''} ${r.text}` : undefined;
}

function admits(c: Constraints, r: SourceRecord): boolean {
  const d = recordDate(r);
  if (c.day && d !== c.day) return false;
  if (c.month && !d?.startsWith(c.month)) return false;
  return saidText(r, c.speaker) !== undefined;
}

/** Records ranked by BM25 of the question's terms (IDF within the given records), over what the speaker said. */
function rank(question: string, records: readonly SourceRecord[], speaker?: string): Array<{ r: SourceRecord; score: number }> {
  const q = [...new Set(terms(question))].filter((t) => !FRAME.has(t));
  const docs = records.map((r) => terms(saidText(r, speaker) ?? ''));
  const avg = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  return records
    .map((r, i) => {
      const d = docs[i]!;
      const tf = new Map<string, number>();
      for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
      let score = 0;
      for (const t of q) {
        const f = tf.get(t);
        if (!f) continue;
        const idf = Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
        score += (idf * f * 2.2) / (f + 1.2 * (0.25 + 0.75 * (d.length / Math.max(1, avg))));
      }
      return { r, score };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score);
}

/** The best record for a part of a question, honouring the speaker and time it names. */
function locate(part: string, records: readonly SourceRecord[], speakers: readonly string[], withSpeaker = true): SourceRecord | undefined {
  const c = constraintsOf(part, speakers, withSpeaker);
  return rank(
    part,
    records.filter((r) => admits(c, r)),
    c.speaker,
  )[0]?.r;
}

/** `[date] Speaker: line` per line of each record, the layout the extractive reader parses; maps offsets to records. */
function contextOf(records: readonly SourceRecord[]): { text: string; owner: (offset: number) => string | undefined } {
  let text = '';
  const ranges: Array<[number, number, string]> = [];
  for (const r of records) {
    const start = text.length;
    const date = recordDate(r);
    for (const line of r.text.split('\n')) {
      if (!line.trim()) continue;
      const speaker = r.speaker && r.kind === 'turn' && !/^(User|Assistant):/.test(line) ? `${r.speaker}: ` : '';
      text += `${date ? `[${date}] ` : ''}${speaker}${line}\n`;
    }
    ranges.push([start, text.length, r.id]);
  }
  return { text, owner: (o) => ranges.find(([s, e]) => o >= s && o < e)?.[2] };
}

/** "yoga studio" for "studio": the noun with the content words right before it (no punctuation between). */
function kindPhrase(text: string, noun: string): string | undefined {
  const re = new RegExp(`((?:[\\p{L}][\\p{L}'’-]*\\s+){0,2})(${escapeRegExp(noun)})(?![\\p{L}])`, 'iu');
  const m = re.exec(text);
  if (!m) return undefined;
  const before = m[1]!.trim().split(/\s+/).filter(Boolean);
  const keep: string[] = [];
  for (let k = before.length - 1; k >= 0; k--) {
    const w = before[k]!;
    const lower = w.toLowerCase();
    if (isStopword(lower) || !isTopicWord(lower)) break;
    keep.unshift(/^[A-Z][a-z]/.test(w) && k === 0 && /[.!?]\s*$/.test(text.slice(0, m.index)) ? lower : w);
  }
  if (!keep.length) return undefined;
  return [...keep, m[2]!].join(' ');
}

/** "Which N …": the phrase naming the N in the best record that says N. */
function readWhich(question: string, noun: string, records: readonly SourceRecord[], c: Constraints): BlindReading | undefined {
  const nounStem = stem(noun.toLowerCase());
  const said = records.filter((r) => admits(c, r) && terms(saidText(r, c.speaker) ?? '').includes(nounStem));
  const best = rank(question, said, c.speaker)[0]?.r ?? said[0];
  if (!best) return undefined;
  const phrase = kindPhrase(saidText(best, c.speaker)!, noun);
  return phrase ? { answerable: true, answer: phrase, citations: [best.id] } : undefined;
}

/** Everything but "which N", answered from the given records: localise, then extract. */
function readPlain(q: string, input: BlindInput, records: readonly SourceRecord[], c: Constraints, topK: number): BlindReading {
  const ranked = rank(
    q,
    records.filter((r) => admits(c, r)),
    c.speaker,
  );
  if (!ranked.length) return UNANSWERABLE;
  if (/^who\b/i.test(q) && ranked[0]!.r.speaker) {
    // "Who said / sent …": the speaker of the record that says it.
    const best = ranked[0]!.r;
    return { answerable: true, answer: best.speaker!, citations: [best.id] };
  }
  if (/^when (?:in [A-Z][a-z]+ \d{4} )?(?:did|was)\b/i.test(q)) {
    // "When did X talk about …": the date of the passage that says it.
    const best = ranked[0]!.r;
    const d = recordDate(best);
    if (!d) return UNANSWERABLE;
    return { answerable: true, answer: formatDate(parseExactDate(d)!), citations: [best.id] };
  }
  const top = ranked.slice(0, topK).map((x) => x.r);
  const ctx = contextOf(top.map((r) => (c.speaker && r.text.startsWith('User: ') ? { ...r, text: saidText(r, c.speaker)! } : r)));
  const got = extractiveAnswer(q, ctx.text, { answerType: input.answerType });
  if (got.answer === NOT_MENTIONED) return UNANSWERABLE;
  const needle = got.answer.toLowerCase();
  const citations = top
    .filter((r) => r.text.toLowerCase().includes(needle) || r.speaker?.toLowerCase() === needle)
    .slice(0, 3)
    .map((r) => r.id);
  const owner = got.span ? ctx.owner(got.span[0]) : undefined;
  if (owner && !citations.includes(owner)) citations.unshift(owner);
  if (!citations.length) citations.push(top[0]!.id);
  return { answerable: true, answer: got.answer, citations };
}

const MONTH = '(January|February|March|April|May|June|July|August|September|October|November|December)';

/** "between April and June 2024" / "between December 2022 and March 2023" / "in May 2023" as an ISO date range. */
function monthWindow(q: string): { from: string; to: string; start: number; end: number } | undefined {
  const iso = (m: string, y: string): string => `${y}-${String(monthNumber(m)).padStart(2, '0')}`;
  const between = new RegExp(`\\bbetween ${MONTH}(?: (\\d{4}))? and ${MONTH} (\\d{4})\\b`).exec(q);
  if (between) {
    const from = iso(between[1]!, between[2] ?? between[4]!);
    const to = iso(between[3]!, between[4]!);
    return { from: `${from}-01`, to: `${to}-31`, start: between.index, end: between.index + between[0].length };
  }
  const inMonth = new RegExp(`\\bin ${MONTH} (\\d{4})\\b`).exec(q);
  if (inMonth) {
    const m = iso(inMonth[1]!, inMonth[2]!);
    return { from: `${m}-01`, to: `${m}-31`, start: inMonth.index, end: inMonth.index + inMonth[0].length };
  }
  return undefined;
}

/** Records of one kind dated inside `window` whose words (title and text) include every word of `topic`. */
function topicHits(
  records: readonly SourceRecord[],
  topic: readonly string[],
  window: { from: string; to: string },
  kind: 'turn' | 'email',
): SourceRecord[] {
  if (!topic.length) return [];
  return records.filter((r) => {
    const d = recordDate(r);
    if (!d || d < window.from || d > window.to || r.kind !== kind) return false;
    const set = new Set(terms(`${r.title ?? ''} ${r.text}`));
    return topic.every((t) => set.has(t));
  });
}

/** The records a linked question's second hop reads: the next turns of the first record's thread, or the documents it shares. */
function reachOf(a: SourceRecord, records: readonly SourceRecord[], attachment: boolean): SourceRecord[] {
  if (!attachment) {
    const mates = records.filter((r) => r.thread !== undefined && r.thread === a.thread);
    const at = mates.indexOf(a);
    return mates.slice(at + 1, at + 13);
  }
  const refs = new Set(a.refs ?? []);
  const uploads = [...a.text.matchAll(/\[Upload ([^\]\n]+)\]/g)].map((m) =>
    m[1]!
      .trim()
      .toLowerCase()
      .replace(/\.(md|html?|txt|pdf|docx?)$/, ''),
  );
  return records.filter(
    (r) =>
      r.kind === 'document' &&
      (refs.has(r.id) ||
        (r.thread !== undefined && refs.has(r.thread)) ||
        uploads.some((u) => u.length >= 3 && `${r.id}\u0000${r.thread ?? ''}\u0000${r.title ?? ''}`.toLowerCase().includes(u))),
  );
}

/** A speaker's stretch of a record: either half of a "User: … / Assistant: …" turn, else the whole record. */
interface Said {
  r: SourceRecord;
  who: string | undefined;
  start: number;
  end: number;
}

function utterancesIn(r: SourceRecord): Said[] {
  if (r.kind === 'turn' && r.text.startsWith('User: ') && r.text.includes('\nAssistant: ')) {
    return (['the user', 'the assistant'] as const).map((who) => {
      const [start, end] = roleRange(r, who);
      return { r, who, start, end };
    });
  }
  return [{ r, who: whoAt(r, 0), start: 0, end: r.text.length }];
}

const NOT_NAME = new Set([
  'i',
  'user',
  'assistant',
  'upload',
  'ok',
  'okay',
  'yes',
  'no',
  'oh',
  'wow',
  'hey',
  'hi',
  'thanks',
  'the',
  'a',
  'an',
  'my',
  'and',
  'but',
  'so',
]);
const WEEKDAYS_MONTHS = new RegExp(
  [
    '^(?:mon|tues|wednes|thurs|fri|satur|sun)day$',
    '|^(?:january|february|march|april|may|june|july|august|september|october|november|december)$',
  ].join(''),
  'i',
);

/** Distinct capitalised runs of a text that do not open a sentence and are no speaker's name ("Blue Harbour", "Lisbon"). */
function properNames(text: string, speakers: readonly string[]): string[] {
  const people = new Set(speakers.flatMap((s) => [s.toLowerCase(), ...s.toLowerCase().split(/\s+/)]));
  const out = new Map<string, string>();
  for (const m of text.matchAll(/[A-Z][\p{L}'’]*(?:[\s-]+(?:of\s+|de\s+|the\s+)?[A-Z][\p{L}'’]*)*/gu)) {
    const before = text.slice(Math.max(0, m.index - 3), m.index);
    let words = m[0].replace(/['’]s$/, '').split(/\s+/);
    if (m.index === 0 || /[.!?:"“\n[]\s*$/.test(before)) words = words.slice(1);
    while (words.length && (NOT_NAME.has(words[0]!.toLowerCase()) || /['’]/.test(words[0]!))) words.shift();
    while (words.length && NOT_NAME.has(words[words.length - 1]!.toLowerCase())) words.pop();
    const value = words.join(' ');
    if (value.length < 3 || words.every((w) => WEEKDAYS_MONTHS.test(w) || people.has(w.toLowerCase()))) continue;
    out.set(value.toLowerCase(), value);
  }
  return [...out.values()];
}

/**
 * "When A asked about X, which N did B mention?" / "Right before A talked about X, …": finds A's turn about X,
 * steps to the neighbouring utterance of the thread (the next one, or the one before for "right before"), which
 * must be B's, and reads the answer from it alone.
 */
function readCued(m: RegExpExecArray, input: BlindInput, speakers: readonly string[], topK: number): BlindReading {
  const before = m[1] === 'Right before';
  const cueWho = m[2]!;
  const a = locate(
    `${cueWho} talked about ${m[3]}`,
    input.records.filter((r) => r.kind === 'turn'),
    speakers,
  );
  if (!a) return UNANSWERABLE;
  const rest = m[4]!.replace(/^./, (ch) => ch.toUpperCase());
  const c = constraintsOf(rest, speakers, true);
  if (!c.speaker) return UNANSWERABLE;
  const thread = input.records.filter((r) => r === a || (r.thread !== undefined && r.thread === a.thread)).flatMap(utterancesIn);
  const at = thread.findIndex((u) => u.r === a && u.who === cueWho);
  const b = thread[at + (before ? -1 : 1)];
  if (at < 0 || !b || b.who !== c.speaker) return UNANSWERABLE;
  const which = /^Which ([\p{L}'’-]+) did\b/u.exec(rest);
  if (which) return readWhich(rest, which[1]!, [b.r], c) ?? UNANSWERABLE;
  const said: SourceRecord = { ...b.r, text: b.r.text.slice(b.start, b.end) };
  if (/^What name\b/.test(rest)) {
    // The reply names one thing: the proper name in it that is not a speaker's.
    const names = properNames(said.text, speakers);
    if (names.length === 1) return { answerable: true, answer: names[0]!, citations: [b.r.id] };
  }
  const got = extractiveAnswer(rest, contextOf([said]).text, { answerType: input.answerType });
  if (got.answer === NOT_MENTIONED) return readPlain(rest, input, [b.r], c, topK);
  return { answerable: true, answer: got.answer, citations: [b.r.id] };
}

/** Leads that ask for a kind of answer, not for a noun ("What name …", "What date …"). */
const ANSWER_KIND = /^(?:name|date|percentage)$/;

/** "What class did Ben mention" → "which class did Ben mention"; "What name did …" stays as it is. */
function whichLead(lead: string): string {
  const m = /^What ([\p{L}'’-]+)$/u.exec(lead);
  return m && !ANSWER_KIND.test(m[1]!) ? `which ${m[1]}` : lead.toLowerCase();
}

/**
 * The generator asks for the thing first and closes with the cue ("What class did Ben mention in reply when Ana
 * talked about …?"); the readers below parse the cue-first form ("When Ana talked about …, which class did Ben
 * mention in reply?"). Same question, same words: this only moves the cue to the front.
 */
export function canonicalForm(q: string): string {
  // The user's own wording: "On which day did I …" asks when; "After I asked about …, … in reply" is the reply cue
  // (the linked form says "talked about" and has no "in reply").
  if (/^On which day (?:in [A-Z][a-z]+ \d{4} )?(?:did|was) /.test(q)) return q.replace(/^On which day/, 'When');
  const replyAfter = /^After (.+?) (asked|talked) about (.+), ((?:which|what|how many|how much) .+ did .+? mention( in reply)?)\?$/.exec(q);
  if (replyAfter && (replyAfter[2] === 'asked' || replyAfter[5]))
    return `When ${replyAfter[1]} ${replyAfter[2]} about ${replyAfter[3]}, ${replyAfter[4]}?`;
  const lead = "(What(?: [\\p{L}'’-]+)?|How many [\\p{L}'’-]+|How much [\\p{L}'’-]+)";
  const reply = new RegExp(`^${lead} did (.+?) mention( in reply)? when (.+?) (asked|talked) about (.+)\\?$`, 'u').exec(q);
  if (reply) return `When ${reply[4]} ${reply[5]} about ${reply[6]}, ${whichLead(reply[1]!)} did ${reply[2]} mention${reply[3] ?? ''}?`;
  const before = new RegExp(`^${lead} did (.+?) mention right before (.+?) talked about (.+)\\?$`, 'u').exec(q);
  if (before) return `Right before ${before[3]} talked about ${before[4]}, ${whichLead(before[1]!)} did ${before[2]} mention?`;
  const after = new RegExp(`^${lead} did (.+?) mention( about .+?)? after (.+?) talked about (.+)\\?$`, 'u').exec(q);
  if (after) return `After ${after[4]} talked about ${after[5]}, ${whichLead(after[1]!)} did ${after[2]} mention${after[3] ?? ''}?`;
  const which = /^What ([\p{L}'’-]+) (did|does|is|was) (.+)$/u.exec(q);
  if (which && !ANSWER_KIND.test(which[1]!) && which[1] !== 'did' && which[1] !== 'does')
    return `Which ${which[1]} ${which[2]} ${which[3]}`;
  return q;
}

/**
 * Questions about what a speaker said they did or like: "What did Ana bake?" (the object; every
 * distinct one for a list answer), "When did Melanie paint the sunrise?" (the date the sentence gives, resolved
 * against its session's), "Did Melanie join the mentorship program?" (yes when she says so; no when only someone
 * else does). Read from the first-person clauses of the given records. Undefined when the question is not of these
 * forms or no clause matches it, so the other readers get their turn.
 */
function readFamily(input: BlindInput, speakers: readonly string[]): BlindReading | undefined {
  for (const who of speakers) {
    const cls = CLAUSE_CLASSES.find((k) => k.ask(who) === input.question);
    if (!cls) continue;
    const found = distinctObjects(new ClauseIndex(input.records).inClass(who, cls));
    if (!found.length) return undefined;
    return {
      answerable: true,
      answer: found.map((s) => s.c.object).join(', '),
      citations: [...new Set(found.map((s) => input.records[s.i]!.id))],
    };
  }
  const kind = /^Which (\S+) (did|does) (.+)\?$/.exec(input.question);
  // "Who did I meet?" is read as "What did I meet?": the generator asks "who" only when the object is a person.
  const asked = input.question.replace(/^Who (did|does) /, 'What $1 ');
  const m = kind
    ? (['', `What ${kind[2]}`, kind[3]!] as unknown as RegExpExecArray)
    : /^(What did|What does|What is|What was|When did|Did) (.+)\?$/.exec(asked);
  if (!m) return undefined;
  const who = speakers.find((s) => m[2]!.startsWith(`${s} `) || m[2]!.startsWith(`${s}'s `));
  if (!who) return undefined;
  const rest = m[2]!.slice(who.length).trimStart();
  const index = new ClauseIndex(input.records);
  const mine = index.all.filter((s) => s.c.who === who);
  const byPhrase = (text: string, form: 'base' | 'ing'): Stated[] =>
    mine.filter((s) => eventPhrase(s.c)?.[form].toLowerCase() === text.toLowerCase());
  const order = m[1] === 'Did' ? /^(.+) before (.+)$/.exec(rest) : null;
  if (order) {
    // "Did Caroline join the program before visiting the center?": compare the two events' dates.
    const [a, b] = [byPhrase(order[1]!, 'base'), byPhrase(order[2]!, 'ing')];
    if (a.length === 1 && b.length === 1) {
      const [da, db] = [eventDayIn(input.records, a[0]!), eventDayIn(input.records, b[0]!)];
      if (!da || !db || (!before(da, db) && !before(db, da))) return undefined;
      return {
        answerable: true,
        answer: before(da, db) ? 'Yes' : 'No',
        citations: [input.records[a[0]!.i]!.id, input.records[b[0]!.i]!.id],
      };
    }
  }
  const month = m[1] === 'What did' ? /^do in ([A-Z][a-z]+) (\d{4})$/.exec(rest) : null;
  if (month && monthNumber(month[1]!)) {
    // "What did Melanie do in July 2023?": every event of hers dated that month.
    const iso = `${month[2]}-${String(monthNumber(month[1]!)).padStart(2, '0')}`;
    const seen = new Map<string, Stated>();
    for (const s of mine) {
      const p = eventPhrase(s.c);
      const day = eventDayIn(input.records, s);
      if (p && day && day.length >= 7 && day.startsWith(iso) && !seen.has(p.base.toLowerCase())) seen.set(p.base.toLowerCase(), s);
    }
    if (!seen.size) return undefined;
    const found = [...seen.values()];
    return {
      answerable: true,
      answer: found.map((s) => eventPhrase(s.c)!.base).join(', '),
      citations: [...new Set(found.map((s) => input.records[s.i]!.id))],
    };
  }
  const after = m[1] === 'What did' ? /^(.+?) after (.+)$/.exec(rest) : null;
  if (after) {
    // "What did Melanie paint after running the charity race?": the anchor's date, then the one later event.
    const anchor = byPhrase(after[2]!, 'ing');
    const day = anchor.length === 1 ? eventDayIn(input.records, anchor[0]!) : undefined;
    if (day) {
      const later = index.said(who, after[1]!).filter((s) => before(day, eventDayIn(input.records, s) ?? ''));
      if (later.length !== 1) return undefined;
      return {
        answerable: true,
        answer: later[0]!.c.object,
        citations: [input.records[anchor[0]!.i]!.id, input.records[later[0]!.i]!.id],
      };
    }
  }
  const lower = rest.toLowerCase();
  // "paint the lake sunrise": the verb (with its preposition) first, the clause's object last.
  const named = (c: Clause): boolean => lower.startsWith(`${verbKey(c)} `) && lower.endsWith(` ${c.object.toLowerCase()}`);
  if (m[1]!.startsWith('What')) {
    const attribute = rest.startsWith("'s ");
    if (attribute !== (m[1] === 'What was' || (m[1] === 'What is' && attribute))) return undefined;
    let found: Stated[];
    if (attribute) found = index.said(who, rest, m[1] === 'What was' ? 'done' : 'present');
    else if (m[1] === 'What is') {
      found = index.all.filter(
        (s) => s.c.who === who && s.c.tense === 'progressive' && `${s.c.verb.text.toLowerCase()}${s.c.prep ? ` ${s.c.prep}` : ''}` === rest,
      );
    } else found = index.said(who, rest, m[1] === 'What does' ? 'present' : 'done');
    // "Which program did I join?": the thing must be of that kind.
    found = distinctObjects(found).filter((s) => !kind || s.c.object.split(' ').pop()!.toLowerCase() === kind[1]!.toLowerCase());
    if (!found.length || (input.answerType !== 'list' && found.length > 1)) return undefined;
    const citations = [...new Set(found.map((s) => input.records[s.i]!.id))];
    return { answerable: true, answer: found.map((s) => s.c.object).join(', '), citations };
  }
  const ordinal = m[1] === 'When did' ? /^(first|last) (.+)$/.exec(rest) : null;
  if (ordinal) {
    // "When did Ana first paint the lake?": every day she did that (verb and object head), the earliest or latest.
    const phrase = ordinal[2]!.toLowerCase();
    const doneByWho = (s: Stated): boolean => s.c.who === who && aspectOf(s.c) === 'done' && !s.c.attribute;
    const asked = index.all.filter(
      (s) => doneByWho(s) && phrase.startsWith(`${verbKey(s.c)} `) && phrase.endsWith(` ${s.c.object.toLowerCase()}`),
    );
    if (new Set(asked.map((s) => `${verbKey(s.c)}\u0000${s.c.head}`)).size !== 1) return undefined;
    const days = daysDone(input.records, index, who, verbKey(asked[0]!.c), asked[0]!.c.head);
    const target = ordinal[1] === 'first' ? days[0] : days[days.length - 1];
    if (!target || days.filter((d) => d.day === target.day).length !== 1) return undefined;
    return { answerable: true, answer: isoAsDate(target.day), citations: [input.records[target.s.i]!.id] };
  }
  if (m[1] === 'When did') {
    const hits = index.all.filter((s) => s.c.who === who && aspectOf(s.c) === 'done' && !s.c.attribute && named(s.c));
    if (hits.length !== 1) return undefined;
    const r = input.records[hits[0]!.i]!;
    const date = clauseDate(r, hits[0]!.c);
    return date ? { answerable: true, answer: date, citations: [r.id] } : undefined;
  }
  const hits = index.all.filter((s) => aspectOf(s.c) === 'done' && !s.c.attribute && named(s.c));
  const own = hits.find((s) => s.c.who === who);
  if (own) return { answerable: true, answer: 'Yes', citations: [input.records[own.i]!.id] };
  if (!hits.length) return undefined;
  return { answerable: true, answer: 'No', citations: [...new Set(hits.map((s) => input.records[s.i]!.id))] };
}

/**
 * "How did Ana feel after the storm?": the one feeling the records say Ana had about it (feelings.ts),
 * or undefined when the question is not of this form or they say none or several.
 */
function readFeeling(question: string, records: readonly SourceRecord[], speakers: readonly string[]): BlindReading | undefined {
  const asked = parseFeelingQuestion(question, speakers);
  const said = asked && feelingsAbout(records, asked);
  if (said?.feelings.length !== 1) return undefined;
  return { answerable: true, answer: said.feelings[0]!, citations: said.records.map((i) => records[i]!.id) };
}

/** The sections headed `heading` among `records`. */
function named(records: readonly SourceRecord[], heading: string): SourceRecord[] {
  return records.filter((r) => sectionPlace(r) && sameHeading(r.title!, heading));
}

/** "How many ingredients are listed in the table under “S”?", "how many points are listed under “S”?" (section-count.ts). */
const COUNT_UNDER = /^how many .+? are listed (?:in the table )?under “(.+)”\?$/i;

/** The entries of the one list or table in the one section of `sections`, counted (section-lists.ts). */
function countUnder(sections: readonly SourceRecord[]): BlindReading {
  if (sections.length !== 1) return UNANSWERABLE;
  const list = sectionList(sections[0]!.text, sections[0]!.title);
  return list ? { answerable: true, answer: String(list.count), citations: [sections[0]!.id] } : UNANSWERABLE;
}

/** "What is listed as “C” for “R” in the ingredients table / in the table?" (section-cell.ts). */
const CELL_OF = /^what is listed as “(.+?)” for “(.+?)” in the (?:(.+) )?table\?$/i;

/** The cell of column `header`, row `row` in the one table of `sections` that has both (section-lists.ts). */
function cellOf(sections: readonly SourceRecord[], header: string, row: string): BlindReading {
  const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
  const hits = sections.flatMap((s) => {
    const table = sectionTable(s.text, s.title);
    const column = table ? table.header.findIndex((h, k) => k > 0 && same(h, header)) : -1;
    const rows = column > 0 ? table!.rows.filter((r) => same(r.cells[0] ?? '', row)) : [];
    return rows.length === 1 ? [{ s, value: rows[0]!.cells[column]! }] : [];
  });
  if (hits.length !== 1 || !hits[0]!.value) return UNANSWERABLE;
  return { answerable: true, answer: hits[0]!.value, citations: [hits[0]!.s.id] };
}

/**
 * "Which section comes right after “S”?", "How many … are listed under “S”?", "What is listed as “C” for “R” in the
 * … table?" read from the document sections of `pool` (the outline from `records`); undefined for any other question.
 */
function readStructure(rest: string, pool: readonly SourceRecord[], records: readonly SourceRecord[]): BlindReading | undefined {
  const order = /^Which section comes right (after|before) “(.+)”\?$/.exec(rest);
  if (order) return sectionBeside(named(pool, order[2]!), records, order[1] as 'after' | 'before');
  const count = COUNT_UNDER.exec(rest);
  if (count) return countUnder(named(pool, count[1]!));
  const cell = CELL_OF.exec(rest);
  if (!cell) return undefined;
  const tables = pool.filter((r) => sectionPlace(r) && (!cell[3] || sectionTable(r.text, r.title)?.noun === cell[3]));
  return cellOf(tables, cell[1]!, cell[2]!);
}

/** "In my meal preparation note from February 2024, <a question about its sections>" (document-description.ts). */
const MY_DOCUMENT = /^In my (.+?) from ([A-Z][a-z]+ \d{4}), (.+)$/;

/**
 * Reads a question about the user's own document named by its kind and month: among the documents of that month in
 * the records (those whose title the records hold must have that kind), the one where the rest of the question reads
 * to an answer. Unanswerable when none does, or more than one.
 */
function readMyDocument(m: RegExpExecArray, records: readonly SourceRecord[]): BlindReading {
  const [, kind, month, rest] = m as unknown as [string, string, string, string];
  const [name, year] = month.split(' ') as [string, string];
  const monthNo = monthNumber(name);
  if (!monthNo) return UNANSWERABLE;
  const prefix = `${year}-${String(monthNo).padStart(2, '0')}`;
  const documents = new Map<string, SourceRecord[]>();
  for (const r of records) {
    if (r.kind !== 'document' || r.thread === undefined || !recordDate(r)?.startsWith(prefix)) continue;
    documents.set(r.thread, [...(documents.get(r.thread) ?? []), r]);
  }
  const asked = rest.replace(/^./, (ch) => ch.toUpperCase());
  const readings = [...documents.values()].flatMap((sections) => {
    // The title is the first section's heading, or what a top-level section's parent id names after the file.
    const first = sections.find((r) => sectionPlace(r)?.section === 1);
    const top = sections.find((r) => sectionPlace(r)?.level === 2)?.meta?.parent;
    const title = first?.title ?? (typeof top === 'string' ? top.slice(`${sections[0]!.thread}:`.length) : undefined);
    if (title !== undefined && documentKind(title) !== kind) return [];
    const reading = readStructure(asked, sections, records);
    if (!reading?.answerable) return [];
    // The title section, when read to tell the document's kind, is part of what the answer rests on.
    return [first && !reading.citations.includes(first.id) ? { ...reading, citations: [first.id, ...reading.citations] } : reading];
  });
  return readings.length === 1 ? readings[0]! : UNANSWERABLE;
}

/** The section right `direction` of the one section in `named`, read from the outline `records` carry. */
function sectionBeside(named: readonly SourceRecord[], records: readonly SourceRecord[], direction: 'after' | 'before'): BlindReading {
  if (named.length !== 1) return UNANSWERABLE;
  const other = adjacentSection(named[0]!, records, direction);
  if (!other?.title) return UNANSWERABLE;
  return { answerable: true, answer: other.title, citations: [named[0]!.id, other.id] };
}

/**
 * The offline blind reader. It is not a model: it reads the question's constraints (a named speaker, "in
 * <month>", "on <date>"), localises the question in the bundle with BM25 over what that speaker said there, then
 * answers by the question's form — "how many days passed between A and B" subtracts the dates of the records
 * found for A and for B; "in how many … between <date> and <date>" counts the conversations (or e-mails) in that
 * window whose records contain the question's topic words, and "which came up in more conversations …, A or B"
 * compares two such counts; "after A, …" / "in the document … shared while
 * talking about A, …" finds A first and reads the rest from the turns after it or the documents it shared; "in my
 * <kind of document> from <month>, …" reads it from the one document of that month whose title has that kind;
 * "when A asked about X, …" / "right before A talked about X, …" finds A's turn and reads the utterance right
 * after (before) it in the thread;
 * "which section comes right after S" reads the document outline the records carry, and "how many … are listed
 * under S" counts the one list or table of that section, and "what is listed as “C” for “R” in the … table" reads
 * that table's cell;
 * "can you remind me whether I <did something> with P on <day>" reads what the user said they did that day and with
 * whom (companions.ts): yes when it names P, no when someone else;
 * "which N" returns the phrase naming the N; "who" the speaker; "when" the passage's date; anything else goes to
 * the extractive reader over the best records. It cites the records its answer came from.
 */
export function createOfflineBlindReader(options: { topK?: number } = {}): BlindReader {
  const topK = options.topK ?? 6;
  return {
    name: OFFLINE_READER,
    async read(asked: BlindInput): Promise<BlindReading> {
      const input = { ...asked, question: canonicalForm(aboutUser(asked.question)) };
      const q = input.question;
      const speakers = [...new Set(input.records.map((r) => whoAt(r, 0)).filter((s): s is string => !!s)), 'the user', 'the assistant'];
      const days = /^how many days passed between (.+?) and ((?:when|the e-mail about) .+)\?$/i.exec(q);
      if (days) {
        const a = locate(days[1]!, input.records, speakers);
        const b = locate(days[2]!, input.records, speakers);
        const da = a && recordDate(a);
        const db = b && recordDate(b);
        if (!a || !b || !da || !db || a === b) return UNANSWERABLE;
        return { answerable: true, answer: `${Math.abs(daysBetween(da, db))} days`, citations: [a.id, b.id] };
      }
      const window = monthWindow(q);
      const compared = /^Which came up in more conversations .+?, (.+) or (.+)\?$/.exec(q);
      if (compared && window) {
        const sides = [compared[1]!, compared[2]!].map((option) => {
          const hits = topicHits(input.records, terms(option), window, 'turn');
          return { option, hits, n: new Set(hits.map((r) => r.thread ?? r.id)).size };
        });
        const [a, b] = sides as [(typeof sides)[0], (typeof sides)[0]];
        if (a.n === b.n) return UNANSWERABLE;
        const more = a.n > b.n ? a : b;
        return { answerable: true, answer: more.option, citations: [...new Set([...a.hits, ...b.hits].map((r) => r.id))] };
      }
      if (/^(?:in how many|how many times)\b/i.test(q) && window) {
        const topic = terms(q.slice(0, window.start) + q.slice(window.end)).filter((t) => !FRAME.has(t));
        const emails = /\be-?mails\b/i.test(q);
        const hits = topicHits(input.records, topic, window, emails ? 'email' : 'turn');
        const times = /^how many times\b/i.test(q);
        const groups = new Set(hits.map((r) => (emails || times ? r.id : (r.thread ?? r.id))));
        if (!groups.size) return UNANSWERABLE;
        return { answerable: true, answer: String(groups.size), citations: hits.map((r) => r.id) };
      }
      const daysAfter = readDaysAfter(q, input.records, speakers);
      if (daysAfter) return { answerable: true, answer: daysAfter.answer, citations: daysAfter.records.map((i) => input.records[i]!.id) };
      const described = readDescription(q, input.records, speakers);
      if (described) return { answerable: true, answer: described.answer, citations: [input.records[described.record]!.id] };
      const feeling = readFeeling(q, input.records, speakers);
      if (feeling) return feeling;
      const family = readFamily(input, speakers);
      if (family) return family;
      if (/^Can you remind me (?:whether|what the user and) /.test(q)) return readCompanionPremise(q, input.records) ?? UNANSWERABLE;
      const cued = /^(When|Right before) (.+?) (?:asked|talked) about (.+?), ((?:which|what|how many|how much) .+)$/.exec(q);
      if (cued) return readCued(cued, input, speakers, topK);
      const mine = MY_DOCUMENT.exec(q);
      if (mine) return readMyDocument(mine, input.records);
      const linked = /^(?:After (.+?)|In the document (.+?) shared while talking about (.+?)), (.+)$/.exec(q);
      if (linked) {
        const attachment = linked[1] === undefined;
        const first = attachment ? `${linked[2]} talked about ${linked[3]}` : linked[1]!;
        const a = locate(
          first,
          input.records.filter((r) => r.kind === 'turn'),
          speakers,
        );
        if (!a) return UNANSWERABLE;
        const rest = linked[4]!.replace(/^./, (ch) => ch.toUpperCase());
        const reach = reachOf(a, input.records, attachment);
        // "In the document I shared while talking about A, which section comes right after “S”?" (section-order.ts).
        const structure = attachment ? readStructure(rest, reach, input.records) : undefined;
        if (structure) return structure.answerable ? { ...structure, citations: [a.id, ...structure.citations] } : UNANSWERABLE;
        const c = constraintsOf(rest, speakers, !attachment);
        const which = /^Which ([\p{L}'’-]+) /u.exec(rest);
        const got = which ? readWhich(rest, which[1]!, reach, c) : readPlain(rest, input, reach, c, topK);
        if (!got?.answerable) return UNANSWERABLE;
        return { ...got, citations: [a.id, ...got.citations.filter((id) => id !== a.id)] };
      }
      const bySpeaker = !/^who\b/i.test(q);
      const c = constraintsOf(q, speakers, bySpeaker);
      const which = /^Which ([\p{L}'’-]+) (?:did|does|is|was)\b/u.exec(q);
      if (which) {
        if (!/\bin an e-mail\b/.test(q)) {
          return (
            readWhich(
              q,
              which[1]!,
              input.records.filter((r) => r.kind !== 'email'),
              c,
            ) ?? UNANSWERABLE
          );
        }
        // "did I mention in an e-mail": the user's e-mails are the ones its owner sent, under any form of their name.
        const owner = c.speaker === 'the user' ? mailboxOwner(input.records) : undefined;
        const emails = input.records.filter((r) => r.kind === 'email' && (!owner || owner.has(r.speaker ?? '')));
        return readWhich(q, which[1]!, emails, owner ? { ...c, speaker: undefined } : c) ?? UNANSWERABLE;
      }
      const pool = /\be-mail\b/.test(q)
        ? input.records.filter((r) => r.kind === 'email')
        : /^(what|how)\b.*\bdoes the document\b/i.test(q)
          ? input.records.filter((r) => r.kind === 'document')
          : input.records;
      return readPlain(q, input, pool, c, topK);
    },
  };
}
