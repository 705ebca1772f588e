// The one in-process lock: holders run one at a time in call order, a failure never jams the queue, keys are independent, and a semaphore admits at most its limit.
import { describe, expect, it } from 'vitest';
import { KeyedLock, Lock, Semaphore } from '../../shared/lock.ts';

const tick = (ms = 1): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('Lock', () => {
  it('runs "fill, fill, click" in the order given, each finishing before the next starts', async () => {
    const lock = new Lock();
    const log: string[] = [];
    const step = (name: string, ms: number) => () =>
      (async () => {
        log.push(`${name} start`);
        await tick(ms);
        log.push(`${name} end`);
        return name;
      })();
    const got = await Promise.all([lock.run(step('fill a', 15)), lock.run(step('fill b', 5)), lock.run(step('click', 1))]);
    expect(got).toEqual(['fill a', 'fill b', 'click']);
    expect(log).toEqual(['fill a start', 'fill a end', 'fill b start', 'fill b end', 'click start', 'click end']);
  });

  it('hands a failure to its own caller and goes on with the next holder', async () => {
    const lock = new Lock();
    const first = lock.run(() => Promise.reject(new Error('boom')));
    const second = lock.run(() => 'after');
    await expect(first).rejects.toThrow('boom');
    await expect(second).resolves.toBe('after');
  });

  it('runs a holder that throws synchronously as a rejection, not an escape', async () => {
    const lock = new Lock();
    await expect(
      lock.run(() => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    await expect(lock.run(() => 1)).resolves.toBe(1);
  });

  it('idle() waits for everything queued so far and never rejects', async () => {
    const lock = new Lock();
    let done = false;
    void lock.run(async () => {
      await tick(10);
      done = true;
    });
    lock.run(() => Promise.reject(new Error('ignored by idle'))).catch(() => undefined);
    await lock.idle();
    expect(done).toBe(true);
  });
});

describe('KeyedLock', () => {
  it('serialises one key and lets another key run alongside', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const hold = (name: string, ms: number) => async () => {
      log.push(`${name}+`);
      await tick(ms);
      log.push(`${name}-`);
    };
    await Promise.all([lock.run('a', hold('a1', 15)), lock.run('a', hold('a2', 1)), lock.run('b', hold('b1', 1))]);
    expect(log.indexOf('a1-')).toBeLessThan(log.indexOf('a2+'));
    expect(log.indexOf('b1+')).toBeLessThan(log.indexOf('a1-'));
  });

  it('forgets a key once its queue is empty, after a failure too', async () => {
    const lock = new KeyedLock();
    await expect(lock.run('k', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    await lock.run('k', () => undefined);
    expect(lock.size).toBe(0);
  });
});

describe('Semaphore', () => {
  it('admits at most its limit at once, the rest in arrival order', async () => {
    const sem = new Semaphore(2);
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        sem.run(async () => {
          inside++;
          most = Math.max(most, inside);
          order.push(i);
          await tick(5);
          inside--;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('frees the slot of a holder that failed', async () => {
    const sem = new Semaphore(1);
    await expect(sem.run(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(sem.run(() => 'next')).resolves.toBe('next');
  });

  it('refuses a limit that is not a whole number of at least 1', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
    expect(() => new Semaphore(1.5)).toThrow(RangeError);
  });
});
