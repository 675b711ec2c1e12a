/** A counting semaphore: at most `limit` tasks run at once, the rest wait in arrival order. */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  }

  /** Tasks running now. */
  get running(): number {
    return this.active;
  }

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // hand the slot straight to the next waiter, so `active` never dips and lets a newcomer jump the queue
      if (next) next();
      else this.active--;
    }
  }
}
