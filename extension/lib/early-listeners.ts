// Listeners a document added before the double-click probe came (docs/design/extension.md, "The extension's trusted
// input", "A document open before the session"). The probe's record (shared/dom/gestures.ts `recordListeners`)
// sees only what `addEventListener` is called with after it starts; a page that was open before the session added
// its listeners first. No script can list them; the DevTools protocol can: `DOMDebugger.getEventListeners` on the
// top document with `depth: -1, pierce: true` lists every listener of every node, shadow roots and same-process
// frames included, each with its node (`backendNodeId`) and the very function the page passed (`originalHandler`).
// The functions come as objects of the world the question was asked in (the top document's main world, found
// among the contexts `Runtime.enable` reports by the frame tree's root), a same-origin frame's too; so each
// listening element is resolved into that same world (`DOM.resolveNode`), and the record of the element's own
// document (`ownerDocument.defaultView`, reachable there) learns its listeners as if it had seen the calls
// (`learn`), so a later removeEventListener takes them out again.
//
// Not the console's `getEventListeners(node)` (Runtime.evaluate with includeCommandLineAPI), which would need one
// call per frame: Chrome gives an extension's debugger session no Command Line API (`getEventListeners`, `$$`,
// `keys` are all undefined there; measured on Chromium 14x, headless). A frame of another site, in its own process,
// is a target of its own, which this does not reach.
import { LISTENERS_KEY } from '../../shared/dom/gestures.ts';
import type { Cdp } from './trusted-input.ts';

/** The two DOM events of the gestures offered (shared/dom/gestures.ts EVENT). */
const WATCHED: ReadonlySet<string> = new Set(['dblclick', 'contextmenu']);
const GROUP = 'handrail-early-listeners';

interface RemoteObject {
  objectId?: string;
}
interface Listener {
  type: string;
  backendNodeId?: number;
  originalHandler?: RemoteObject;
  handler?: RemoteObject;
}

/**
 * Runs in the top document's main world (serialised: it may use nothing from this module), on the document, with
 * the listening elements and their listeners as arguments: `types[i]` is the event of `listeners[i]`, added to
 * `elements[owners[i]]`. Teaches the record of each element's own document; an attribute or property handler is
 * read by the walker anyway and is not one of the record's. Returns how many it taught.
 */
function teach(key: string, types: string[], owners: number[], count: number, ...objects: unknown[]): number {
  const elements = objects.slice(0, count) as Element[];
  const listeners = objects.slice(count);
  let taught = 0;
  listeners.forEach((listener, i) => {
    const el = elements[owners[i] ?? -1];
    const type = types[i] ?? '';
    if (!el || listener === (el as unknown as Record<string, unknown>)[`on${type}`]) return;
    try {
      const win = el.ownerDocument.defaultView as unknown as Record<string, { learn?: (t: EventTarget, type: string, l: unknown) => void } | undefined> | null;
      const record = win?.[key];
      if (typeof record?.learn !== 'function') return;
      record.learn(el, type, listener);
      taught++;
    } catch {
      // A frame of another origin in this process: its record is out of reach from here.
    }
  });
  return taught;
}

/**
 * Teaches each same-process frame's record the gesture listeners its document had before the probe came; the
 * number taught (elements in frames without a probe count nothing). Round trips: seven, and one per listening
 * element (sent together); six where nothing listens for either gesture.
 */
export async function learnEarlyListeners(cdp: Cdp): Promise<number> {
  try {
    const contextId = await topMainWorld(cdp);
    if (contextId === undefined) return 0;
    const doc = (await cdp.send('Runtime.evaluate', { expression: 'document', contextId, objectGroup: GROUP })) as { result?: RemoteObject };
    const objectId = doc.result?.objectId;
    if (!objectId) return 0;
    const got = (await cdp.send('DOMDebugger.getEventListeners', { objectId, depth: -1, pierce: true })) as { listeners?: Listener[] };
    const watched = (got.listeners ?? []).filter((l) => WATCHED.has(l.type) && l.backendNodeId !== undefined && (l.originalHandler ?? l.handler)?.objectId);
    if (!watched.length) return 0;
    const nodeIds = [...new Set(watched.map((l) => l.backendNodeId as number))];
    // Each element as an object of the same world as the functions, so one call can hand both to the record.
    const resolved = await Promise.all(
      nodeIds.map((backendNodeId) =>
        cdp.send('DOM.resolveNode', { backendNodeId, executionContextId: contextId, objectGroup: GROUP }).then(
          (r) => (r as { object?: RemoteObject }).object?.objectId ?? null,
          // The element left the page meanwhile.
          () => null,
        ),
      ),
    );
    const index = new Map<number, number>();
    const elements: string[] = [];
    nodeIds.forEach((id, i) => {
      const o = resolved[i];
      if (o) index.set(id, elements.push(o) - 1);
    });
    const taught = watched.filter((l) => index.has(l.backendNodeId as number));
    const r = (await cdp.send('Runtime.callFunctionOn', {
      objectId,
      functionDeclaration: teach.toString().replace(/^function\s*\w*/, 'function'),
      arguments: [
        { value: LISTENERS_KEY },
        { value: taught.map((l) => l.type) },
        { value: taught.map((l) => index.get(l.backendNodeId as number)) },
        { value: elements.length },
        ...elements.map((id) => ({ objectId: id })),
        ...taught.map((l) => ({ objectId: (l.originalHandler ?? l.handler)?.objectId })),
      ],
      returnByValue: true,
      silent: true,
    })) as { result?: { value?: unknown } };
    const n = r.result?.value;
    return typeof n === 'number' ? n : 0;
  } finally {
    await cdp.send('Runtime.releaseObjectGroup', { objectGroup: GROUP }).catch(() => undefined);
  }
}

interface ContextCreated {
  context?: { id?: unknown; auxData?: { isDefault?: unknown; frameId?: unknown } };
}

/** The execution context id of the top document's main world. */
async function topMainWorld(cdp: Cdp): Promise<number | undefined> {
  const byFrame = new Map<string, number>();
  // Runtime.enable reports every context that exists now, before it answers (CDP, Runtime.executionContextCreated).
  const stop = cdp.events((method, params) => {
    if (method !== 'Runtime.executionContextCreated') return;
    const c = (params as ContextCreated).context;
    if (c?.auxData?.isDefault === true && typeof c.auxData.frameId === 'string' && typeof c.id === 'number') byFrame.set(c.auxData.frameId, c.id);
  });
  try {
    await cdp.send('Runtime.enable');
  } finally {
    stop();
    await cdp.send('Runtime.disable').catch(() => undefined);
  }
  const tree = (await cdp.send('Page.getFrameTree')) as { frameTree?: { frame?: { id?: string } } };
  const top = tree.frameTree?.frame?.id;
  return top === undefined ? undefined : byFrame.get(top);
}
