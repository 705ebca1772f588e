// The extension's Surface (shared/surface.ts): the clerk's tab reached through the content script in each of
// its frames. observe asks every frame's walker and joins the frames with shared/screens.ts; resolve and act go
// to the frame a ref names. Refs are spelled as the runner spells them (`work|c3`), so a book written here reads
// the same as one written by `handrail author`.
import { frameScope, walkLadder } from '../../shared/ladder.ts';
import { formatRef, frameKey, frameObservation, parseRef } from '../../shared/ref.ts';
import type { Control, Observation, Part } from '../../shared/schema/observation.ts';
import { combineParts, screenDump } from '../../shared/screens.ts';
import { WALKER_VERSION } from '../../shared/dom/version.ts';
import { SurfaceError, type ActResult, type Answer, type BoundTarget, type Operation, type Query, type Resolution, type Surface } from '../../shared/surface.ts';
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
}

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
  /** chrome.webRequest only observes (docs/ARCHITECTURE.md "Writes"): a write has left when it is seen. */
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
    const reply = await this.#call(key, { op: 'act', ref: local, verb: op.verb, ...(op.value !== undefined ? { value: op.value } : {}) });
    if (!reply.ok) throw new SurfaceError(reply.code, `${op.verb} on ${ref}: ${reply.message}`);
    return reply.read !== undefined ? { read: reply.read } : {};
  }

  /** CSS candidates for the dearest rung, derived from the element itself (the guard's selectorsFor hook). */
  async selectorsFor(ref: string): Promise<string[]> {
    const { key, local } = splitRef(ref);
    const reply = await this.#call(key, { op: 'selectors', ref: local });
    return reply.ok ? (reply.selectors ?? []) : [];
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

  close(): Promise<void> {
    this.#unlisten?.();
    this.#unlisten = null;
    this.#watch = null;
    return Promise.resolve();
  }
}
