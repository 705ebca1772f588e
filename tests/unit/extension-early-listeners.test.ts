// The extension reads the listeners a page added before its double-click probe came through the DevTools protocol, once, on an attachment it lets go of after (Chrome's bar shows for that moment, not for the session) unless trusted input keeps it, and never after the clerk cancelled the bar; the read teaches each element's own record the dblclick and contextmenu listeners, not a handler, not another event.
import { beforeEach, describe, expect, it, vi } from 'vitest';

/** chrome.debugger as the extension sees it, for one browser: attachments per tab, commands, events, detaches. */
const chrome = vi.hoisted(() => {
  type Listener<A extends unknown[]> = (...a: A) => void;
  const hub = <A extends unknown[]>() => {
    const fns = new Set<Listener<A>>();
    return { fns, addListener: (f: Listener<A>) => fns.add(f), removeListener: (f: Listener<A>) => fns.delete(f), fire: (...a: A) => fns.forEach((f) => f(...a)) };
  };
  const state = {
    attached: new Set<number>(),
    attaches: 0,
    detaches: 0,
    commands: [] as Array<{ tabId: number; method: string }>,
    onEvent: hub<[{ tabId?: number }, string, unknown]>(),
    onDetach: hub<[{ tabId?: number }, string]>(),
  };
  const debuggerApi = {
    attach: async ({ tabId }: { tabId: number }) => {
      if (state.attached.has(tabId)) throw new Error('Another debugger is already attached to the tab');
      state.attached.add(tabId);
      state.attaches++;
    },
    detach: async ({ tabId }: { tabId: number }) => {
      if (!state.attached.delete(tabId)) throw new Error('Debugger is not attached to the tab');
      state.detaches++;
    },
    sendCommand: async ({ tabId }: { tabId: number }, method: string) => {
      if (!state.attached.has(tabId)) throw new Error('Debugger is not attached to the tab');
      state.commands.push({ tabId, method });
      return {};
    },
    onEvent: state.onEvent,
    onDetach: state.onDetach,
  };
  return { state, debuggerApi };
});
vi.mock('wxt/browser', () => ({ browser: { debugger: chrome.debuggerApi } }));

const { tabDebugger } = await import('../../extension/lib/trusted-input.ts');
const { learnEarlyListeners } = await import('../../extension/lib/early-listeners.ts');
const { LISTENERS_KEY } = await import('../../shared/dom/gestures.ts');

let tab = 100;
beforeEach(() => {
  tab++;
});

