// The mac surface (docs/design/mac.md, "The mac surface"): the Surface port over a macOS app's accessibility
// tree, reached through the helper (./client.ts). No coordinates: every act names an element by its helper ref and
// does what AX offers for it (AXPress, AXValue). AX roles are mapped onto the browser's role vocabulary, names
// follow AX's own order (AXTitle, AXDescription, a child static text, AXTitleUIElement, AXPlaceholderValue), a
// window and its sheet are the screen's parts, and paths are the role tree with data masked. A person's key or
// click seen by the helper's event tap hands the run back to them: every later verb answers HUMAN_CONTROL.
import { maskData } from '../shared/dom/walk.ts';
import { inScope, walkLadder } from '../shared/ladder.ts';
import { formatRef, parseRef } from '../shared/ref.ts';
import type { Control, Observation, Part, ScopeLink, Verb } from '../shared/schema/observation.ts';
import { combineParts, screenDump } from '../shared/screens.ts';
import { SurfaceError, type ActResult, type Answer, type BoundTarget, type Operation, type Query, type Resolution, type Surface } from '../shared/surface.ts';
import type { FindQuery } from '../shared/dom/api.ts';
import { MacHelperClient, MacHelperError, type ClientOptions } from './client.ts';
import type { AxNode, HelperEvent } from './protocol.ts';

/** The observer's version: observations carry it and fingerprints hash it (bump on any rule change below). */
export const MAC_OBSERVER = 'mac-ax/1';
/** How deep a snapshot of the app goes: menu bar > item > menu > menu item is 4; a sheet's fields sit near 6. */
const MAX_DEPTH = 12;
/** An app that sent a notification this recently is still changing: its parts are reported busy. */
const QUIET_MS = 120;

/** AX roles (AXRoleConstants.h) to the browser's role vocabulary (WAI-ARIA 1.2 roles); unmapped roles are transparent. */
export const ROLE_MAP: Readonly<Record<string, string>> = {
  AXButton: 'button',
  AXMenuButton: 'button',
  AXDisclosureTriangle: 'button',
  AXTextField: 'textbox',
  AXTextArea: 'textbox',
  AXComboBox: 'combobox',
  AXPopUpButton: 'combobox',
  AXMenuItem: 'menuitem',
  AXMenuBarItem: 'menuitem',
  AXCheckBox: 'checkbox',
  AXRadioButton: 'radio',
  AXLink: 'link',
  AXStaticText: 'text',
  AXSheet: 'dialog',
  AXWindow: 'region',
  AXGroup: 'group',
  AXToolbar: 'toolbar',
  AXRadioGroup: 'radiogroup',
  AXMenuBar: 'menubar',
  AXMenu: 'menu',
  AXTable: 'table',
  AXRow: 'row',
};

const CONTROL_ROLES = new Set(['button', 'textbox', 'combobox', 'menuitem', 'checkbox', 'radio', 'link']);

/** One element of a snapshot, flattened with what the core needs. */
interface Seen {
  node: AxNode;
  role: string;
  name: string;
  hint?: string;
  scope: ScopeLink[];
  ancestors: string[];
  part: 'menubar' | 'window' | 'sheet';
  /** It is some element's AXTitleUIElement: a label, so furniture. */
  isLabel: boolean;
  secret: boolean;
}

interface Snapshot {
  observation: Observation;
  byRef: Map<string, Seen>;
  all: Seen[];
}

/** The element ref the core sees: the helper's ref as a top-document ref (shared/ref.ts). */
const coreRef = (axRef: string): string => formatRef([], axRef);
const axRefOf = (ref: string): string => parseRef(ref)?.local ?? ref;

/** A control's label held by a child static text (a button or cell drawn with a text child); containers have none. */
function childText(n: AxNode): string {
  if (!CONTROL_ROLES.has(ROLE_MAP[n.role] ?? '')) return '';
  const t = n.children.find((c) => c.role === 'AXStaticText' && c.value);
  return t?.value ?? '';
}

/** The accessible name by AX's order; a title element's text comes from the snapshot's labels. */
export function axName(n: AxNode, labels: ReadonlyMap<string, string>): string {
  if (n.role === 'AXStaticText') return n.value ?? '';
  return n.title || n.description || childText(n) || (n.titleElement ? (labels.get(n.titleElement) ?? '') : '') || n.placeholder || '';
}

