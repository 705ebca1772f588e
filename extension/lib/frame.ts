// What runs in each frame of the clerk's tab (the content script's logic): the shared walker for observing and
// finding, acting on an element by its ref, and — while recording — catching the clerk's own clicks, typed
// values and selections and reporting them as the control they touched. The page never sees any of it: this
// lives in the extension's isolated world, and reaches the worker only through runtime messaging.
import { createInPage } from '../../shared/dom/index.ts';
import type { InPage } from '../../shared/dom/api.ts';
import { frameSegment } from '../../shared/ref.ts';
import type { Verb } from '../../shared/schema/observation.ts';
import type { ClerkAct, FrameCall, FrameReply, FrameReport } from './messages.ts';

/** The name the agent is kept under in the isolated world, where the worker's executeScript calls find it. */
export const AGENT_GLOBAL = '__handrailAgent';

export interface FrameAgent {
  /** Observe this document; `recording` turns the capture of the clerk's actions on or off (and answers `ask`). */
  observe(recording: boolean): FrameReport;
  call(c: FrameCall): FrameReply;
  /** Catch the clerk's actions (record mode) or not; observe() sets it too. */
  recording: boolean;
  /**
   * The document has just started and the worker has not yet said whether this tab is recorded: until `answer`,
   * the clerk's presses are held and their typing remembered, so none happens unseen.
   */
  ask(): void;
  /** The worker's answer: recording → what was held is reported in order; not → each held press is let through. */
  answer(recording: boolean): void;
}

/**
 * This frame's path from the top document, spelled as shared/ref.ts spells it (and the runner reads it, in
 * runner/browser/frames.ts): each frame's name on the way down, or `#<n>` — its index among its parent's
 * frames — when it has none.
 */
export function framePath(win: Window): string[] {
  const path: string[] = [];
  let w: Window = win;
  while (w !== w.parent) {
    const parent = w.parent;
    let name = '';
    try {
      name = w.name;
    } catch {
      name = '';
    }
    let i = 0;
    while (i < parent.frames.length && parent.frames[i] !== w) i++;
    path.unshift(frameSegment(name, i));
    w = parent;
  }
  return path;
}

function setNativeValue(el: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  // Frameworks watch the prototype's setter; set through it so the page's own listeners see a real edit.
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set;
  if (setter) setter.call(el, value);
  else el.value = value;
}

const normalize = (s: string): string => s.replace(/\s+/g, ' ').trim();

function act(api: InPage, ref: string, verb: Verb, value: string | undefined): FrameReply {
  const el = api.element(ref);
  if (!el) return { ok: false, code: 'STALE', message: `element ${ref} is no longer on the page` };
  switch (verb) {
    case 'invoke':
    case 'toggle':
      (el as HTMLElement).click();
      return { ok: true };
    case 'set_value': {
      if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) {
        return { ok: false, code: 'ACTION_FAILED', message: `set_value on a ${el.tagName.toLowerCase()}, which takes no typed value` };
      }
      // In record mode the clerk has already typed this value: touching the field again would move the focus
      // away from wherever they are typing now, and their next keystrokes would land here.
      if (el.value === (value ?? '')) return { ok: true };
      el.focus();
      setNativeValue(el, value ?? '');
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { ok: true };
    }
    case 'select': {
      if (!(el instanceof HTMLSelectElement)) return { ok: false, code: 'ACTION_FAILED', message: `select on a ${el.tagName.toLowerCase()}` };
      const want = value ?? '';
      // A card names the option a person reads (its label); the option's value is the fallback, as in replay.
      const opt = [...el.options].find((o) => normalize(o.text) === want) ?? [...el.options].find((o) => o.value === want);
      if (!opt) return { ok: false, code: 'ACTION_FAILED', message: 'no option with that label or value' };
      if (el.value === opt.value) return { ok: true };
      el.value = opt.value;
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { ok: true };
    }
    case 'read':
      return { ok: true, read: api.textOf(ref) };
    case 'press':
    case 'hover':
    case 'double_click':
    case 'choose':
    case 'read_rows':
    case 'context_menu':
      // A page script's events are untrusted: a synthetic key does not type, a synthetic pointer does not match
      // :hover (docs/ARCHITECTURE.md, "The six verbs"). The runner's browser surface does these with real input.
      return { ok: false, code: 'ACTION_FAILED', message: `the extension does not ${verb.replace('_', '-')} yet: replay this card with the runner` };
  }
}

export interface AgentOptions {
  /** Sends one clerk action to the worker (record mode). */
  report(a: ClerkAct): void;
  /** Adds a listener that goes away with the content script (tied to the agent's life, lib/agent.ts). */
  listen(target: EventTarget, type: string, fn: (e: Event) => void): void;
  newId(): string;
}

