// The extension's Surface (shared/surface.ts): the clerk's tab reached through the content script in each of
// its frames. observe asks every frame's walker and joins the frames with shared/screens.ts; resolve and act go
// to the frame a ref names. Refs are spelled as the runner spells them (`work|c3`), so a book written here reads
// the same as one written by `handrail author`.
import { frameScope, walkLadder } from '../../shared/ladder.ts';
import { formatRef, frameKey, frameObservation, parseFrameKey, parseRef } from '../../shared/ref.ts';
import { isKey, keyStrokes, type Key, type KeyStroke } from '../../shared/keys.ts';
import type { Control, Observation, Part, Verb } from '../../shared/schema/observation.ts';
import { combineParts, screenDump } from '../../shared/screens.ts';
import { WALKER_VERSION } from '../../shared/dom/version.ts';
import { CLICK_OPENS_MS, HOVER_OPENS_MS, submenuDidNotOpen } from '../../shared/dom/options.ts';
import { menuLevels } from '../../shared/menu-path.ts';
import { SurfaceError, type ActResult, type Answer, type BoundTarget, type MenuPick, type Operation, type Query, type Resolution, type Surface } from '../../shared/surface.ts';
import { isWrite, viaOf, type Request, type SeenWrite, type WriteScope } from '../../shared/writes.ts';
import { FrameReply, FrameReport, type FrameCall } from './messages.ts';

/** The part of a chrome.webRequest event's details a write is read from. */
export interface RequestDetails {
  method: string;
  url: string;
  /** chrome.webRequest.ResourceType: `main_frame`, `sub_frame`, `xmlhttprequest`, `ping`, … */
  type: string;
}

/** A request as shared/writes.ts reads it, from what chrome.webRequest reports of it. */
export function requestOfDetails(d: RequestDetails): Request {
  return { method: d.method, url: d.url, via: viaOf(d.type, d.method) };
}

/** The port to one tab's frames (browser.scripting in the worker; a fake in unit tests). */
export interface TabChannel {
  /** Every frame's report, or null where no agent is installed yet (a frame that just navigated). */
  observeFrames(recording: boolean): Promise<Array<{ frameId: number; report: unknown }>>;
  /** Installs the content script in these frames. */
  install(frameIds: number[]): Promise<void>;
  call(frameId: number, c: FrameCall): Promise<unknown>;
  navigate(url: string): Promise<void>;
  /**
   * Calls `listen` with each request the tab sends, at the network layer (chrome.webRequest.onBeforeRequest,
   * observe-only), until the returned function is called.
   */
  requests(listen: (r: Request) => void): () => void;
  /**
   * Trusted input (chrome.debugger; docs/design/extension.md, "The extension's trusted input"): `ready` attaches, so
   * the page has its final size before points are measured; `input` sends the events; `release` lets the tab go.
   */
  trusted: { ready(): Promise<void>; input(events: readonly TrustedEvent[]): Promise<void>; release(): Promise<void> };
}

/** One input event sent as a person's, at CSS pixels of the tab's top viewport. */
export type TrustedEvent =
  | { kind: 'key'; stroke: KeyStroke }
  | { kind: 'mouse'; type: 'mouseMoved' | 'mousePressed' | 'mouseReleased'; x: number; y: number; clickCount?: number; button?: 'right' };

type Point = { x: number; y: number };

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

/** Where the pointer goes to hover nothing: outside the viewport, so no row of the page matches :hover. */
export const POINTER_AWAY: Point = { x: -1, y: -1 };

/**
 * How long a double-click has to change the screen, a right-click to show a menu, and a list or menu to show the
 * option and take the pick, before the step fails (as on the runner's browser surface).
 */
const GESTURE_SETTLE_MS = 2_000;

/** The verbs done with trusted input, not by the content script alone. */
export const TRUSTED_VERBS: ReadonlySet<Verb> = new Set<Verb>(['press', 'hover', 'double_click', 'choose', 'context_menu']);

/** The verbs whose outcome may take a moment to show: their check is asked again until GESTURE_SETTLE_MS. */
const WAITED: ReadonlySet<Verb> = new Set<Verb>(['double_click', 'choose', 'context_menu']);

/** The frame key and local part of a ref this surface made; a ref it did not make names no frame. */
function splitRef(ref: string): { key: string; local: string } {
  const parts = parseRef(ref);
  if (!parts) throw new SurfaceError('STALE', `${JSON.stringify(ref)} is not an element ref`);
  return { key: parts.key, local: parts.local };
}

