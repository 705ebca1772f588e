// What runs in each frame of the clerk's tab (the content script's logic): the shared walker for observing and
// finding, acting on an element by its ref, and — while recording — catching the clerk's own clicks, typed
// values and selections and reporting them as the control they touched. The page never sees any of it: this
// lives in the extension's isolated world, and reaches the worker only through runtime messaging.
import { createInPage } from '../../shared/dom/index.ts';
import { askMainWorld } from './gesture-probe.ts';
import type { InPage } from '../../shared/dom/api.ts';
import { comboOf, disclosedList, disclosureOf, isListButton, isMenuButton, listOpen, MENU_ITEMS, menuPathOf, optionName } from '../../shared/dom/options.ts';
import { deepActive } from '../../shared/dom/gesture-answers.ts';
import { keyOfEvent, type Key } from '../../shared/keys.ts';
import { verbsOf } from '../../shared/operations.ts';
import { menuLevels } from '../../shared/menu-path.ts';
import { frameSegment } from '../../shared/ref.ts';
import { lostValue } from '../../shared/schema/trace.ts';
import type { ScopeLink, Verb } from '../../shared/schema/observation.ts';
import { type ClerkAct, type ClerkLost, type ClerkUnrecorded, type FrameCall, type FrameReply, type FrameReport } from './messages.ts';

/** The name the agent is kept under in the isolated world, where the worker's executeScript calls find it. */
export const AGENT_GLOBAL = '__handrailAgent';

export interface FrameAgent {
  /** Observe this document; `recording` turns the capture of the clerk's actions on or off (and answers `ask`). */
  observe(recording: boolean): FrameReport;
  call(c: FrameCall): FrameReply | Promise<FrameReply>;
  /** Catch the clerk's actions (record mode) or not; observe() sets it too. */
  recording: boolean;
  /**
   * The document has just started and the worker has not yet said whether this tab is recorded: until `answer`,
   * the clerk's presses are held and their typing remembered, so none happens unseen.
   */
  ask(): void;
  /**
   * The worker's answer to `ask`: recording → what was held is reported in order; not → each held press is let
   * through. Taken only while asking: once the worker has looked at the document (`observe`, which says whether it
   * records), a reply to the document's first question that comes later — or the "no worker answered" fallback after
   * the retries — is stale and must not turn the capture off.
   */
  answer(recording: boolean): void;
  /**
   * No worker answered `ask`: what was held is let through as for a tab not recorded, and remembered — if the worker
   * later looks at this document as recorded, each is reported lost (`no_answer`), a hole in the book rather than a
   * key or a typed value the book silently lacks (docs/design/extension.md, "The extension's trusted input").
   */
  noAnswer(): void;
  /**
   * The document is being left: what the clerk did that this frame still holds (while asking, a pick waiting for its
   * list to close, a click waiting for its second) is given back as lost actions, to be sent as the document goes.
   * A value typed here goes with its document and is not among them; the key or click that would have sent it is.
   */
  leaving(): ClerkLost[];
}

/**
 * This frame's path from the top document, spelled as shared/ref.ts spells it (and the runner reads it, in
 * runner/browser/frames.ts): each frame's name on the way down, or `#<n>` — its index among its parent's
 * frames — when it has none.
 */
export function framePath(win: Window): string[] {
  const path: string[] = [];
  let w: Window = win;
  while (w !== w.parent) {
    const parent = w.parent;
    let name = '';
    try {
      name = w.name;
    } catch {
      name = '';
    }
    let i = 0;
    while (i < parent.frames.length && parent.frames[i] !== w) i++;
    path.unshift(frameSegment(name, i));
    w = parent;
  }
  return path;
}

function setNativeValue(el: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  // Frameworks watch the prototype's setter; set through it so the page's own listeners see a real edit.
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set;
  if (setter) setter.call(el, value);
  else el.value = value;
}

const normalize = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** The keys a clerk's keydown is recorded for: those that send or end what was typed (see the keydown listener). */
const RECORDED_KEYS: ReadonlySet<Key> = new Set<Key>(['Enter', 'Control+Enter', 'Meta+Enter', 'Escape']);
/** A second click within this long on the same control makes a double-click (the usual desktop setting is 500 ms). */
const DOUBLE_CLICK_MS = 500;
/** What holds a row's hover-only actions (the walker's rows: list items, table and grid rows). */
const ROW_SELECTOR = 'li, tr, [role=row], [role=listitem], [role=option], [role=treeitem]';
/** How long after `point` trusted input is taken as the worker's own, if no `check` comes first. */
const PASS_MS = 5_000;
/** How long a page's own click on a control whose click the recorder holds counts as that press leaking. */
const HELD_LEAK_MS = 5_000;

/**
 * A held key given back to the page in a tab that is not recorded after all: a script's copy of it (keydown, then
 * keyup), so the page's key handlers run; what only a trusted key does (typing, submitting a form) does not happen.
 */
function keyAgain(el: Element, e: KeyboardEvent): void {
  const init: KeyboardEventInit = { key: e.key, code: e.code, ctrlKey: e.ctrlKey, metaKey: e.metaKey, shiftKey: e.shiftKey, altKey: e.altKey, bubbles: true, cancelable: true, composed: true };
  el.dispatchEvent(new KeyboardEvent('keydown', init));
  el.dispatchEvent(new KeyboardEvent('keyup', init));
}