describe('one read on the tab\'s debugger', () => {
  it('attaches for the read and lets go after: the bar is not left for the session', async () => {
    const d = tabDebugger(tab);
    const methods = await d.inspect(async (cdp) => {
      await cdp.send('Runtime.enable');
      return chrome.state.commands.filter((c) => c.tabId === tab).map((c) => c.method);
    });
    expect(methods).toEqual(['Runtime.enable']);
    expect(chrome.state.attached.has(tab)).toBe(false);
    await d.release();
  });

  it('on the attachment trusted input holds, and while it asks for one, the read leaves it attached', async () => {
    const d = tabDebugger(tab);
    await d.ready();
    await d.inspect(async () => 0);
    expect(chrome.state.attached.has(tab)).toBe(true);
    await d.release();
    expect(chrome.state.attached.has(tab)).toBe(false);

    const e = tabDebugger(tab);
    await e.inspect(async () => {
      await e.ready();
    });
    expect(chrome.state.attached.has(tab)).toBe(true);
    await e.release();
  });

  it('hears only its own tab\'s events, and only while it listens', async () => {
    const heard: string[] = [];
    await tabDebugger(tab).inspect(async (cdp) => {
      const stop = cdp.events((method) => heard.push(method));
      chrome.state.onEvent.fire({ tabId: tab }, 'Runtime.executionContextCreated', {});
      chrome.state.onEvent.fire({ tabId: tab + 1000 }, 'Runtime.executionContextDestroyed', {});
      stop();
      chrome.state.onEvent.fire({ tabId: tab }, 'Runtime.consoleAPICalled', {});
    });
    expect(heard).toEqual(['Runtime.executionContextCreated']);
  });

  it('after the clerk cancelled Chrome\'s bar, never attaches again: the read is refused by name', async () => {
    const d = tabDebugger(tab);
    await d.ready();
    chrome.state.attached.delete(tab);
    chrome.state.onDetach.fire({ tabId: tab }, 'canceled_by_user');
    const attaches = chrome.state.attaches;
    await expect(d.inspect(async () => 0)).rejects.toThrow(/you cancelled Chrome's "Handrail started debugging this browser" bar/);
    expect(chrome.state.attaches).toBe(attaches);
    await d.release();
  });
});

/** A CDP target of one page: the listeners DOMDebugger.getEventListeners reports, and the world callFunctionOn runs in. */
function page(listeners: Array<{ type: string; node: number; fn: string }>, world: Record<string, unknown>) {
  const sent: string[] = [];
  const objects = new Map<string, unknown>();
  let listening: ((method: string, params: unknown) => void) | null = null;
  const cdp = {
    sent,
    events(listen: (method: string, params: unknown) => void) {
      listening = listen;
      return () => {
        listening = null;
      };
    },
    async send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
      sent.push(method);
      switch (method) {
        case 'Runtime.enable':
          // Existing contexts are reported before the answer: a frame's and the top's main world, an isolated world.
          listening?.('Runtime.executionContextCreated', { context: { id: 7, auxData: { isDefault: true, frameId: 'child' } } });
          listening?.('Runtime.executionContextCreated', { context: { id: 3, auxData: { isDefault: false, frameId: 'top' } } });
          listening?.('Runtime.executionContextCreated', { context: { id: 5, auxData: { isDefault: true, frameId: 'top' } } });
          return {};
        case 'Page.getFrameTree':
          return { frameTree: { frame: { id: 'top' } } };
        case 'Runtime.evaluate':
          expect(params['contextId']).toBe(5);
          objects.set('doc', world['document']);
          return { result: { objectId: 'doc' } };
        case 'DOMDebugger.getEventListeners':
          expect(params).toMatchObject({ objectId: 'doc', depth: -1, pierce: true });
          return { listeners: listeners.map((l) => ({ type: l.type, backendNodeId: l.node, originalHandler: { objectId: l.fn } })) };
        case 'DOM.resolveNode':
          expect(params['executionContextId']).toBe(5);
          objects.set(`node${String(params['backendNodeId'])}`, (world['nodes'] as Record<number, unknown>)[params['backendNodeId'] as number]);
          return { object: { objectId: `node${String(params['backendNodeId'])}` } };
        case 'Runtime.callFunctionOn': {
          // The declaration is all that crosses: built again from its text, as the page's world does.
          const fn = new Function(`return (${String(params['functionDeclaration'])})`)() as (...a: unknown[]) => unknown;
          const args = (params['arguments'] as Array<{ value?: unknown; objectId?: string }>).map((a) => ('objectId' in a ? (objects.get(a.objectId as string) ?? (world['functions'] as Record<string, unknown>)[a.objectId as string]) : a.value));
          return { result: { value: fn.apply(objects.get(params['objectId'] as string), args) } };
        }
        default:
          return {};
      }
    },
  };
  return cdp;
}

describe('what the read teaches', () => {
  it('each listening element\'s own record learns its dblclick and contextmenu listeners, once per element, and nothing else', async () => {
    const learned: Array<[string, string, string]> = [];
    const record = (who: string) => ({ learn: (t: { id: string }, type: string, l: { name: string }) => learned.push([who, `${t.id}:${type}`, l.name]) });
    const top = { [LISTENERS_KEY]: record('top') };
    const child = { [LISTENERS_KEY]: record('frame') };
    const onAttr = { name: 'attribute handler' };
    const el = (id: string, win: object, extra: object = {}) => ({ id, ownerDocument: { defaultView: win }, ...extra });
    const nodes = { 1: el('title', top), 2: el('row', top, { ondblclick: onAttr }), 3: el('invoice', child) };
    const functions = { f1: { name: 'rename' }, f2: { name: 'menu' }, f3: onAttr, f4: { name: 'click' }, f5: { name: 'frame rename' } };
    const cdp = page(
      [
        { type: 'dblclick', node: 1, fn: 'f1' },
        { type: 'contextmenu', node: 1, fn: 'f2' },
        { type: 'dblclick', node: 2, fn: 'f3' },
        { type: 'click', node: 2, fn: 'f4' },
        { type: 'dblclick', node: 3, fn: 'f5' },
      ],
      { document: {}, nodes, functions },
    );
    expect(await learnEarlyListeners(cdp)).toBe(3);
    expect(learned).toEqual([
      ['top', 'title:dblclick', 'rename'],
      ['top', 'title:contextmenu', 'menu'],
      ['frame', 'invoice:dblclick', 'frame rename'],
    ]);
    // One node resolved per listening element (the title's two listeners share one); the objects let go after.
    expect(cdp.sent.filter((m) => m === 'DOM.resolveNode')).toHaveLength(3);
    expect(cdp.sent.at(-1)).toBe('Runtime.releaseObjectGroup');
  });

  it('a page whose elements listen for neither gesture costs no node and no call into the page', async () => {
    const cdp = page([{ type: 'click', node: 1, fn: 'f1' }], { document: {}, nodes: {}, functions: {} });
    expect(await learnEarlyListeners(cdp)).toBe(0);
    expect(cdp.sent.filter((m) => m === 'DOM.resolveNode' || m === 'Runtime.callFunctionOn')).toEqual([]);
  });
});
