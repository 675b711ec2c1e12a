/**
 * src/ holds no official benchmark question or answer: heuristics and examples are not shaped on test items
 * (the README's "Development subsets"). Reads LoCoMo from ../shared/data when present, skips otherwise.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOCOMO = join(ROOT, '..', 'shared', 'data', 'locomo', 'locomo10.json');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Lower-case with whitespace runs squeezed, so a quote re-wrapped in a comment still matches. */
const squeeze = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

describe.skipIf(!existsSync(LOCOMO))('src/ and the official LoCoMo QA', () => {
  const data = JSON.parse(readFileSync(LOCOMO, 'utf8')) as Array<{
    qa: Array<{ question: string; answer?: string | number; adversarial_answer?: string }>;
  }>;
  const sources = filesUnder(join(ROOT, 'src')).map((file) => ({ file, text: squeeze(readFileSync(file, 'utf8')) }));
  const found = (needles: Iterable<string>) =>
    [...needles].flatMap((n) => sources.filter((s) => s.text.includes(squeeze(n))).map((s) => `${s.file.slice(ROOT.length)}: "${n}"`));

  it('quotes no official question of 25 or more characters', () => {
    const questions = new Set(data.flatMap((c) => c.qa.map((q) => q.question.trim())).filter((q) => q.length >= 25));
    expect(questions.size).toBeGreaterThan(1000);
    expect(found(questions)).toEqual([]);
  });

  it('quotes no official answer of 20 or more characters', () => {
    const answers = new Set(
      data.flatMap((c) => c.qa.map((q) => String(q.answer ?? q.adversarial_answer ?? '').trim())).filter((a) => a.length >= 20),
    );
    expect(answers.size).toBeGreaterThan(100);
    expect(found(answers)).toEqual([]);
  });
});
