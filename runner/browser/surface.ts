// The browser surface: Playwright behind the six verbs. Targets are found by the same walker the extension
// uses (injected into every frame), so what authoring saw and what replay resolves cannot disagree.
import type { Browser, BrowserContext, CDPSession, ElementHandle, Frame, Page, Request as PwRequest, Route } from 'playwright-core';
import { chromium } from 'playwright-core';
import { frameScope, walkLadder } from '../../shared/ladder.ts';
import { frameKey, sameNamedControl } from '../../shared/ref.ts';
import type { Control, Observation } from '../../shared/schema/observation.ts';
import { screenDump, screenWords } from '../../shared/screens.ts';
import {
  SurfaceError,
  type ActResult,
  type Answer,
  type BoundTarget,
  type MenuPick,
  type Operation,
  type Query,
  type RehearsedPress,
  type Resolution,
  type Surface,
} from '../../shared/surface.ts';
import { isWrite, originOf, type Request, type SeenWrite, type WriteGate, type WriteScope, viaOf } from '../../shared/writes.ts';
import { findChromium } from './chromium.ts';
import { frameAt } from './frames.ts';
import { followLoads, Loads } from './loads.ts';
import { clickTarget, elementOf, findInFrame, menuPickOfRef, observePage, pendingNavigation, rowsOfRef, textOfRef } from './observe.ts';
import { gesture } from '../../shared/gestures/engine.ts';
import { isStale, playwrightInput } from './gestures.ts';
import { gestureProbeSource, WALKER_VERSION, walkerInitScript } from './walker-bundle.ts';
import { pressHeld, submissionOf } from './rehearse.ts';

const NAV_TIMEOUT_MS = 15_000;
/** The attribute that marks a field a secret was typed into, for the screenshot mask. */
const SECRET_ATTR = 'data-handrail-secret';

const ACTION_TIMEOUT_MS = 5_000;
/**
 * A fetch or XHR to the app that has been out longer than this is a long poll or a stream, not a load: it stops
 * keeping the screen busy (docs/design/replay.md, "Settling").
 */
const LONG_POLL_MS = 10_000;
const ENTRY_FRAMES_MS = 5_000;

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return (m.split('\n')[0] ?? m).replace(/^[a-zA-Z.]+: /, '');
}

function requestOf(req: PwRequest): Request {
  return { method: req.method(), url: req.url(), via: viaOf(req.resourceType(), req.method()) };
}

/** One watch window: the writes seen, by the request that made them, and the gate decisions still pending. */
interface Watch {
  scope: WriteScope;
  gate: WriteGate | undefined;
  seen: Map<PwRequest | object, SeenWrite>;
  pending: Set<Promise<void>>;
}

/**
 * What a control not clicked where it is (shared/dom/options.ts clickTarget) says of itself: disabled (HTML's, or
 * `aria-disabled`), and its checked state (a checkbox's or a switch's, '' when it has none). Runs in the page.
 */
function hiddenControlState(e: Element): { disabled: boolean; checked: string } {
  const disabled = (e as HTMLInputElement).disabled === true || (e.getAttribute('aria-disabled') ?? '').toLowerCase() === 'true';
  const checked = e instanceof HTMLInputElement && (e.type === 'checkbox' || e.type === 'radio') ? (e.checked ? 'checked' : '') : (e.getAttribute('aria-checked') ?? '');
  return { disabled, checked };
}

/**
 * How many elements of a frame's document carry the secret tag, shadow roots included (as the mask's locator counts
 * them). One plain evaluate: no injected script. A frame whose first page is still on the way is not touched
 * (evaluating there can cancel its navigation, runner/browser/observe.ts) and holds no typed field yet.
 */
