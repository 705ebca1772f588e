// After an action the authoring loop must see the screen it led to before the book line is written. Unlike
// replay, nothing says which screen to wait for, so it waits for the furniture to stop changing: a new
// signature seen on consecutive looks, or the old one holding through a quiet window.
import type { Observation } from '../schema/observation.ts';
import { SurfaceError, type Surface } from '../surface.ts';

export interface SettleOptions {
  /** Pause between looks. */
  pollMs?: number;
  /** How long an unchanged screen must hold before an action is taken to have changed nothing. */
  quietMs?: number;
  /** Give up waiting and take what is showing. */
  maxMs?: number;
  /** How long, from the first look, a moving screen (a finite animation or transition running) is waited for. */
  movingMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One look, retried while a frame is navigating under the walker (STALE). */
export async function look(surface: Surface, maxMs = 5_000, pollMs = 50): Promise<Observation> {
  const deadline = Date.now() + maxMs;
  for (;;) {
    try {
      return await surface.observe();
    } catch (e) {
      if (!(e instanceof SurfaceError && e.code === 'STALE') || Date.now() >= deadline) throw e;
    }
    await sleep(pollMs);
  }
}

/**
 * Waits for the screen an action led to. Before each look, a document on its way (a click's navigation, a frame's
 * page) is waited for on the surface's load events, for at most the quiet window, as replay does: a page is not
 * looked at between two documents, where its first part holding still would pass for the screen. A load still on
 * its way after that is left to the looks (docs/design/replay.md, "Settling").
 */
export async function settleAfter(surface: Surface, before: string, opts: SettleOptions = {}): Promise<Observation> {
  const pollMs = opts.pollMs ?? 50;
  const quietMs = opts.quietMs ?? 600;
  const deadline = Date.now() + (opts.maxMs ?? 8_000);
  // A screen in motion — a list fading out, with the page behind it still covered or hidden — is on its way: it is
  // not taken as where the action led while it moves, for a bounded time (a page animating forever is not waited
  // out). The replay engine does not need this: it waits for the screen it expects (docs/design/replay.md, "Settling").
  const stillUntil = Date.now() + Math.min(opts.movingMs ?? 2_000, opts.maxMs ?? 8_000);
  const loadsEnded = async (): Promise<void> => {
    const ms = Math.min(quietMs, deadline - Date.now());
    if (surface.loaded && ms > 0) await surface.loaded(ms);
  };
  await loadsEnded();
  // The page's clock runs the quiet window too, from the action on: what the action set a timer for — a filter 500 ms
  // after the last key, while the key showed a clear button at once — is part of where it led, and on a loaded
  // machine the page's timers run late. Only a look begun after the page's window ended may say where the action led
  // (a new screen) or that it changed nothing.
  let pageQuiet = surface.quiet === undefined;
  void surface.quiet?.(quietMs).then(
    () => (pageQuiet = true),
    () => (pageQuiet = true),
  );
  let lookedAfterQuiet = pageQuiet;
  let last = await look(surface);
  let since = Date.now();
  let repeats = 0;
  // A busy screen (loading, a busy region, a progress bar) is not where the action led yet, whatever it shows; nor
  // is a moving one, for a while. Only looks at rest in a row count towards the repeats: a list faded out but not yet
  // taken away (MUI removes it on a timer after its transition) is seen still, at rest, before it goes.
  const rests = (o: Observation): boolean => !o.busy && !(o.moving && Date.now() < stillUntil);
  let resting = rests(last);
  for (;;) {
    if (resting && last.signature !== before && repeats >= 2 && lookedAfterQuiet) return last;
    if (resting && last.signature === before && Date.now() - since >= quietMs && lookedAfterQuiet) return last;
    if (Date.now() >= deadline) return last;
    await sleep(pollMs);
    await loadsEnded();
    const quietBefore = pageQuiet;
    const obs = await look(surface);
    lookedAfterQuiet = quietBefore;
    const now = rests(obs);
    // The quiet window runs from the last change of signature (a busy flag flickering on a poll does not restart it);
    // the repeats need looks at rest in a row.
    if (obs.signature !== last.signature) since = Date.now();
    repeats = obs.signature === last.signature && now && resting ? repeats + 1 : 0;
    last = obs;
    resting = now;
  }
}
