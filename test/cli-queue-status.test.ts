import { describe, expect, it } from 'vitest';
import { progressLine } from '../src/cli/commands/bench.ts';
import { queueStatusLines } from '../src/cli/queue-status.ts';

describe('queue progress on the terminal', () => {
  it('prints a queue line only when its workers or waiting groups change', () => {
    const line = queueStatusLines();
    expect(line({ workers: 2, waiting: 5 })).toBe('queue: 2 workers, 5 groups waiting');
    expect(line({ workers: 2, waiting: 5 })).toBeNull();
    expect(line({ workers: 1, waiting: 5 })).toBe('queue: 1 workers, 5 groups waiting');
    expect(line({ workers: 1, waiting: 0 })).toBe('queue: 1 workers, 0 groups waiting');
  });

  it('bench shows queue events beside its search progress', () => {
    expect(progressLine({ type: 'queue', workers: 2, waiting: 3 }, 65)).toBe('[1:05]   queue: 2 workers, 3 groups waiting');
  });
});