/** A clerk's action as a lost one: the verb, the control as they saw it, a key's or a pick's value (never a typed text). */
function lostWhat(verb: Verb, seen: { role: string; name: string } | null, value?: string): Omit<ClerkLost, 'type' | 'event' | 'why'> {
  return { verb, ...(seen ? { control: { role: seen.role, name: seen.name.slice(0, 500) } } : {}), ...lostValue(verb, value) };
}

/** An event's target inside open shadow roots (the composed path's first element): the control a person touched. */
function deepTarget(e: Event): Element | null {
  const first = e.composedPath()[0];
  return first instanceof Element ? first : e.target instanceof Element ? e.target : null;
}

function act(api: InPage, ref: string, verb: Verb, value: string | undefined): FrameReply {
  const el = api.element(ref);
  if (!el) return { ok: false, code: 'STALE', message: `element ${ref} is no longer on the page` };
  switch (verb) {
    case 'invoke':
    case 'toggle':
      (el as HTMLElement).click();
      return { ok: true };
    case 'set_value': {
      if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) {
        return { ok: false, code: 'ACTION_FAILED', message: `set_value on a ${el.tagName.toLowerCase()}, which takes no typed value` };
      }
      // In record mode the clerk has already typed this value: touching the field again would move the focus
      // away from wherever they are typing now, and their next keystrokes would land here.
      if (el.value === (value ?? '')) return { ok: true };
      el.focus();
      setNativeValue(el, value ?? '');
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { ok: true };
    }
    case 'select': {
      if (!(el instanceof HTMLSelectElement)) return { ok: false, code: 'ACTION_FAILED', message: `select on a ${el.tagName.toLowerCase()}` };
      const want = value ?? '';
      // A card names the option a person reads (its label); the option's value is the fallback, as in replay.
      const opt = [...el.options].find((o) => normalize(o.text) === want) ?? [...el.options].find((o) => o.value === want);
      if (!opt) return { ok: false, code: 'ACTION_FAILED', message: 'no option with that label or value' };
      if (el.value === opt.value) return { ok: true };
      el.value = opt.value;
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { ok: true };
    }
    case 'read':
      return { ok: true, read: api.textOf(ref) };
    case 'press':
    case 'hover':
    case 'double_click':
    case 'choose':
    case 'context_menu':
      // A page script's events are untrusted (a synthetic key does not type, a synthetic pointer does not match
      // :hover): the worker does these with trusted input, asking this frame only where (`point`) and whether it
      // worked (`check`). docs/design/extension.md, "The extension's trusted input".
      return { ok: false, code: 'ACTION_FAILED', message: `${verb} is done with trusted input (point, then check), not by the page agent` };
    case 'read_rows': {
      // Read from the live DOM within the target, by the walker's own rows (shared/dom/rows.ts), as the runner's
      // surface does (docs/design/capability.md, "Rows as outputs").
      const read = api.rowsOf(ref);
      if (!read) return { ok: false, code: 'ACTION_FAILED', message: 'it is not a table, grid or list (nor a column header in one)' };
      return { ok: true, rows: read.rows, headers: read.headers };
    }
    default:
      // A verb added to the table after this agent was written (another surface's): refused by name, never guessed.
      return { ok: false, code: 'ACTION_FAILED', message: `the extension does not know the verb ${String(verb)}: replay this card with the runner` };
  }
}