export function createFrameAgent(win: Window, opts: AgentOptions): FrameAgent {
  const doc = win.document;
  const api = createInPage(doc);
  let recording = false;
  let asking = false;
  /** What the clerk did while the agent was asking: reports to send, and presses to let through if not recording. */
  const held: Array<{ report(): void; release?: () => void }> = [];
  const dirty = new Set<HTMLInputElement | HTMLTextAreaElement>();
  const watching = (): boolean => recording || asking;

  /** The ref of the control `target` is (or sits inside), from a fresh look at the document. */
  const controlAt = (target: EventTarget | null): { ref: string; verbs: Verb[]; el: Element } | null => {
    if (!(target instanceof Element)) return null;
    const obs = api.observe();
    const byEl = new Map<Element, { ref: string; verbs: Verb[] }>();
    for (const c of obs.controls) {
      const el = api.element(c.ref);
      if (el) byEl.set(el, { ref: c.ref, verbs: c.verbs });
    }
    for (let n: Element | null = target; n; n = n.parentElement) {
      const hit = byEl.get(n);
      if (hit) return { ...hit, el: n };
    }
    return null;
  };

  const send = (verb: Verb, target: Element, value?: string, optionValue?: string): void => {
    const hit = controlAt(target);
    if (!hit || !hit.verbs.includes(verb)) return;
    opts.report({
      type: 'clerk_act',
      event: opts.newId(),
      frame: framePath(win),
      ref: hit.ref,
      verb,
      ...(value !== undefined ? { value } : {}),
      ...(optionValue !== undefined ? { optionValue } : {}),
    });
  };

  /** Reports now, or — while asking — once the worker says this tab is recorded. */
  const emit = (report: () => void, release?: () => void): void => {
    if (asking) held.push(release ? { report, release } : { report });
    else report();
  };

  const flushTyped = (el: HTMLInputElement | HTMLTextAreaElement): void => {
    dirty.delete(el);
    const value = el.value;
    emit(() => {
      if (el.isConnected) send('set_value', el, value);
    });
  };

  // Only the clerk's own (trusted) events are recorded: the agent's replays and page scripts' synthetic events
  // are not the clerk acting.
  opts.listen(doc, 'input', (e) => {
    if (!watching() || !e.isTrusted) return;
    const t = e.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement) dirty.add(t);
  });
  opts.listen(doc, 'change', (e) => {
    if (!watching() || !e.isTrusted) return;
    const t = e.target;
    if (t instanceof HTMLSelectElement) {
      const opt = t.selectedOptions[0];
      if (opt) {
        const label = normalize(opt.text);
        const value = opt.value;
        emit(() => send('select', t, label, value));
      }
    } else if ((t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement) && dirty.has(t)) {
      flushTyped(t);
    }
  });
  opts.listen(doc, 'click', (e) => {
    if (!watching() || !e.isTrusted) return;
    const hit = controlAt(e.target);
    if (!hit || !(hit.verbs.includes('invoke') || hit.verbs.includes('toggle'))) return;
    // The press goes through the guard, which asks the owner about buttons before it acts: hold it here.
    e.preventDefault();
    e.stopImmediatePropagation();
    // A field typed into and submitted with Enter has had no change event yet: its value goes first.
    for (const el of [...dirty]) flushTyped(el);
    const verb = hit.verbs.includes('invoke') ? 'invoke' : 'toggle';
    const el = hit.el as HTMLElement;
    // Not recorded after all (another tab of the same site): the press the clerk made still happens.
    emit(() => send(verb, el), () => el.click());
  });

  const answer = (rec: boolean): void => {
    asking = false;
    recording = rec;
    const were = held.splice(0);
    for (const h of were) {
      if (rec) h.report();
      else h.release?.();
    }
  };

  return {
    get recording() {
      return recording;
    },
    set recording(on: boolean) {
      if (asking) answer(on);
      else recording = on;
    },
    ask() {
      asking = true;
    },
    answer,
    observe(rec: boolean): FrameReport {
      if (asking) answer(rec);
      else recording = rec;
      const d = api.observe();
      return { frame: framePath(win), url: d.url, title: d.title, controls: d.controls, paths: d.paths, text: d.text, busy: d.busy };
    },
    call(c: FrameCall): FrameReply {
      switch (c.op) {
        case 'find':
          return {
            ok: true,
            refs: api.find({
              rung: c.query.rung,
              scope: c.query.scope as Parameters<InPage['find']>[0]['scope'],
              ...(c.query.role !== undefined ? { role: c.query.role } : {}),
              ...(c.query.name !== undefined ? { name: c.query.name } : {}),
              ...(c.query.value !== undefined ? { value: c.query.value } : {}),
            }),
          };
        case 'act':
          try {
            return act(api, c.ref, c.verb, c.value);
          } catch (e) {
            return { ok: false, code: 'ACTION_FAILED', message: (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '' };
          }
        case 'selectors':
          return { ok: true, selectors: api.selectors(c.ref) };
      }
    },
  };
}
