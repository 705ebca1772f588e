// The TabChannel over chrome.scripting: the worker reaches each frame's agent in the content script's isolated
// world (scripting.executeScript's default world), where the page's own scripts cannot see or call it.
import { browser } from 'wxt/browser';
import type { FrameCall } from './messages.ts';
import { requestOfDetails, type TabChannel } from './surface.ts';
import { learnEarlyListeners } from './early-listeners.ts';
import { tabDebugger } from './trusted-input.ts';
import { trace } from './trace-ring.ts';

/** The built content script (WXT writes the unlisted script entrypoints/agent.ts here). */
export const CONTENT_SCRIPT_FILE = '/agent.js';
/** The main-world probe (entrypoints/probe.content.ts, registered at runtime; lib/gesture-probe.ts). */
export const PROBE_SCRIPT_FILE = '/content-scripts/probe.js';
const NAV_TIMEOUT_MS = 15_000;

// These two functions are serialised into each frame by executeScript: they may use nothing from this module,
// so the agent's global name ('__handrailAgent', frame.ts AGENT_GLOBAL) is spelled out in them.
interface AgentLike {
  observe(recording: boolean): unknown;
  call(c: unknown): unknown;
}
function observeInFrame(recording: boolean): unknown {
  const agent = (globalThis as unknown as { __handrailAgent?: AgentLike }).__handrailAgent;
  return agent ? agent.observe(recording) : null;
}
/**
 * How the probe started in this frame's main world (lib/gesture-probe.ts PROBE_KEY: `late` after the page's
 * scripts), and whether this document is of the top document's origin (only then can the read reach its record).
 */
function probeStartInFrame(): unknown {
  let sameOrigin = false;
  try {
    sameOrigin = window.top?.location.origin === window.location.origin;
  } catch {
    sameOrigin = false;
  }
  return { start: (globalThis as unknown as { __handrailProbe?: unknown }).__handrailProbe ?? null, sameOrigin };
}
const lateAndReachable = (r: unknown): boolean => {
  const s = r as { start?: unknown; sameOrigin?: unknown } | null;
  return s?.start === 'late' && s.sameOrigin === true;
};
function callInFrame(c: unknown): unknown {
  const agent = (globalThis as unknown as { __handrailAgent?: AgentLike }).__handrailAgent;
  return agent ? agent.call(c) : null;
}

/** One executeScript call, its start and end in the worker's trace ring (lib/trace-ring.ts). */
async function traced<T>(what: string, run: () => Promise<T>): Promise<T> {
  const began = Date.now();
  trace(`tab: ${what} begins`);
  try {
    const r = await run();
    trace(`tab: ${what} done in ${Date.now() - began} ms`);
    return r;
  } catch (e) {
    trace(`tab: ${what} failed in ${Date.now() - began} ms`);
    throw e;
  }
}

export function chromeTab(tabId: number): TabChannel {
  const debug = tabDebugger(tabId);
  return {
    trusted: { ready: () => debug.ready(), input: (events) => debug.send(events), release: () => debug.release() },
    async observeFrames(recording) {
      const results = await traced('observe', () => browser.scripting.executeScript({ target: { tabId, allFrames: true }, func: observeInFrame, args: [recording] }));
      return results.map((r) => ({ frameId: r.frameId, report: (r.result as unknown) ?? null }));
    },
    async install(frameIds) {
      // The probe first, in the page's main world: from now on it sees the listeners the page adds (handlers and
      // React props are read whenever they were set).
      await traced('install probe', () => browser.scripting.executeScript({ target: { tabId, frameIds }, files: [PROBE_SCRIPT_FILE], world: 'MAIN' }));
      await traced('install agent', () => browser.scripting.executeScript({ target: { tabId, frameIds }, files: [CONTENT_SCRIPT_FILE] }));
      // A document whose scripts ran before the probe (open before the session) added listeners it did not see:
      // read them once through the DevTools protocol (lib/early-listeners.ts). Only where the read reaches: the
      // top document's origin (a third-party frame injected into on each page would flash Chrome's bar each time,
      // for nothing). Not readable (DevTools open, the clerk cancelled Chrome's bar): those elements are not
      // offered a gesture; a reload offers them.
      const starts = await browser.scripting.executeScript({ target: { tabId, frameIds }, func: probeStartInFrame, world: 'MAIN' });
      if (starts.some((r) => lateAndReachable(r.result))) await debug.inspect(learnEarlyListeners).catch(() => undefined);
    },
    async call(frameId: number, c: FrameCall) {
      const [r] = await traced(`call ${c.op}`, () => browser.scripting.executeScript({ target: { tabId, frameIds: [frameId] }, func: callInFrame, args: [c] }));
      return (r?.result as unknown) ?? null;
    },
    requests(listen) {
      // Observe-only: MV3 gives blocking webRequest to policy-installed extensions alone (docs/design/writes.md, "Writes").
      const fn = (d: { method: string; url: string; type: string }): undefined => {
        listen(requestOfDetails(d));
        return undefined;
      };
      browser.webRequest.onBeforeRequest.addListener(fn, { urls: ['<all_urls>'], tabId });
      return () => browser.webRequest.onBeforeRequest.removeListener(fn);
    },
    async navigate(url) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          browser.tabs.onUpdated.removeListener(listen);
          reject(new Error(`the tab did not finish loading within ${NAV_TIMEOUT_MS / 1000} s`));
        }, NAV_TIMEOUT_MS);
        const listen = (id: number, info: { status?: string }): void => {
          if (id !== tabId || info.status !== 'complete') return;
          clearTimeout(timer);
          browser.tabs.onUpdated.removeListener(listen);
          resolve();
        };
        browser.tabs.onUpdated.addListener(listen);
        browser.tabs.update(tabId, { url }).catch((e: unknown) => {
          clearTimeout(timer);
          browser.tabs.onUpdated.removeListener(listen);
          reject(e instanceof Error ? e : new Error(String(e)));
        });
      });
    },
  };
}