async function secretFields(frame: Frame): Promise<number> {
  if (await pendingNavigation(frame)) return 0;
  return frame
    .evaluate((attr) => {
      // No named helper inside: this function runs in the page, where a bundler's name-keeping wrapper is not defined.
      let n = 0;
      const roots: (Document | ShadowRoot)[] = [document];
      for (let root = roots.pop(); root; root = roots.pop()) {
        n += root.querySelectorAll(`[${attr}]`).length;
        for (const el of root.querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
      }
      return n;
    }, SECRET_ATTR)
    .catch(() => 1);
}

export interface BrowserSurfaceOptions {
  headed?: boolean;
  /** Reuse a browser (one context per run); the surface then closes only its own context. */
  browser?: Browser;
  /**
   * Record a Playwright trace (actions, DOM snapshots, screenshots, network) and write it to this zip on close, for
   * `npx playwright show-trace`. A trace holds every typed value as typed: only runs without secret inputs may ask.
   */
  trace?: string;
}

/** Input types whose value is text a person types; any other (date, number, color, range…) is filled whole. */
const TYPED_INPUTS = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password']);

/**
 * set_value fills the value whole, then releases its last character's key (a trusted `keyup`), so a page that hears
 * only key releases hears it: jQuery-era widgets filter on `keyup` alone (Node-RED's search box), and `fill` sends
 * none. Only the release, not the whole key: typing the last character as a key (keydown, keypress, input) right after
 * the fill made TiddlyWiki's evening save its text and tags empty every time (CI has seen that loss once without the
 * key too, under load, cause not found). A character no US key makes gets a `keyup` the
 * page dispatches itself (untrusted); a control character (a newline: Enter could send a form) or a field whose value
 * is no text gets no key at all.
 */
async function typeValue(page: Page, el: ElementHandle<Element>, value: string): Promise<void> {
  await el.fill(value);
  const last = [...value].at(-1);
  if (last === undefined || /[\u0000-\u001f\u007f]/.test(last)) return;
  const typed = await el.evaluate(
    (e, types) => e instanceof HTMLTextAreaElement || (e instanceof HTMLInputElement && types.includes(e.getAttribute('type')?.toLowerCase() ?? '')) || (e as HTMLElement).isContentEditable,
    [...TYPED_INPUTS],
  );
  if (!typed) return;
  if (/^[ -~]$/.test(last)) {
    await page.keyboard.up(last);
    return;
  }
  await el.evaluate((e, key) => e.dispatchEvent(new KeyboardEvent('keyup', { key, bubbles: true, cancelable: true })), last);
}

/** Whether an element is still in its document (a detached frame's element is not). */
function connected(el: ElementHandle<Element>): Promise<boolean> {
  return el.evaluate((e) => e.isConnected).catch(() => false);
}

/** Whether a text field holds `value`, asked in the page (a secret's value never comes back to the runner). */
function holds(el: ElementHandle<Element>, value: string): Promise<boolean> {
  return el
    .evaluate((e, v) => (e instanceof HTMLInputElement || e instanceof HTMLTextAreaElement ? e.value : (e as HTMLElement).isContentEditable ? (e as HTMLElement).innerText : null) === v, value)
    .catch(() => false);
}

export class BrowserSurface implements Surface {
  readonly kind = 'browser' as const;
  readonly observer = WALKER_VERSION;
  private crashed: string | null = null;
  private last: Observation | null = null;
  private cdp: CDPSession | null = null;
  /** Frames whose next document is on its way, from Chromium's events on `cdp` (runner/browser/loads.ts). */
  private readonly loads = new Loads();
  private watch: Watch | null = null;
  /** A secret has been typed on this page: screenshots look for the fields holding one, to mask them. */
  private secretTyped = false;
  maskedLastShot = 0;
  private routed = false;
  /** WebSockets the page has open (a rehearsal will not press where a message could leave unheld). */
  private sockets = 0;
  /** Fetches and XHRs the page has sent and not yet seen answered, with when each left. */
  private readonly inflight = new Map<PwRequest, number>();
  /** Writes held at the network while an owner is asked: out, but waiting on a person, not on the app. */
  private readonly holding = new Set<PwRequest>();

  private constructor(
    readonly page: Page,
    private readonly context: BrowserContext,
    private readonly ownedBrowser: Browser | null,
  ) {
    page.on('crash', () => (this.crashed = 'the page crashed'));
    context.browser()?.on('disconnected', () => (this.crashed ??= 'the browser went away'));
    // Side-effect detection: every request and every WebSocket message the page sends is looked at while a
    // watch is on. Holding (the gate) needs routing, installed on the first watch that asks for it.
    context.on('request', (req) => this.record(req, requestOf(req)));
    page.on('websocket', (ws) => {
      this.sockets++;
      ws.on('close', () => this.sockets--);
      ws.on('framesent', () => this.record({}, { method: 'SEND', url: ws.url(), via: 'websocket' }));
    });
    // Settling on single-page apps: a screen whose data is still on its way is not at rest, whatever it shows.
    page.on('request', (req) => {
      const type = req.resourceType();
      if (type === 'fetch' || type === 'xhr') this.inflight.set(req, Date.now());
    });
    const answered = (req: PwRequest): boolean => this.inflight.delete(req);
    page.on('requestfinished', answered);
    page.on('requestfailed', answered);
    page.setDefaultTimeout(ACTION_TIMEOUT_MS);
    page.setDefaultNavigationTimeout(NAV_TIMEOUT_MS);
  }

  /**
   * How many fetches/XHRs to the app's origins (those of the page's frames) are out: not held for an owner, and not
   * out so long that they are a long poll. Another origin's requests (analytics) never keep the screen busy.
   */
  loading(now = Date.now()): number {
    const origins = this.appOrigins();
    let n = 0;
    for (const [req, since] of this.inflight) {
      // Kept in the map (it leaves when answered or failed): a write out this long is still a write out.
      if (now - since > LONG_POLL_MS) continue;
      const o = originOf(req.url());
      if (!this.holding.has(req) && o !== null && origins.has(o)) n++;
    }
    return n;
  }

  /** The origins of the page's frames (the app's), with any given beside them. */
  private appOrigins(also: readonly string[] = []): Set<string> {
    const origins = new Set<string>(also);
    for (const f of this.page.frames()) {
      const o = originOf(f.url());
      if (o) origins.add(o);
    }
    return origins;
  }

  /**
   * Writes (fetch/XHR other than GET/HEAD/OPTIONS) out and not answered, to the app's origins or the card's declared
   * ones (the write watch's scope: an app calling its API on a sibling origin), however long they have been out —
   * never taken for a long poll. A write held for an owner's answer is not the app's.
   */
  writesOut(since?: number): number {
    const origins = this.appOrigins(this.watch?.scope.origins);
    let n = 0;
    for (const [req, sent] of this.inflight) {
      if (since !== undefined && sent < since) continue;
      if (this.holding.has(req) || /^(GET|HEAD|OPTIONS)$/i.test(req.method())) continue;
      const o = originOf(req.url());
      if (o !== null && origins.has(o)) n++;
    }
    return n;
  }

  static async launch(opts: BrowserSurfaceOptions = {}): Promise<BrowserSurface> {
    let owned: Browser | null = null;
    let browser = opts.browser;
    if (!browser) {
      const choice = findChromium();
      owned = await chromium.launch({ ...choice.launchOptions, headless: !opts.headed });
      browser = owned;
    }
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    // Before any page script: which elements listen for a double-click or a right-click (shared/dom/gestures.ts).
    // The walker is in every document from its start too, so the first look at a new page is one round trip, not
    // three with the 70 KB bundle sent through CDP each time (docs/design/profiling.md, "Profiling a replay"). Both are
    // added at once: their order does not matter, the walker reads the probe's record only when it walks.
    const [probe, walker] = await Promise.all([gestureProbeSource(), walkerInitScript()]);
    await Promise.all([context.addInitScript({ content: probe }), context.addInitScript({ content: walker })]);
    if (opts.trace) await context.tracing.start({ screenshots: true, snapshots: true });
    const page = await context.newPage();
    const surface = new BrowserSurface(page, context, owned);
    if (opts.trace) surface.tracePath = opts.trace;
    await surface.followLoads();
    return surface;
  }

  /**
   * One CDP session for the run, opened with the page: the screenshots' fast capture and the load events settling
   * waits on. Without it (a browser that refuses the session) screenshots take Playwright's path and settling looks
   * on its schedule alone (docs/design/replay.md, "Settling").
   */
  private async followLoads(): Promise<void> {
    try {
      this.cdp = await this.context.newCDPSession(this.page);
      await followLoads(this.cdp, this.loads);
    } catch {
      // Looks alone settle the page.
    }
  }

  async loaded(ms: number): Promise<boolean> {
    return this.loads.until(ms);
  }

  async quiet(ms: number): Promise<void> {
    // A timer in every document of the page, main frame and frames alike; a frame that goes away meanwhile has
    // nothing left to run.
    await Promise.all(this.page.frames().map((f) => f.evaluate((t) => new Promise<void>((r) => setTimeout(r, t)), ms).catch(() => undefined)));
  }

  private tracePath: string | null = null;

  private alive(): void {
    if (this.crashed) throw new SurfaceError('BROWSER_CRASHED', this.crashed);
  }

  private wrap(e: unknown, during: string): never {
    if (e instanceof SurfaceError) throw e;
    this.alive();
    if (isStale(e)) throw new SurfaceError('STALE', `${during}: ${firstLine(e)}`);
    if (/ERR_CONNECTION_REFUSED|ERR_NAME_NOT_RESOLVED|ERR_ADDRESS_UNREACHABLE|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE/.test(String(e))) {
      throw new SurfaceError('SURFACE_UNREACHABLE', `${during}: ${firstLine(e)}`);
    }
    if (e instanceof Error && e.name === 'TimeoutError') throw new SurfaceError('TIMEOUT', `${during}: ${firstLine(e)}`);
    throw new SurfaceError('ACTION_FAILED', `${during}: ${firstLine(e)}`);
  }

  async open(entry: string): Promise<void> {
    this.alive();
    try {
      const response = await this.page.goto(entry, { waitUntil: 'domcontentloaded' });
      if (response && response.status() >= 500) {
        throw new SurfaceError('SURFACE_UNREACHABLE', `opening ${entry}: the server answered ${response.status()}`);
      }
      // The entry screen includes its frames, which load after the top document: give them a moment (not an
      // error if they take longer — the first step's screen check then says what is showing).
      await this.page.waitForLoadState('load', { timeout: ENTRY_FRAMES_MS }).catch(() => undefined);
    } catch (e) {
      this.wrap(e, `opening ${entry}`);
    }
  }

  async observe(): Promise<Observation> {
    this.alive();
    try {
      const seen = await observePage(this.page);
      this.last = this.loading() > 0 ? { ...seen, busy: true } : seen;
      return this.last;
    } catch (e) {
      this.wrap(e, 'observing the page');
    }
  }

  private controlOf(ref: string): Control | null {
    return this.last?.parts.flatMap((f) => f.controls).find((c) => c.ref === ref) ?? null;
  }

  async resolve(target: BoundTarget): Promise<Resolution> {
    this.alive();
    const { framePath } = frameScope(target);
    try {
      if (!(await frameAt(this.page, framePath))) {
        return { ok: false, code: 'TARGET_NOT_FOUND', attempts: [], detail: `no frame ${frameKey(framePath)} on the page` };
      }
      return await walkLadder(target, {
        find: (query) => findInFrame(this.page, framePath, query),
        controlOf: (ref) => this.controlOf(ref),
      });
    } catch (e) {
      this.wrap(e, `resolving ${target.id}`);
    }
  }

  async act(ref: string, op: Operation): Promise<ActResult> {
    this.alive();
    try {
      const found = await elementOf(this.page, ref);
      if (!found) throw new SurfaceError('STALE', `element ${ref} is no longer on the page`);
      const { el } = found;
      switch (op.verb) {
        case 'invoke':
        case 'toggle': {
          // A control kept only for screen readers (visually hidden) is clicked where a person clicks it — a switch's
          // label — or, with nothing to click, activated as a screen reader does (docs/design/verbs.md, "The six
          // verbs": invoke and toggle).
          const at = await clickTarget(el);
          if (at && (await at.evaluate((a, e) => a === e, el))) {
            await at.click();
            return {};
          }
          // Not clicked where it is: Playwright's checks for it being enabled do not run, so they are made here, and a
          // toggle is checked to have taken — a label's click that lands elsewhere must not pass for done.
          const state = await el.evaluate(hiddenControlState);
          if (state.disabled) throw new SurfaceError('ACTION_FAILED', `${op.verb} on ${ref}: it is disabled`);
          if (at) await at.click();
          else await el.evaluate((e) => (e as HTMLElement).click());
          if (op.verb === 'toggle' && (await el.evaluate(hiddenControlState)).checked === state.checked) {
            throw new SurfaceError('ACTION_FAILED', `toggle on ${ref}: it is ${state.checked || 'unchecked'} as before, though ${at ? 'its label was clicked' : 'it was activated'}`);
          }
          return {};
        }
        case 'set_value': {
          const value = op.value ?? '';
          let field = el;
          for (let tries = 1; ; tries++) {
            // A field that holds a secret is tagged, so every screenshot masks its box (Playwright's `mask`).
            if (op.secret) {
              await field.evaluate((e, attr) => e.setAttribute(attr, ''), SECRET_ATTR);
              this.secretTyped = true;
            }
            await typeValue(this.page, field, value);
            // The field is looked for again (docs/design/verbs.md, "The six verbs"): a page
            // that renders the field anew as it is focused takes the keys with the old element, and nothing says so.
            if (await connected(field)) break;
            if (tries === 2) throw new SurfaceError('ACTION_FAILED', `set_value on ${ref}: the page replaced the field as it was typed into, twice; nothing is known to be in it`);
            const again = await this.twinOf(ref);
            if (!again) throw new SurfaceError('STALE', `set_value on ${ref}: the page replaced the field as it was typed into, and no one control now is that field; nothing is known to be in it`);
            field = again;
            // The page may have taken the value before it replaced the field (and shows it in the new one): typed once.
            if (await holds(field, value)) break;
          }
          // Leave the field, as a person moving on does: whatever the page does when a value is entered (a
          // change handler that submits) happens now, inside this action's watch, not during the next one.
          await field.evaluate((e) => (e as HTMLElement).blur()).catch(() => undefined);
          return {};
        }
        case 'select': {
          const value = op.value ?? '';
          // A card names the option a person reads (its label); fall back to the option's value. Asked first, so an
          // option the list lacks fails by name at once instead of Playwright waiting for it to appear (TIMEOUT).
          const by = await el.evaluate((e, v) => {
            const options = e instanceof HTMLSelectElement ? [...e.options] : [];
            return options.some((o) => o.label === v) ? 'label' : options.some((o) => o.value === v) ? 'value' : null;
          }, value);
          if (!by) throw new SurfaceError('ACTION_FAILED', `select on ${ref}: no option labelled "${value}" in the list`);
          await el.selectOption(by === 'label' ? { label: value } : { value });
          return {};
        }
        case 'read': {
          return { read: await textOfRef(this.page, ref) };
        }
        case 'read_rows': {
          // Read from the live DOM within the target (docs/design/capability.md, "Rows as outputs").
          const read = await rowsOfRef(this.page, ref);
          if (!read) throw new SurfaceError('ACTION_FAILED', `read_rows on ${ref}: it is not a table, grid or list (nor a column header in one)`);
          return { rows: read.rows, headers: read.headers };
        }
        case 'press':
        case 'hover':
        case 'double_click':
        case 'context_menu':
        case 'choose':
          // The gesture engine's procedures (shared/gestures/engine.ts), carried out with Playwright's input.
          await gesture(playwrightInput(this.page, el, op.value ?? ''), ref, op.verb, op.value ?? '');
          return {};
      }
    } catch (e) {
      this.wrap(e, `${op.verb} on ${ref}`);
    }
  }

  /** The one control on the page now with the role, name and place the control behind `ref` had at the last look,
   *  or null when there is none or more than one (a field the page rendered again has a new element and a new ref). */
  private async twinOf(ref: string): Promise<ElementHandle<Element> | null> {
    const was = this.controlOf(ref);
    if (!was) return null;
    const now = await this.observe();
    const same = now.parts.flatMap((p) => p.controls).filter((c) => sameNamedControl(c, was));
    const [only] = same;
    if (!only || same.length > 1) return null;
    return (await elementOf(this.page, only.ref))?.el ?? null;
  }

  /** Where the menu item behind `ref` is reached from (shared/surface.ts menuPick; shared/dom/options.ts menuPathOf). */
  async menuPick(ref: string): Promise<MenuPick | null> {
    return menuPickOfRef(this.page, ref);
  }

  async evaluate(query: Query): Promise<Answer> {
    const observation = await this.observe();
    if (query.kind === 'observe') return { kind: 'observe', observation };
    const text = screenWords(observation);
    return { kind: 'text_present', present: text.includes(query.text) };
  }

  evidence(kind: 'screenshot'): Promise<Uint8Array>;
  evidence(kind: 'text'): Promise<string>;
  async evidence(kind: 'screenshot' | 'text'): Promise<Uint8Array | string> {
    this.alive();
    if (kind === 'screenshot') return await this.screenshot();
    const obs = this.last ?? (await this.observe());
    return screenDump(obs);
  }

  /**
   * One CDP session kept for the run, and Chromium's fast PNG encoder: about half the time of page.screenshot()
   * (which sets up a session and hides the caret each call) — it matters, a run takes one per screen reached.
   */
  private async screenshot(): Promise<Uint8Array> {
    this.maskedLastShot = 0;
    if (this.secretTyped) {
      // The fields to mask are counted before the picture is taken, never beside it: a field that left the page
      // between an unmasked capture and a count of none would be an unmasked secret (docs/design/profiling.md,
      // "Profiling a replay"). Counted with one plain evaluate per frame (the frames' documents already have the
      // walker's context), not a locator: a locator installs Playwright's injected script (≈ 340 KB) into every new
      // document. A frame that cannot be counted counts as holding one. The locator mask is used only then.
      const counts = await Promise.all(this.page.frames().map((f) => secretFields(f)));
      const boxes = counts.reduce((a, b) => a + b, 0);
      if (boxes > 0) {
        const masks = this.page.frames().map((f) => f.locator(`[${SECRET_ATTR}]`));
        const png = await this.page.screenshot({ type: 'png', timeout: ACTION_TIMEOUT_MS, mask: masks, maskColor: '#FF00FF' });
        this.maskedLastShot = boxes;
        return png;
      }
    }
    return (await this.fastShot()) ?? (await this.page.screenshot({ type: 'png', timeout: ACTION_TIMEOUT_MS }));
  }

  /** The CDP capture, or null when it failed (the caller falls back to Playwright's). Never rejects. */
  private async fastShot(): Promise<Uint8Array | null> {
    try {
      this.cdp ??= await this.context.newCDPSession(this.page);
      const shot = await this.cdp.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true });
      return Buffer.from(shot.data, 'base64');
    } catch {
      return null;
    }
  }

  /** A write seen by the request event: `unasked` unless the route already held it (or will: see `held`). */
  private record(key: PwRequest | object, r: Request): void {
    const w = this.watch;
    if (!w || !isWrite(r, w.scope) || w.seen.has(key)) return;
    w.seen.set(key, { ...r, fate: 'unasked' });
  }

  /** The route handler: a write is held while the gate is asked, then let go or stopped. */
  private async held(route: Route): Promise<void> {
    const req = route.request();
    const r = requestOf(req);
    const w = this.watch;
    if (!w?.gate || !isWrite(r, w.scope)) {
      await route.fallback().catch(() => undefined);
      return;
    }
    const gate = w.gate;
    this.holding.add(req);
    const decided = (async () => {
      const ok = await gate(r).catch(() => false);
      w.seen.set(req, { ...r, fate: ok ? 'allowed' : 'blocked' });
      // A stopped form submission is answered 204 No Content, so the page stays where it was (an aborted
      // navigation would leave an error page); any other stopped request fails as blocked.
      const settled = ok ? route.fallback() : r.via === 'form' ? route.fulfill({ status: 204, body: '' }) : route.abort('blockedbyclient');
      await settled.catch(() => undefined);
    })();
    w.pending.add(decided);
    await decided;
    w.pending.delete(decided);
    this.holding.delete(req);
  }

  /**
   * A rehearsal at a commit (docs/design/replay.md, "Rehearsal"): a submit control's form submission, read without
   * pressing; otherwise a press with every request stopped before it leaves — refused while the page has a WebSocket
   * open, whose messages cannot be held. In a press every request is stopped, to the card's origins or not. After a
   * press the page is spent: the caller throws the context away.
   */
  async rehearse(ref: string): Promise<RehearsedPress> {
    this.alive();    const found = await elementOf(this.page, ref);
    if (!found) throw new SurfaceError('STALE', `element ${ref} is no longer on the page`);
    const built = await submissionOf(found.el);
    await found.el.dispose();
    if (built) return { derived: 'form', request: built };
    if (this.sockets > 0) {
      return { derived: 'none', request: null, note: 'it submits no form, and the page has a WebSocket open whose messages cannot be held: pressing it could reach the app' };
    }
    // What the page's password fields hold before the press: a caught field carrying one is marked secret (masked).
    const held = (
      await Promise.all(
        this.page.frames().map((f) => f.evaluate(() => [...document.querySelectorAll('input[type=password]')].map((i) => (i as HTMLInputElement).value)).catch(() => [] as string[])),
      )
    )
      .flat()
      .filter((v) => v.length > 0);
    const pressed = await pressHeld(this.context, () => this.act(ref, { verb: 'invoke' }), (req) => this.watch?.seen.set(req, { ...requestOf(req), fate: 'blocked' }));
    if (!pressed.request) return pressed;
    const fields = pressed.request.fields.map((f) => (held.some((v) => f.value.includes(v)) ? { ...f, secret: true } : f));
    return { ...pressed, request: { ...pressed.request, fields } };
  }

  async watchWrites(scope: WriteScope, gate?: WriteGate): Promise<void> {
    // The watch first: a write sent while the route is being installed is still recorded (unheld, `unasked`).
    this.watch = { scope, gate, seen: new Map(), pending: new Set() };
    if (gate && !this.routed) {
      this.routed = true;
      await this.context.route('**/*', (route) => this.held(route));
    }
  }

  async takeWrites(): Promise<SeenWrite[]> {
    const w = this.watch;
    if (!w) return [];
    while (w.pending.size) await Promise.all([...w.pending]);
    this.watch = null;
    return [...w.seen.values()];
  }

  async close(): Promise<void> {
    // The trace is written before the context goes. Closing never throws (a run's receipt must not be lost to a
    // trace): the caller checks that the file is there (`handrail replay --trace` says when it is not).
    if (this.tracePath) await this.context.tracing.stop({ path: this.tracePath }).catch(() => undefined);
    await this.context.close().catch(() => undefined);
    if (this.ownedBrowser) await this.ownedBrowser.close().catch(() => undefined);
  }
}
