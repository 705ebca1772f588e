// Which of a page's frames have a document on the way, from Chromium's own events (docs/design/replay.md,
// "Settling", "Waiting for a load"). Settling used to find a navigation by looking: a look at the page between the
// click and the new document saw the old screen or failed STALE, and each cost a walk of every frame. Chromium says
// when a navigation is requested (Page.frameRequestedNavigation, sent while the click that asked for it is still
// being dispatched, so before `act` returns), when the new document commits (Page.frameNavigated) and when it is
// parsed (the frame's DOMContentLoaded lifecycle event); the engine waits for that before it looks. Playwright's
// public events (`request`, `framenavigated`) come too late for this: a form's GET was seen up to 50 ms after the
// click returned, while the requested-navigation event always came before.
//
// The events only decide when to look, never what a look says: the looks after the wait keep every rule of
// settling (busy, quiet, the wanted screen). A load that has not ended within the bound the engine gives is
// forgotten and left to the looks, so a page that never finishes parsing costs at most one bound.
import type { CDPSession } from 'playwright-core';

interface Arriving {
  /** When the navigation was first seen (Date.now()). */
  since: number;
  /** Its new document has committed: the frame's next DOMContentLoaded is that document's. */
  committed: boolean;
}

/** The slice of a CDP session the tracker needs: its events (a real `CDPSession` in the surface, a fake in no test). */
type Events = Pick<CDPSession, 'on'>;

export class Loads {
  /** Frames (by CDP frame id) whose next document is requested, loading or committed and not yet parsed. */
  readonly #arriving = new Map<string, Arriving>();
  readonly #waiters = new Set<() => void>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Starts following a page's frames. The session must have the Page domain enabled and lifecycle events on
   * (`Page.enable`, `Page.setLifecycleEventsEnabled`): see `followLoads`.
   */
  listen(cdp: Events): void {
    // A navigation in this frame (not a new tab or a download's "new window"): its document is on the way.
    cdp.on('Page.frameRequestedNavigation', (e) => {
      if (e.disposition === 'currentTab') this.#start(e.frameId, true);
    });
    // Loading started (Chromium sends it after the commit of a frame's synchronous about:blank): arriving, if not yet.
    cdp.on('Page.frameStartedLoading', (e) => this.#start(e.frameId, false));
    // A fragment link or history.pushState: the same document, nothing more to wait for.
    cdp.on('Page.navigatedWithinDocument', (e) => this.#end(e.frameId));
    cdp.on('Page.frameNavigated', (e) => {
      if (e.type !== 'Navigation') return;
      const a = this.#arriving.get(e.frame.id);
      // A commit not seen requested (a navigation the page started before these events were on) is arriving too.
      if (a) a.committed = true;
      else this.#arriving.set(e.frame.id, { since: this.now(), committed: true });
    });
    cdp.on('Page.lifecycleEvent', (e) => {
      // Only the new document's: the old one may still fire its own before it is replaced.
      if (e.name === 'DOMContentLoaded' && this.#arriving.get(e.frameId)?.committed) this.#end(e.frameId);
    });
    // The load ended however it ended: parsed and loaded, cancelled, answered 204, turned into a download.
    cdp.on('Page.frameStoppedLoading', (e) => this.#end(e.frameId));
    cdp.on('Page.frameDetached', (e) => this.#end(e.frameId));
  }

  /** How many frames have a document on the way. */
  get pending(): number {
    return this.#arriving.size;
  }

  #start(frameId: string, navigation: boolean): void {
    const a = this.#arriving.get(frameId);
    // A second navigation in a frame whose first committed: the DOMContentLoaded to wait for is the second document's.
    if (a) a.committed &&= !navigation;
    else this.#arriving.set(frameId, { since: this.now(), committed: false });
  }

  #end(frameId: string): void {
    if (!this.#arriving.delete(frameId) || this.#arriving.size > 0) return;
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  /**
   * Resolves true once no frame has a document on the way, or false after `ms` (then every load older than `ms` is
   * forgotten: the looks decide from here). Never rejects.
   */
  async until(ms: number): Promise<boolean> {
    if (this.#arriving.size === 0) return true;
    const began = this.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let wake: (() => void) | undefined;
    const ended = await new Promise<boolean>((resolve) => {
      wake = () => resolve(true);
      this.#waiters.add(wake);
      timer = setTimeout(() => resolve(false), Math.max(0, ms));
    });
    clearTimeout(timer);
    if (wake) this.#waiters.delete(wake);
    if (!ended) for (const [id, a] of this.#arriving) if (a.since <= began) this.#arriving.delete(id);
    return ended;
  }
}

/** Turns on the events `Loads` follows on a page's CDP session (the surface's own, kept for screenshots too). */
export async function followLoads(cdp: CDPSession, loads: Loads): Promise<void> {
  loads.listen(cdp);
  // Sent together: a session answers its commands in the order sent.
  await Promise.all([cdp.send('Page.enable'), cdp.send('Page.setLifecycleEventsEnabled', { enabled: true })]);
}
