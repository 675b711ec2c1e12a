/**
 * A throwaway redis-server for the queue tests: a free local port, a temp dir, no persistence. When the binary is
 * missing the tests are skipped with a one-line notice, except under CI=true, where that is a failure (.ci/run
 * installs it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL) and removes its directory. */
  stop(): Promise<void>;
}

/** Whether `redis-server` can be run here; under CI=true its absence throws instead. */
export function redisAvailable(): boolean {
  const ok = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!ok && process.env.CI === 'true') throw new Error('redis-server is not installed, and CI=true requires the queue tests to run');
  if (!ok) process.stderr.write('queue tests skipped: redis-server is not installed (apt-get install redis-server)\n');
  return ok;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Starts redis-server and resolves once it accepts connections. */
export async function startRedis(port?: number): Promise<TestRedis> {
  const p = port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'memsteer-redis-'));
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on port ${p}: ${out}`)), 10_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/i.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out}`));
    });
  });
  child.removeAllListeners('exit');
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    url: `redis://127.0.0.1:${p}`,
    port: p,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