function verbsOf(role: string, n: AxNode): Verb[] {
  const press = n.actions.includes('AXPress');
  switch (role) {
    case 'textbox':
      return n.settable.includes('AXValue') ? ['set_value', 'read'] : ['read'];
    case 'combobox':
      return press ? ['select', 'read'] : ['read'];
    case 'checkbox':
    case 'radio':
      return press ? ['toggle', 'read'] : ['read'];
    default:
      return press ? ['invoke'] : [];
  }
}

function scopeLinkOf(n: AxNode, role: string, name: string, parent: AxNode | null): ScopeLink | null {
  if (role === 'region') return { role: 'region', name };
  if (role === 'dialog') return { role: 'dialog', name };
  if (role === 'table' || role === 'row') return { role, name };
  // A menu is named by the menu bar item (or popup) it hangs from: File > Save… is in group 'File'.
  if (role === 'menu') return parent?.title ? { role: 'group', name: parent.title } : null;
  if ((role === 'group' || role === 'toolbar' || role === 'radiogroup') && name) return { role: 'group', name };
  return null;
}

/** Flattens a snapshot of the app into elements and one Observation (parts: menu bar, window, sheet). */
export function readTree(root: AxNode, app: string): Snapshot {
  const labels = new Map<string, string>();
  const labelled = new Set<string>();
  const collect = (n: AxNode): void => {
    if (n.role === 'AXStaticText') labels.set(n.ref, n.value ?? '');
    if (n.titleElement) labelled.add(n.titleElement);
    n.children.forEach(collect);
  };
  collect(root);

  const all: Seen[] = [];
  let windowTitle = '';
  let saved = false;
  const visit = (n: AxNode, parent: AxNode | null, scope: ScopeLink[], ancestors: string[], part: Seen['part']): void => {
    const role = ROLE_MAP[n.role] ?? '';
    const name = role ? axName(n, labels) : '';
    if (n.role === 'AXWindow' && !windowTitle) {
      windowTitle = n.title ?? '';
      saved = !!n.document;
    }
    let next = part;
    if (n.role === 'AXMenuBar') next = 'menubar';
    if (n.role === 'AXSheet') next = 'sheet';
    if (role) {
      const hint = name ? undefined : n.identifier || n.roleDescription || undefined;
      all.push({ node: n, role, name, ...(hint ? { hint } : {}), scope, ancestors, part: next, isLabel: labelled.has(n.ref), secret: n.subrole === 'AXSecureTextField' });
    }
    const link = role ? scopeLinkOf(n, role, name, parent) : null;
    const kids = link ? [...scope, link] : scope;
    // A window that shows a saved file (AXDocument set) is a `document` in the role tree, an untitled one a `region`:
    // saving changes the furniture of everything in it, so the screen after a save is not the screen before it.
    const word = n.role === 'AXWindow' && n.document ? 'document' : role;
    const chain = role && !CONTROL_ROLES.has(role) && role !== 'text' && role !== 'menubar' ? [...ancestors, word] : ancestors;
    for (const c of n.children) visit(c, n, kids, chain, next);
  };
  visit(root, null, [], [], 'window');

  const parts: Part[] = [];
  const byRef = new Map<string, Seen>();
  for (const part of ['window', 'menubar', 'sheet'] as const) {
    const mine = all.filter((s) => s.part === part);
    if (part !== 'window' && !mine.length) continue;
    const controls: Control[] = [];
    const paths = new Set<string>();
    const text: string[] = [];
    if (part === 'window') {
      paths.add(saved ? 'document' : 'region');
      text.push(windowTitle);
    }
    for (const s of mine) {
      byRef.set(coreRef(s.node.ref), s);
      const verbs = verbsOf(s.role, s.node);
      const label = s.name || s.hint || '';
      const chain = s.ancestors.length ? `${s.ancestors.join('>')}>` : '';
      // Furniture: controls and labels. A menu's items are furniture of the menu bar, not of the screen: only the
      // bar's own items are paths (a menu that is not open shows nothing), though every item is a control.
      const inClosedMenu = s.ancestors.includes('menu');
      if ((CONTROL_ROLES.has(s.role) && !inClosedMenu) || s.isLabel) paths.add(label ? `${chain}${s.role} '${maskData(label)}'` : `${chain}${s.role}`);
      if (s.role === 'text' && s.name) text.push(s.name);
      else if (s.role === 'menuitem' && !inClosedMenu) text.push(s.name);
      else if (s.role === 'textbox' && s.node.value && !s.secret) text.push(s.node.value);
      if (!CONTROL_ROLES.has(s.role) || !verbs.length) continue;
      controls.push({
        ref: coreRef(s.node.ref),
        role: s.role,
        name: s.name,
        ...(s.hint !== undefined ? { hint: s.hint } : {}),
        verbs,
        scope: s.scope,
        ancestors: s.ancestors,
        ...(s.node.value !== undefined && !s.secret && s.role !== 'button' && s.role !== 'menuitem' ? { value: s.node.value } : {}),
        ...(!s.node.enabled ? { disabled: true } : {}),
        ...(s.secret ? { secret: true } : {}),
      });
    }
    const locus: Record<string, string> = { app, window: windowTitle };
    if (part === 'sheet') locus['sheet'] = 'sheet';
    if (part === 'menubar') locus['menu'] = 'menu bar';
    parts.push({ part: part === 'window' ? [] : [part], locus, controls, paths: [...paths].sort(), text: text.filter(Boolean).join(' ') });
  }
  return { observation: combineParts(parts, MAC_OBSERVER), byRef, all };
}



