/**
 * Every seed design, run in-process on a small hand-made history with the real host tools (BM25, text, local
 * embedding): the evidence for each question is retrieved and delivered, and the context respects the budget.
 * Also: every seed passes the design compiler (type check + import rules).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { MemoryDesign, Question, SourceRecord, Tools } from '../sandbox/contract.ts';
import { compileDesign } from '../src/design/compile.ts';
import { VerifiedMemory } from '../src/evaluate/verified-memory.ts';
import { toolsFromHost } from '../src/isolate/direct-sandbox.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import { countTokens } from '../src/text/text.ts';
import baseBm25 from '../seeds/base-bm25.ts';
import hybridRrf from '../seeds/hybrid-rrf.ts';
import refineProbe from '../seeds/refine-probe.ts';
import sessionUnits from '../seeds/session-units.ts';
import thinkRank from '../seeds/think-rank.ts';

const SEEDS: Record<string, MemoryDesign> = {
  'base-bm25': baseBm25,
  'session-units': sessionUnits,
  'hybrid-rrf': hybridRrf,
  'refine-probe': refineProbe,
  'think-rank': thinkRank,
};

function turn(id: string, session: number, day: string, speaker: string, text: string): SourceRecord {
  return { id, kind: 'turn', text, time: `2023-${day}T10:00:00`, thread: `session_${session}`, speaker };
}

// Three sessions, 24 turns; each question's evidence is one or two turns.
const RECORDS: SourceRecord[] = [
  turn('D1:1', 1, '05-08', 'Caroline', 'Hey Mel! Good to see you! How have you been?'),
  turn('D1:2', 1, '05-08', 'Melanie', "Hey Caroline! I'm swamped with the kids and work. What's up with you?"),
  turn('D1:3', 1, '05-08', 'Caroline', 'I went to a LGBTQ support group yesterday and it was so powerful.'),
  turn('D1:4', 1, '05-08', 'Melanie', 'Wow, that sounds inspiring. What happened there?'),
  turn('D1:5', 1, '05-08', 'Caroline', 'The transgender stories were moving. I felt accepted for who I am.'),
  turn('D1:6', 1, '05-08', 'Melanie', 'I painted a sunrise over the lake last year, it calms me down.'),
  turn('D1:7', 1, '05-08', 'Caroline', 'Painting is such a good outlet. Do you still do pottery too?'),
  turn('D1:8', 1, '05-08', 'Melanie', 'Yes, I signed up for a pottery class with my kids last month.'),
  turn('D2:1', 2, '05-25', 'Melanie', 'I ran a charity race for mental health last Saturday!'),
  turn('D2:2', 2, '05-25', 'Caroline', 'That is awesome, how far did you run?'),
  turn('D2:3', 2, '05-25', 'Melanie', 'It was a 5K, and I realized self-care is really important.'),
  turn('D2:4', 2, '05-25', 'Caroline', 'I am researching adoption agencies, I want to build a family.'),
  turn('D2:5', 2, '05-25', 'Melanie', 'That is amazing! Which agency are you looking at?'),
  turn('D2:6', 2, '05-25', 'Caroline', 'One that supports LGBTQ+ individuals, they were so inclusive.'),
  turn('D2:7', 2, '05-25', 'Melanie', 'We are planning on going camping in the mountains in June.'),
  turn('D2:8', 2, '05-25', 'Caroline', 'Camping sounds lovely, enjoy the fresh air.'),
  turn('D3:1', 3, '06-09', 'Caroline', 'I gave a speech at a school last week about my transition.'),
  turn('D3:2', 3, '06-09', 'Melanie', 'Proud of you! How did the students react?'),
  turn('D3:3', 3, '06-09', 'Caroline', 'They asked great questions. My guinea pig Oscar kept me calm before it.'),
  turn('D3:4', 3, '06-09', 'Melanie', 'Our dog Luna and cat Oliver say hi to Oscar!'),
  turn('D3:5', 3, '06-09', 'Caroline', 'I moved from Sweden four years ago with my friends.'),
  turn('D3:6', 3, '06-09', 'Melanie', 'Sweden! My grandma was from there too. She gave me this necklace.'),
  turn('D3:7', 3, '06-09', 'Caroline', 'The necklace is beautiful, it symbolizes love and faith.'),
  turn('D3:8', 3, '06-09', 'Melanie', "Thanks! I read Charlotte's Web to the kids last night."),
];

const QUESTIONS: Array<{ q: Question; evidence: string[] }> = [
  { q: { id: 'q1', text: 'When did Caroline go to the LGBTQ support group?' }, evidence: ['D1:3'] },
  { q: { id: 'q2', text: 'What did Melanie run a charity race for?' }, evidence: ['D2:1'] },
  { q: { id: 'q3', text: 'What is Caroline researching for her family?' }, evidence: ['D2:4'] },
  { q: { id: 'q4', text: 'Where is Melanie planning on going camping?' }, evidence: ['D2:7'] },
  { q: { id: 'q5', text: "What is the name of Caroline's guinea pig?" }, evidence: ['D3:3'] },
  { q: { id: 'q6', text: 'Which country did Caroline move from?' }, evidence: ['D3:5'] },
  { q: { id: 'q7', text: "What does Melanie's grandma's necklace symbolize?" }, evidence: ['D3:6', 'D3:7'] },
  { q: { id: 'q8', text: 'What did Melanie realize after the charity race?' }, evidence: ['D2:3'] },
];

/** Real host tools; `llm` replaced by a scripted completer when given. */
function tools(llm?: (prompt: string) => string): Tools {
  const t = toolsFromHost(createHostTools());
  if (!llm) return t;
  return {
    ...t,
    llm: {
      available: true,
      async complete(messages) {
        return llm(typeof messages === 'string' ? messages : messages.map((m) => m.content).join('\n'));
      },
    },
  };
}

