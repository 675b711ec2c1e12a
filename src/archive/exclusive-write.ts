import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Creates `path` with `data` only if it does not exist yet, in one atomic step: a complete sibling temp file is
 * hard-linked to the target (link fails with EEXIST when the target is there), so no reader ever sees a partly
 * written file and of two racing creators exactly one wins. Returns false when the target already existed.
 */
export function createFileExclusive(path: string, data: string): boolean {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.tmp`);
  writeFileSync(tmp, data);
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A filesystem without hard links: an exclusive open is still exclusive, only not complete the moment it appears.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') return writeExclusive(path, data);
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

function writeExclusive(path: string, data: string): boolean {
  try {
    writeFileSync(path, data, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}