export class ExtensionSurface implements Surface {
  readonly kind = 'browser' as const;
  readonly observer = WALKER_VERSION;
  #frames = new Map<string, number>();
  #last: Observation | null = null;
  /** Whether frames should catch the clerk's own actions (record mode). */
  recording = false;
  /** chrome.webRequest only observes (docs/design/writes.md, "Writes"): a write has left when it is seen. */
  readonly writesUnheld = true;
  #watch: { scope: WriteScope; seen: SeenWrite[] } | null = null;
  #unlisten: (() => void) | null = null;

  constructor(private readonly tab: TabChannel) {}

  async open(entry: string): Promise<void> {
    try {
      await this.tab.navigate(entry);
    } catch (e) {
      throw new SurfaceError('NAVIGATION_FAILED', `opening ${entry}: ${(e as Error).message}`);
    }
  }

  async #reports(): Promise<Array<{ frameId: number; report: FrameReport | null }>> {
    const raw = await this.tab.observeFrames(this.recording);
    return raw.map(({ frameId, report }) => {
      if (report === null || report === undefined) return { frameId, report: null };
      const r = FrameReport.safeParse(report);
      return { frameId, report: r.success ? r.data : null };
    });
  }

  async observe(): Promise<Observation> {
    let got;
    try {
      got = await this.#reports();
      const missing = got.filter((g) => g.report === null).map((g) => g.frameId);
      if (missing.length) {
        await this.tab.install(missing);
        got = await this.#reports();
      }
    } catch (e) {
      throw new SurfaceError('STALE', `observing the tab: ${(e as Error).message}`);
    }
    if (got.length === 0 || got.some((g) => g.report === null)) throw new SurfaceError('STALE', 'a frame is still loading');
    const frames: Part[] = [];
    const ids = new Map<string, number>();
    for (const { frameId, report } of got) {
      const r = report as FrameReport;
      ids.set(frameKey(r.frame), frameId);
      frames.push(frameObservation(r.frame, r));
    }
    frames.sort((a, b) => frameKey(a.part).localeCompare(frameKey(b.part)));
    this.#frames = ids;
    this.#last = combineParts(frames, WALKER_VERSION);
    return this.#last;
  }

  async #call(key: string, c: FrameCall): Promise<FrameReply> {
    const id = this.#frames.get(key);
    if (id === undefined) throw new SurfaceError('STALE', `frame ${key || '(top)'} is gone`);
    let raw: unknown;
    try {
      raw = await this.tab.call(id, c);
    } catch (e) {
      throw new SurfaceError('STALE', `frame ${key || '(top)'}: ${(e as Error).message}`);
    }
    if (raw === null || raw === undefined) throw new SurfaceError('STALE', `frame ${key || '(top)'} has no agent (it navigated)`);
    const r = FrameReply.safeParse(raw);
    if (!r.success) throw new SurfaceError('ACTION_FAILED', `frame ${key || '(top)'} answered something that is not a reply`);
    return r.data;
  }

  #control(ref: string): Control | null {
    return this.#last?.parts.flatMap((f) => f.controls).find((c) => c.ref === ref) ?? null;
  }

  async resolve(target: BoundTarget): Promise<Resolution> {
    const { framePath } = frameScope(target);
    const key = frameKey(framePath);
    if (!this.#frames.has(key)) return { ok: false, code: 'TARGET_NOT_FOUND', attempts: [], detail: `no frame ${key} on the page` };
    return walkLadder(target, {
      find: async (query) => {
        const reply = await this.#call(key, { op: 'find', query });
        return (reply.ok ? (reply.refs ?? []) : []).map((r) => formatRef(framePath, r));
      },
      controlOf: (ref) => this.#control(ref),
    });
  }

  async act(ref: string, op: Operation): Promise<ActResult> {
    const { key, local } = splitRef(ref);
    if (TRUSTED_VERBS.has(op.verb)) {
      await this.#trusted(key, local, ref, op);
      return {};
    }
    const reply = await this.#call(key, { op: 'act', ref: local, verb: op.verb, ...(op.value !== undefined ? { value: op.value } : {}) });
    if (!reply.ok) throw new SurfaceError(reply.code, `${op.verb} on ${ref}: ${reply.message}`);
    if (op.verb === 'read_rows') {
      if (!reply.rows) throw new SurfaceError('ACTION_FAILED', `read_rows on ${ref}: the frame read no rows`);
      return { rows: reply.rows, headers: reply.headers ?? [] };
    }
    return reply.read !== undefined ? { read: reply.read } : {};
  }

  /** Moves the pointer off the page, so a row's hover-only actions hide again (a clerk's revealed click, recorded). */
  async pointerAway(): Promise<void> {
    await this.#input([{ kind: 'mouse', type: 'mouseMoved', ...POINTER_AWAY }]);
  }

  async #input(events: readonly TrustedEvent[]): Promise<void> {
    try {
      await this.tab.trusted.input(events);
    } catch (e) {
      throw new SurfaceError('ACTION_FAILED', (e as Error).message);
    }
  }

  /** A point in frame `key`'s viewport, moved into the top viewport by each enclosing frame's content origin. */
  async #pointIn(key: string, c: FrameCall): Promise<{ point: Point; open: boolean; combobox: boolean }> {
    return this.#placed(key, await this.#call(key, c));
  }

  /** A frame's `point` reply, its point moved into the top viewport; a failed reply thrown as its SurfaceError. */
  async #placed(key: string, reply: FrameReply): Promise<{ point: Point; open: boolean; combobox: boolean }> {
    if (!reply.ok) throw new SurfaceError(reply.code, reply.message);
    if (!reply.point) throw new SurfaceError('ACTION_FAILED', 'the frame gave no point');
    let { x, y } = reply.point;
    const path = parseFrameKey(key);
    for (let depth = path.length; depth > 0; depth--) {
      const parent = frameKey(path.slice(0, depth - 1));
      const box = await this.#call(parent, { op: 'frame_box', child: path[depth - 1] as string });
      if (!box.ok || !box.point) throw new SurfaceError('STALE', `frame ${frameKey(path.slice(0, depth))} is no longer in its parent`);
      x += box.point.x;
      y += box.point.y;
    }
    return { point: { x, y }, open: reply.open === true, combobox: reply.combobox === true };
  }

  /**
   * press, hover, double_click and choose with a person's input (docs/design/extension.md, "The extension's trusted
   * input"), meaning what they mean on the runner's browser surface ("The six verbs"): the frame says where the
   * control is (scrolled into view, not covered), the worker sends the events there, the frame checks the outcome.
   */
  async #trusted(key: string, local: string, ref: string, op: Operation): Promise<void> {
    const value = op.value ?? '';
    if (op.verb === 'press' && !isKey(value)) throw new SurfaceError('ACTION_FAILED', `press on ${ref}: "${value.slice(0, 20)}" is not a key press takes`);
    try {
      await this.tab.trusted.ready();
    } catch (e) {
      throw new SurfaceError('ACTION_FAILED', `${op.verb} on ${ref}: ${(e as Error).message}`);
    }
    // A control covered for a moment (a closing list's backdrop, an animation) is waited for, as Playwright's
    // actionability checks wait on the runner; still covered after GESTURE_SETTLE_MS, the act fails saying by what.
    const targetCall: FrameCall = { op: 'point', ref: local, verb: op.verb, at: 'target', ...(op.value !== undefined ? { value: op.value } : {}) };
    const at = await this.#waited(async () => {
      const reply = await this.#call(key, targetCall);
      // A pick whose list is open already (the clerk opened it and its submenus) clicks only in the list: its
      // control, covered by a modal menu, needs no point.
      if (op.verb === 'choose' && !reply.ok && reply.open === true) return { point: { x: 0, y: 0 }, open: true, combobox: false };
      return this.#placed(key, reply);
    });
    switch (op.verb) {
      case 'press':
        // The frame focused the control: the key goes where the card says, not wherever the focus was left.
        await this.#input(keyStrokes(value as Key).map((stroke) => ({ kind: 'key' as const, stroke })));
        break;
      case 'hover':
        await this.#input([{ kind: 'mouse', type: 'mouseMoved', ...at.point }]);
        break;
      case 'double_click':
        await this.#input(clicksAt(at.point, 2));
        break;
      case 'context_menu':
        await this.#input(clicksAt(at.point, 1, 'right'));
        break;
      case 'choose': {
        const target = { op: 'point' as const, ref: local, verb: 'choose' as const, at: 'target' as const, value };
        if (!at.open) {
          await this.#input(clicksAt(at.point, 1));
          // A combobox a click does not open (Headless UI's) is opened with Down Arrow, as on the runner (openList).
          if (at.combobox && !(await this.#opensWithin(() => this.#pointIn(key, target), CLICK_OPENS_MS))) await this.#keys('ArrowDown');
        }
        try {
          await this.#openSubmenus(key, local, value);
          // A list or menu rendered a moment after the click (a portal made on opening): asked again for a while.
          const option = await this.#waited(() => this.#pointIn(key, { op: 'point', ref: local, verb: 'choose', at: 'option', value }));
          await this.#input(clicksAt(option.point, 1));
        } catch (e) {
          // Nothing was picked: the list this pick opened (and the submenus on the way) is closed again, so the page
          // is as it was (as on the runner).
          if (!at.open) await this.#closeList(key, local, value);
          throw e;
        }
        break;
      }
    }
    // A key or a double-click may take the page away: then there is nothing left to check. A double-click, a
    // right-click or a pick whose outcome has not shown yet is asked about again for up to GESTURE_SETTLE_MS.
    const check = async (): Promise<void> => {
      const checked = await this.#call(key, { op: 'check', ref: local, verb: op.verb, ...(op.value !== undefined ? { value: op.value } : {}) }).catch((e: unknown) => {
        // So may a pick: a menu item that is a link to another page.
        if (e instanceof SurfaceError && e.code === 'STALE' && (op.verb === 'press' || op.verb === 'double_click' || op.verb === 'choose')) return { ok: true as const };
        throw e;
      });
      if (!checked.ok) throw new SurfaceError(checked.code, `${op.verb} on ${ref}: ${checked.message}`);
    };
    await (WAITED.has(op.verb) ? this.#waited(check) : check());
  }

  /**
   * `choose` by a path (docs/design/extension.md, "The extension's trusted input": submenus), as the runner's
   * openSubmenus: each submenu on the way is opened as menus open them — a trusted hover (Radix, MUI: waited for
   * HOVER_OPENS_MS), else a click (the APG menubar), else ArrowRight on the focused item (the APG keyboard) — and is
   * waited for, so the pick clicks in a showing menu. None opening it fails naming the item; a level that is not there
   * is left to the pick, which names it in the walker's words.
   */
  async #openSubmenus(key: string, local: string, value: string): Promise<void> {
    const at = (verb: 'hover' | 'press'): FrameCall => ({ op: 'point', ref: local, verb, at: 'submenu', value });
    for (let level = 1; level < menuLevels(value).length; level++) {
      const next = await this.#waited(async () => {
        const reply = await this.#call(key, at('hover'));
        return reply.ok && !reply.point ? null : { ...(await this.#placed(key, reply)), item: reply.ok ? (reply.item ?? '') : '' };
      }).catch((e: unknown) => {
        if (e instanceof SurfaceError && e.code === 'ACTION_FAILED') return null;
        throw e;
      });
      if (next === null) return;
      await this.#input([{ kind: 'mouse', type: 'mouseMoved', ...next.point }]);
      if (await this.#submenuOpens(key, local, value, HOVER_OPENS_MS)) continue;
      await this.#input(clicksAt(next.point, 1));
      if (await this.#submenuOpens(key, local, value, GESTURE_SETTLE_MS)) continue;
      const focused = await this.#call(key, at('press'));
      if (focused.ok && focused.point) {
        await this.#keys('ArrowRight');
        if (await this.#submenuOpens(key, local, value, GESTURE_SETTLE_MS)) continue;
      }
      throw new SurfaceError('ACTION_FAILED', submenuDidNotOpen(next.item));
    }
  }

  /** Whether the submenu of the item the frame last pointed at (`point` at `submenu`) opened within `ms`. */
  async #submenuOpens(key: string, local: string, value: string, ms: number): Promise<boolean> {
    return this.#opensWithin(async () => ({ open: (await this.#call(key, { op: 'submenu_opened', ref: local, value })).open === true }), ms);
  }

  /**
   * Closes the list a failed pick opened, as the runner's closeList does (docs/design/extension.md, "The extension's
   * trusted input": closing a list): Escape where the focus is, once for each level still open while the focus is in
   * one of them (APG: Escape closes the menu that holds the focus), then — a combobox only — Escape on the control
   * itself. A menu button is never sent Escape itself: APG's ignores it, and it would reach a dialog around the menu
   * and close that; one whose menu is still open is clicked, which toggles it shut. Never rejects: it only tidies up.
   */
  async #closeList(key: string, local: string, value: string): Promise<void> {
    const ask = (): Promise<FrameReply | null> =>
      this.#call(key, { op: 'point', ref: local, verb: 'choose', at: 'target', value }).catch(() => null);
    // A list still saying it is open a moment after an Escape (a close being animated says so until it ends) is given
    // the moment before anything more is sent.
    const closes = async (): Promise<FrameReply | null> => {
      const until = Date.now() + 500;
      let r = await ask();
      while (r?.open === true && Date.now() < until) {
        await new Promise((res) => setTimeout(res, 50));
        r = await ask();
      }
      return r?.open === true ? r : null;
    };
    let still = await ask();
    if (still?.open !== true) return;
    for (let level = 0; level < 4; level++) {
      await this.#keys('Escape').catch(() => undefined);
      still = await closes();
      if (!still) return;
      if (still.focusInList !== true) break;
    }
    if (still.ok && still.combobox === true) {
      const focused = await this.#call(key, { op: 'point', ref: local, verb: 'press', at: 'target' }).catch(() => null);
      if (focused?.ok) await this.#keys('Escape').catch(() => undefined);
    } else if (still.ok) {
      const at = await this.#placed(key, still).catch(() => null);
      if (at) await this.#input(clicksAt(at.point, 1)).catch(() => undefined);
    }
  }

  /** One key pressed with trusted input, where the focus is. */
  async #keys(key: Key): Promise<void> {
    await this.#input(keyStrokes(key).map((stroke) => ({ kind: 'key' as const, stroke })));
  }

  /** Whether the list `ask` reports on is open within `ms`. */
  async #opensWithin(ask: () => Promise<{ open: boolean }>, ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    for (;;) {
      if ((await ask().catch(() => ({ open: false }))).open) return true;
      if (Date.now() >= until) return false;
      await new Promise((r) => setTimeout(r, 30));
    }
  }

  /** `ask` until it does not fail ACTION_FAILED, for at most GESTURE_SETTLE_MS; then its last failure. */
  async #waited<T>(ask: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + GESTURE_SETTLE_MS;
    for (;;) {
      try {
        return await ask();
      } catch (e) {
        if (!(e instanceof SurfaceError) || e.code !== 'ACTION_FAILED' || Date.now() > deadline) throw e;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** CSS candidates for the dearest rung, derived from the element itself (the guard's selectorsFor hook). */
  async selectorsFor(ref: string): Promise<string[]> {
    const { key, local } = splitRef(ref);
    const reply = await this.#call(key, { op: 'selectors', ref: local });
    return reply.ok ? (reply.selectors ?? []) : [];
  }

  /** Where the menu item behind `ref` is reached from (shared/surface.ts menuPick), asked of its frame. */
  async menuPick(ref: string): Promise<MenuPick | null> {
    const { key, local } = splitRef(ref);
    const reply = await this.#call(key, { op: 'menu_pick', ref: local });
    return reply.ok && reply.pick ? { ...reply.pick, button: formatRef(parseFrameKey(key), reply.pick.button) } : null;
  }

  /** The frame a ref lives in, by its key ('' for the top document), as last observed. */
  frameIdOf(key: string): number | undefined {
    return this.#frames.get(key);
  }

  async evaluate(query: Query): Promise<Answer> {
    const observation = await this.observe();
    if (query.kind === 'observe') return { kind: 'observe', observation };
    return { kind: 'text_present', present: observation.parts.some((f) => f.text.includes(query.text)) };
  }

  evidence(kind: 'screenshot'): Promise<Uint8Array>;
  evidence(kind: 'text'): Promise<string>;
  async evidence(kind: 'screenshot' | 'text'): Promise<Uint8Array | string> {
    // Authoring keeps no screenshots: the book is the record, and a picture of the clerk's screen could hold a secret.
    if (kind === 'screenshot') return new Uint8Array();
    const obs = this.#last ?? (await this.observe());
    return screenDump(obs);
  }

  /**
   * Side-effect detection (shared/surface.ts): records each write the tab sends from now on. Nothing can be held,
   * so the gate is never asked and every write is `unasked`; the guard asked about a press before it, if at all.
   */
  watchWrites(scope: WriteScope): Promise<void> {
    this.#unlisten ??= this.tab.requests((r) => {
      const w = this.#watch;
      if (w && isWrite(r, w.scope)) w.seen.push({ ...r, fate: 'unasked' });
    });
    this.#watch = { scope, seen: [] };
    return Promise.resolve();
  }

  takeWrites(): Promise<SeenWrite[]> {
    const seen = this.#watch?.seen ?? [];
    this.#watch = null;
    return Promise.resolve(seen);
  }

  async close(): Promise<void> {
    this.#unlisten?.();
    this.#unlisten = null;
    this.#watch = null;
    await this.tab.trusted.release();
  }
}
