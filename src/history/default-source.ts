import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

/** The package root (this file is at `<root>/src/history/default-source.ts`). */
const PACKAGE_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

/** Folder of the embedded default history (a verbatim copy of one RHELM persona; see data/default/SOURCE.md). */
export const DEFAULT_DATA_DIR = resolve(PACKAGE_ROOT, 'data', 'default', 'rhelm');

/** The history memsteer uses when none is given: RHELM's Elena_Morales, shipped with the package (MIT). */
export const DEFAULT_SOURCE = `rhelm:${DEFAULT_DATA_DIR}#Elena_Morales`;
