// The worker's wiring: the store, the tab channel, the vault, the model, and the message listeners, in one place
// Listeners are added synchronously when the worker starts, so the message that woke a stopped
// worker is the first thing it handles.
import { browser, type Browser } from 'wxt/browser';
import { ExtensionAnthropicModel } from './anthropic.ts';
import { refusalOf } from '../../shared/errors.ts';
import { Host } from './host.ts';
import { trace } from './trace-ring.ts';
import { AgentHello, ClerkAct, ClerkLost, ClerkUnrecorded, PanelCommand, type CommandReply, type HelloReply } from './messages.ts';
import { readSettings, restrictLocal, vault } from './settings.ts';
import { BookStore } from './store.ts';
import { chromeTab, CONTENT_SCRIPT_FILE, PROBE_SCRIPT_FILE } from './tab.ts';

/** Chrome counts extension API calls as activity; one every 20 s keeps a worker alive past its 30 s idle limit. */
function keepAlive(): () => void {
  const t = setInterval(() => {
    browser.runtime.getPlatformInfo().catch(() => undefined);
  }, 20_000);
  return () => clearInterval(t);
}

type Sender = Browser.runtime.MessageSender;

const AGENT_ID = 'handrail-agent';
const PROBE_ID = 'handrail-probe';

/**
 * The content script in every new document of the site being recorded, all frames, about:blank ones too, from
 * document_start: its listeners are in place before the page can be clicked. Beside it, in the page's main world,
 * the probe that records which elements listen for a double-click (lib/gesture-probe.ts), before the page's scripts.
 */
const agents = {
  async register(origins: string[], probeOnly: string[] = []): Promise<void> {
    const where = (at: string[]) => ({ matches: at.map((o) => `${o}/*`), allFrames: true, matchOriginAsFallback: true, runAt: 'document_start' as const, persistAcrossSessions: false });
    const scripts = [
      { id: PROBE_ID, js: [PROBE_SCRIPT_FILE.slice(1)], world: 'MAIN' as const, ...where([...origins, ...probeOnly]) },
      ...(origins.length ? [{ id: AGENT_ID, js: [CONTENT_SCRIPT_FILE.slice(1)], ...where(origins) }] : []),
    ];
    const have = new Set((await browser.scripting.getRegisteredContentScripts({ ids: [PROBE_ID, AGENT_ID] })).map((s) => s.id));
    // The recorder is not wanted where only model sessions run.
    if (!origins.length && have.has(AGENT_ID)) await browser.scripting.unregisterContentScripts({ ids: [AGENT_ID] });
    const update = scripts.filter((s) => have.has(s.id));
    const add = scripts.filter((s) => !have.has(s.id));
    if (update.length) await browser.scripting.updateContentScripts(update);
    if (add.length) await browser.scripting.registerContentScripts(add);
  },
  async unregister(): Promise<void> {
    const have = await browser.scripting.getRegisteredContentScripts({ ids: [PROBE_ID, AGENT_ID] });
    if (have.length) await browser.scripting.unregisterContentScripts({ ids: have.map((s) => s.id) });
  },
};

