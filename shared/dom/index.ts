// The walker's entry point inside a page: installs `globalThis.__handrail` once per document (evaluating the
// bundle twice keeps the first install, so refs from an earlier observe() stay valid).
import type { Control, SurfaceRows } from '../schema/observation.ts';
import { GLOBAL_NAME, type DocumentObservation, type FindQuery, type InPage } from './api.ts';
import { findElements } from './find.ts';
import { findTexts, gestureSpotter, offerGestures, TEXT_ROLE, type Gesture } from './gestures.ts';
import { accessibleName, normalize } from './name.ts';
import { gestureAnswers } from './gesture-answers.ts';
import { clickTarget, listOpen, listPathOf, menuPathOf, notChosen, offerMenuButtons, optionName, optionToPick, revealer, submenuToOpen } from './options.ts';
import { readRows } from './rows.ts';
import { selectorsOf } from './selectors.ts';
import { newCache } from './style.ts';
import { WALKER_VERSION } from './version.ts';
import { walkDocument, type Walked } from './walk.ts';
import { toWire, WIRE_VERSION } from './wire.ts';

const BUSY = '[aria-busy="true"],[role="progressbar"],progress';

/** The words a loading message starts with (English: the apps met so far say it so). */
const LOADING_START = '(?:loading|initiali[sz]ing|connecting|checking|preparing|fetching|syncing|starting|signing (?:you )?in|authenticating|please wait|one moment|just a moment)';
/** Somewhere in a text: whether a loading message may be on the screen at all (one test before any element is looked at). */
const LOADING_WORD = new RegExp(`\\b${LOADING_START}\\b`, 'i');
/**
 * A loading message: an element's whole text, short, starting with one of those words and trailing off ("Loading…",
 * "Initializing the connection to the local database..."), or the bare "Loading" / "Please wait". "Checking 1,204.00"
 * (an account) and "Loading dock hours" (a heading) are not: they do not trail off.
 */
const LOADING_LINE = new RegExp(`^(?:${LOADING_START}\\b.{0,100}?(?:…|\\.{3})|loading|please wait)$`, 'i');

/**
 * Whether a visible element's whole text is a loading message, in `root` (a document or a shadow root): a spinner's
 * words, which no attribute marks busy (docs/design/replay.md, "A first screen at rest").
 */
function showsLoadingMessage(root: Document | ShadowRoot, shown: (el: Element) => boolean): boolean {
  const doc = root.nodeType === 9 ? (root as Document) : (root.ownerDocument as Document);
  const texts = doc.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  for (let n = texts.nextNode(); n; n = texts.nextNode()) {
    const data = n.nodeValue ?? '';
    if (data.length > 200 || !LOADING_WORD.test(data)) continue;
    const el = n.parentElement;
    if (!el || el.tagName === 'SCRIPT' || el.tagName === 'STYLE' || el.tagName === 'TITLE') continue;
    if (LOADING_LINE.test(normalize((el as HTMLElement).innerText ?? el.textContent)) && shown(el)) return true;
  }
  return false;
}

/**
 * Whether the document says it is not done: still loading (its load event waits for frames and images), or showing
 * a busy region, a progress indicator or a loading message anywhere, open shadow roots included
 * (docs/design/replay.md, "Settling"). `text`: the walk's text and sayings, which say whether a loading message can be
 * there at all.
 */
export function isBusy(doc: Document, walked?: Pick<Walked, 'shadowHosts' | 'unwalked' | 'text' | 'said'>): boolean {
  if (doc.readyState !== 'complete') return true;
  const shown = (el: Element): boolean => (typeof el.checkVisibility === 'function' ? el.checkVisibility() : true);
  if (walked && [walked.text, ...walked.said].some((t) => LOADING_WORD.test(t))) {
    if (showsLoadingMessage(doc, shown)) return true;
    for (const host of walked.shadowHosts) if (host.shadowRoot && showsLoadingMessage(host.shadowRoot, shown)) return true;
  }
  const busyIn = (root: Document | ShadowRoot | Element): boolean => {
    for (const el of root.querySelectorAll(BUSY)) if (shown(el)) return true;
    return false;
  };
  // Every shadow root below `root`, found by looking at each of its elements.
  const search = (root: Document | ShadowRoot): boolean => busyIn(root) || hostsBelow(root);
  const hostsBelow = (root: Document | ShadowRoot | Element): boolean => {
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot && search(el.shadowRoot)) return true;
    return false;
  };
  if (!walked) return search(doc);
  // The same shadow roots without looking at every element again: those the walk entered (it looked into each of
  // their elements itself), and those below what it did not enter, searched as above.
  if (busyIn(doc)) return true;
  for (const host of walked.shadowHosts) if (host.shadowRoot && busyIn(host.shadowRoot)) return true;
  // An element without element children has no shadow host below it (most unwalked elements: a <style>, a slotted
  // <span> of text), so its querySelectorAll is not run.
  for (const el of walked.unwalked) if ((el.shadowRoot && search(el.shadowRoot)) || (el.firstElementChild && hostsBelow(el))) return true;
  return false;
}

/**
 * Whether a finite animation or transition is running in the document (open shadow roots included, as
 * `getAnimations` reports them): a closing list's fade, a dialog's slide. An infinite one (a spinner) is furniture,
 * not movement (docs/design/replay.md, "Settling").
 */
export function isMoving(doc: Document): boolean {
  if (typeof doc.getAnimations !== 'function') return false;
  for (const a of doc.getAnimations()) {
    if (a.playState !== 'running' || !a.effect) continue;
    const end = a.effect.getComputedTiming().endTime;
    // Still in its delay (a hover's transition that has not begun): nothing moves yet.
    const delay = Number(a.effect.getTiming().delay ?? 0);
    if (typeof a.currentTime === 'number' && a.currentTime < delay) continue;
    if (typeof end === 'number' && Number.isFinite(end)) return true;
  }
  return false;
}

