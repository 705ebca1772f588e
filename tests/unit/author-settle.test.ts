// Authoring's settle after an action (shared/author/settle.ts): what it waits for, on a surface whose page is scripted
// by the clock.
import { describe, expect, it } from 'vitest';
import { settleAfter } from '../../shared/author/settle.ts';
import type { Observation } from '../../shared/schema/observation.ts';
import type { Surface } from '../../shared/surface.ts';

/**
 * A page that shows `frames[i].signature` from `frames[i].at` ms after the act, optionally busy, and (when `loadsUntil`
 * is given) reports a document on its way until then through `loaded`, as the browser surface does.
 */
function scripted(frames: { at: number; signature: string; busy?: boolean; moving?: boolean }[], loadsUntil?: number, pageLagsUntil?: number) {
  const began = Date.now();
  const looks: { at: number; signature: string }[] = [];
  const surface = {
    async observe(): Promise<Observation> {
      const at = Date.now() - began;
      const showing = [...frames].reverse().find((f) => f.at <= at) ?? frames[0]!;
      looks.push({ at, signature: showing.signature });
      return { signature: showing.signature, busy: showing.busy ?? false, ...(showing.moving ? { moving: true } : {}) } as unknown as Observation;
    },
    // A loaded machine: the page's own timers run late, so a timer it set for `ms` fires no sooner than `pageLagsUntil`.
    ...(pageLagsUntil === undefined
      ? {}
      : {
          async quiet(ms: number): Promise<void> {
            await new Promise((r) => setTimeout(r, Math.max(ms, pageLagsUntil - (Date.now() - began))));
          },
        }),
    ...(loadsUntil === undefined
      ? {}
      : {
          async loaded(ms: number): Promise<boolean> {
            const left = loadsUntil - (Date.now() - began);
            if (left <= 0) return true;
            await new Promise((r) => setTimeout(r, Math.min(ms, left)));
            return left <= ms;
          },
        }),
  } as unknown as Surface;
  return { surface, looks };
}

