// Observing a Playwright page and reaching into it by ref: the walker runs in every frame, its controls get
// page-wide refs, and the frames' paths are joined into one screen (shared/screens.ts). Refs and frame paths are
// spelled by shared/ref.ts and frames are found by runner/browser/frames.ts; the browser surface, the authoring
// helpers and the walker's own tests all come through here.
import type { ElementHandle, Frame, Page } from 'playwright-core';
import type { DocumentObservation, FindQuery, InPage } from '../../shared/dom/api.ts';
import { WIRE_VERSION } from '../../shared/dom/wire.ts';
import { formatRef, frameKey, frameObservation, parseRef, type FramePath } from '../../shared/ref.ts';
import type { Part, Observation, SurfaceRows } from '../../shared/schema/observation.ts';
import type { MenuPick } from '../../shared/surface.ts';
import type { Aim, PageAnswers, PageQuestion } from '../../shared/gestures/port.ts';
import { combineParts } from '../../shared/screens.ts';
import { frameAt, framePath } from './frames.ts';
import { WALKER_VERSION, walkerSource } from './walker-bundle.ts';
import { fromWire } from './wire.ts';

type WithWalker = typeof globalThis & { __handrail?: InPage };

/** Installs the walker in a frame's document unless this walker version is already there. */
export async function ensureWalker(frame: Frame): Promise<void> {
  const present = await frame.evaluate((v) => (globalThis as WithWalker).__handrail?.version === v, WALKER_VERSION);
  if (present) return;
  await frame.evaluate(await walkerSource());
}

/** One round trip when the walker is already installed; the result crosses as one JSON string, which
 *  Playwright moves several times faster than the same value as a nested object, in the walker's compact wire form
 *  (docs/design/walker.md, "The walker", "The wire form"). A walker of this version that another build installed
 *  without that form answers plain JSON. */
async function observeDocument(frame: Frame): Promise<DocumentObservation> {
  const run = () =>
    frame.evaluate(
      ([v, w]) => {
        const api = (globalThis as WithWalker).__handrail;
        if (!api || api.version !== v) return null;
        return api.wireVersion === w ? api.observeWire() : JSON.stringify(api.observe());
      },
      [WALKER_VERSION, WIRE_VERSION] as const,
    );
  let json = await run();
  if (json === null) {
    await frame.evaluate(await walkerSource());
    json = await run();
  }
  if (json === null) throw new Error(`the walker did not install in frame ${frame.url()}`);
  const parsed = JSON.parse(json) as DocumentObservation | { wire: unknown };
  return 'wire' in parsed ? fromWire(parsed) : parsed;
}

async function observeFrame(frame: Frame): Promise<Part> {
  if (await pendingNavigation(frame)) {
    // Never touch a frame that is still on its first empty document while its own page is on the way: evaluating
    // script in it there can cancel that navigation in Chromium (a slow server then leaves the frame blank for good).
    // The part is reported empty and busy, so settling waits for it (docs/design/replay.md, "Settling").
    return frameObservation(await framePath(frame), { url: 'about:blank', title: '', controls: [], paths: [], text: '', busy: true });
  }
  const [doc, path] = await Promise.all([observeDocument(frame), framePath(frame)]);
  return frameObservation(path, doc);
}

/** A child frame still showing its initial about:blank while its element names another page to load. */
export async function pendingNavigation(frame: Frame): Promise<boolean> {
  if (!frame.parentFrame()) return false;
  const url = frame.url();
  if (url !== '' && url !== 'about:blank') return false;
  const el = await frame.frameElement().catch(() => null);
  if (!el) return false;
  try {
    const src = await el.evaluate((n) => {
      const e = n as Element;
      return e.getAttribute('srcdoc') !== null ? '' : (e.getAttribute('src') ?? '').trim();
    });
    return src !== '' && !/^about:blank/i.test(src) && !/^javascript:/i.test(src);
  } catch {
    return false;
  } finally {
    await el.dispose().catch(() => undefined);
  }
}

/** Every frame that has a document we can reach, about:blank and unnamed frames included. */
function liveFrames(page: Page): Frame[] {
  return page.frames().filter((f) => !f.isDetached());
}

/** Playwright's words for a frame that left its page while it was being asked something (gestures.ts isStale too). */
export const FRAME_GONE = /Frame (was|has been) detached|frame got detached/i;

/** A child frame's part, or null when the frame left the page during its look (an editor closing takes its frame
 *  with it): the look shows the page as it now is, without that frame. The top frame's failures are the caller's. */
