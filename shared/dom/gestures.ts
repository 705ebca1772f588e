// Gestures a page listens for that the accessibility tree does not show: a double-click (rename in place) and a
// right-click (a context menu). Offered beside a control's own verbs, never in its role's vocabulary, so no
// fingerprint moves (docs/design/verbs.md, "Gestures a page listens for").
//
// Who listens is known three ways, none of them a guess from text: a listener the page added itself, recorded by
// `recordListeners` (the browser surface runs it in each document's main world before the page's scripts); an
// `ondblclick`/`oncontextmenu` handler (attribute or property; HTML §8.1.8.1 event handlers); and React's props on
// the node when React delegates at its root (React 17+ listens for every event on the root container, so the root's
// listener says nothing about which element reacts). A listener on any other ancestor is not the element's: a page
// that delegates elsewhere is not offered the gesture. Nor is the delegating place itself: a React root or portal
// container (React's own listeners, for every event), the <body> and the <html> element (a page's delegation, or its
// "no context menu here"), even where it holds nothing but text (an island root, a toast, a page of text).
import type { Control, ScopeLink, Verb } from '../schema/observation.ts';
import { normalize } from './name.ts';
import { newRowCache, rowKey, type RowCache } from './rows.ts';
import { isHiddenForAria, isIgnoredTag, parentOf, type DomCache } from './style.ts';

/** The two gestures and the DOM event (UI Events §3.4 `dblclick`, HTML §8.1.8.2 `contextmenu`) each one fires. */
export type Gesture = Extract<Verb, 'double_click' | 'context_menu'>;
const EVENT: Readonly<Record<Gesture, string>> = { double_click: 'dblclick', context_menu: 'contextmenu' };
const HANDLER: Readonly<Record<Gesture, 'ondblclick' | 'oncontextmenu'>> = { double_click: 'ondblclick', context_menu: 'oncontextmenu' };
const REACT_PROP: Readonly<Record<Gesture, string>> = { double_click: 'onDoubleClick', context_menu: 'onContextMenu' };
const GESTURES: readonly Gesture[] = ['double_click', 'context_menu'];

/** Whether a verb is one of the gestures a page is seen listening for (offered in `Control.offers`, never by role). */
export function isGesture(verb: Verb): verb is Gesture {
  return (GESTURES as readonly Verb[]).includes(verb);
}

/** The role an element that is no control is offered under: text a person sees and can double- or right-click. */
export const TEXT_ROLE = 'text';

/** Where `recordListeners` keeps what it saw, on the page's global object (not enumerable). */
export const LISTENERS_KEY = '__handrailListeners';

interface ListenerRecord {
  /**
   * React roots that got a watched listener (weakly). React marks its container before it listens on it
   * (`createRoot`: markContainerAsRoot, then listenToAllSupportedEvents), so the mark is there when the listener is
   * added; only roots are kept, so a list re-rendered all day does not grow this.
   */
  reactRoots: WeakRef<EventTarget>[];
  /** Per target and event type, the listeners it has now. */
  types: WeakMap<EventTarget, Map<string, Set<unknown>>>;
  /**
   * Records a listener the target had before this record began, as `addEventListener` would have (the extension
   * reads those once through the DevTools protocol, for a document open before its probe came: docs/design/extension.md,
   * "The extension's trusted input"). Only the watched types are kept.
   */
  learn(target: EventTarget, type: string, listener: unknown): void;
}

/**
 * The init script: wraps `EventTarget.prototype.addEventListener`/`removeEventListener` so a `dblclick` or
 * `contextmenu` listener is recorded against its target. It must run before the page's own scripts (Playwright's
 * `addInitScript`), in the main world, where the page adds its listeners. Behaviour is otherwise unchanged: the
 * originals are called with the same arguments and their result returned.
 */
export function recordListeners(): void {
  const g = globalThis as unknown as Record<string, ListenerRecord | undefined>;
  if (g[LISTENERS_KEY]) return;
  const watched = new Set(Object.values(EVENT));
  const record: ListenerRecord = {
    reactRoots: [],
    types: new WeakMap(),
    learn: (target, type, listener) => {
      if (listener && watched.has(type)) note(target, type, listener, true);
    },
  };
  Object.defineProperty(globalThis, LISTENERS_KEY, { value: record, enumerable: false });
  const proto = EventTarget.prototype;
  const add = proto.addEventListener;
  const remove = proto.removeEventListener;
  // A bare `addEventListener(…)` in a page script calls this with no `this` (our wrapper is strict code); the
  // platform then means the global object (Web IDL §3.7.8), and so does the record. Recording never stops the call.
  const note = (self: EventTarget | undefined, type: string, listener: unknown, adding: boolean): void => {
    try {
      const target = self ?? (globalThis as unknown as EventTarget);
      if (adding) {
        let byType = record.types.get(target);
        if (!byType) {
          record.types.set(target, (byType = new Map()));
          if (isReactContainer(target)) record.reactRoots.push(new WeakRef(target));
        }
        let set = byType.get(type);
        if (!set) byType.set(type, (set = new Set()));
        set.add(listener);
      } else record.types.get(target)?.get(type)?.delete(listener);
    } catch {
      // An exotic `this` (a revoked proxy): the page's own call below says what is wrong, as it would have.
    }
  };
  proto.addEventListener = function (this: EventTarget | undefined, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) {
    if (listener && watched.has(type)) note(this, type, listener, true);
    add.call(this as EventTarget, type, listener, options);
  };
  proto.removeEventListener = function (this: EventTarget | undefined, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions) {
    if (listener && watched.has(type)) note(this, type, listener, false);
    remove.call(this as EventTarget, type, listener, options);
  };
}

