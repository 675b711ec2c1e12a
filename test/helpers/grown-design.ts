import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyEdits } from '../../src/design/apply-edits.ts';
import { MUTATION_OPERATORS } from '../../src/optimize/proposers/mutation-catalog.ts';

const baseBm25 = readFileSync(join(import.meta.dirname, '../../seeds/base-bm25.ts'), 'utf8');

/** seeds/base-bm25.ts grown by catalog blocks, as a search makes it: the scoring code structural moves work on. */
export function grown(names: readonly string[]): string {
  let src = baseBm25;
  for (const n of names) {
    const op = MUTATION_OPERATORS.find((o) => o.name === n);
    if (!op) throw new Error(`no catalog operator ${n}`);
    const r = applyEdits(
      src,
      op.edits(
        (x) => src.includes(x),
        (m) => src.includes(m),
      ),
    );
    if (!r.ok) throw new Error(`${n}: ${r.errors[0]!.message}`);
    src = r.source;
  }
  return src;
}