/** One rung's query against a snapshot, with the walker's rung meanings (shared/dom/find.ts). */
function finds(s: Seen, q: FindQuery): boolean {
  if (!inScope(s.scope, q.scope)) return false;
  switch (q.rung) {
    case 'role_name':
      return s.role === q.role && s.name === (q.name ?? '');
    case 'label': {
      const hint = q.value ?? q.name;
      return !!hint && s.role === q.role && s.hint === hint;
    }
    case 'text':
      return !!q.value && (s.name || s.node.value || '').includes(q.value);
    case 'css':
      return false;
  }
}

export class MacSurface implements Surface {
  readonly kind = 'macos' as const;
  readonly observer = MAC_OBSERVER;
  readonly #client: MacHelperClient;
  #pid: number | null = null;
  #app = '';
  #last: Snapshot | null = null;
  #human: Extract<HelperEvent, { event: 'input' }> | null = null;
  #changedAt = 0;
  /** AX notifications seen, in order: what settled a step, for tests and evidence. */
  readonly notifications: string[] = [];

  private constructor(client: MacHelperClient) {
    this.#client = client;
    client.onEvent((e) => {
      if (e.event === 'input') this.#human ??= e;
      else {
        this.#changedAt = Date.now();
        this.notifications.push(e.notification);
      }
    });
  }

  static async launch(opts: ClientOptions = {}): Promise<MacSurface> {
    return new MacSurface(await MacHelperClient.start(opts));
  }

  /** The helper client, for what only the fake answers (`fake.files`, `fake.human`). */
  get client(): MacHelperClient {
    return this.#client;
  }

