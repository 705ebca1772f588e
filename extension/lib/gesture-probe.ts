// Which elements the page listens on for a double-click, told from the page's main world to the recorder in the
// extension's isolated world (docs/design/extension.md, "The extension's trusted input"). The walker decides that from
// listener records taken in the main world (shared/dom/gestures.ts `recordListeners`, which the runner installs
// with Playwright's addInitScript); the content script's isolated world sees neither those records nor a handler
// the page set. So a second content script, in the MAIN world at document_start, installs the same recorder, and
// answers the isolated world's question with DOM events — the only thing both worlds share.
//
// The channel, and what a hostile page can do with it: the page owns the main world, so it can answer too, or
// stop the question. The isolated world takes an answer only while its own question is being dispatched
// (synchronously, inside `dispatchEvent`), reads from it only the element it was dispatched at and words of a closed
// set (`double_click`, `context_menu`), and computes everything else (role, name, scope, whether it is offered at all) itself. What
// a page can get by forging is an element offered a gesture it does not listen for — which it gets anyway by
// adding a listener — or nothing offered, as by not listening. Nothing else crosses: no name, no verb, no ref.
// The page learns that a recorder is asking while it asks (the question is an event it can hear).
import { gesturesListened, recordListeners, type Gesture } from '../../shared/dom/gestures.ts';

/** The isolated world's question, dispatched at the document. */
export const PROBE_ASK = 'handrail:gestures?';
/** One answer: dispatched at an element that listens, its detail the gestures, space-separated. */
export const PROBE_SAYS = 'handrail:gestures';
/** The gestures the extension does with trusted input and offers. */
const OFFERED: readonly Gesture[] = ['double_click', 'context_menu'];
/**
 * Set on the main world's global once the probe runs there, so a second injection adds nothing; its value says
 * whether the page's scripts ran before it (`late`: a document open before the session, injected into) or not
 * (`early`: from document_start). tab.ts reads it, spelling the name out (a function serialised into the page).
 */
export const PROBE_KEY = '__handrailProbe';
export type ProbeStart = 'early' | 'late';

/**
 * The main world's half: records listeners from now on, and answers each question by dispatching `PROBE_SAYS`
 * at every element (open shadow roots included) that listens for a gesture itself. The platform functions it
 * calls are taken now, before any page script runs (it starts at document_start).
 */
export function startProbe(win: Window): void {
  const g = win as unknown as Record<string, unknown>;
  if (g[PROBE_KEY]) return;
  // At document_start nothing of the document is parsed yet, so no script element is there: one in the document means
  // the page's scripts ran first, and the listeners they added are not in the record (tab.ts reads them once).
  const start: ProbeStart = win.document.scripts.length > 0 ? 'late' : 'early';
  Object.defineProperty(win, PROBE_KEY, { value: start, enumerable: false });
  const add = EventTarget.prototype.addEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const all = Document.prototype.querySelectorAll;
  const allIn = DocumentFragment.prototype.querySelectorAll;
  recordListeners();
  add.call(
    win,
    PROBE_ASK,
    () => {
      const listened = gesturesListened();
      const visit = (els: Iterable<Element>): void => {
        for (const el of els) {
          const said = listened(el);
          if (said.length) dispatch.call(el, new CustomEvent(PROBE_SAYS, { detail: said.join(' '), composed: true }));
          if (el.shadowRoot) visit(allIn.call(el.shadowRoot, '*'));
        }
      };
      visit(all.call(win.document, '*'));
    },
    { capture: true },
  );
}

/**
 * The isolated world's half: a function that asks once and gives, per element, the gestures the main world said it
 * listens for (those the extension offers). `listen` adds a capture listener tied to the content script's life.
 */
export function askMainWorld(win: Window, listen: (target: EventTarget, type: string, fn: (e: Event) => void) => void): () => ReadonlyMap<Element, readonly Gesture[]> {
  let taking: Map<Element, Gesture[]> | null = null;
  listen(win, PROBE_SAYS, (e) => {
    if (!taking || !(e instanceof CustomEvent) || typeof e.detail !== 'string') return;
    const el = e.composedPath()[0];
    if (!(el instanceof Element)) return;
    const said = new Set(e.detail.split(' '));
    const gestures = OFFERED.filter((w) => said.has(w));
    if (gestures.length) taking.set(el, gestures);
  });
  return () => {
    const seen = new Map<Element, Gesture[]>();
    taking = seen;
    try {
      win.document.dispatchEvent(new CustomEvent(PROBE_ASK));
    } finally {
      taking = null;
    }
    return seen;
  };
}
