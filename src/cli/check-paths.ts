/**
 * Checks every path a command reads or writes before it does any work or creates any folder: inputs exist and are
 * of the right kind, outputs can be created where they are asked for, and no output is one of the inputs (by path
 * or by inode, so a hard link or a symlink to the history counts too). Each failure is a coded one-line error.
 */
import { accessSync, constants, existsSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { InputError } from '../errors.ts';
import { parseSource } from '../history/source.ts';

/**
 * What kind of path an option names: `file` / `dir` an existing input file / folder; `source` a history source
 * string (`<format>:<path>[#<history>]`); `run` an existing run folder (with manifest.json); `out-file` / `out-dir` a
 * file or folder to write (created when missing).
 */
export type PathRole = 'file' | 'dir' | 'source' | 'run' | 'out-file' | 'out-dir';

/** One path to check: the flag (or argument) it came from, the text given, and its kind. */
export interface PathCheck {
  flag: string;
  value: string;
  role: PathRole;
}

/** Folders no output may go into: they are not storage (writes hang, fail or replace device nodes). */
const SYSTEM_DIRS = ['/proc', '/sys', '/dev'];

const statOrNull = (p: string): Stats | null => {
  try {
    return statSync(p);
  } catch {
    return null;
  }
};

const under = (p: string, dir: string) => p === dir || p.startsWith(dir + sep);

/** The closest existing folder (or file) at or above `p`. */
function nearestExisting(p: string): string {
  let cur = p;
  while (!existsSync(cur)) {
    const up = dirname(cur);
    if (up === cur) break;
    cur = up;
  }
  return cur;
}

function checkInput(c: PathCheck): string {
  const label = `${c.flag} ${c.value}`;
  if (c.role === 'source') {
    const spec = parseSource(c.value);
    if (!existsSync(spec.path))
      throw new InputError('E_NO_FILE', `${label}: ${spec.path} not found; give an existing history file or folder`, { file: spec.path });
    return spec.path;
  }
  const p = resolve(c.value);
  const st = statOrNull(p);
  // A run is the archive's to name: the same code openArchive uses, whether the folder is missing or not a run.
  if (!st && c.role === 'run')
    throw new InputError('E_ARCHIVE_MISSING', `${label}: not found; give a run folder written by memsteer optimize`, { file: p });
  if (!st) throw new InputError('E_NO_FILE', `${label}: not found; give an existing ${c.role === 'dir' ? 'folder' : 'file'}`, { file: p });
  if (c.role === 'file' && st.isDirectory())
    throw new InputError('E_IS_DIR', `${label}: is a folder; ${c.flag} expects a file`, { file: p });
  if ((c.role === 'dir' || c.role === 'run') && !st.isDirectory())
    throw new InputError('E_NOT_DIR', `${label}: is a file; ${c.flag} expects a folder`, { file: p });
  if (c.role === 'run' && !existsSync(join(p, 'manifest.json')))
    throw new InputError('E_ARCHIVE_MISSING', `${label}: no run here (no manifest.json); give a folder written by memsteer optimize`, {
      file: p,
    });
  try {
    accessSync(p, constants.R_OK);
  } catch {
    throw new InputError('E_NOT_READABLE', `${label}: not readable; check its permissions`, { file: p });
  }
  return p;
}

function checkOutput(c: PathCheck): string {
  const label = `${c.flag} ${c.value}`;
  const p = resolve(c.value);
  const existing = nearestExisting(p);
  let real = existing;
  try {
    real = realpathSync(existing);
  } catch {
    // A dangling symlink: judged by its own path below.
  }
  const tail = p.slice(existing.length);
  for (const candidate of [p, real + tail]) {
    const sys = SYSTEM_DIRS.find((d) => under(candidate, d));
    if (sys)
      throw new InputError('E_BAD_OUTPUT', `${label}: is under ${sys}, which is not storage; write to a regular folder`, { file: p });
  }
  const st = statOrNull(p);
  if (st) {
    if (c.role === 'out-file' && st.isDirectory())
      throw new InputError('E_IS_DIR', `${label}: is a folder; ${c.flag} expects a file path`, { file: p });
    if (c.role === 'out-dir' && !st.isDirectory())
      throw new InputError('E_NOT_DIR', `${label}: is a file; ${c.flag} expects a folder`, { file: p });
    if (c.role === 'out-file' && !st.isFile())
      throw new InputError('E_BAD_OUTPUT', `${label}: is not a regular file; write to a regular file`, { file: p });
  }
  const anchor = st ? (c.role === 'out-dir' ? p : dirname(p)) : existing;
  const anchorStat = statOrNull(anchor);
  if (anchorStat && !anchorStat.isDirectory())
    throw new InputError('E_NOT_DIR', `${label}: ${anchor} is a file, so nothing can be created under it; choose another path`, {
      file: anchor,
    });
  try {
    accessSync(anchor, constants.W_OK);
  } catch {
    throw new InputError('E_NOT_WRITABLE', `${label}: ${anchor} is not writable; choose a folder you can write to`, { file: anchor });
  }
  return p;
}

/** Whether two paths name the same file: same path, same real path, or same device and inode. */
export function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  const sa = statOrNull(a);
  const sb = statOrNull(b);
  return Boolean(sa && sb && sa.dev === sb.dev && sa.ino === sb.ino);
}

/**
 * Checks inputs, then outputs, then that no output file is an input. Throws the first problem as a coded error;
 * creates nothing.
 */
export function checkPaths(checks: readonly PathCheck[]): void {
  const inputs: Array<{ check: PathCheck; path: string }> = [];
  for (const c of checks)
    if (c.role === 'file' || c.role === 'dir' || c.role === 'source' || c.role === 'run') inputs.push({ check: c, path: checkInput(c) });
  for (const c of checks) {
    if (c.role !== 'out-file' && c.role !== 'out-dir') continue;
    const p = checkOutput(c);
    for (const i of inputs) {
      if (!sameFile(p, i.path)) continue;
      throw new InputError(
        'E_OUTPUT_IS_INPUT',
        `${c.flag} ${c.value}: is the input given by ${i.check.flag} (${i.check.value}); writing it would destroy that input, ` +
          'choose another output path',
        { file: p },
      );
    }
  }
}

/** The path checks a table declares for these parsed options (options left out, or with a non-path value, are skipped). */
export function tablePathChecks(
  table: Record<string, { flags: string; path?: PathRole; notPaths?: readonly string[] }>,
  options: Record<string, unknown>,
): PathCheck[] {
  const checks: PathCheck[] = [];
  for (const [key, spec] of Object.entries(table)) {
    const v = options[key];
    if (!spec.path || typeof v !== 'string' || spec.notPaths?.includes(v)) continue;
    checks.push({ flag: spec.flags.split(' ')[0]!, value: v, role: spec.path });
  }
  return checks;
}
