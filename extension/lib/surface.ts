// The extension's Surface (shared/surface.ts): the clerk's tab reached through the content script in each of
// its frames. observe asks every frame's walker and joins the frames with shared/screens.ts; resolve and act go
// to the frame a ref names. Refs are spelled as the runner spells them (`work|c3`), so a book written here reads
// the same as one written by `handrail author`.
import { frameScope, walkLadder } from '../../shared/ladder.ts';
import { formatRef, frameKey, frameObservation, parseFrameKey, parseRef } from '../../shared/ref.ts';
import type { Control, Observation, Part, Verb } from '../../shared/schema/observation.ts';
import { combineParts, screenDump } from '../../shared/screens.ts';
import { WALKER_VERSION } from '../../shared/dom/version.ts';
import { gesture, GESTURE_VERBS, type GestureVerb } from '../../shared/gestures/engine.ts';
import { trustedInput, type TrustedEvent } from './gestures.ts';
import { SurfaceError, type ActResult, type Answer, type BoundTarget, type MenuPick, type Operation, type Query, type Resolution, type Surface } from '../../shared/surface.ts';
import { isWrite, viaOf, type Request, type SeenWrite, type WriteScope } from '../../shared/writes.ts';
import { FrameReply, FrameReport, type FrameCall } from './messages.ts';

export { clicksAt, type TrustedEvent } from './gestures.ts';

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

type Point = { x: number; y: number };

/** Where the pointer goes to hover nothing: outside the viewport, so no row of the page matches :hover. */
export const POINTER_AWAY: Point = { x: -1, y: -1 };

/** The verbs done with trusted input by the gesture engine (shared/gestures/engine.ts), not by the content script alone. */
export const TRUSTED_VERBS: ReadonlySet<Verb> = new Set<Verb>(GESTURE_VERBS);

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

  /** A frame's `point` reply, its point moved into the top viewport by each enclosing frame's content origin; a failed reply thrown as its SurfaceError. */
  async #placed(key: string, reply: FrameReply): Promise<Point> {
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
    return { x, y };
  }

  /**
   * press, hover, double_click, context_menu and choose with a person's input (docs/design/extension.md, "The
   * extension's trusted input"): the gesture engine's procedures (shared/gestures/engine.ts), the same as the
   * runner's, over this frame's points and answers (lib/gestures.ts). From the first point until `done`, the frame's
   * recorder takes the trusted input for the extension's own, not the clerk's.
   */
  async #trusted(key: string, local: string, ref: string, op: Operation): Promise<void> {
    const link = {
      call: (c: FrameCall) => this.#call(key, c),
      placed: (reply: FrameReply) => this.#placed(key, reply),
      ready: async () => {
        try {
          await this.tab.trusted.ready();
        } catch (e) {
          throw new SurfaceError('ACTION_FAILED', `${op.verb} on ${ref}: ${(e as Error).message}`);
        }
      },
      input: (events: readonly TrustedEvent[]) => this.#input(events),
    };
    try {
      await gesture(trustedInput(link, local, op.verb, op.value ?? ''), ref, op.verb as GestureVerb, op.value ?? '');
    } finally {
      // A gesture that took the page away (a key that submitted, a pick that was a link) leaves no frame to tell.
      await this.#call(key, { op: 'done' }).catch(() => undefined);
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