  #guard(): void {
    if (this.#human) {
      throw new SurfaceError('HUMAN_CONTROL', `a person used the ${this.#human.kind === 'key' ? 'keyboard' : 'mouse'} during the run; the run stopped and left ${this.#app || 'the app'} to them`);
    }
  }

  async open(entry: string): Promise<void> {
    if (!/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(entry)) throw new SurfaceError('SURFACE_UNREACHABLE', `the macos entry is an app bundle id (com.apple.TextEdit), not "${entry.slice(0, 80)}"`);
    const opened = await this.#client.request('open', { bundleId: entry }, 30_000);
    this.#pid = opened.pid;
    this.#app = opened.name;
    await this.#client.request('observe', { pid: opened.pid, notifications: ['AXSheetCreated', 'AXValueChanged', 'AXUIElementDestroyed', 'AXFocusedUIElementChanged', 'AXWindowCreated', 'AXTitleChanged'] });
    await this.#client.request('tap.start', {});
  }

  /** A fresh snapshot of the app. `guard`: a person's input ends the run (evidence of the end still reads). */
  async #snapshot(guard = true): Promise<Snapshot> {
    if (guard) this.#guard();
    if (this.#pid === null) throw new SurfaceError('STALE', 'no app is open');
    const { root } = await this.#client.request('snapshot', { pid: this.#pid, scope: 'app', maxDepth: MAX_DEPTH });
    if (guard) this.#guard();
    const snap = readTree(root, this.#app);
    if (Date.now() - this.#changedAt < QUIET_MS) {
      // A notification just arrived: the app is still changing (a sheet sliding in), so the screen is not at rest.
      snap.observation = { ...snap.observation, busy: true, parts: snap.observation.parts.map((p) => ({ ...p, busy: true as const })) };
    }
    this.#last = snap;
    return snap;
  }

  async observe(): Promise<Observation> {
    return (await this.#snapshot()).observation;
  }

  async resolve(target: BoundTarget): Promise<Resolution> {
    const snap = await this.#snapshot();
    const controls = new Map(snap.observation.parts.flatMap((p) => p.controls).map((c) => [c.ref, c]));
    return walkLadder(target, {
      find: (q) => Promise.resolve(snap.all.filter((s) => finds(s, q)).map((s) => coreRef(s.node.ref))),
      controlOf: (ref) => controls.get(ref) ?? null,
      observer: MAC_OBSERVER,
    });
  }

  async #perform(ref: string, action: string): Promise<void> {
    await this.#client.request('perform', { ref, action });
  }

  async act(ref: string, op: Operation): Promise<ActResult> {
    this.#guard();
    const seen = this.#last?.byRef.get(ref);
    if (!seen) throw new SurfaceError('STALE', `element ${ref} is not in the latest snapshot`);
    const ax = axRefOf(ref);
    try {
      switch (op.verb) {
        case 'invoke':
        case 'toggle':
          await this.#perform(ax, 'AXPress');
          break;
        case 'set_value':
          await this.#client.request('set', { ref: ax, attr: 'AXValue', value: op.value ?? '' });
          break;
        case 'select':
          await this.#select(ax, op.value ?? '');
          break;
        case 'read': {
          const { root } = await this.#client.request('snapshot', { pid: this.#pid ?? 0, scope: { ref: ax }, maxDepth: 2 });
          return { read: seen.secret ? '' : (root.value ?? seen.name) };
        }
        default:
          // The helper speaks AX actions only; a key, hover, gesture or row read it cannot do is refused by name,
          // never answered as done (docs/design/mac.md, "The mac surface").
          throw new SurfaceError('ACTION_FAILED', `the macOS surface does not ${op.verb.replace('_', '-')} (it presses, types, selects, toggles and reads)`);
      }
    } finally {
      this.#last = null;
    }
    // A person's input seen during this act ends the run at the next verb: the act itself went through.
    return {};
  }

  /** A popup's option is chosen as a person does: press the popup, then the menu item that names the option. */
  async #select(ax: string, value: string): Promise<void> {
    await this.#perform(ax, 'AXPress');
    const { root } = await this.#client.request('snapshot', { pid: this.#pid ?? 0, scope: { ref: ax }, maxDepth: 3 });
    const item = root.children.flatMap((m) => m.children).find((i) => i.role === 'AXMenuItem' && i.title === value);
    if (!item) {
      const menu = root.children[0];
      if (menu?.actions.includes('AXCancel')) await this.#perform(menu.ref, 'AXCancel');
      throw new MacHelperError('action_not_listed', `the popup ${ax} offers no option "${value}"`);
    }
    await this.#perform(item.ref, 'AXPress');
  }

  async evaluate(query: Query): Promise<Answer> {
    const observation = await this.observe();
    if (query.kind === 'observe') return { kind: 'observe', observation };
    return { kind: 'text_present', present: observation.parts.some((p) => p.text.includes(query.text)) };
  }

  evidence(kind: 'screenshot'): Promise<Uint8Array>;
  evidence(kind: 'text'): Promise<string>;
  async evidence(kind: 'screenshot' | 'text'): Promise<Uint8Array | string> {
    if (kind === 'screenshot') throw new SurfaceError('ACTION_FAILED', 'the macos surface takes no screenshots (its declaration lists text evidence only)');
    return screenDump((await this.#snapshot(false)).observation);
  }

  async close(): Promise<void> {
    await this.#client.request('tap.stop', {}).catch(() => undefined);
    await this.#client.close();
  }
}
