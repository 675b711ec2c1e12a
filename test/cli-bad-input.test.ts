/**
 * Bad input, as a careless user types it: each case must be refused before any work with one coded line on
 * stderr (`memsteer: <code>: <message>`), a non-zero exit, no stack trace, and nothing created or overwritten.
 * Runs the CLI in-process through `main`; every case is parsing, path checks or (--strict) loading a small fixture,
 * so the table is fast.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { captureIO } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';
import { tempDir } from './helpers/temp-dir.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = resolve(REPO, 'test', 'fixtures', 'history', 'records.jsonl');
const SEED = resolve(REPO, 'seeds', 'base-bm25.ts');

/** The scratch folder every case works in; `$T` in a case's argv stands for it. */
let T = '';

/** Every file and folder under `dir` with its size, mtime and content hash: what "nothing changed" means. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) {
        out[p] = 'dangling';
        continue;
      }
      if (st.isDirectory()) {
        out[p] = 'dir';
        walk(p);
      } else if (st.isFile()) out[p] = `${st.size}:${st.mtimeMs}:${createHash('sha256').update(readFileSync(p)).digest('hex')}`;
      // Reading a FIFO would block: its identity is enough.
      else out[p] = `special:${st.ino}:${st.mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}

interface Case {
  why: string;
  argv: string[];
  code: string;
  /** Paths (under $T) that must not exist afterwards, beyond the general no-change check. */
  absent?: string[];
}

const h = 'jsonl:$T/history.jsonl';
const optimize = ['optimize', '--history', h, '--supervision', '$T/sup.jsonl', '--out', '$T/run'];
const evalCmd = ['eval', '--history', h, '--design', '$T/design.ts'];
const generate = ['generate', '--history', h];

