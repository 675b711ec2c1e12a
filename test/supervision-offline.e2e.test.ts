import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.ts';
import { captureIO } from '../src/cli/io.ts';
import { loadHistoriesSync } from '../src/history/load.ts';
import { QAItemSchema, type History, type QAItem } from '../src/history/record.ts';
import { readJsonl } from '../src/util/jsonl.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { GenerationSummarySchema } from '../src/supervision/summary.ts';
import { verifySpan } from '../src/supervision/spans.ts';
import { RULE_BASED_GENERATOR } from '../src/supervision/rule-based/generator.ts';
import { userVoiceOf } from '../src/supervision/record-graph.ts';
import { ASKING_STEP, askedDayOf } from '../src/supervision/rule-based/asked-dates.ts';
import { findDates, MONTH_NAMES, WEEKDAY_NAMES } from '../src/text/date-parse.ts';
import { resolveDates } from '../src/text/resolve-dates.ts';

const DATA = join(import.meta.dirname, '..', '..', 'shared', 'data');
const LOCOMO = join(DATA, 'locomo', 'locomo10.json');
const RHELM = join(DATA, 'rhelm');
const tmp = mkdtempSync(join(tmpdir(), 'memsteer-gen-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
// These limits catch a hang, not slowness: a history takes 3-10 s here, but on the shared CI machine the first one
// (which also loads the wink model and WordNet) once stalled past 120 s with nothing wrong in the code.
const HANG_LIMIT_MS = 600_000;
const DATE_NAMES = [...MONTH_NAMES, ...WEEKDAY_NAMES].join('|');

function expectSound(history: History, items: QAItem[], min: number): void {
  const byId = new Map(history.records.map((r) => [r.id, r]));
  expect(items.length).toBeGreaterThanOrEqual(min);
  const splits = new Set(items.map((i) => i.split));
  expect(splits).toEqual(new Set(['train', 'val']));
  for (const item of items) {
    expect(QAItemSchema.safeParse(item).success).toBe(true);
    expect(item.generator).toBe(RULE_BASED_GENERATOR);
    expect(item.evidence.length).toBeGreaterThan(0);
    // A cue is named by what was said, never by a month or weekday ("After I talked about June on June 12, …").
    expect(item.question, item.id).not.toMatch(new RegExp(`(?:talked|asked) about (?:the )?(?:${DATE_NAMES})s?\\b`));
    for (const e of item.evidence) {
      const r = byId.get(e.record);
      expect(r, `${item.id}: evidence ${e.record} is a record`).toBeDefined();
      expect(verifySpan(r!.text, e.span!, e.quote), `${item.id}: span of ${e.record}`).toBe(true);
      expect(r!.text.slice(e.span![0], e.span![1])).toBe(e.quote);
    }
  }
  // Split by bundle: no bundle on both sides.
  const side = new Map<string, string>();
  for (const item of items) {
    const b = String(item.meta!.bundle);
    expect(side.get(b) ?? item.split).toBe(item.split);
    side.set(b, item.split!);
  }
  expect(new Set(items.map((i) => i.question.toLowerCase())).size).toBe(items.length);
  // Chats between people are asked the day after the last record; a user's history with an assistant item by item,
  // on a 30-day grid from the first dated day, 1 to 345 days after the item's latest dated evidence or the record its
  // situation names, if later (any grid day when its evidence is undated). A question that lost a year names, read on
  // its day, the dates its explicit form (what the blind reader read) names.
  const end = askedDayOf(history.records);
  expect(end).toBeDefined();
  const dayOf = new Map(history.records.map((r) => [r.id, r.time?.slice(0, 10)]));
  const first = [...dayOf.values()].filter((d): d is string => d !== undefined).sort()[0]!;
  const daysFrom = (a: string, b: string) => (Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000;
  for (const item of items) {
    if (!userVoiceOf(history)) {
      expect(item.date).toBe(end);
      continue;
    }
    expect(daysFrom(first, item.date!) % ASKING_STEP, item.id).toBe(0);
    const told = item.checks?.situationRecord;
    const latest = [...item.evidence.map((e) => e.record), ...(typeof told === 'string' ? [told] : [])]
      .map((id) => dayOf.get(id))
      .filter((d): d is string => d !== undefined)
      .sort()
      .at(-1);
    if (latest === undefined) continue;
    expect(daysFrom(latest, item.date!), item.id).toBeGreaterThanOrEqual(1);
    expect(daysFrom(latest, item.date!), item.id).toBeLessThanOrEqual(345);
  }
  if (userVoiceOf(history)) expect(new Set(items.map((i) => i.date)).size).toBeGreaterThan(5);
  const explicit = items.filter((i) => typeof i.checks?.explicitQuestion === 'string');
  for (const item of explicit) {
    const said = String(item.checks!.explicitQuestion);
    const read = (q: string) => resolveDates(q, item.date).map((d) => d.date);
    expect(read(item.question), item.id).toEqual(read(said));
    expect(findDates(item.question).length, item.id).toBeLessThan(findDates(said).length);
  }
}

describe.skipIf(!existsSync(LOCOMO))('offline generation on every LoCoMo conversation', () => {
  const histories = existsSync(LOCOMO) ? loadHistoriesSync(`locomo:${LOCOMO}`) : [];
  it.each(histories.map((h) => [h.id, h] as const))(
    // A short conversation runs out of varied questions before 300, and the template groups' caps hold from the
    // first item, so its set stops short rather than filling up with "When did X talk about Y?"; the groups are then
    // held to their share of what was kept (set-shares.ts; conv-30: 180 items before, 128 after).
    '%s: ≥ 110 checked items with a train/val split',
    async (_id, history) => {
      const { items, summary } = await generateSupervision(history, { mode: 'offline', n: 300 });
      // conv-30 gives 117 from rule-based@35 (125 before), whose context-linked questions between people may share no
      // word with the answer turn: the set stops short of its target rather than fill with capped templates.
      expectSound(history, items, 110);
      expect(GenerationSummarySchema.parse(summary).kept).toBe(items.length);
      expect(Object.keys(summary.byType).length).toBeGreaterThanOrEqual(4);
      // The linked-pair family makes multi-hop questions from the same session, with both records as evidence.
      // (conv-30 had 9 once "What means did John mention after …?" and its kind were no longer asked, and has 7 from
      // rule-based@31, whose gists must end on a noun.)
      const multi = items.filter((i) => i.category === 'multi-hop');
      expect(multi.length).toBeGreaterThanOrEqual(6);
      for (const m of multi) expect(new Set(m.evidence.map((e) => e.record)).size).toBe(2);
      // Questions are phrased from the evidence, not built from bags of cue words.
      for (const it of items) expect(it.question).not.toMatch(/\bthe mention of\b|talked about \w+, \w+ and \w+/);
    },
    HANG_LIMIT_MS,
  );
});

describe.skipIf(!existsSync(RHELM))('offline generation on every RHELM persona', () => {
  const personas = existsSync(RHELM) ? loadHistoriesSync(`rhelm:${RHELM}`) : [];
  it.each(personas.map((h) => [h.id, h] as const))(
    '%s: ≥ 200 checked items with a train/val split',
    async (_id, history) => {
      const { items, summary } = await generateSupervision(history, { mode: 'offline', n: 250 });
      expectSound(history, items, 200);
      const kinds = new Set(items.flatMap((i) => i.evidence.map((e) => history.records.find((r) => r.id === e.record)!.kind)));
      expect(kinds.has('turn')).toBe(true);
      expect(summary.split.train + summary.split.val).toBe(items.length);
    },
    HANG_LIMIT_MS,
  );
});

describe.skipIf(!existsSync(LOCOMO))('memsteer generate (CLI)', () => {
  it(
    'writes supervision, a summary and a progress journal, prints per-type counts, and resumes',
    async () => {
      const out = join(tmp, 'conv-30.jsonl');
      const io = captureIO();
      const code = await main(
        ['node', 'memsteer', 'generate', '--history', `locomo:${LOCOMO}#conv-30`, '--out', out, '--n', '120', '--offline'],
        io,
      );
      expect(io.stderr).toBe('');
      expect(code).toBe(0);
      expect(io.stdout).toMatch(/single-hop/);
      expect(io.stdout).toMatch(/aggregation/);
      const items = readJsonl(out, QAItemSchema);
      // The template groups' caps scale with --n, so a small target stops short on a small conversation: 81 of 120
      // from rule-based@35 (107 before), as fewer context-linked questions qualify (see above).
      expect(items.length).toBeGreaterThanOrEqual(75);
      const summary = GenerationSummarySchema.array().parse(JSON.parse(readFileSync(`${out}.summary.json`, 'utf8')));
      expect(summary[0]!.kept).toBe(items.length);
      expect(existsSync(`${out}.progress.jsonl`)).toBe(true);

      // A second run with the same settings continues from the journal: same items, nothing regenerated.
      const io2 = captureIO();
      expect(
        await main(
          ['node', 'memsteer', 'generate', '--history', `locomo:${LOCOMO}#conv-30`, '--out', out, '--n', '120', '--offline', '--json'],
          io2,
        ),
      ).toBe(0);
      const again = GenerationSummarySchema.parse(JSON.parse(io2.stdout));
      expect(again.resumedBundles).toBe(summary[0]!.bundles);
      expect(readJsonl(out, QAItemSchema).map((i) => i.id)).toEqual(items.map((i) => i.id));

      const io3 = captureIO();
      expect(await main(['node', 'memsteer', 'generate', '--quality', out, '--history', `locomo:${LOCOMO}#conv-30`, '--json'], io3)).toBe(
        0,
      );
      const report = JSON.parse(io3.stdout) as { items: number; rates: Record<string, number> };
      expect(report.items).toBe(items.length);
      expect(report.rates.evidenceSupport).toBe(1);
      expect(report.rates.questionClarity).toBe(1);
      expect(report.rates.answerSupport).toBeGreaterThan(0.8);
    },
    HANG_LIMIT_MS,
  );

  it('rejects a bad option with an actionable error', async () => {
    const io = captureIO();
    const code = await main(
      ['node', 'memsteer', 'generate', '--history', `locomo:${LOCOMO}#conv-30`, '--out', join(tmp, 'x.jsonl'), '--types', 'riddles'],
      io,
    );
    expect(code).toBe(1);
    expect(io.stderr).toMatch(/E_BAD_FLAG.*riddles/);
  });
});
