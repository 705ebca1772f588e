// The content script's body: one frame agent per document, published in the extension's isolated world for the
// worker's executeScript calls. Nothing here is reachable from the page, and nothing the page can do reaches it:
// the agent hears only the clerk's trusted input events and the worker (executeScript calls, runtime replies).
//
// Its life is its own, not WXT's ContentScriptContext: that context stops when a CustomEvent named
// `<extension id>:<script>:wxt:content-script-started` is dispatched on the document — which any page can do —
// and announces itself with a postMessage that gives the page that id. Here a script ends only when
//   - a newer copy of the agent starts in the same document (it finds the old one in the isolated world, which
//     the page cannot see, and retires it), or
//   - the extension that injected it is gone (reloaded or updated: `browser.runtime.id` is undefined).
import { browser } from 'wxt/browser';
import { AGENT_GLOBAL, createFrameAgent, type FrameAgent } from './frame.ts';
import { FrameCall, HelloReply } from './messages.ts';
import { ReportQueue } from './report-queue.ts';

/** What is published in the isolated world: the frame agent, and how a newer copy of the script retires this one. */
export interface PublishedAgent extends FrameAgent {
  retire(): void;
}

type AgentGlobal = typeof globalThis & { [AGENT_GLOBAL]?: PublishedAgent };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One agent's life: ended by a newer agent or by the extension going away, never by anything the page sends. */
class Life {
  readonly #abort = new AbortController();
  get signal(): AbortSignal {
    return this.#abort.signal;
  }
  get valid(): boolean {
    // An orphaned script (the extension was reloaded) has no runtime id any more.
    if (browser.runtime?.id === undefined) this.end();
    return !this.#abort.signal.aborted;
  }
  end(): void {
    if (!this.#abort.signal.aborted) this.#abort.abort();
  }
}

export function startAgent(): void {
  const g = globalThis as AgentGlobal;
  // A copy already running here (the worker injected this document again): this one takes over.
  g[AGENT_GLOBAL]?.retire();
  const life = new Life();
  // Reports go one at a time, in order (a typed value before the click that submits it). A worker that is being
  // restarted may miss one message: it is sent again with the same event id, which the worker writes once. What
  // cannot go as it is (the document is left first, the worker is not reached) goes as a lost action (report-queue.ts).
  const reports = new ReportQueue({
    send: (r) => browser.runtime.sendMessage(r),
    post: (r) => void browser.runtime.sendMessage(r).catch(() => undefined),
    alive: () => life.valid,
  });
  // Every listener the agent adds is kept, to be added again: document.open() (a page writing a frame's document
  // anew, as TiddlyWiki's text editor writes its about:blank iframe) erases every listener of the document and of its
  // window (HTML, "document open steps"), while the document stays the same object and this script the same realm.
  // It takes away the document's children first, which a MutationObserver (not erased) sees; a listener added again
  // where it still is changes nothing (DOM, "add an event listener": the same type, callback and capture are one).
  const added: [EventTarget, string, (e: Event) => void][] = [];
  const listen = (target: EventTarget, type: string, fn: (e: Event) => void): void => {
    added.push([target, type, fn]);
    target.addEventListener(type, fn, { capture: true, signal: life.signal });
  };
  const rewritten = new MutationObserver(() => {
    if (!life.valid) return rewritten.disconnect();
    for (const [target, type, fn] of added) target.addEventListener(type, fn, { capture: true, signal: life.signal });
  });
  rewritten.observe(document, { childList: true });
  const agent = createFrameAgent(window, {
    report: (a) => {
      if (!life.valid) return;
      reports.push(a);
    },
    listen,
    newId: () => crypto.randomUUID(),
  });
  const published: PublishedAgent = {
    get recording() {
      return agent.recording;
    },
    set recording(on: boolean) {
      agent.recording = life.valid && on;
    },
    ask: () => agent.ask(),
    answer: (on) => agent.answer(life.valid && on),
    noAnswer: () => agent.noAnswer(),
    leaving: () => agent.leaving(),
    observe: (rec) => agent.observe(life.valid && rec === true),
    // What the worker sends is parsed here too: this realm trusts nothing it did not check.
    call: (raw) => {
      if (!life.valid) return { ok: false, code: 'STALE', message: 'the content script was replaced' };
      const c = FrameCall.safeParse(raw);
      return c.success ? agent.call(c.data) : { ok: false, code: 'ACTION_FAILED', message: 'not a frame call' };
    },
    retire: () => {
      agent.recording = false;
      life.end();
      if (g[AGENT_GLOBAL] === published) delete g[AGENT_GLOBAL];
    },
  };
  g[AGENT_GLOBAL] = published;
  // The document is being left (a navigation, a reload, the tab closed): what the clerk did that has not reached the
  // worker yet would be lost unsaid — the reports waiting their turn, and what the frame still holds — so it is all
  // sent now, as lost actions, without waiting for an answer the document would not live to hear. Only the browser's
  // own pagehide: a page can dispatch one (extension-integrity.spec.ts's hostile page does, every 10 ms), and taking
  // it would stop the recorder.
  listen(window, 'pagehide', (e) => {
    if (e.isTrusted) reports.leaving(agent.leaving());
  });
  // A document the clerk reached on their own (a link, the Back button, a redirect) asks whether to catch their
  // actions. It starts at document_start, before the page can be clicked; until the worker answers, presses are
  // held (frame.ts `ask`), so a click in the first moments is neither lost nor let through unrecorded.
  agent.ask();
  void (async () => {
    for (let attempt = 0; attempt < 4 && life.valid; attempt++) {
      try {
        const r = HelloReply.safeParse(await browser.runtime.sendMessage({ type: 'hello' }));
        published.answer(r.success && r.data.recording);
        return;
      } catch {
        await sleep(250 * (attempt + 1));
      }
    }
    // No worker answered: the clerk's presses go through, and are remembered. If this tab turns out to be recorded
    // (the worker looks at this document later), each is booked as lost (frame.ts `noAnswer`), a hole in the book.
    if (life.valid) agent.noAnswer();
  })();
}
