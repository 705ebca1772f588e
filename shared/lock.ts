// In-process mutual exclusion, written once: the guard's one-call-at-a-time, the journal's and the
// evidence log's append order, the MCP service's per-key queue and concurrency limit, and the extension's
// per-session queue all use these. They order promises inside one JavaScript realm and nothing more: keeping
// other processes off a journal is the OS-level lease's job (runner/lease.ts), not this module's.
//
// Every holder runs after the one before it has settled, fulfilled or rejected: one failure never jams the
// queue, and its caller still sees the rejection.

const settledOf = (p: Promise<unknown>): Promise<void> =>
  p.then(
    () => undefined,
    () => undefined,
  );

/** One at a time, in the order `run` was called. */
export class Lock {
  #tail: Promise<void> = Promise.resolve();

  /** Runs `fn` once every earlier holder has settled; the returned promise is `fn`'s own outcome. */
  run<T>(fn: () => T | Promise<T>): Promise<T> {
    const next = this.#tail.then(fn, fn);
    this.#tail = settledOf(next);
    return next;
  }

  /** Settles once everything queued so far has settled (never rejects). */
  idle(): Promise<void> {
    return this.#tail;
  }
}

/** One at a time per key; different keys run side by side. A key's entry is dropped when its queue empties. */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => T | Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve();
    const mine = before.then(fn, fn);
    const tail = settledOf(mine);
    this.#tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** How many keys have a holder or a waiter (0 when all is quiet). */
  get size(): number {
    return this.#tails.size;
  }
}

/** A counting semaphore: at most `limit` holders at once, the rest wait in arrival order. */
export class Semaphore {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!(Number.isInteger(limit) && limit >= 1)) throw new RangeError(`a semaphore's limit must be a whole number of at least 1, got ${limit}`);
    this.#free = limit;
  }

  async run<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((r) => this.#waiting.push(r));
    try {
      return await fn();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
