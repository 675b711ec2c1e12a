import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The memsteer package root (where package.json is). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** memsteer's version, Node's, and the installed version of each runtime dependency (declared range when not installed). */
export function collectVersions(root = PACKAGE_ROOT): { memsteer: string; node: string; packages: Record<string, string> } {
  const pkg = readJson(join(root, 'package.json')) ?? {};
  const deps = (pkg.dependencies ?? {}) as Record<string, string>;
  const packages: Record<string, string> = {};
  for (const [name, range] of Object.entries(deps).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const installed = readJson(join(root, 'node_modules', name, 'package.json'))?.version;
    packages[name] = typeof installed === 'string' ? installed : range;
  }
  return { memsteer: typeof pkg.version === 'string' ? pkg.version : 'unknown', node: process.version, packages };
}

/**
 * The commit HEAD points at, read from the .git directory (no git binary needed); null outside a checkout.
 * Handles detached HEAD, loose and packed refs, and worktrees (`.git` file with `gitdir:`).
 */
export function readGitCommit(start = PACKAGE_ROOT): string | null {
  let dir = resolve(start);
  for (;;) {
    const dotGit = join(dir, '.git');
    if (existsSync(dotGit)) return commitOf(dotGit);
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function commitOf(dotGit: string): string | null {
  try {
    let gitDir = dotGit;
    if (statSync(dotGit).isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
      if (!m) return null;
      gitDir = resolve(dirname(dotGit), m[1]!.trim());
    }
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (/^[0-9a-f]{40}$/.test(head)) return head;
    const ref = /^ref:\s*(.+)$/.exec(head)?.[1];
    if (!ref) return null;
    // Worktrees keep refs in the common dir.
    const common = existsSync(join(gitDir, 'commondir')) ? resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim()) : gitDir;
    for (const base of [gitDir, common]) {
      const loose = join(base, ref);
      if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
    }
    const packed = join(common, 'packed-refs');
    if (existsSync(packed)) {
      for (const line of readFileSync(packed, 'utf8').split('\n')) {
        const [sha, name] = line.split(' ');
        if (name === ref && sha && /^[0-9a-f]{40}$/.test(sha)) return sha;
      }
    }
    return null;
  } catch {
    return null;
  }
}
