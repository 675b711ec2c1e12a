/**
 * What the evaluation benches share: the design under test compiled (or a thrown error naming its diagnostics), and
 * a small unrelated history to warm every mode on, so child start-up, module loading and JIT are not measured.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SourceRecord } from '../sandbox/contract.ts';
import { compileDesign } from '../src/design/compile.ts';
import type { CompiledProgram } from '../src/isolate/sandbox-api.ts';
import type { History, QAItem } from '../src/history/record.ts';

/** The design at `path`, compiled; throws with its diagnostics when it does not compile. */
export async function compileBenchDesign(path: string): Promise<CompiledProgram> {
  const compiled = await compileDesign(readFileSync(path, 'utf8'), { fileName: path });
  if (!compiled.ok) throw new Error(`${path}: ${compiled.diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`).join('; ')}`);
  return compiled.program;
}

/** Twenty records of a made-up history, unrelated to any benchmark's data. */
export const warmHistory: History = {
  id: 'warm',
  source: 'bench',
  format: 'jsonl',
  records: JSON.parse(readFileSync(resolve('test/fixtures/designs/records-20.json'), 'utf8')) as SourceRecord[],
  qa: [],
  unresolvedEvidence: [],
};

/** Questions about {@link warmHistory}, optionally with a question date each. */
export function warmQuestions(questions: readonly string[], dates?: readonly string[]): QAItem[] {
  return questions.map((question, i) => ({
    id: `w${i}`,
    history: 'warm',
    question,
    answer: '',
    answerType: 'text',
    evidence: [],
    ...(dates ? { date: dates[i]! } : {}),
  }));
}
