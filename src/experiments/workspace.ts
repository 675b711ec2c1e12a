/** Where a bench run keeps its work: results at the top of `out`, reusable intermediate state under `out/work`. */
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The bench's directories. */
export interface Workspace {
  /** Results: `<experiment>.json`, `<experiment>.md`, `README.md`. */
  out: string;
  work: string;
  /** The evaluation cache every run and every official evaluation shares. */
  cacheDir: string;
  /** Generated supervision, one file per history and settings. */
  generatedDir: string;
  /** The supervision file of each run. */
  supervisionDir: string;
  /** Seed designs of runs (Base-BM25, designs carried over by transfer). */
  designsDir: string;
  /** Optimization runs (archives). */
  runsDir: string;
}

/** Creates the workspace under `out`; `fresh` first removes earlier work (results are overwritten anyway). */
export function openWorkspace(out: string, options: { fresh?: boolean } = {}): Workspace {
  const root = resolve(out);
  const work = join(root, 'work');
  if (options.fresh) rmSync(work, { recursive: true, force: true });
  const ws: Workspace = {
    out: root,
    work,
    cacheDir: join(work, 'eval-cache'),
    generatedDir: join(work, 'generated'),
    supervisionDir: join(work, 'supervision'),
    designsDir: join(work, 'designs'),
    runsDir: join(work, 'runs'),
  };
  for (const d of [ws.cacheDir, ws.generatedDir, ws.supervisionDir, ws.designsDir, ws.runsDir]) mkdirSync(d, { recursive: true });
  return ws;
}
