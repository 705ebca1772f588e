// Trusted input for one tab through chrome.debugger (docs/design/extension.md, "The extension's trusted input"): the
// DevTools protocol's Input domain sends key and mouse events the browser treats as a person's (`isTrusted`), which
// a page script's synthetic events are not — a synthetic key does not type or submit, a synthetic pointer does not
// match :hover. Attached on first use and kept for the session, so Chrome's "Handrail started debugging this
// browser" bar shows once and the page is not resized under each action; let go when the session ends.
import { browser } from 'wxt/browser';
import type { TrustedEvent } from './gestures.ts';

/** The DevTools protocol version the commands below are written against (Input.dispatchKeyEvent/MouseEvent). */
const PROTOCOL = '1.3';

/** The DevTools protocol on one tab's attachment: commands, and the tab's events until the returned function is called. */
export interface Cdp {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  events(listen: (method: string, params: unknown) => void): () => void;
}

export interface TrustedInput {
  /** Attaches if not attached (before any point is measured: the bar Chrome shows resizes the page once). */
  ready(): Promise<void>;
  send(events: readonly TrustedEvent[]): Promise<void>;
  /**
   * Runs `use` on the tab's attachment: the one trusted input keeps, or one made for it and let go after, unless
   * trusted input wanted it meanwhile (a single read at a session's start shows Chrome's bar for that moment, not
   * for the session). Never attaches after the clerk cancelled the bar.
   */
  inspect<T>(use: (cdp: Cdp) => Promise<T>): Promise<T>;
  release(): Promise<void>;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** One per tab in this worker: a session's live state rebuilt (after a book edit) reuses the tab's attachment. */
const byTab = new Map<number, TrustedInput>();

export function tabDebugger(tabId: number): TrustedInput {
  const have = byTab.get(tabId);
  if (have) return have;
  const made = attachable(tabId);
  byTab.set(tabId, made);
  return made;
}

function attachable(tabId: number): TrustedInput {
  const target = { tabId };
  let attached = false;
  /** The clerk pressed Cancel on Chrome's debugging bar: the extension does not attach again on its own. */
  let cancelled = false;
  const onDetach = (source: { tabId?: number }, reason: string): void => {
    if (source.tabId !== tabId) return;
    attached = false;
    if (reason === 'canceled_by_user') cancelled = true;
  };
  browser.debugger.onDetach.addListener(onDetach);

  /** Trusted input asked for the attachment: it stays until the session ends. */
  let kept = false;
  const attach = async (): Promise<void> => {
    if (cancelled) {
      throw new Error('you cancelled Chrome\'s "Handrail started debugging this browser" bar, which keys, hovers, double-clicks and list picks need; start a new session to allow it again');
    }
    if (attached) return;
    try {
      await browser.debugger.attach(target, PROTOCOL);
    } catch (e) {
      // A worker restarted mid-session finds its own earlier attachment still there: if a command goes through, it is ours.
      const ours = await browser.debugger.sendCommand(target, 'Runtime.evaluate', { expression: '0' }).then(
        () => true,
        () => false,
      );
      if (!ours) throw new Error(`cannot send trusted input to the tab: ${message(e)} (close DevTools on it, if open)`);
    }
    attached = true;
  };
  const ready = async (): Promise<void> => {
    kept = true;
    await attach();
  };
  const cdp: Cdp = {
    send: (method, params) => browser.debugger.sendCommand(target, method, params),
    events(listen) {
      const fn = (source: { tabId?: number }, method: string, params?: unknown): void => {
        if (source.tabId === tabId) listen(method, params);
      };
      browser.debugger.onEvent.addListener(fn);
      return () => browser.debugger.onEvent.removeListener(fn);
    },
  };

  return {
    ready,
    async inspect(use) {
      const had = attached;
      await attach();
      try {
        return await use(cdp);
      } finally {
        if (!had && !kept && attached) {
          attached = false;
          await browser.debugger.detach(target).catch(() => undefined);
        }
      }
    },
    async send(events) {
      await ready();
      for (const ev of events) {
        if (ev.kind === 'text') {
          // Text as a person's typing inserts it (an IME commit): beforeinput and input, trusted, at the focus.
          await browser.debugger.sendCommand(target, 'Input.insertText', { text: ev.text });
        } else if (ev.kind === 'key') {
          const d = ev.stroke.def;
          // A key that types text is a `keyDown` (it makes keypress/beforeinput); one that types none a `rawKeyDown`.
          const type = ev.stroke.type === 'keyUp' ? 'keyUp' : d.text ? 'keyDown' : 'rawKeyDown';
          await browser.debugger.sendCommand(target, 'Input.dispatchKeyEvent', {
            type,
            key: d.key,
            code: d.code,
            windowsVirtualKeyCode: d.keyCode,
            nativeVirtualKeyCode: d.keyCode,
            modifiers: ev.stroke.modifiers,
            ...(d.text && type === 'keyDown' ? { text: d.text, unmodifiedText: d.text } : {}),
          });
        } else {
          await browser.debugger.sendCommand(target, 'Input.dispatchMouseEvent', {
            type: ev.type,
            x: ev.x,
            y: ev.y,
            // `buttons` is the pressed set as a bit mask (UI Events §5.1.1: 1 the primary button, 2 the secondary).
            ...(ev.type === 'mouseMoved'
              ? { button: 'none' }
              : { button: ev.button ?? 'left', buttons: ev.type === 'mousePressed' ? (ev.button === 'right' ? 2 : 1) : 0, clickCount: ev.clickCount ?? 1 }),
          });
        }
      }
    },
    async release() {
      browser.debugger.onDetach.removeListener(onDetach);
      byTab.delete(tabId);
      if (!attached) return;
      attached = false;
      await browser.debugger.detach(target).catch(() => undefined);
    },
  };
}