function listenerRecord(): ListenerRecord | undefined {
  return (globalThis as unknown as Record<string, ListenerRecord | undefined>)[LISTENERS_KEY];
}

/** React 17+ marks its root container with `__reactContainer$…` and keeps each element's props under `__reactProps$…`. */
const REACT_ROOT = '__reactContainer$';
const REACT_PROPS = '__reactProps$';
/**
 * React 17+ marks every container it listens on for all events with `_reactListening…` before adding the listeners
 * (react-dom's listenToAllSupportedEvents): each root container, and each portal's container, which carries no
 * `__reactContainer$` mark.
 */
const REACT_LISTENING = '_reactListening';

/** A container React listens on for every event: its listeners are React's dispatch, not an element's own offer. */
function isReactContainer(target: object): boolean {
  return ownKeyStarting(target, REACT_LISTENING) !== undefined || ownKeyStarting(target, REACT_ROOT) !== undefined;
}

function ownKeyStarting(el: object, prefix: string): string | undefined {
  return Object.keys(el).find((k) => k.startsWith(prefix));
}

/** Which gestures the page delegates through a React root that listens for them (checked once per walk). */
function reactDelegated(record: ListenerRecord | undefined): Set<Gesture> {
  const out = new Set<Gesture>();
  if (!record) return out;
  for (const ref of record.reactRoots) {
    const t = ref.deref();
    if (!t) continue;
    for (const g of GESTURES) if ((record.types.get(t)?.get(EVENT[g])?.size ?? 0) > 0) out.add(g);
  }
  return out;
}

/** One element the page reacts to a gesture on, where the walk met it. */
export interface GestureSpot {
  el: Element;
  gestures: Gesture[];
  scope: ScopeLink[];
  ancestors: string[];
}

/** What the walk knows at an element (shared/dom/walk.ts `visit`'s context): the parts a gesture offer needs. */
export interface WalkAt {
  scope: ScopeLink[];
  ancestors: string[];
  row: Element | null;
  blocked: boolean;
}

const NONE: readonly Gesture[] = [];

/**
 * Which gestures an element listens for itself, as this realm sees it now: a recorded listener (`recordListeners`),
 * an `ondblclick`/`oncontextmenu` handler, or React props under a React root that listens. Built once per walk; the
 * extension's main-world probe asks it too (docs/design/extension.md, "The extension's trusted input").
 */
export function gesturesListened(): (el: Element) => readonly Gesture[] {
  const record = listenerRecord();
  const react = reactDelegated(record);
  return (el) => {
    const handlers = el as Element & Partial<Record<'ondblclick' | 'oncontextmenu', unknown>>;
    let own = record?.types.get(el);
    // The common case, every element of a large page: nothing listens. Decided without allocating anything.
    if (!own && !react.size && handlers.ondblclick == null && handlers.oncontextmenu == null) return NONE;
    // Where a page delegates from: what listens there listens for the whole page (<body>'s handlers are the window's
    // too, HTML §8.1.8.2), or for all of a React tree. Such a container may still be a React element with props of
    // its own (a portal into an element React rendered).
    const doc = el.ownerDocument;
    if (el === doc.body || el === doc.documentElement) return NONE;
    if (own && isReactContainer(el)) own = undefined;
    let props: Record<string, unknown> | undefined;
    if (react.size) {
      const key = ownKeyStarting(el, REACT_PROPS);
      props = key ? ((el as unknown as Record<string, Record<string, unknown> | undefined>)[key] ?? undefined) : undefined;
    }
    return GESTURES.filter(
      (g) =>
        (own?.get(EVENT[g])?.size ?? 0) > 0 ||
        typeof handlers[HANDLER[g]] === 'function' ||
        (react.has(g) && typeof props?.[REACT_PROP[g]] === 'function'),
    );
  };
}

/**
 * Collects, during one walk, the elements that listen for a gesture themselves. `at` is handed to the walker as its
 * per-element hook; `spots` are the finds, in document order, each with its scope (its row's key added as the
 * walker adds it to a control) and its structural ancestors. `seen` adds what another realm saw (the extension's
 * main-world probe: its content script's isolated world sees neither the main world's listeners nor its handlers).
 */