const CASES: Case[] = [
  // generate: outputs that are inputs, paths of the wrong kind, counts and enums out of range
  { why: 'generate writes its output over the history', argv: [...generate, '--out', '$T/history.jsonl'], code: 'E_OUTPUT_IS_INPUT' },
  { why: 'generate output is a hard link to the history', argv: [...generate, '--out', '$T/hardlink.jsonl'], code: 'E_OUTPUT_IS_INPUT' },
  { why: 'generate output is a symlink to the history', argv: [...generate, '--out', '$T/symlink.jsonl'], code: 'E_OUTPUT_IS_INPUT' },
  {
    why: '--n 1e9 (no silent spin)',
    argv: [...generate, '--out', '$T/new.jsonl', '--n', '1e9'],
    code: 'E_BAD_FLAG',
    absent: ['new.jsonl'],
  },
  { why: '--n 0', argv: [...generate, '--out', '$T/new.jsonl', '--n', '0'], code: 'E_BAD_FLAG' },
  { why: '--n not a number', argv: [...generate, '--out', '$T/new.jsonl', '--n', 'many'], code: 'E_BAD_FLAG' },
  { why: '--val outside [0, 1)', argv: [...generate, '--out', '$T/new.jsonl', '--val', '1.5'], code: 'E_BAD_FLAG' },
  { why: '--types with an unknown type', argv: [...generate, '--out', '$T/new.jsonl', '--types', 'temporal,riddles'], code: 'E_BAD_FLAG' },
  { why: '--seed not whole', argv: [...generate, '--out', '$T/new.jsonl', '--seed', '1.5'], code: 'E_BAD_FLAG' },
  { why: 'generate --out is a folder', argv: [...generate, '--out', '$T/folder'], code: 'E_IS_DIR' },
  { why: 'generate --out under a file', argv: [...generate, '--out', '$T/plain.txt/x.jsonl'], code: 'E_NOT_DIR' },
  { why: 'generate --out under /proc (hangs today)', argv: [...generate, '--out', '/proc/memsteer-x.jsonl'], code: 'E_BAD_OUTPUT' },
  { why: 'generate --out under /sys', argv: [...generate, '--out', '/sys/memsteer-x.jsonl'], code: 'E_BAD_OUTPUT' },
  // A FIFO stands in for a device: replacing /dev/null by a rename (as root) is what this check prevents.
  { why: 'generate --out onto a FIFO', argv: [...generate, '--out', '$T/fifo'], code: 'E_BAD_OUTPUT' },
  { why: 'generate without --out', argv: [...generate], code: 'E_MISSING_FLAG' },
  { why: 'history file missing', argv: ['generate', '--history', 'jsonl:$T/missing.jsonl', '--out', '$T/new.jsonl'], code: 'E_NO_FILE' },
  {
    why: 'unknown history format',
    argv: ['generate', '--history', 'csv:$T/missing.csv', '--out', '$T/new.jsonl'],
    code: 'E_UNKNOWN_FORMAT',
  },
  { why: 'generate --quality is a folder', argv: [...generate, '--quality', '$T/folder'], code: 'E_IS_DIR' },

  // eval
  { why: 'eval --traces is the design file', argv: [...evalCmd, '--traces', '$T/design.ts'], code: 'E_OUTPUT_IS_INPUT' },
  {
    why: 'eval --traces is the questions file',
    argv: [...evalCmd, '--questions', '$T/sup.jsonl', '--traces', '$T/sup.jsonl'],
    code: 'E_OUTPUT_IS_INPUT',
  },
  { why: 'eval --design is a folder', argv: ['eval', '--history', h, '--design', '$T/folder', '--traces', '$T/t.jsonl'], code: 'E_IS_DIR' },
  { why: 'eval --design missing', argv: ['eval', '--history', h, '--design', '$T/nope.ts', '--traces', '$T/t.jsonl'], code: 'E_NO_FILE' },
  { why: 'eval --questions is a folder', argv: [...evalCmd, '--questions', '$T/folder', '--traces', '$T/t.jsonl'], code: 'E_IS_DIR' },
  { why: 'eval --traces is a folder', argv: [...evalCmd, '--traces', '$T/folder'], code: 'E_IS_DIR' },
  { why: 'eval --traces under a file', argv: [...evalCmd, '--traces', '$T/plain.txt/t.jsonl'], code: 'E_NOT_DIR' },
  { why: 'eval --budget not a number', argv: [...evalCmd, '--budget', 'lots', '--traces', '$T/t.jsonl'], code: 'E_BAD_FLAG' },
  { why: 'eval --budget absurd', argv: [...evalCmd, '--budget', '1e12', '--traces', '$T/t.jsonl'], code: 'E_BAD_FLAG' },
  { why: 'eval --jobs 0', argv: [...evalCmd, '--jobs', '0', '--traces', '$T/t.jsonl'], code: 'E_BAD_FLAG' },
  { why: 'eval --cache is a file', argv: [...evalCmd, '--cache', '$T/plain.txt', '--traces', '$T/t.jsonl'], code: 'E_NOT_DIR' },

  // optimize: enums and specs refused before the run folder exists
  { why: '--rng-seed abc', argv: [...optimize, '--rng-seed', 'abc'], code: 'E_BAD_FLAG', absent: ['run'] },
  { why: '--objective magic', argv: [...optimize, '--objective', 'magic'], code: 'E_BAD_FLAG', absent: ['run'] },
  { why: '--feedback all', argv: [...optimize, '--feedback', 'all'], code: 'E_BAD_FLAG', absent: ['run'] },
  { why: '--space magic', argv: [...optimize, '--space', 'magic'], code: 'E_BAD_FLAG', absent: ['run'] },
  { why: '--select best (left a half-made run)', argv: [...optimize, '--select', 'best'], code: 'E_BAD_SELECT', absent: ['run'] },
  { why: '--select softmax:hot', argv: [...optimize, '--select', 'softmax:hot'], code: 'E_BAD_SELECT', absent: ['run'] },
  { why: '--accept maybe (left a half-made run)', argv: [...optimize, '--accept', 'maybe'], code: 'E_BAD_ACCEPT', absent: ['run'] },
  { why: '--accept bootstrap:2', argv: [...optimize, '--accept', 'bootstrap:2'], code: 'E_BAD_ACCEPT', absent: ['run'] },
  { why: '--iterations 0', argv: [...optimize, '--iterations', '0'], code: 'E_BAD_FLAG', absent: ['run'] },
  { why: '--iterations 1e9', argv: [...optimize, '--iterations', '1e9'], code: 'E_BAD_FLAG', absent: ['run'] },
  { why: '--budget-dollars negative', argv: [...optimize, '--budget-dollars', '-3'], code: 'E_BAD_FLAG', absent: ['run'] },
  {
    why: 'optimize --supervision is a folder',
    argv: [...optimize.slice(0, 3), '--supervision', '$T/folder', '--out', '$T/run'],
    code: 'E_IS_DIR',
  },
  { why: 'optimize --seed missing', argv: [...optimize, '--seed', '$T/nope.ts'], code: 'E_NO_FILE', absent: ['run'] },
  { why: 'optimize --seed is a folder', argv: [...optimize, '--seed', '$T/folder'], code: 'E_IS_DIR', absent: ['run'] },
  { why: 'optimize --out is a file', argv: [...optimize.slice(0, 5), '--out', '$T/plain.txt'], code: 'E_NOT_DIR' },
  { why: 'optimize --out under /proc', argv: [...optimize.slice(0, 5), '--out', '/proc/memsteer-run'], code: 'E_BAD_OUTPUT' },
  { why: 'optimize --out holds a run already', argv: [...optimize.slice(0, 5), '--out', '$T/fake-run'], code: 'E_ARCHIVE_EXISTS' },
  { why: 'optimize without --history', argv: ['optimize', '--supervision', '$T/sup.jsonl', '--out', '$T/run'], code: 'E_MISSING_FLAG' },
  { why: 'optimize --resume a folder with no run', argv: ['optimize', '--resume', '$T/folder'], code: 'E_ARCHIVE_MISSING' },
  { why: 'optimize --resume a missing folder', argv: ['optimize', '--resume', '$T/nowhere'], code: 'E_ARCHIVE_MISSING' },
  { why: 'an unknown flag', argv: [...optimize, '--iteration', '3'], code: 'E_UNKNOWN_FLAG', absent: ['run'] },

  // compare, convert, export, report, archive, inspect, bench, start
  {
    why: 'compare --objective magic',
    argv: ['compare', '--history', h, '--supervision', '$T/sup.jsonl', '--objective', 'magic'],
    code: 'E_BAD_FLAG',
  },
  { why: 'compare without --supervision', argv: ['compare', '--history', h, '--out', '$T/cmp'], code: 'E_MISSING_FLAG', absent: ['cmp'] },
  {
    why: 'compare --out is a file',
    argv: ['compare', '--history', h, '--supervision', '$T/sup.jsonl', '--out', '$T/plain.txt'],
    code: 'E_NOT_DIR',
  },
  {
    why: 'convert over its own input',
    argv: ['convert', '$T/sup.jsonl', '--to', 'plain', '--out', '$T/sup.jsonl'],
    code: 'E_OUTPUT_IS_INPUT',
  },
  { why: 'convert --to csv', argv: ['convert', '$T/sup.jsonl', '--to', 'csv', '--out', '$T/x.jsonl'], code: 'E_BAD_FLAG' },
  { why: 'convert a folder', argv: ['convert', '$T/folder', '--to', 'plain', '--out', '$T/x.jsonl'], code: 'E_IS_DIR' },
  {
    why: 'export a folder with no run',
    argv: ['export', '$T/folder', '--out', '$T/exported'],
    code: 'E_ARCHIVE_MISSING',
    absent: ['exported'],
  },
  { why: 'export --out under a file', argv: ['export', '$T/fake-run', '--out', '$T/plain.txt/exported'], code: 'E_NOT_DIR' },
  { why: 'report --out is a folder', argv: ['report', '$T/fake-run', '--out', '$T/folder'], code: 'E_IS_DIR' },
  { why: 'report of a file', argv: ['report', '$T/plain.txt'], code: 'E_NOT_DIR' },
  { why: 'archive of a missing run', argv: ['archive', '$T/nowhere'], code: 'E_ARCHIVE_MISSING' },
  { why: 'inspect a missing source', argv: ['inspect', 'jsonl:$T/missing.jsonl'], code: 'E_NO_FILE' },
  { why: 'bench --data missing', argv: ['bench', '--data', '$T/nowhere', '--out', '$T/bench'], code: 'E_NO_FILE', absent: ['bench'] },
  { why: 'bench --dataset nope', argv: ['bench', '--dataset', 'nope', '--out', '$T/bench'], code: 'E_BAD_FLAG', absent: ['bench'] },
  { why: 'bench --budgets with a word', argv: ['bench', '--budgets', '100,x', '--out', '$T/bench'], code: 'E_BAD_FLAG', absent: ['bench'] },
  { why: 'bench --out is a file', argv: ['bench', '--data', '$T/folder', '--out', '$T/plain.txt'], code: 'E_NOT_DIR' },
  { why: 'start --out is a file', argv: ['start', '--out', '$T/plain.txt'], code: 'E_NOT_DIR' },
  { why: 'start --iterations 1e9', argv: ['start', '--iterations', '1e9', '--out', '$T/start'], code: 'E_BAD_FLAG', absent: ['start'] },
  { why: 'an unknown command', argv: ['optimise'], code: 'E_UNKNOWN_COMMAND' },

  // --strict: degraded input (history warnings) refused before any work
  {
    why: 'eval --strict on a LoCoMo file with an undated session, a session that is not a list and a non-UTF-8 byte',
    argv: ['eval', '--history', 'locomo:$T/degraded.json', '--design', '$T/design.ts', '--traces', '$T/traces.jsonl', '--strict'],
    code: 'E_STRICT',
    absent: ['traces.jsonl', 'traces.summary.json'],
  },
  {
    why: 'generate --strict on the degraded LoCoMo file',
    argv: ['generate', '--history', 'locomo:$T/degraded.json', '--out', '$T/new.jsonl', '--offline', '--strict'],
    code: 'E_STRICT',
    absent: ['new.jsonl', 'new.jsonl.progress.jsonl'],
  },
  {
    why: 'optimize --strict with supervision whose evidence ids match no record',
    argv: [...optimize.slice(0, 3), '--supervision', '$T/unknown-evidence.jsonl', '--out', '$T/run', '--strict'],
    code: 'E_STRICT',
    absent: ['run'],
  },
];

