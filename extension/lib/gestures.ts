// The gesture engine's extension backend (shared/gestures/port.ts; docs/design/extension.md, "The extension's trusted
// input"): the control's frame says where a thing is (`point`: scrolled into view, not covered) or focuses it, and
// answers the engine's questions (`ask`, `changed`); the worker sends a person's input there with chrome.debugger. The
// procedures themselves are shared/gestures/engine.ts, the same as the runner's.
import { askUntil, GESTURE_SHOWS_MS } from '../../shared/gestures/engine.ts';
import { PageAnswers, type Aim, type GestureInput, type PageQuestion } from '../../shared/gestures/port.ts';
import { keyStrokes, type Key, type KeyStroke } from '../../shared/keys.ts';
import type { Verb } from '../../shared/schema/observation.ts';
import { SurfaceError } from '../../shared/surface.ts';
import type { FrameCall, FrameReply } from './messages.ts';

type Point = { x: number; y: number };

/** One input event sent as a person's, at CSS pixels of the tab's top viewport; or text inserted where the focus is. */
export type TrustedEvent =
  | { kind: 'key'; stroke: KeyStroke }
  | { kind: 'mouse'; type: 'mouseMoved' | 'mousePressed' | 'mouseReleased'; x: number; y: number; clickCount?: number; button?: 'right' }
  | { kind: 'text'; text: string };

/**
 * A pointer moved to a point, then `count` presses there, each numbered as a browser numbers a double-click's; with
 * the secondary button for a right-click (the browser then fires `contextmenu`, as for a person's).
 */
export function clicksAt(p: Point, count: 1 | 2, button?: 'right'): TrustedEvent[] {
  const out: TrustedEvent[] = [{ kind: 'mouse', type: 'mouseMoved', ...p }];
  const which = button ? { button } : {};
  for (let n = 1; n <= count; n++) {
    out.push({ kind: 'mouse', type: 'mousePressed', ...p, clickCount: n, ...which }, { kind: 'mouse', type: 'mouseReleased', ...p, clickCount: n, ...which });
  }
  return out;
}

/** What the backend needs of the surface: one frame's calls, its points moved into the top viewport, the input sent. */
export interface FrameLink {
  call(c: FrameCall): Promise<FrameReply>;
  /** A `point` reply's point moved into the top viewport; a failed reply thrown as its SurfaceError. */
  placed(reply: FrameReply): Promise<Point>;
  /** Attaches trusted input (once, before the first point is measured). */
  ready(): Promise<void>;
  input(events: readonly TrustedEvent[]): Promise<void>;
}

/** Keys as trusted key events. */
export function keyEvents(key: Key): TrustedEvent[] {
  return keyStrokes(key).map((stroke) => ({ kind: 'key' as const, stroke }));
}

/** The input port over one control of one frame (`ref` local to it), for the verb `verb` and the value `value`. */
export function trustedInput(link: FrameLink, ref: string, verb: Verb, value: string): GestureInput {
  let attached: Promise<void> | null = null;
  const changed = async (ms: number): Promise<void> => {
    await link.call({ op: 'changed', ms }).catch(() => new Promise((r) => setTimeout(r, ms)));
  };
  /**
   * Where the thing aimed at is, or it focused (`focus`). A thing covered for a moment (a closing list's backdrop, an
   * animation) is waited for, as Playwright's actionability checks wait on the runner; still covered after
   * GESTURE_SHOWS_MS, the gesture fails saying by what.
   */
  const point = async (at: Aim, focus: boolean, tidy = false): Promise<Point> => {
    attached ??= link.ready();
    await attached;
    const c: FrameCall = { op: 'point', ref, verb: focus ? 'press' : verb, at, ...(value !== '' ? { value } : {}) };
    let failure: unknown = null;
    const got = await askUntil(
      () =>
        link.call(c).then((r) => link.placed(r)).catch((e: unknown) => {
          if (!(e instanceof SurfaceError) || e.code !== 'ACTION_FAILED') throw e;
          failure = e;
          return null;
        }),
      (p) => p !== null,
      tidy ? 0 : GESTURE_SHOWS_MS,
      changed,
    );
    if (got === null) throw failure as Error;
    return got;
  };
  return {
    async hover(at) {
      await link.input([{ kind: 'mouse', type: 'mouseMoved', ...(await point(at, false)) }]);
    },
    async click(at, how) {
      await link.input(clicksAt(await point(at, false, how?.tidy), how?.count ?? 1, how?.button));
    },
    async key(key, at) {
      if (at) await point(at, true);
      else {
        attached ??= link.ready();
        await attached;
      }
      await link.input(keyEvents(key));
    },
    async type(text) {
      // The frame focuses the field and selects what it holds: the text inserted replaces it, as a person's typing.
      await point('field', true);
      await link.input([{ kind: 'text', text }]);
    },
    async ask<Q extends PageQuestion>(q: Q): Promise<PageAnswers[Q]> {
      const reply = await link.call({ op: 'ask', ref, question: q, ...(value !== '' ? { value } : {}) });
      if (!reply.ok) throw new SurfaceError(reply.code, reply.message);
      const parsed = PageAnswers.shape[q].safeParse(reply.answer);
      if (!parsed.success) throw new SurfaceError('ACTION_FAILED', `the frame answered ${q} with something that is not an answer`);
      return parsed.data as PageAnswers[Q];
    },
    changed,
  };
}