/** The element a person would hit at (x, y), inside open shadow roots too. */
function hitAt(doc: Document, x: number, y: number): Element | null {
  let hit = doc.elementFromPoint(x, y);
  while (hit?.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

/** `inner` is `outer` or inside it, in the flat tree (a shadow host contains its shadow tree). */
function holds(outer: Element, inner: Element | null): boolean {
  for (let x: Element | null = inner; x; x = x.parentElement ?? ((x.getRootNode() as ShadowRoot).host || null)) {
    if (x === outer) return true;
  }
  return false;
}

/** The centre of `target` in this frame's viewport, once scrolled into view and checked to be what is there. */
function centreOf(doc: Document, target: Element, what: string): FrameReply {
  target.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  const r = target.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return { ok: false, code: 'ACTION_FAILED', message: `${what} has no box on the page` };
  const x = r.left + r.width / 2;
  const y = r.top + r.height / 2;
  const hit = hitAt(doc, x, y);
  // A trusted press lands on whatever is there: something over the control would be pressed instead.
  if (!holds(target, hit)) return { ok: false, code: 'ACTION_FAILED', message: `${what} is covered by ${hit ? hit.tagName.toLowerCase() : 'nothing'} at its centre` };
  return { ok: true, point: { x, y } };
}

/** Focuses `el` for a key the worker sends next (keys go to the focused element); a reply saying whether it took. */
function focusFor(doc: Document, el: Element, what: string): FrameReply {
  (el as HTMLElement).focus();
  if (!holds(el, deepActive(doc))) return { ok: false, code: 'ACTION_FAILED', message: `${what} does not take the focus` };
  return { ok: true, point: { x: 0, y: 0 } };
}

/** How a failure names what a gesture was aimed at (shared/gestures/port.ts Aim). */
function aimName(el: Element, c: Extract<FrameCall, { op: 'point' }>): string {
  switch (c.at) {
    case 'target':
      return 'it';
    case 'row':
      return 'its row';
    case 'option':
      return `the option "${normalize(c.value ?? '')}"`;
    case 'submenu':
      return `the menu item "${optionName(el)}"`;
    case 'field':
      return 'its field';
  }
}

/**
 * Where the trusted input goes (the FrameCall `point`): the centre of what the gesture is aimed at, or — `verb`
 * press — the focus on it (keys go to the focused element; a field's text selected, so what is typed replaces it).
 */
function pointFor(api: InPage, doc: Document, c: Extract<FrameCall, { op: 'point' }>): FrameReply {
  const el = api.element(c.ref);
  if (!el) return { ok: false, code: 'STALE', message: `element ${c.ref} is no longer on the page` };
  const aimed = api.aimed(el, c.at, c.value ?? '');
  if (typeof aimed === 'string') return { ok: false, code: 'ACTION_FAILED', message: aimed };
  if (c.verb !== 'press') return centreOf(doc, aimed, aimName(aimed, c));
  const focused = focusFor(doc, aimed, aimName(aimed, c));
  if (focused.ok && (aimed instanceof HTMLInputElement || aimed instanceof HTMLTextAreaElement) && c.at === 'field') aimed.select();
  return focused;
}

/** The gesture engine's question about an element (the FrameCall `ask`), answered by the walker (shared/dom/gesture-answers.ts). */
function answerFor(api: InPage, c: Extract<FrameCall, { op: 'ask' }>): FrameReply {
  const el = api.element(c.ref);
  if (!el) return { ok: false, code: 'STALE', message: `element ${c.ref} is no longer on the page` };
  return { ok: true, answer: api.gestureAnswer(el, c.question, c.value ?? '') };
}

/** Resolves once `doc` changes (DOM Standard §4.3 MutationObserver), or after `ms` at the latest (the FrameCall `changed`). */
function changedIn(doc: Document, ms: number): Promise<FrameReply> {
  return new Promise((resolve) => {
    const seen = new MutationObserver(() => {
      seen.disconnect();
      resolve({ ok: true });
    });
    seen.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
    setTimeout(() => {
      seen.disconnect();
      resolve({ ok: true });
    }, ms);
  });
}

/** The content origin, in this frame's viewport, of the child frame spelled `child` (shared/ref.ts frameSegment). */
function frameBox(win: Window, child: string): FrameReply {
  const doc = win.document;
  for (const el of doc.querySelectorAll('iframe, frame')) {
    const w = (el as HTMLIFrameElement).contentWindow;
    if (!w) continue;
    let i = 0;
    while (i < win.frames.length && win.frames[i] !== w) i++;
    let name = '';
    try {
      name = w.name;
    } catch {
      name = el.getAttribute('name') ?? '';
    }
    if (frameSegment(name, i) !== child) continue;
    const r = el.getBoundingClientRect();
    const cs = win.getComputedStyle(el);
    return { ok: true, point: { x: r.left + el.clientLeft + parseFloat(cs.paddingLeft), y: r.top + el.clientTop + parseFloat(cs.paddingTop) } };
  }
  return { ok: false, code: 'STALE', message: `no frame ${child} here` };
}

/** How long a modal list may take to close (and its page to show again) after Escape. */
const LIST_CLOSES_MS = 2_000;
/** What in a disclosure menu's list a clerk's click picks (a button there is a press, held and asked about). */
const DISCLOSED_LINKS = 'a[href], [role=link]';
/** How long a pick waits for the list the clerk opened again meanwhile (their next pick) to close. */
const CLERK_LIST_MS = 60_000;

/**
 * Escape, as a script's keydown at `at` (WAI-ARIA APG: Escape closes a combobox's popup and a menu). The agent does
 * not take a script's key for the clerk's.
 */
function escapeAt(at: Element): void {
  at.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', code: 'Escape', bubbles: true, cancelable: true, composed: true }));
}

/** What the clerk is told of a pick in a modal menu that did not close on Escape (see the `click` listener). */
function notRecorded(value: string, button: string): string {
  return `your pick of "${value}" in ${button} was not done, and nothing recorded: its menu did not close on Escape, so the screen it was opened from did not show again (close the menu and pick again)`;
}

export interface AgentOptions {
  /** Sends one clerk action to the worker (record mode), or one it caught and could not report (lost). */
  report(a: ClerkAct | ClerkUnrecorded | ClerkLost): void;
  /** Adds a listener that goes away with the content script (tied to the agent's life, lib/agent.ts). */
  listen(target: EventTarget, type: string, fn: (e: Event) => void): void;
  newId(): string;
}

/** A clerk's action the frame holds or is about to report, and what it was should it be lost. */
interface Held {
  report(): void;
  release?: () => void;
  lost?: () => Omit<ClerkLost, 'type' | 'event' | 'why'> | null;
}

export function createFrameAgent(win: Window, opts: AgentOptions): FrameAgent {
  const doc = win.document;
  // Which elements listen for a double-click is known in the page's main world only (lib/gesture-probe.ts).
  const api = createInPage(doc, { gesturesSeen: askMainWorld(win, opts.listen) });
  let recording = false;
  let asking = false;
  /**
   * What the clerk did while the agent was asking: reports to send, presses to let through if not recording, and what
   * each was, should it be lost (`lost`: the verb, the control, a key's or pick's value; computed when needed).
   */
  const held: Held[] = [];
  /** What was let through because no worker answered: reported lost if the worker later says this tab is recorded. */
  let unanswered: Held[] = [];
  /** What waits behind a pick whose list is closing (see `afterPrevious`), until it is reported or held. */
  const waiting = new Set<Held>();
  /** The document was left: nothing more is reported from it (what it held went as lost). */
  let left = false;
  const dirty = new Set<HTMLInputElement | HTMLTextAreaElement>();
  const watching = (): boolean => recording || asking;
  /** Until when the worker's own trusted input is passing (from `point` to `check`): not the clerk's. */
  let passUntil = 0;
  /** The controls the worker's last look saw hidden until their row is hovered (offered `hover` only). */
  let hoverOnly = new WeakSet<Element>();
  let lastHoverOnly: Element[] = [];

  // When elements were made inert and controls said their list opened, as a count of the changes seen (docs/
  // design/extension.md, "The extension's trusted input": which list is modal): a list is modal by the inert its own opening
  // made, not by any on the page — a dialog's around it, a closed drawer's.
  let changes = 0;
  const madeInert = new WeakMap<Element, number>();
  const expanded = new WeakMap<Element, number>();
  const noteChanges = (records: MutationRecord[]): void => {
    // Each record's new value is the next record's old one for that element and attribute, else what it holds now.
    const later = new Map<Node, Map<string, string | null>>();
    const now = records.map(() => null as string | null);
    for (let i = records.length - 1; i >= 0; i--) {
      const r = records[i] as MutationRecord;
      const name = r.attributeName ?? '';
      const seen = later.get(r.target) ?? new Map<string, string | null>();
      later.set(r.target, seen);
      now[i] = seen.has(name) ? (seen.get(name) ?? null) : r.target instanceof Element ? r.target.getAttribute(name) : null;
      seen.set(name, r.oldValue);
    }
    records.forEach((r, i) => {
      changes++;
      if (!(r.target instanceof Element)) return;
      if (r.attributeName === 'inert' && r.oldValue === null && now[i] !== null) madeInert.set(r.target, changes);
      if (r.attributeName === 'aria-expanded' && r.oldValue !== 'true' && now[i] === 'true') expanded.set(r.target, changes);
    });
  };
  const changeWatch = new MutationObserver(noteChanges);
  changeWatch.observe(doc, { subtree: true, attributes: true, attributeOldValue: true, attributeFilter: ['inert', 'aria-expanded'] });
  /** The count of changes seen so far, those not yet delivered included. */
  const changesNow = (): number => {
    noteChanges(changeWatch.takeRecords());
    return changes;
  };
  /**
   * Whether opening the list made the page outside it inert (Headless UI's listboxes and menus): an element made inert
   * since `control` last said its list opened (`aria-expanded` turning true; since the agent started, for a control that
   * never said), holding neither the control nor the option.
   */
  const listMadeInert = (control: Element, option: Element): boolean => {
    changesNow();
    const since = expanded.get(control) ?? 0;
    return [...doc.querySelectorAll('[inert]')].some((x) => (madeInert.get(x) ?? 0) > since && !x.contains(control) && !x.contains(option));
  };

  /** The ref of the control `target` is (or sits inside), from a fresh look at the document. */
  const controlAt = (target: EventTarget | null): { ref: string; verbs: Verb[]; role: string; name: string; scope: ScopeLink[]; el: Element } | null => {
    if (!(target instanceof Element)) return null;
    const obs = api.observe();
    const byEl = new Map<Element, { ref: string; verbs: Verb[]; role: string; name: string; scope: ScopeLink[] }>();
    for (const c of obs.controls) {
      const el = api.element(c.ref);
      // Its role's verbs and the gestures the page listens for (`offers`): a double-click is caught where offered.
      if (el) byEl.set(el, { ref: c.ref, verbs: verbsOf(c.verbs, c.offers), role: c.role, name: c.name, scope: c.scope });
    }
    // Up the flat tree: a control inside a shadow root is found from an element inside it, and a host from its tree.
    for (let n: Element | null = target; n; n = n.parentElement ?? ((n.getRootNode() as ShadowRoot).host || null)) {
      const hit = byEl.get(n);
      if (hit) return { ...hit, el: n };
    }
    return null;
  };

  /** What the clerk did on `el`, as a lost action, the control named as a fresh look names it (if it still is one). */
  const lostAt = (verb: Verb, el: Element, value?: string): Omit<ClerkLost, 'type' | 'event' | 'why'> => {
    const hit = controlAt(el);
    return lostWhat(verb, hit ? { role: hit.role, name: hit.name } : null, value);
  };
  /** Reports what the clerk did as lost: the document went, or no worker answered, or its control is gone. */
  const lose = (what: Omit<ClerkLost, 'type' | 'event' | 'why'>, why: ClerkLost['why']): void => {
    opts.report({ type: 'clerk_lost', event: opts.newId(), ...what, why });
  };
  /**
   * Reports the clerk's action on `target`. `seen`: the control as the clerk's event found it, for an action the
   * frame held (a key, a click, a pick) — if its control is gone by the time it is reported (asking, or waiting for a
   * list to close), it was neither done nor booked, and is reported lost (`gone`) rather than dropped unsaid.
   */
  const send = (verb: Verb, target: Element, value?: string, extra?: { optionValue?: string; revealed?: boolean }, seen?: { role: string; name: string }): void => {
    const hit = controlAt(target);
    if (!hit || !verbsOf(hit.verbs).includes(verb)) {
      if (seen) lose(lostWhat(verb, seen, value), 'gone');
      return;
    }
    opts.report({
      type: 'clerk_act',
      event: opts.newId(),
      frame: framePath(win),
      ref: hit.ref,
      verb,
      control: { role: hit.role, name: hit.name, scope: hit.scope.slice(0, 32) },
      ...(value !== undefined ? { value } : {}),
      ...(extra?.optionValue !== undefined ? { optionValue: extra.optionValue } : {}),
      ...(extra?.revealed ? { revealed: true } : {}),
    });
  };

  /** Reports now, or — while asking — once the worker says this tab is recorded. */
  /** A first click on a control that may be double-clicked, waiting to see whether a second follows. */
  let pending: { el: Element; timer: ReturnType<typeof setTimeout>; single: () => void; lost: NonNullable<Held['lost']> } | null = null;
  /** The waiting first click, reported now as the lone click it was: anything else the clerk does comes after it. */
  const settlePending = (): void => {
    const p = pending;
    if (!p) return;
    clearTimeout(p.timer);
    pending = null;
    p.single();
  };

  const emitNow = (h: Held): void => {
    if (left) return;
    if (asking) held.push(h);
    else h.report();
  };
  /** A pick whose list is closing, and the reports made after it, in the clerk's order (see `afterPrevious`). */
  let closing: Promise<void> | null = null;
  /** Runs `step` after whatever is closing, and makes what comes next wait for it. */
  const afterPrevious = (step: () => void | Promise<void>): void => {
    // A step that throws (the page gone, the extension reloaded) loses its own report, never the ones after it.
    const next = (closing ?? Promise.resolve()).then(step).catch(() => undefined);
    closing = next;
    void next.finally(() => {
      if (closing === next) closing = null;
    });
  };
  const emit = (report: () => void, release?: () => void, lost?: Held['lost']): void => {
    const h: Held = { report, ...(release ? { release } : {}), ...(lost ? { lost } : {}) };
    // The book keeps the clerk's order: a click still waiting for its second goes before what came after it, and so
    // does a pick whose list is still closing.
    settlePending();
    if (closing) {
      waiting.add(h);
      afterPrevious(() => {
        waiting.delete(h);
        emitNow(h);
      });
    } else emitNow(h);
  };

  const flushTyped = (el: HTMLInputElement | HTMLTextAreaElement): void => {
    dirty.delete(el);
    const value = el.value;
    emit(
      () => {
        if (el.isConnected) send('set_value', el, value);
      },
      undefined,
      // Let through unrecorded for want of an answer, the value stays typed on the page: lost, by its field (no text).
      () => (el.isConnected ? lostAt('set_value', el) : null),
    );
  };

  /** Holds a person's event for the guard, which does it itself once it has asked (docs/design/writes.md, "Writes"). */
  const hold = (e: Event): void => {
    e.preventDefault();
    e.stopImmediatePropagation();
  };
  /**
   * The control whose click was last held for the guard, until the worker's own input starts (`point`), the press is
   * given back, or HELD_LEAK_MS pass. A click the page itself makes on it meanwhile is the held press leaking: React
   * Aria's `usePress` clicks its target itself when no click reached it within 80 ms of pointerup, so its onPress —
   * a Save's write — would go out before the owner was asked (docs/design/extension.md, "The extension's trusted input").
   */
  let heldPress: { el: Element; until: number } | null = null;
  /** Disclosure menu buttons the clerk's click opened (let through): a link in their list is a pick. */
  const openedHere = new WeakSet<Element>();
  const holdPress = (e: Event, el: Element): void => {
    hold(e);
    heldPress = { el, until: Date.now() + HELD_LEAK_MS };
  };
  /** The worker's own input at `ref` begins: a held press on it (or on the label around it) is being done now. */
  const releaseHeld = (ref: string): void => {
    const at = api.element(ref);
    if (heldPress && at && (holds(heldPress.el, at) || holds(at, heldPress.el))) heldPress = null;
  };
  /** Gives a held press back to the page as a script's click (not recorded after all): ours, so not held again. */
  const giveBack = (el: HTMLElement): void => {
    heldPress = null;
    el.click();
  };

  /**
   * Whether the list of `el` closed and `el` is a control offered `choose` that can be clicked, within LIST_CLOSES_MS
   * (CLERK_LIST_MS while a list the clerk opened again is up). `escaped`: the count of changes when the first Escape
   * was sent (`changesNow`).
   */
  const shownAgain = async (el: Element, escaped: number): Promise<boolean> => {
    const start = Date.now();
    let until = start + LIST_CLOSES_MS;
    // The second Escape is for a list that never closed: once it was seen closed, or said it opened again since the
    // first, it is the clerk's next list (a second quick pick), which must not vanish under their pointer.
    let told = false;
    for (;;) {
      changesNow();
      const reopened = (expanded.get(el) ?? 0) > escaped;
      const open = listOpen(el);
      if (!open || reopened) told = true;
      if (!told && Date.now() > start + 300) {
        told = true;
        escapeAt(deepActive(doc));
      }
      // Closed, offered again, and nothing over it: a list's backdrop stays while its closing is animated (MUI's).
      const hit = open ? null : controlAt(el);
      if (hit && verbsOf(hit.verbs).includes('choose') && centreOf(doc, el, 'it').ok) return true;
      // Opened again by the clerk (a second quick pick): their list is up until they pick or close it, and its closing
      // then shows the control again; the first pick waits for that (up to CLERK_LIST_MS), its closing given the 2 s.
      if (reopened && open) until = Math.min(Date.now() + LIST_CLOSES_MS, start + CLERK_LIST_MS);
      if (Date.now() >= until || !el.isConnected) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  // Only the clerk's own (trusted) events are recorded: the agent's replays and page scripts' synthetic events
  // are not the clerk acting; nor is the worker's own trusted input, announced by `point` (the pass).
  const clerk = (e: Event): boolean => watching() && e.isTrusted && Date.now() > passUntil;

  opts.listen(doc, 'input', (e) => {
    if (!clerk(e)) return;
    const t = e.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement) dirty.add(t);
  });
  opts.listen(doc, 'change', (e) => {
    if (!clerk(e)) return;
    const t = e.target;
    if (t instanceof HTMLSelectElement) {
      const opt = t.selectedOptions[0];
      if (opt) {
        const label = normalize(opt.text);
        const value = opt.value;
        emit(() => send('select', t, label, { optionValue: value }), undefined, () => lostAt('select', t, label));
      }
    } else if ((t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement) && dirty.has(t)) {
      flushTyped(t);
    }
  });

  // A key from the table (KEYS) that sends or ends what was typed, in a control offered `press`: held like a
  // press, since Enter may submit or save; the value typed before it is reported first. Editing and focus keys
  // (arrows, Backspace, Tab…) are the typing or the next control's business, not steps.
  opts.listen(doc, 'keydown', (e) => {
    if (!clerk(e) || !(e instanceof KeyboardEvent) || e.isComposing) return;
    const key = keyOfEvent(e);
    if (!key || !RECORDED_KEYS.has(key)) return;
    const target = deepTarget(e);
    const hit = controlAt(target);
    if (!hit || !verbsOf(hit.verbs).includes('press')) return;
    hold(e);
    for (const el of [...dirty]) flushTyped(el);
    const el = hit.el;
    // While asking (a document just started: the key the clerk pressed as the page appeared), held too: recorded,
    // the guard asks about it and presses it with trusted input; not recorded (another tab of the session's site),
    // it cannot be given back as the person's, only as a script's key (docs/design/extension.md, "The extension's
    // trusted input").
    const seen = { role: hit.role, name: hit.name };
    emit(() => send('press', el, key, undefined, seen), () => keyAgain(el, e), () => lostWhat('press', seen, key));
  });

  opts.listen(doc, 'click', (e) => {
    if (!e.isTrusted && heldPress && watching()) {
      const t = deepTarget(e);
      if (Date.now() > heldPress.until || !heldPress.el.isConnected) heldPress = null;
      else if (t && holds(heldPress.el, t)) return hold(e);
    }
    if (!clerk(e) || !(e instanceof MouseEvent)) return;
    const target = deepTarget(e);
    // A pick in a custom combobox's list, or in a menu button's menu: one `choose` on the combobox or the button with
    // the option's or item's name, not a press (nor two: the click that opened a menu was let through, below).
    const item = target?.closest(MENU_ITEMS);
    // A link in the list of a disclosure menu button whose list the clerk's click opened here (Bootstrap's dropdown):
    // one `choose` on that button, reported at once (the list leaves the page as it was) and picked by the guard in
    // the open list. Only a list the clerk opened, while it shows (a sidebar's list open from the start, or rows under a
    // "Hide tasks" button, are no picks), and only a link: a button there may write, and is held and asked about as
    // any press is (a pick is not asked about).
    const disclosure = item || !target || target.closest('[role=option]') ? null : disclosureOf(target);
    if (disclosure && disclosure.item.matches(DISCLOSED_LINKS) && openedHere.has(disclosure.button) && listOpen(disclosure.button) && disclosedList(disclosure.button)?.checkVisibility()) {
      const { button, item: link } = disclosure;
      const buttonHit = controlAt(button);
      if (buttonHit && verbsOf(buttonHit.verbs).includes('choose')) {
        hold(e);
        for (const el of [...dirty]) flushTyped(el);
        const name = optionName(link);
        const seen = { role: buttonHit.role, name: buttonHit.name };
        emit(() => send('choose', button, name, undefined, seen), undefined, () => lostWhat('choose', seen, name));
        return;
      }
    }
    const option = item ?? target?.closest('[role=option]');
    // An item is picked on the menu button it is reached from, by its path through submenus (options.ts menuPathOf).
    const path = item ? menuPathOf(item) : null;
    const list = item ? (path?.button ?? null) : option ? comboOf(option) : null;
    const listHit = option && list ? controlAt(list) : null;
    if (option && list && (!listHit || verbsOf(listHit.verbs).includes('choose'))) {
      // An item that opens a submenu is on the way to the pick, as the click that opened the menu: let through.
      if (path?.opens) return settlePending();
      hold(e);
      for (const el of [...dirty]) flushTyped(el);
      const name = path?.value ?? optionName(option);
      // A listbox shown on the page (no popup), and an open list that leaves the page as it was (its control on the
      // screen, nothing made inert by its opening): reported as it is, and the guard picks in the open list (through
      // submenus left open, by the path). Open as the guard will see it (`listOpen`): else the guard would click its
      // control first, which shuts it. A pick in a submenu of a modal menu (Radix's, whose button is hidden while it is
      // open) is as any modal list's, below: the guard opens the submenus on the way itself (docs/design/extension.md,
      // "The extension's trusted input": submenus).
      const modal = !listHit || listMadeInert(list, option);
      const seen = listHit ? { role: listHit.role, name: listHit.name } : { role: list.getAttribute('role') ?? 'button', name: optionName(list) };
      if (list.getAttribute('role') === 'listbox' || (!modal && listOpen(list))) {
        emit(() => send('choose', list, name, undefined, seen), undefined, () => lostWhat('choose', seen, name));
        return;
      }
      // A modal list (MUI's Select, Radix's and Headless UI's menus and listboxes hide or make inert the rest of the
      // page while open) is a screen of its own, which the clerk did not name and replay never sees: it is closed, and
      // the pick reported once its control shows again, to be done again by the guard — open and pick — from the
      // screen it started on, as replay will do it (docs/design/extension.md, "The extension's trusted input"). A list
      // that does not close on Escape is reported as it is when its control is on the screen, else not at all.
      // Escape from the option the clerk clicked: it reaches the list's own handler (MUI's modal, Headless UI's
      // options) and the document (Radix's), wherever the focus is yet; an editable combobox's is its field's, so the
      // focused element is told too if the list is still open a moment later (see `shownAgain`). Only a modal list (or
      // one the guard would not see open) is sent one: a page's own Escape handler (a dialog around a non-modal list)
      // would take it as the clerk's.
      escapeAt(option);
      // A modal menu whose Escape closes one level at a time (the APG's, MUI-style nested menus): Escape where the
      // focus is, once more per level the pick went down, until the button shows. Still hidden, the pick cannot be
      // reported from the screen it started on: the clerk is told it was not recorded (their click was held, so not
      // done either), never left to find the step missing.
      const levels = path ? menuLevels(path.value).length : 1;
      const escaped = changesNow();
      // Waiting for its list to close: the document left meanwhile, the pick is lost, and said (`leaving`).
      const pick: Held = { report: () => undefined, lost: () => lostWhat('choose', seen, name) };
      waiting.add(pick);
      afterPrevious(async () => {
        let shown = await shownAgain(list, escaped);
        for (let level = 1; !shown && level < levels && listOpen(list) && list.isConnected; level++) {
          const again = changesNow();
          escapeAt(deepActive(doc));
          shown = await shownAgain(list, again);
        }
        waiting.delete(pick);
        if (!watching()) return;
        if (shown || listHit) emitNow({ ...pick, report: () => send('choose', list, name, undefined, seen) });
        else emitNow({ ...pick, report: () => opts.report({ type: 'clerk_unrecorded', event: opts.newId(), message: notRecorded(name, optionName(list)) }) });
      });
      return;
    }
    // A click on a label is a press of the control it labels, which the browser clicks for it: React Aria's Switch and
    // Checkbox hide their input inside the label they draw and toggle from the label's own click, so no click ever
    // reaches the input. Held at the label, the page hears neither.
    const direct = controlAt(target);
    const label = direct ? null : (target?.closest('label') ?? null);
    const hit = direct ?? (label?.control ? controlAt(label.control) : null);
    if (!hit) return;
    const verbs = verbsOf(hit.verbs);
    const el = hit.el as HTMLElement;
    const seen = { role: hit.role, name: hit.name };
    // Opening a menu button's menu, or a button's listbox, writes nothing and is part of the pick that follows (one
    // `choose`): let through.
    if (verbs.includes('choose') && (isMenuButton(el) || isListButton(el) || disclosedList(el))) {
      // A disclosure menu's links are picks only in a list the clerk opened (above).
      if (disclosedList(el)) openedHere.add(el);
      // A click still waiting to see whether a second follows reaches the page first, in the clerk's order.
      settlePending();
      return;
    }
    if (verbs.includes('double_click')) {
      // Two clicks within the double-click time are one double_click step, never two presses and a double-click.
      holdPress(e, el);
      if (pending?.el === el && e.detail >= 2) {
        clearTimeout(pending.timer);
        pending = null;
        emit(() => send('double_click', el, undefined, undefined, seen), undefined, () => lostWhat('double_click', seen));
        return;
      }
      // Another control, or the same one clicked again too slowly: the first click was a lone one.
      settlePending();
      const single = (): void => {
        pending = null;
        // A lone click is the control's own press (a toggle ticks), as on any control not offered a double-click.
        const press = verbs.includes('invoke') ? 'invoke' : verbs.includes('toggle') ? 'toggle' : null;
        if (press) emit(() => send(press, el, undefined, undefined, seen), () => giveBack(el), () => lostWhat(press, seen));
        else giveBack(el);
      };
      const alone = verbs.includes('invoke') ? 'invoke' : verbs.includes('toggle') ? 'toggle' : 'double_click';
      pending = { el, timer: setTimeout(single, DOUBLE_CLICK_MS), single, lost: () => lostWhat(alone, seen) };
      return;
    }
    if (!(verbs.includes('invoke') || verbs.includes('toggle'))) return;
    // The press goes through the guard, which asks the owner about buttons before it acts: hold it here.
    holdPress(e, label ?? el);
    // A field typed into and submitted with Enter has had no change event yet: its value goes first.
    for (const f of [...dirty]) flushTyped(f);
    const verb = verbs.includes('invoke') ? 'invoke' : 'toggle';
    // Hidden until the pointer entered its row when the worker last looked: the hover that showed it is a step.
    const revealed = verb === 'invoke' && hoverOnly.has(el);
    // The press focused it, and a row shows its actions on :focus-within as on :hover: the hover step must find it
    // hidden again once the pointer has left (lib/record-session.ts hoverFirst).
    if (revealed && doc.activeElement instanceof HTMLElement && holds(el.closest(ROW_SELECTOR) ?? el, doc.activeElement)) doc.activeElement.blur();
    // Not recorded after all (another tab of the same site): the press the clerk made still happens.
    emit(() => send(verb, el, undefined, { revealed }, seen), () => giveBack(el), () => lostWhat(verb, seen));
  });
  // A right-click on a control offered `context_menu`: held (the page does not hear it yet), reported, and done again
  // by the guard with a trusted right-click, which counts only if a menu appears (else nothing is recorded).
  opts.listen(doc, 'contextmenu', (e) => {
    if (!clerk(e)) return;
    const hit = controlAt(deepTarget(e));
    if (!hit || !verbsOf(hit.verbs).includes('context_menu')) return;
    hold(e);
    for (const f of [...dirty]) flushTyped(f);
    const el = hit.el;
    const seen = { role: hit.role, name: hit.name };
    emit(() => send('context_menu', el, undefined, undefined, seen), undefined, () => lostWhat('context_menu', seen));
  });
  // The browser's own dblclick after two held clicks: the step was reported from the clicks.
  opts.listen(doc, 'dblclick', (e) => {
    if (!clerk(e)) return;
    const hit = controlAt(deepTarget(e));
    if (hit && verbsOf(hit.verbs).includes('double_click')) hold(e);
  });

  const answer = (rec: boolean): void => {
    asking = false;
    recording = rec;
    const were = held.splice(0);
    for (const h of were) {
      if (rec) h.report();
      else h.release?.();
    }
  };
  /** Recording after all, once no worker had answered: what was let through meanwhile is reported lost. */
  const learnt = (rec: boolean): void => {
    const were = unanswered;
    unanswered = [];
    if (!rec) return;
    for (const h of were) {
      const what = h.lost?.();
      if (what) lose(what, 'no_answer');
    }
  };
  /** What this frame holds and has not reported, as lost actions; nothing more is reported from this document. */
  const leaving = (): ClerkLost[] => {
    const out: ClerkLost[] = [];
    const add = (what: Omit<ClerkLost, 'type' | 'event' | 'why'> | null | undefined): void => {
      // A typed value goes with its document; the key or click that would have sent it is reported.
      if (what && what.verb !== 'set_value') out.push({ type: 'clerk_lost', event: opts.newId(), ...what, why: 'leaving' });
    };
    if (pending) {
      clearTimeout(pending.timer);
      add(pending.lost());
      pending = null;
    }
    for (const h of [...held.splice(0), ...waiting]) add(h.lost?.());
    waiting.clear();
    left = true;
    return out;
  };
  // A document kept in the back/forward cache and shown again records again.
  opts.listen(win, 'pageshow', (e) => {
    if (e.isTrusted && (e as PageTransitionEvent).persisted) left = false;
  });

  return {
    get recording() {
      return recording;
    },
    set recording(on: boolean) {
      if (asking) answer(on);
      else recording = on;
      learnt(on);
    },
    ask() {
      asking = true;
    },
    answer(rec: boolean) {
      if (asking) answer(rec);
    },
    noAnswer() {
      if (!asking) return;
      unanswered = [...held];
      answer(false);
    },
    leaving,
    observe(rec: boolean): FrameReport {
      if (asking) answer(rec);
      else recording = rec;
      learnt(rec);
      const d = api.observe();
      // A look taken while the pointer rests on a row sees its actions shown: they stay hover-only while that
      // row is hovered (the clerk is about to click one), and are forgotten once a look sees them shown without it.
      const kept = [...lastHoverOnly].filter((el) => el.isConnected && el.closest(ROW_SELECTOR)?.matches(':hover') === true);
      lastHoverOnly = [...d.controls.filter((c) => c.verbs.includes('hover')).flatMap((c) => api.element(c.ref) ?? []), ...kept];
      hoverOnly = new WeakSet(lastHoverOnly);
      return {
        frame: framePath(win),
        url: d.url,
        title: d.title,
        controls: d.controls,
        paths: d.paths,
        text: d.text,
        ...(d.said ? { said: d.said } : {}),
        ...(d.rows ? { rows: d.rows } : {}),
        busy: d.busy,
        ...(d.moving ? { moving: true as const } : {}),
      };
    },
    call(c: FrameCall): FrameReply | Promise<FrameReply> {
      switch (c.op) {
        case 'find':
          return {
            ok: true,
            refs: api.find({
              rung: c.query.rung,
              scope: c.query.scope as Parameters<InPage['find']>[0]['scope'],
              ...(c.query.role !== undefined ? { role: c.query.role } : {}),
              ...(c.query.name !== undefined ? { name: c.query.name } : {}),
              ...(c.query.value !== undefined ? { value: c.query.value } : {}),
              ...(c.query.reveal !== undefined ? { reveal: c.query.reveal } : {}),
              ...(c.query.gesture !== undefined ? { gesture: c.query.gesture } : {}),
            }),
          };
        case 'act':
          // The guard's own click (a press done by the page agent): the page's clicks from now on are its answer.
          if (c.verb === 'invoke' || c.verb === 'toggle') releaseHeld(c.ref);
          try {
            return act(api, c.ref, c.verb, c.value);
          } catch (e) {
            return { ok: false, code: 'ACTION_FAILED', message: (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '' };
          }
        case 'selectors':
          return { ok: true, selectors: api.selectors(c.ref) };
        case 'point': {
          const r = pointFor(api, doc, c);
          if (r.ok) passUntil = Date.now() + PASS_MS;
          // The guard's own press of a held control begins: the page's clicks from now on are its answer to that.
          if (r.ok) releaseHeld(c.ref);
          return r;
        }
        case 'ask':
          return answerFor(api, c);
        case 'changed':
          return changedIn(doc, c.ms);
        case 'done':
          // The worker's input is all sent: from now on trusted input is the clerk's again.
          passUntil = 0;
          return { ok: true };
        case 'frame_box':
          return frameBox(win, c.child);
        case 'menu_pick':
          return { ok: true, pick: api.menuPick(c.ref) };
      }
    },
  };
}