/**
 * One walk, with the gestures the page listens for offered on its controls and its text (shared/dom/gestures.ts), and
 * `choose` on its menu buttons (shared/dom/options.ts).
 */
function walkOffering(doc: Document, seen?: () => ReadonlyMap<Element, readonly Gesture[]>): { walked: Walked; offered: Walked['controls'] } {
  const c = newCache();
  const spotter = gestureSpotter(c, seen?.());
  const walked = walkDocument(doc, c, spotter.at);
  const offered = offerGestures(c, walked.controls, spotter.spots);
  offerMenuButtons(offered);
  return { walked, offered };
}

/**
 * The walker over one document. `gesturesSeen` (the extension's content script) tells, per walk, which elements
 * another realm saw listening for a gesture (shared/dom/gestures.ts `gestureSpotter`).
 */
export function createInPage(doc: Document, opts?: { gesturesSeen?: () => ReadonlyMap<Element, readonly Gesture[]> }): InPage {
  const seen = opts?.gesturesSeen;
  let byRef = new Map<string, Element>();
  let refOf = new WeakMap<Element, string>();
  let found = 0;
  // Looks for the gesture engine's questions walk with a second walker, so this one's refs stay as they are.
  let looker: InPage | null = null;
  const gestures = gestureAnswers(doc, () => (looker ??= createInPage(doc)).observe());

  const refFor = (el: Element): string => {
    const known = refOf.get(el);
    if (known !== undefined) return known;
    const ref = `f${found++}`;
    byRef.set(ref, el);
    refOf.set(el, ref);
    return ref;
  };

  return {
    version: WALKER_VERSION,
    observe(): DocumentObservation {
      const { walked, offered } = walkOffering(doc, seen);
      byRef = new Map();
      refOf = new WeakMap();
      const controls: Control[] = offered.map(({ el, control }, i) => {
        const ref = `c${i}`;
        byRef.set(ref, el);
        refOf.set(el, ref);
        control.ref = ref;
        return control;
      });
      const obs: DocumentObservation = {
        url: walked.url,
        title: walked.title,
        controls,
        paths: walked.paths,
        text: walked.text,
        ...(walked.said.length ? { said: walked.said } : {}),
        ...(walked.rows.length ? { rows: walked.rows } : {}),
        busy: isBusy(doc, walked),
      };
      if (isMoving(doc)) obs.moving = true;
      return obs;
    },
    wireVersion: WIRE_VERSION,
    observeWire(): string {
      return JSON.stringify(toWire(this.observe()));
    },
    element(ref: string): Element | null {
      const el = byRef.get(ref);
      return el && el.isConnected ? el : null;
    },
    find(q: FindQuery): string[] {
      if (q.gesture === true && q.role === TEXT_ROLE && q.rung !== 'css') {
        // Text offered for a gesture is no ARIA role: a target that takes one is found as the walk offers it, and
        // only so (a title that does not listen is not it). A read target of role text (a result line) never walks
        // for gestures: the ordinary rungs below find it (docs/design/walker.md, "The walker").
        return findTexts(walkOffering(doc, seen).offered, q.rung, q.scope, q.name, q.value).map(refFor);
      }
      return findElements(doc, newCache(), q).map(refFor);
    },
    textOf(ref: string): string {
      const el = byRef.get(ref);
      if (!el || !el.isConnected) return '';
      if (el instanceof HTMLInputElement) return el.type === 'password' ? '' : el.value;
      if (el instanceof HTMLTextAreaElement) return el.value;
      if (el instanceof HTMLSelectElement) return [...el.selectedOptions].map((o) => normalize(o.text)).join(', ');
      return normalize((el as HTMLElement).innerText ?? el.textContent);
    },
    rowsOf(ref: string): SurfaceRows | null {
      const el = byRef.get(ref);
      return el && el.isConnected ? readRows(newCache(), el) : null;
    },
    selectors(ref: string): string[] {
      const el = byRef.get(ref);
      return el && el.isConnected ? selectorsOf(el) : [];
    },
    optionToPick,
    notChosen,
    listOpen,
    revealer,
    clickTarget,
    submenuToOpen,
    aimed: (el, at, value) => gestures.aimed(el, at, value),
    gestureAnswer: (el, q, value) => gestures.answer(el, q, value),
    menuPick(ref: string) {
      const el = byRef.get(ref);
      if (!el || !el.isConnected) return null;
      const c = newCache();
      const at = menuPathOf(el);
      // A button a modal menu hid (aria-hidden) has no name by accname's rules for hidden content: its own text then.
      if (at) return { button: refFor(at.button), name: accessibleName(c, at.button) || optionName(at.button), value: at.value, opens: at.opens };
      // An option of a list a control opened (shared/dom/options.ts listPathOf). A combobox a modal list hid (MUI's
      // Select) is named by the label it shares with its listbox, which a hidden label still gives (accname 1.2 step
      // 2B: a hidden node reached by aria-labelledby counts); its text is what it holds, no name.
      const opt = listPathOf(el);
      if (!opt) return null;
      const name = accessibleName(c, opt.button) || (opt.list ? accessibleName(c, opt.list) : '');
      return { button: refFor(opt.button), name, value: opt.value, opens: false };
    },
  };
}

export function install(): InPage {
  const g = globalThis as unknown as Record<string, InPage | undefined>;
  const existing = g[GLOBAL_NAME];
  if (existing && existing.version === WALKER_VERSION) return existing;
  const api = createInPage(document);
  g[GLOBAL_NAME] = api;
  return api;
}

export { WALKER_VERSION };
