// The content script's body: one frame agent per document, published in the isolated world for the worker's
// executeScript calls, its listeners tied to WXT's ContentScriptContext so an invalidated script (the extension
// reloaded or updated) stops catching and reporting at once. Nothing here is reachable from the page.
import { browser } from 'wxt/browser';
import type { ContentScriptContext } from 'wxt/utils/content-script-context';
import { Lock } from '../../shared/lock.ts';
import { AGENT_GLOBAL, createFrameAgent, type FrameAgent } from './frame.ts';
import { FrameCall, HelloReply, type ClerkAct } from './messages.ts';

type AgentGlobal = typeof globalThis & { [AGENT_GLOBAL]?: FrameAgent };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function startAgent(ctx: ContentScriptContext): void {
  const g = globalThis as AgentGlobal;
  if (ctx.isInvalid) return;
  // Reports go one at a time, in order (a typed value before the click that submits it). A worker that is being
  // restarted may miss one message: it is sent again with the same event id, which the worker writes once.
  const reports = new Lock();
  const deliver = async (a: ClerkAct): Promise<void> => {
    for (let attempt = 0; attempt < 3 && ctx.isValid; attempt++) {
      try {
        await browser.runtime.sendMessage(a);
        return;
      } catch {
        await sleep(250 * (attempt + 1));
      }
    }
  };
  const agent = createFrameAgent(window, {
    report: (a) => {
      if (ctx.isInvalid) return;
      void reports.run(() => deliver(a));
    },
    listen: (target, type, fn) => ctx.addEventListener(target, type, fn, { capture: true }),
    newId: () => crypto.randomUUID(),
  });
  g[AGENT_GLOBAL] = {
    get recording() {
      return agent.recording;
    },
    set recording(on: boolean) {
      agent.recording = ctx.isValid && on;
    },
    observe: (rec) => agent.observe(ctx.isValid && rec === true),
    // What the worker sends is parsed here too: this realm trusts nothing it did not check.
    call: (raw) => {
      if (ctx.isInvalid) return { ok: false, code: 'STALE', message: 'the content script was replaced' };
      const c = FrameCall.safeParse(raw);
      return c.success ? agent.call(c.data) : { ok: false, code: 'ACTION_FAILED', message: 'not a frame call' };
    },
  };
  // A document the clerk reached on their own (the Back button, a redirect) asks whether to catch their actions,
  // so nothing they do there goes unrecorded until the worker next looks.
  browser.runtime.sendMessage({ type: 'hello' }).then(
    (raw: unknown) => {
      const r = HelloReply.safeParse(raw);
      if (r.success && ctx.isValid && r.data.recording) agent.recording = true;
    },
    () => undefined,
  );
  ctx.onInvalidated(() => {
    if (g[AGENT_GLOBAL]) delete g[AGENT_GLOBAL];
  });
}
