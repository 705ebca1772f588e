// The gesture engine's Playwright backend (shared/gestures/port.ts): points are elements found by the walker in the
// control's own frame, and the input is Playwright's (whose actionability checks wait for a covered element). The
// procedures themselves are shared/gestures/engine.ts, the same as the extension's.
import type { ElementHandle, Page } from 'playwright-core';
import type { Aim, GestureInput, Press } from '../../shared/gestures/port.ts';
import { SurfaceError } from '../../shared/surface.ts';
import { aimedAt, FRAME_GONE, gestureAnswerOf } from './observe.ts';

/** Playwright errors that mean "the document changed under us" (runner/browser/surface.ts reads them the same). */
export function isStale(e: unknown): boolean {
  const m = e instanceof Error ? e.message : String(e);
  return FRAME_GONE.test(m) || /Execution context was destroyed|Target closed|Cannot find context|navigation|__handrail is not defined|Element is not attached/i.test(m);
}

/** A page's error as the engine reads errors: STALE when the document went away, else as it was. */
function asSurfaceError(e: unknown): unknown {
  return isStale(e) && !(e instanceof SurfaceError) ? new SurfaceError('STALE', e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e)) : e;
}

/** The input port over one element of a Playwright page, for one `choose` value. */
export function playwrightInput(page: Page, el: ElementHandle<Element>, value: string): GestureInput {
  const aim = async (at: Aim): Promise<ElementHandle<Element>> => {
    if (at === 'target') return el;
    const got = await aimedAt(el, at, value).catch((e: unknown) => Promise.reject(asSurfaceError(e) as Error));
    if (typeof got === 'string') throw new SurfaceError('ACTION_FAILED', got);
    return got;
  };
  return {
    async hover(at) {
      await (await aim(at)).hover();
    },
    async click(at, how?: Press) {
      const h = await aim(at);
      if (how?.count === 2) await h.dblclick();
      else await h.click({ ...(how?.button ? { button: how.button } : {}), ...(how?.tidy ? { timeout: 1_000 } : {}) });
    },
    async key(key, at) {
      if (!at) return void (await page.keyboard.press(key));
      const h = await aim(at);
      await h.focus();
      await h.press(key);
    },
    async type(text) {
      await (await aim('field')).fill(text);
    },
    ask(q) {
      return gestureAnswerOf(el, q, value).catch((e: unknown) => Promise.reject(asSurfaceError(e) as Error));
    },
    async changed(ms) {
      // A MutationObserver on the control's document (DOM Standard §4.3): any change there wakes the engine.
      await el
        .evaluate(
          (e, wait) =>
            // No named helper inside: this runs in the page, where a bundler's name-keeping wrapper is not defined.
            new Promise<void>((resolve) => {
              const seen = new MutationObserver(() => {
                seen.disconnect();
                resolve();
              });
              seen.observe(e.ownerDocument, { subtree: true, childList: true, attributes: true, characterData: true });
              setTimeout(() => {
                seen.disconnect();
                resolve();
              }, wait);
            }),
          ms,
        )
        .catch(() => new Promise((r) => setTimeout(r, ms)));
    },
  };
}
