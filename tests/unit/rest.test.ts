// A first screen at rest (shared/rest.ts): not busy, and the same signature and text across the quiet window; a page
// that never gets there is said so with why. A scripted clock: no test here sleeps.
import { describe, expect, it } from 'vitest';
import { untilAtRest } from '../../shared/rest.ts';
import type { Observation } from '../../shared/schema/observation.ts';
import { SurfaceError } from '../../shared/surface.ts';

type Frame = { at: number; signature: string; text?: string; busy?: boolean; stale?: boolean };

/** A page showing `frames[i]` from `frames[i].at` ms on, on a clock that moves only when the loop sleeps. */
function page(frames: Frame[]) {
  let t = 0;
  let looks = 0;
  const look = (): Promise<Observation> => {
    looks++;
    const f = [...frames].reverse().find((x) => x.at <= t) as Frame;
    if (f.stale) return Promise.reject(new SurfaceError('STALE', 'replaced'));
    return Promise.resolve({ signature: f.signature, parts: [{ text: f.text ?? '' }], ...(f.busy ? { busy: true } : {}) } as unknown as Observation);
  };
  const run = (timeoutMs = 5_000, quietMs = 300) =>
    untilAtRest({ look, observation: (o) => o, timeoutMs, quietMs, now: () => t, sleep: (ms) => Promise.resolve(void (t += ms)) });
  return { run, looks: () => looks, time: () => t };
}

describe('untilAtRest', () => {
  it('a page already at rest takes two looks, the quiet window apart', async () => {
    const p = page([{ at: 0, signature: 'app' }]);
    const r = await p.run();
    expect(r).toMatchObject({ atRest: true, ms: 300 });
    expect(p.looks()).toBe(2);
  });

  it('a busy loading screen, however still, is waited out; the app after it must hold still too', async () => {
    const p = page([
      { at: 0, signature: 'splash', busy: true },
      { at: 2_000, signature: 'app' },
    ]);
    const r = await p.run();
    expect(r.atRest).toBe(true);
    expect(r.atRest && r.look.signature).toBe('app');
    expect(p.time()).toBeGreaterThanOrEqual(2_300);
  });

  it('a screen whose text keeps changing is not at rest until it stops', async () => {
    const churn: Frame[] = Array.from({ length: 20 }, (_, i) => ({ at: i * 100, signature: 'splash', text: `Loading ${i}` }));
    const p = page([...churn, { at: 2_000, signature: 'app', text: 'Accounts' }]);
    const r = await p.run();
    expect(r.atRest && r.look.parts[0]?.text).toBe('Accounts');
  });

  it('a document replaced under the walker (STALE) is the screen still changing', async () => {
    const p = page([
      { at: 0, signature: 'x', stale: true },
      { at: 500, signature: 'app' },
    ]);
    const r = await p.run();
    expect(r.atRest && r.look.signature).toBe('app');
  });

  it('a page that never stops loading ends not at rest, saying why, with what it showed', async () => {
    const busy = await page([{ at: 0, signature: 'splash', busy: true }]).run(1_000);
    expect(busy).toMatchObject({ atRest: false, why: 'busy' });
    expect(busy.look?.signature).toBe('splash');
    const churn = await page(Array.from({ length: 50 }, (_, i) => ({ at: i * 100, signature: `s${i}` }))).run(1_000);
    expect(churn).toMatchObject({ atRest: false, why: 'changing' });
    const unseen = await page([{ at: 0, signature: 'x', stale: true }]).run(1_000);
    expect(unseen).toMatchObject({ atRest: false, why: 'unseen', look: null });
  });

  it('a quiet window of 0 takes the first look not busy', async () => {
    const p = page([{ at: 0, signature: 'app' }]);
    expect(await p.run(1_000, 0)).toMatchObject({ atRest: true, ms: 0 });
    expect(p.looks()).toBe(1);
  });
});