export function gestureSpotter(c: DomCache, seen?: ReadonlyMap<Element, readonly Gesture[]>): { at: (el: Element, ctx: WalkAt) => void; spots: GestureSpot[] } {
  const listened = gesturesListened();
  const rows: RowCache = newRowCache();
  const spots: GestureSpot[] = [];
  const at = (el: Element, ctx: WalkAt): void => {
    if (ctx.blocked) return;
    const here = listened(el);
    const there = seen?.get(el);
    if (!here.length && !there?.length) return;
    const gestures = there?.length ? GESTURES.filter((g) => here.includes(g) || there.includes(g)) : [...here];
    if (!gestures.length || isHiddenForAria(c, el)) return;
    const key = ctx.row && ctx.row !== el ? rowKey(c, rows, ctx.row) : '';
    spots.push({ el, gestures, scope: key ? [...ctx.scope, { role: 'row', name: key }] : [...ctx.scope], ancestors: [...ctx.ancestors] });
  };
  return { at, spots };
}

/**
 * Rendered text of an element in the flat tree (DOM §4.2.2.3): a slot's assigned nodes and a shadow host's shadow
 * tree count, hidden subtrees do not. `plainText` (rows.ts) reads the DOM tree, where a slot has no text.
 */
function flatText(c: DomCache, el: Element): string {
  let out = '';
  const visit = (n: Node): void => {
    if (n.nodeType === 3) {
      out += n.nodeValue ?? '';
      return;
    }
    if (n.nodeType !== 1) return;
    const e = n as Element;
    if (isIgnoredTag(e) || isHiddenForAria(c, e)) return;
    const kids: Node[] =
      e.tagName === 'SLOT' && (e as HTMLSlotElement).assignedNodes().length
        ? (e as HTMLSlotElement).assignedNodes()
        : [...(e.shadowRoot ?? e).childNodes];
    for (const k of kids) visit(k);
    out += ' ';
  };
  visit(el);
  return normalize(out);
}

/**
 * The walk's controls with the gestures offered: a control that listens gets them in `offers` (its `verbs`, which a
 * fingerprint hashes, stay its role's); an element that is no control becomes a `text` control named by its rendered
 * text, which `read` reads. An element with no text to name it by is left out: a model could not tell it apart.
 * New controls come after the walk's, so the rows a screen always had keep their numbers.
 */
export function offerGestures(c: DomCache, walked: Array<{ el: Element; control: Control }>, spots: readonly GestureSpot[]): Array<{ el: Element; control: Control }> {
  if (!spots.length) return walked;
  const byEl = new Map(walked.map((w) => [w.el, w.control]));
  // Containers of a control or of another listening element, in the flat tree: a listener there is delegation
  // (a list, a section, a framework's root), not an item a person double- or right-clicks.
  const containers = new Set<Element>();
  for (const inner of [...byEl.keys(), ...spots.map((s) => s.el)]) {
    for (let p = parentOf(inner); p && !containers.has(p); p = parentOf(p)) containers.add(p);
  }
  const added: Array<{ el: Element; control: Control }> = [];
  for (const s of spots) {
    const known = byEl.get(s.el);
    if (known) {
      // A hidden row action offered to be hovered is not double-clicked before it shows.
      if (!known.verbs.includes('hover')) known.offers = [...s.gestures];
      continue;
    }
    if (containers.has(s.el) || holdsRows(s.el)) continue;
    const name = flatText(c, s.el);
    if (!name) continue;
    added.push({ el: s.el, control: { ref: '', role: TEXT_ROLE, name, verbs: ['read'], offers: [...s.gestures], scope: s.scope, ancestors: s.ancestors } });
  }
  return [...walked, ...added];
}

/** Rows (shared/dom/rows.ts: table rows, ARIA rows, list items) inside: a list or a table, not one of its items. */
function holdsRows(el: Element): boolean {
  const ROWS = 'tr, li, [role=row], [role=listitem]';
  return el.querySelector(ROWS) !== null || el.shadowRoot?.querySelector(ROWS) != null;
}

/** Whether `want` (a target's in-frame scope, outermost first) is found along `have` in order, as `find` nests scopes. */
function within(have: readonly ScopeLink[], want: readonly ScopeLink[]): boolean {
  let i = 0;
  for (const l of have) if (i < want.length && l.role === want[i]?.role && l.name === normalize(want[i]?.name)) i++;
  return i === want.length;
}

/** The `text` controls a rung finds: by name (role_name) or by contained text (text), within the scope. */
export function findTexts(offered: ReadonlyArray<{ el: Element; control: Control }>, rung: string, scope: readonly ScopeLink[], name: string | undefined, value: string | undefined): Element[] {
  const want = normalize(rung === 'text' ? value : name);
  if (!want) return [];
  return offered
    .filter(({ control: k }) => k.role === TEXT_ROLE && within(k.scope, scope) && (rung === 'text' ? k.name.includes(want) : rung === 'role_name' && k.name === want))
    .map(({ el }) => el);
}
