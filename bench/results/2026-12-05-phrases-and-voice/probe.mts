// Counts, over a generated RHELM set, what rule-based@26 changed: situation phrases cut short of the phrase their record
// says, cue questions named by a month or weekday, and questions speaking of "the user" / "the assistant".
// Usage: npx tsx probe.mts <set.jsonl> <rhelm folder>   (prints one JSON line)
import { readFileSync } from 'node:fs';
import { loadHistories } from '../../../src/history/load.ts';
import { MONTH_NAMES, WEEKDAY_NAMES } from '../../../src/text/date-parse.ts';

const items = readFileSync(process.argv[2]!, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { history: string; question: string; checks?: Record<string, unknown> });
const text = new Map<string, string>();
for (const h of await loadHistories(`rhelm:${process.argv[3]}`)) for (const r of h.records) text.set(`${h.id}\u0000${r.id}`, r.text);
// Words that may follow a whole phrase: function words, adverbs of time, punctuation (anything else continues it).
const ENDS = new Set(
  (
    'and with to for at in on of from that the a an by as before after while when but so then into this which or we i it ' +
    'because until over around up out again back off together just too earlier yesterday today tonight last down through ' +
    'since first once here there during about near under across along is was were had has did instead than without'
  ).split(' '),
);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
let situated = 0;
let cut = 0;
const seen = new Set<string>();
for (const it of items) {
  const phrase = it.checks?.situation;
  const record = it.checks?.situationRecord;
  if (typeof phrase !== 'string' || typeof record !== 'string' || seen.has(`${it.history}:${record}:${phrase}`)) continue;
  seen.add(`${it.history}:${record}:${phrase}`);
  situated++;
  // The phrase's last two words where the record says them, and the word right after.
  const tail = phrase.split(' ').slice(-2).join(' ');
  const m = new RegExp(`\\b${escape(tail)}\\b\\s+([\\p{L}’'-]+)`, 'u').exec(text.get(`${it.history}\u0000${record}`) ?? '');
  if (m && /^\p{Ll}/u.test(m[1]!) && !ENDS.has(m[1]!.toLowerCase())) cut++;
}
const dateName = new RegExp(`(?:talked|asked) about (?:the )?(?:${[...MONTH_NAMES, ...WEEKDAY_NAMES].join('|')})s?\\b`);
const cues = items.filter((i) => /^(?:After|Right before) (?:I|you|the user|the assistant) (?:talked|asked) about /.test(i.question));
console.log(
  JSON.stringify({
    items: items.length,
    situationPhrases: situated,
    cutShort: cut,
    cueQuestions: cues.length,
    cueNamedByDate: cues.filter((i) => dateName.test(i.question)).length,
    thirdPerson: items.filter((i) => /\bthe (?:user|assistant)\b/i.test(i.question)).length,
  }),
);
