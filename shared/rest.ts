// A first screen at rest: the one rule `handrail observe`, authoring's first look (the CLI's and the extension's) and
// replay's first screen share (docs/design/replay.md, "A first screen at rest"). A single-page app boots through a
// loading screen (a progress bar, an `aria-busy` region, a spinner and "Loading…") that is as still as any screen, so
// a look is taken for the first screen only when no part is busy (the surface's `busy`: a frame loading, a busy
// region, a progress bar, a loading message) and the screen — its signature and its text — has held still for a
// quiet window. A page that never comes to rest is said so, never silently named.
import type { Observation } from './schema/observation.ts';
import { SurfaceError } from './surface.ts';

/** How long a first screen must hold still, not busy, to be at rest. */
export const REST_QUIET_MS = 300;
/** How long a first screen is waited for by a caller that is given no bound. */
export const REST_TIMEOUT_MS = 10_000;
/** The pause before each look after the first: quick at first (most pages are at rest already), then steady. */
const POLL_STEPS_MS = [10, 20, 40, 80, 120];

export interface UntilAtRest<T> {
  /** One look (an observation, or a caller's own record holding one). */
  look: () => Promise<T>;
  observation: (t: T) => Observation;
  timeoutMs?: number;
  quietMs?: number;
  /** The surface's wait for a document on its way (`Surface.loaded`), asked before each look. */
  loaded?: (ms: number) => Promise<unknown>;
  /** How long that wait may be before each look (default the quiet window). */
  loadedMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export type AtRest<T> =
  | { atRest: true; look: T; ms: number }
  /** `busy`: the last look had a busy part; `changing`: it kept changing; `unseen`: every look was refused STALE. */
  | { atRest: false; look: T | null; ms: number; why: 'busy' | 'changing' | 'unseen' };

/** What must hold still: the furniture and the words. */
function stateOf(obs: Observation): string {
  return `${obs.signature}\n${obs.parts.map((p) => p.text).join('\n')}`;
}

/** Looks until the screen is at rest (not busy, unchanged for `quietMs`), or the bound ends. */
export async function untilAtRest<T>(o: UntilAtRest<T>): Promise<AtRest<T>> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const quiet = o.quietMs ?? REST_QUIET_MS;
  const began = now();
  const deadline = began + (o.timeoutMs ?? REST_TIMEOUT_MS);
  let last: T | null = null;
  let state: string | null = null;
  let since = began;
  let busy = false;
  for (let attempt = 0; ; attempt++) {
    const left = deadline - now();
    if (o.loaded && left > 0) await o.loaded(Math.min(Math.max(o.loadedMs ?? quiet, 1), left));
    try {
      const seen = await o.look();
      const obs = o.observation(seen);
      last = seen;
      busy = obs.busy === true;
      const s = busy ? null : stateOf(obs);
      if (s === null || s !== state) since = now();
      state = s;
      if (s !== null && now() - since >= quiet) return { atRest: true, look: seen, ms: now() - began };
    } catch (e) {
      // A document replaced under the walker (a frame navigating) is the screen still changing.
      if (!(e instanceof SurfaceError && e.code === 'STALE')) throw e;
      state = null;
      since = now();
    }
    if (now() >= deadline) return { atRest: false, look: last, ms: now() - began, why: last === null ? 'unseen' : busy ? 'busy' : 'changing' };
    // A screen not busy is looked at again when its quiet window ends (two looks for a page already at rest); a busy
    // one on the poll's steps, so the look after it ends comes soon.
    const pause = state !== null ? since + quiet - now() : (POLL_STEPS_MS[Math.min(attempt, POLL_STEPS_MS.length - 1)] ?? 120);
    await sleep(Math.max(0, Math.min(pause, deadline - now())));
  }
}

/** Why a first screen was not at rest, in a clause: "a progress bar, … still shows" / "it kept changing". */
export function notAtRestWhy(why: 'busy' | 'changing' | 'unseen'): string {
  if (why === 'busy') return 'a progress bar, a busy region or a loading message still shows, or a part is still loading';
  if (why === 'changing') return 'it kept changing';
  return 'it could not be looked at (its document kept being replaced)';
}