export function startWorker(): void {
  // The worker's own origin is the extension's (chrome-extension://<id>): its pages share it, pages on sites do not.
  const extensionOrigin = globalThis.location.origin;
  // The key kept by an earlier version (before the area was restricted) is out of content scripts' reach too.
  restrictLocal().catch(() => undefined);
  const host: Promise<Host> = BookStore.open().then((store) => {
    const h = new Host({
      store,
      tab: chromeTab,
      tabUrl: async (id) => (await browser.tabs.get(id)).url ?? '',
      vault,
      model: async (saved) => new ExtensionAnthropicModel(await readSettings(), saved),
      changed: (session) => {
        browser.runtime.sendMessage({ type: 'changed', session }).catch(() => undefined);
      },
      keepAlive,
      newId: () => crypto.randomUUID(),
      agents,
    });
    return h.wake().then(() => h);
  });

  const fromPanel = (s: Sender): boolean => s.id === browser.runtime.id && s.url !== undefined && new URL(s.url).origin === extensionOrigin;
  const fromContent = (s: Sender): boolean =>
    s.id === browser.runtime.id && s.tab?.id !== undefined && s.url !== undefined && new URL(s.url).origin !== extensionOrigin;

  browser.runtime.onMessage.addListener((raw: unknown, sender: Sender, sendResponse: (r?: CommandReply | HelloReply) => void) => {
    if (fromPanel(sender)) {
      const cmd = PanelCommand.safeParse(raw);
      if (!cmd.success) {
        // A 'changed' broadcast from this worker reaches other extension pages, not us; anything else is malformed.
        if ((raw as { type?: unknown } | null)?.type === 'changed') return false;
        sendResponse({ ok: false, code: 'USAGE', path: cmd.error.issues[0]?.path.join('.') ?? '', message: cmd.error.issues[0]?.message ?? 'malformed command' });
        return false;
      }
      host
        .then((h) => h.command(cmd.data))
        .then(sendResponse, (e: unknown) => sendResponse({ ok: false, ...refusalOf(e) }));
      return true;
    }
    if (fromContent(sender) && AgentHello.safeParse(raw).success) {
      const tabId = sender.tab?.id as number;
      trace(`hello from tab ${tabId} frame ${sender.frameId ?? '?'}`);
      host
        .then((h) => h.recording(tabId))
        .then(
          (recording) => {
            trace(`hello answered ${recording}`);
            sendResponse({ recording });
          },
          () => sendResponse({ recording: false }),
        );
      return true;
    }
    if (fromContent(sender) && (raw as { type?: unknown } | null)?.type === 'clerk_lost') {
      // Booked in the session's turn; a document being left sends it without waiting for this answer.
      const lost = ClerkLost.safeParse(raw);
      if (!lost.success) {
        void host.then((h) => h.clerkUnreadable(sender.tab?.id as number, lost.error.issues[0]?.path.join('.') || 'the message')).catch(() => undefined);
        return false;
      }
      host
        .then((h) => h.clerkLost(lost.data, sender.tab?.id as number, sender.url ?? ''))
        .then(
          () => sendResponse({ ok: true }),
          (e: unknown) => sendResponse({ ok: false, ...refusalOf(e) }),
        );
      return true;
    }
    if (fromContent(sender)) {
      const act = ClerkAct.safeParse(raw);
      if (!act.success) {
        const told = ClerkUnrecorded.safeParse(raw);
        if (!told.success) {
          // A clerk's action this worker cannot read (an agent of another version, a field out of bounds): said in the
          // panel, by the field's path only (never its value), not dropped unsaid.
          if ((raw as { type?: unknown } | null)?.type !== 'clerk_act') return false;
          const field = act.error.issues[0]?.path.join('.') || 'the message';
          trace(`clerk_act unreadable: ${field}`);
          void host.then((h) => h.clerkUnreadable(sender.tab?.id as number, field)).catch(() => undefined);
          return false;
        }
        host
          .then((h) => h.clerkUnrecorded(told.data, sender.tab?.id as number))
          .then(
            () => sendResponse({ ok: true }),
            (e: unknown) => sendResponse({ ok: false, ...refusalOf(e) }),
          );
        return true;
      }
      const tabId = sender.tab?.id as number;
      trace(`clerk_act ${act.data.verb} ${act.data.event.slice(0, 8)} from tab ${tabId}`);
      host
        .then((h) => h.clerkAct(act.data, tabId))
        .then(
          () => sendResponse({ ok: true }),
          (e: unknown) => sendResponse({ ok: false, ...refusalOf(e) }),
        );
      return true;
    }
    return false;
  });

  // A recorded tab that goes to another site pauses its session there (and resumes when it comes back); a document
  // it finished loading is looked at, so a page the clerk typed the address of shows in the panel at once.
  browser.tabs.onUpdated.addListener((tabId, info) => {
    if (info.status === 'complete') {
      host.then((h) => h.tabLoaded(tabId)).catch(() => undefined);
      return;
    }
    if (info.status !== 'loading' && info.url === undefined) return;
    host.then((h) => h.tabMoved(tabId)).catch(() => undefined);
  });

  browser.sidePanel?.setPanelBehavior?.({ openPanelOnActionClick: true }).catch(() => undefined);
}