describe('authoring settles where the action led', () => {
  it('a new screen seen on three looks in a row is where the action led', async () => {
    const { surface } = scripted([
      { at: 0, signature: 'before' },
      { at: 100, signature: 'after' },
    ]);
    const obs = await settleAfter(surface, 'before', { pollMs: 20, quietMs: 600, maxMs: 3000 });
    expect(obs.signature).toBe('after');
  });

  it('an action that changed nothing is taken as such after the quiet window', async () => {
    const { surface, looks } = scripted([{ at: 0, signature: 'before' }]);
    const obs = await settleAfter(surface, 'before', { pollMs: 20, quietMs: 200, maxMs: 3000 });
    expect(obs.signature).toBe('before');
    expect(looks.at(-1)!.at).toBeGreaterThanOrEqual(200);
  });

  it('the page’s own clock ends the quiet window: a debounced filter that ran late, after a clear button shown at once, is where the action led', async () => {
    // A search box filters 500 ms after the last key (Node-RED's explorer); the page's timers run 400 ms late, so the
    // filter shows at 900 ms, after a 600 ms quiet window by the wall clock. A timer the page runs for the window fires
    // only after the filter's, which was set first (HTML §8.6 timers run in the order they are due).
    const frames = [
      { at: 0, signature: 'before' },
      { at: 900, signature: 'filtered' },
    ];
    const { surface } = scripted(frames, undefined, 900);
    expect((await settleAfter(surface, 'before', { pollMs: 20, quietMs: 600, maxMs: 5000 })).signature).toBe('filtered');
    // A key that shows a clear button at once and filters later: the clear button alone is not where it led.
    const twoStage = scripted([{ at: 0, signature: 'before' }, { at: 30, signature: 'clear button' }, { at: 900, signature: 'filtered' }], undefined, 900);
    expect((await settleAfter(twoStage.surface, 'before', { pollMs: 20, quietMs: 600, maxMs: 5000 })).signature).toBe('filtered');
    // With a page on time, it costs nothing: an action that changed nothing is taken as such after the quiet window.
    const onTime = scripted([{ at: 0, signature: 'before' }], undefined, 0);
    const began = Date.now();
    expect((await settleAfter(onTime.surface, 'before', { pollMs: 20, quietMs: 300, maxMs: 5000 })).signature).toBe('before');
    expect(Date.now() - began).toBeLessThan(1000);
  });

  it('a screen in motion (a list fading out over the page) is not where the action led while it moves', async () => {
    const { surface } = scripted([
      { at: 0, signature: 'list' },
      { at: 30, signature: 'page-covered', moving: true },
      { at: 500, signature: 'page' },
    ]);
    const obs = await settleAfter(surface, 'list', { pollMs: 20, quietMs: 600, maxMs: 3000 });
    expect(obs.signature).toBe('page');
  });

  it('a list faded out but not yet taken away is seen at rest before it goes: the looks while it moved do not count', async () => {
    // MUI takes its list away on a timer a moment after its transition ends (review finding, session 11).
    const { surface } = scripted([
      { at: 0, signature: 'list' },
      { at: 30, signature: 'covered', moving: true },
      { at: 400, signature: 'covered' },
      { at: 450, signature: 'page' },
    ]);
    // Three looks at rest take at least 80 ms here: the 50 ms at rest is never three of them.
    const obs = await settleAfter(surface, 'list', { pollMs: 40, quietMs: 600, maxMs: 3000 });
    expect(obs.signature).toBe('page');
  });

  it('an action that changed nothing on a page whose poller flickers busy is still taken as such after the quiet window', async () => {
    // A dashboard sets aria-busy for 200 ms of every 500 (review finding, session 11): the quiet window runs from the
    // last change of signature, not from the last busy look.
    const frames = Array.from({ length: 12 }, (_, i) => [
      { at: i * 500, signature: 'before', busy: true },
      { at: i * 500 + 200, signature: 'before' },
    ]).flat();
    const { surface, looks } = scripted(frames);
    const obs = await settleAfter(surface, 'before', { pollMs: 20, quietMs: 300, maxMs: 5000 });
    expect(obs.signature).toBe('before');
    expect(looks.at(-1)!.at).toBeLessThan(1500);
  });

  it('a page that never stops moving is waited for only movingMs, then taken as it shows', async () => {
    const { surface, looks } = scripted([
      { at: 0, signature: 'before' },
      { at: 20, signature: 'after', moving: true },
    ]);
    const obs = await settleAfter(surface, 'before', { pollMs: 20, quietMs: 600, maxMs: 5000, movingMs: 300 });
    expect(obs.signature).toBe('after');
    expect(looks.at(-1)!.at).toBeGreaterThanOrEqual(300);
    expect(looks.at(-1)!.at).toBeLessThan(4000);
  });

  it('a busy screen is never where the action led, however long it holds', async () => {
    const { surface } = scripted([
      { at: 0, signature: 'spinner', busy: true },
      { at: 400, signature: 'after' },
    ]);
    const obs = await settleAfter(surface, 'before', { pollMs: 20, quietMs: 100, maxMs: 3000 });
    expect(obs.signature).toBe('after');
  });

  it('a document on its way is waited for on its load events, not taken for the screen when its first part holds still', async () => {
    // The next page streams: its header shows (and holds) for 400 ms before the rest is parsed.
    const frames = [
      { at: 0, signature: 'before' },
      { at: 50, signature: 'header only' },
      { at: 450, signature: 'after' },
    ];
    const polled = scripted(frames);
    expect((await settleAfter(polled.surface, 'before', { pollMs: 20, quietMs: 600, maxMs: 3000 })).signature).toBe('header only');
    const loading = scripted(frames, 450);
    expect((await settleAfter(loading.surface, 'before', { pollMs: 20, quietMs: 600, maxMs: 3000 })).signature).toBe('after');
    // It did not look while the document was on its way.
    expect(loading.looks.filter((l) => l.at > 60 && l.at < 440)).toEqual([]);
  });

  it('a load that never ends is waited for no longer than the quiet window, then the looks decide', async () => {
    const { surface } = scripted([{ at: 0, signature: 'before' }, { at: 50, signature: 'after' }], 60_000);
    const began = Date.now();
    const obs = await settleAfter(surface, 'before', { pollMs: 20, quietMs: 150, maxMs: 5000 });
    expect(obs.signature).toBe('after');
    expect(Date.now() - began).toBeLessThan(4000);
  });
});
