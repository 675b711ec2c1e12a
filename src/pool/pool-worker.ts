/**
 * Child-process entry of the evaluation pool (see pool.ts). Started as
 * `node --import <tsx loader> pool-worker.ts <handler module URL>`; imports the handler module once, then runs
 * one task at a time. Blobs (a history's records…) and the handler module's own state stay in this process
 * across tasks, so indexes and isolates are warm for the next candidate that uses the same history.
 */
import type { ChildMessage, HostMessage, TaskContext, TaskHandler } from './pool.ts';

const moduleUrl = process.argv[2];

function post(msg: ChildMessage): void {
  process.send?.(msg);
}

// The host owns our lifetime: without it there is nobody to report to.
process.on('disconnect', () => process.exit(0));

async function start(): Promise<void> {
  if (!moduleUrl || !process.send) {
    process.stderr.write('pool-worker: started without a handler module or an IPC channel\n');
    process.exit(2);
  }
  let handlers: Record<string, TaskHandler>;
  try {
    const mod = (await import(moduleUrl)) as { handlers?: Record<string, TaskHandler> };
    if (!mod.handlers) throw new Error(`${moduleUrl} exports no \`handlers\``);
    handlers = mod.handlers;
  } catch (err) {
    process.stderr.write(`pool-worker: cannot load ${moduleUrl}: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(3);
  }

  const blobs = new Map<string, unknown>();
  const calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextCall = 1;
  const ctx: TaskContext = {
    callHost<T>(name: string, args: unknown): Promise<T> {
      const id = nextCall++;
      return new Promise<T>((resolve, reject) => {
        calls.set(id, { resolve: resolve as (v: unknown) => void, reject });
        post({ type: 'call', id, name, args });
      });
    },
    blob<T>(key: string): T {
      if (!blobs.has(key)) throw new Error(`pool-worker: blob ${key} was never sent to this process`);
      return blobs.get(key) as T;
    },
    cache: new Map(),
  };

  process.on('message', (msg: HostMessage) => {
    if (msg.type === 'blob') {
      blobs.set(msg.key, msg.data);
    } else if (msg.type === 'reply') {
      const call = calls.get(msg.id);
      calls.delete(msg.id);
      if (msg.ok) call?.resolve(msg.value);
      else call?.reject(new Error(msg.message));
    } else if (msg.type === 'drop') {
      blobs.delete(msg.key);
    } else if (msg.type === 'task') {
      void runTask(msg.id, msg.handler, msg.payload);
    }
  });

  async function runTask(id: number, name: string, payload: unknown): Promise<void> {
    const handler = handlers[name];
    try {
      if (!handler) throw new Error(`no handler named ${name}`);
      const value = await handler(payload, ctx);
      try {
        post({ type: 'result', id, ok: true, value });
      } catch (err) {
        throw new Error(`handler ${name} returned a value that cannot be sent to the host: ${(err as Error).message}`);
      }
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      post({ type: 'result', id, ok: false, message: e.message, name: e.name, ...(e.stack ? { stack: e.stack } : {}) });
    }
  }

  post({ type: 'ready' });
}

void start();