async function observeOrGone(page: Page, frame: Frame): Promise<Part | null> {
  try {
    return await observeFrame(frame);
  } catch (e) {
    if (frame !== page.mainFrame() && (frame.isDetached() || FRAME_GONE.test(e instanceof Error ? e.message : String(e)))) return null;
    throw e;
  }
}

export async function observePage(page: Page): Promise<Observation> {
  const frames = (await Promise.all(liveFrames(page).map((f) => observeOrGone(page, f)))).filter((p): p is Part => p !== null);
  frames.sort((a, b) => frameKey(a.part).localeCompare(frameKey(b.part)));
  return combineParts(frames, WALKER_VERSION);
}

/** The walker's per-ref questions, by method name: each takes one argument and answers plain JSON. */
type Question = 'find' | 'textOf' | 'rowsOf' | 'selectors' | 'menuPick';
type Ask<M extends Question> = Parameters<InPage[M]>[0];
type Told<M extends Question> = ReturnType<InPage[M]>;

/** Asks the walker in one frame: one round trip when it is installed (the usual case); installs it first otherwise. */
async function ask<M extends Question>(frame: Frame, method: M, arg: Ask<M>): Promise<Told<M>> {
  const run = () =>
    frame.evaluate(
      ([m, a, v]) => {
        const api = (globalThis as WithWalker).__handrail;
        return api && api.version === v ? { told: (api[m] as (x: unknown) => unknown)(a) } : null;
      },
      [method, arg, WALKER_VERSION] as const,
    );
  let answer = await run();
  if (answer === null) {
    await ensureWalker(frame);
    answer = await run();
  }
  if (answer === null) throw new Error(`the walker did not install in frame ${frame.url()}`);
  return answer.told as Told<M>;
}

/** The frame a page-wide ref lives in and its local part, or null when the ref or its frame is not there. */
async function locate(page: Page, ref: string): Promise<{ frame: Frame; local: string } | null> {
  const parts = parseRef(ref);
  const frame = parts ? await frameAt(page, parts.frame) : null;
  return parts && frame ? { frame, local: parts.local } : null;
}

/** Runs one rung in one frame and returns page-wide refs of every match ([] when the frame is not there). */
export async function findInFrame(page: Page, path: FramePath, q: FindQuery): Promise<string[]> {
  const frame = await frameAt(page, path);
  if (!frame) return [];
  return (await ask(frame, 'find', q)).map((r) => formatRef(path, r));
}

/** The frame and element behind a page-wide ref from the latest observePage()/findInFrame(), or null if gone. */
export async function elementOf(page: Page, ref: string): Promise<{ frame: Frame; local: string; el: ElementHandle<Element> } | null> {
  const at = await locate(page, ref);
  if (!at) return null;
  // One round trip: a document without this walker has never handed out the ref (its refs are per observation), so
  // the element is not there — as a freshly installed walker would answer, without installing it first.
  const handle = await at.frame.evaluateHandle(
    ([r, v]) => {
      const api = (globalThis as WithWalker).__handrail;
      return api && api.version === v ? api.element(r) : null;
    },
    [at.local, WALKER_VERSION] as const,
  );
  const el = handle.asElement();
  if (!el) {
    await handle.dispose();
    return null;
  }
  return { ...at, el: el as ElementHandle<Element> };
}

/** Visible text (or a field's value) of the element behind a page-wide ref; '' when it is gone. */
export async function textOfRef(page: Page, ref: string): Promise<string> {
  const at = await locate(page, ref);
  return at ? ask(at.frame, 'textOf', at.local) : '';
}

/** Where the menu item behind a page-wide ref is reached from, its button as a page-wide ref (shared/dom/options.ts menuPathOf); null when gone or none. */
export async function menuPickOfRef(page: Page, ref: string): Promise<MenuPick | null> {
  const at = await locate(page, ref);
  const pick = at ? await ask(at.frame, 'menuPick', at.local) : null;
  const parts = parseRef(ref);
  return pick && parts ? { ...pick, button: formatRef(parts.frame, pick.button) } : null;
}

/** The rows of the table, grid or list behind a page-wide ref (docs/design/capability.md, "Rows as outputs"); null when gone or none. */
export async function rowsOfRef(page: Page, ref: string): Promise<SurfaceRows | null> {
  const at = await locate(page, ref);
  return at ? ask(at.frame, 'rowsOf', at.local) : null;
}

/** CSS candidates for the dearest rung, derived in the page from the element behind a ref; [] when it is gone. */
export async function selectorsOfRef(page: Page, ref: string): Promise<string[]> {
  const at = await locate(page, ref);
  return at ? ask(at.frame, 'selectors', at.local) : [];
}

/** The walker's questions about one element, by method name (shared/dom/options.ts through InPage). */
type ElementQuestion = 'optionToPick' | 'notChosen' | 'listOpen' | 'revealer' | 'clickTarget' | 'submenuToOpen';