describe('bad input is refused before any work, with one coded line', () => {
  beforeAll(() => {
    T = tempDir('memsteer-bad-input-');
    copyFileSync(FIXTURE, join(T, 'history.jsonl'));
    linkSync(join(T, 'history.jsonl'), join(T, 'hardlink.jsonl'));
    symlinkSync(join(T, 'history.jsonl'), join(T, 'symlink.jsonl'));
    copyFileSync(SEED, join(T, 'design.ts'));
    copyFileSync(resolve(REPO, 'test', 'fixtures', 'history', 'locomo-degraded.json'), join(T, 'degraded.json'));
    copyFileSync(resolve(REPO, 'test', 'fixtures', 'history', 'questions-unknown-evidence.jsonl'), join(T, 'unknown-evidence.jsonl'));
    // Only its path matters here: every case stops before a file is read.
    copyFileSync(FIXTURE, join(T, 'sup.jsonl'));
    writeFileSync(join(T, 'plain.txt'), 'not a folder\n');
    execFileSync('mkfifo', [join(T, 'fifo')]);
    mkdirSync(join(T, 'folder'));
    mkdirSync(join(T, 'fake-run'));
    writeFileSync(join(T, 'fake-run', 'manifest.json'), '{}\n');
  });

  it('has at least 30 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
  });

  const archiveDir = resolve('archive');
  it.each(CASES)('$why → $code', async (c) => {
    const before = snapshot(T);
    const archiveBefore = existsSync(archiveDir) ? readdirSync(archiveDir).sort() : [];
    const io = captureIO();
    const exit = await main(['node', 'memsteer', ...c.argv.map((a) => a.replaceAll('$T', T))], io);
    expect(exit).not.toBe(0);
    expect(exit).not.toBe(70);
    expect(io.stderr).toMatch(new RegExp(`^memsteer: ${c.code}: [^\\n]+\\n$`));
    expect(io.stderr).not.toMatch(/\n\s+at /);
    expect(io.stdout).toBe('');
    expect(snapshot(T)).toEqual(before);
    expect(existsSync(archiveDir) ? readdirSync(archiveDir).sort() : []).toEqual(archiveBefore);
    for (const p of c.absent ?? []) expect(existsSync(join(T, p))).toBe(false);
  });

  it.skipIf(process.getuid?.() === 0)('an output folder the user cannot write to (not testable as root)', async () => {
    const locked = join(T, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    try {
      const io = captureIO();
      const exit = await main(['node', 'memsteer', ...generate.map((a) => a.replaceAll('$T', T)), '--out', join(locked, 'x.jsonl')], io);
      expect(exit).toBe(1);
      expect(io.stderr).toMatch(/^memsteer: E_NOT_WRITABLE: --out .*locked/);
      expect(readdirSync(locked)).toEqual([]);
    } finally {
      chmodSync(locked, 0o700);
    }
  });
});