async function run(design: MemoryDesign, t: Tools, budgetTokens: number) {
  const memory = await design.store(RECORDS, t);
  const out: Array<{ id: string; delivered: string[]; rankedSources: string[]; tokens: number; text: string }> = [];
  for (const { q } of QUESTIONS) {
    const hits = await design.retrieve(q, memory, t);
    const ctx = await design.context(q, hits, memory, t, { tokens: budgetTokens });
    const byId = new Map(memory.units.map((u) => [u.id, u]));
    for (const id of ctx.units) expect(byId.has(id), `unknown unit ${id}`).toBe(true);
    // Delivered as the host credits it: verified sources of the listed units that the context text carries.
    const verified = new VerifiedMemory(memory.units, RECORDS);
    const delivered = verified.delivered(ctx.text, ctx.units).records;
    const rankedSources = verified.rankedRecords(hits.map((h) => h.unit));
    // An honest seed's units quote every record they name.
    expect(verified.unverifiedCount(memory.units.map((u) => u.id))).toBe(0);
    out.push({ id: q.id, delivered, rankedSources, tokens: countTokens(ctx.text), text: ctx.text });
  }
  return out;
}

describe.each(Object.keys(SEEDS))('seed %s', (name) => {
  const design = SEEDS[name]!;
  it('delivers the evidence of every question within a 160-token budget', async () => {
    const results = await run(design, tools(), 160);
    for (const r of results) {
      const evidence = QUESTIONS.find((x) => x.q.id === r.id)!.evidence;
      expect(r.tokens).toBeLessThanOrEqual(160);
      for (const e of evidence) expect(r.delivered, `${name} ${r.id} misses ${e}`).toContain(e);
    }
  });
  it('respects a tiny budget and stamps lines with date and speaker', async () => {
    const results = await run(design, tools(), 30);
    for (const r of results) expect(r.tokens).toBeLessThanOrEqual(30);
    const wide = await run(design, tools(), 400);
    expect(wide[0]!.text).toMatch(/\[8 May 2023 10:00\] Caroline: I went to a LGBTQ support group/);
  });
  it('handles an empty history', async () => {
    const t = tools();
    const memory = await design.store([], t);
    const hits = await design.retrieve(QUESTIONS[0]!.q, memory, t);
    expect(hits).toEqual([]);
    expect((await design.context(QUESTIONS[0]!.q, hits, memory, t, { tokens: 100 })).units).toEqual([]);
  });
});

describe('LLM paths of the seeds', () => {
  it('refine-probe asks the LLM for a better query and probes with it', async () => {
    const prompts: string[] = [];
    const t = tools((p) => {
      prompts.push(p);
      return 'Sweden moved country';
    });
    const memory = await refineProbe.store(RECORDS, t);
    const q = { id: 'q', text: 'Where is Caroline originally from?' };
    const hits = await refineProbe.retrieve(q, memory, t);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('Where is Caroline originally from?');
    // The question alone barely finds the move from Sweden; the rewritten query lifts it.
    const plain = (await baseBm25.retrieve(q, await baseBm25.store(RECORDS, t), t)).map((h) => h.unit);
    const refined = hits.map((h) => h.unit);
    expect(refined.indexOf('D3:5')).toBeGreaterThanOrEqual(0);
    expect(refined.indexOf('D3:5')).toBeLessThan(plain.indexOf('D3:5') < 0 ? Infinity : plain.indexOf('D3:5'));
  });
  it('think-rank lets the LLM order the candidate sessions', async () => {
    let listing = '';
    const t = tools((p) => {
      listing = p;
      // Put the session that mentions the necklace first, whatever its number.
      const m = /Session (\d+):\n(?:(?!Session \d+:)[\s\S])*necklace/.exec(p);
      return m ? `${m[1]}` : '1';
    });
    const memory = await thinkRank.store(RECORDS, t);
    const hits = await thinkRank.retrieve({ id: 'q', text: 'What did Melanie get from her grandma?' }, memory, t);
    expect(listing).toContain('Candidate memory sessions');
    expect(hits[0]!.unit).toBe('session:session_3');
  });
});

describe('seed compilation', () => {
  const files = readdirSync(new URL('../seeds/', import.meta.url)).filter((f) => f.endsWith('.ts'));
  it('covers every seed file', () => {
    // configurable.ts is the config-search seed; test/config-seed.test.ts holds it to Base-BM25's behaviour.
    expect(files.sort()).toEqual([...Object.keys(SEEDS), 'configurable'].map((n) => `${n}.ts`).sort());
  });
  it.each(files)('%s compiles (type check + import rules)', async (file) => {
    const source = readFileSync(new URL(`../seeds/${file}`, import.meta.url), 'utf8');
    const r = await compileDesign(source, { fileName: `seeds/${file}` });
    expect(r.ok ? [] : r.diagnostics).toEqual([]);
  });
});