/**
 * Runs in the element's own document: the walker's answer about it. The element came from a walker ref, so this
 * walker is there; a document that has moved on since says so in words the surface reads as STALE. No named helper
 * inside: it runs in the page, where a bundler's name-keeping wrapper is not defined.
 */
const askAbout = (e: Element, [m, a, v]: readonly [ElementQuestion, string, string]): unknown => {
  const api = (globalThis as WithWalker).__handrail;
  if (!api || api.version !== v) throw new Error('__handrail is not defined in this document any more');
  return (api[m] as (x: Element, y: string) => unknown)(e, a);
};

/** The one option of a custom combobox or listbox named `name`, or why none is picked (docs/design/verbs.md, "The six verbs": choose). */
export async function optionToPick(el: ElementHandle<Element>, name: string): Promise<ElementHandle<Element> | string> {
  const pick = await el.evaluateHandle(askAbout, ['optionToPick', name, WALKER_VERSION] as const);
  const option = pick.asElement() as ElementHandle<Element> | null;
  return option ?? ((await pick.jsonValue()) as string);
}

/** For `choose` by a path: the menu item whose submenu is to be opened next, null when none, or why not (shared/dom/options.ts). */
export async function submenuToOpen(el: ElementHandle<Element>, name: string): Promise<ElementHandle<Element> | string | null> {
  const next = await el.evaluateHandle(askAbout, ['submenuToOpen', name, WALKER_VERSION] as const);
  const item = next.asElement() as ElementHandle<Element> | null;
  return item ?? ((await next.jsonValue()) as string | null);
}

/** After a pick: null when the combobox or listbox shows `name` as chosen, else what it shows instead: one evaluate. */
export async function notChosen(el: ElementHandle<Element>, name: string): Promise<string | null> {
  return (await el.evaluate(askAbout, ['notChosen', name, WALKER_VERSION] as const)) as string | null;
}

/** Whether the list or menu a `choose` picks from is open already (a listbox, or `aria-expanded=true`): not clicked shut. */
export async function listOpen(el: ElementHandle<Element>): Promise<boolean> {
  return (await el.evaluate(askAbout, ['listOpen', '', WALKER_VERSION] as const)) === true;
}

/** What to hover to reveal an element shown only on hover: its nearest shown ancestor (the row), or itself. */
export async function revealer(el: ElementHandle<Element>): Promise<ElementHandle<Element>> {
  const at = await el.evaluateHandle(askAbout, ['revealer', '', WALKER_VERSION] as const);
  return (at.asElement() as ElementHandle<Element> | null) ?? el;
}

/**
 * What to click to press or toggle a control: itself, its label when it is drawn as nothing (a visually hidden input),
 * or null when no pointer can reach it (a visually hidden button): shared/dom/options.ts clickTarget.
 */
export async function clickTarget(el: ElementHandle<Element>): Promise<ElementHandle<Element> | null> {
  const at = await el.evaluateHandle(askAbout, ['clickTarget', '', WALKER_VERSION] as const);
  return at.asElement() as ElementHandle<Element> | null;
}

/** Runs in the element's own document, as `askAbout`: the gesture engine's answer about it (shared/dom/gesture-answers.ts). */
const answerAbout = (e: Element, [q, a, v]: readonly [PageQuestion, string, string]): unknown => {
  const api = (globalThis as WithWalker).__handrail;
  if (!api || api.version !== v) throw new Error('__handrail is not defined in this document any more');
  return api.gestureAnswer(e, q, a);
};

/** The page's answer to one of the gesture engine's questions about `el` and `value`. */
export async function gestureAnswerOf<Q extends PageQuestion>(el: ElementHandle<Element>, q: Q, value: string): Promise<PageAnswers[Q]> {
  return (await el.evaluate(answerAbout, [q, value, WALKER_VERSION] as const)) as PageAnswers[Q];
}

/** What a gesture on `el` for `value` is aimed at (shared/dom/gesture-answers.ts aimed), or why there is none. */
export async function aimedAt(el: ElementHandle<Element>, at: Aim, value: string): Promise<ElementHandle<Element> | string> {
  const got = await el.evaluateHandle(
    (e, [a, x, v]) => {
      const api = (globalThis as WithWalker).__handrail;
      if (!api || api.version !== v) throw new Error('__handrail is not defined in this document any more');
      return api.aimed(e, a, x);
    },
    [at, value, WALKER_VERSION] as const,
  );
  const found = got.asElement() as ElementHandle<Element> | null;
  return found ?? ((await got.jsonValue()) as string);
}
