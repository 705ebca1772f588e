// The terminal surface (docs/design/terminal.md, "The terminal surface"): the six verbs over a TN3270 session.
// open connects and waits for the first screen; observe is terminal-agent/observe.ts over the screen as it is now, and
// raises STALE while the host has not answered the last key (keyboard locked, or no new screen yet), so the engine's
// settling polls it and nothing here waits; act types into a field (Erase EOF, then the value, as an operator does),
// presses an AID or reads a field or a row. A target scoped to a row (`{role: 'row', name, column}`) is looked for
// among the controls of that row of the screen's list (terminal-agent/rows.ts), the web's vocabulary. Evidence is text: a 3270 screen is text, there is no picture to take.
import { inScope, walkLadder } from '../shared/ladder.ts';
import type { Observation } from '../shared/schema/observation.ts';
import { screenDump, screenWords } from '../shared/screens.ts';
import {
  SurfaceError,
  type ActResult,
  type Answer,
  type BoundTarget,
  type Operation,
  type Query,
  type Resolution,
  type Surface,
} from '../shared/surface.ts';
import { observeScreen, TERMINAL_OBSERVER, targetOf, type Observed } from './observe.ts';
import { Tn3270Error } from './screen.ts';
import { parseEntry, Tn3270Session } from './session.ts';

export interface TerminalOptions {
  /** How long open waits for the host's first screen (default 10 s). */
  connectTimeoutMs?: number;
}

export class TerminalSurface implements Surface {
  readonly kind = 'tn3270' as const;
  readonly observer = TERMINAL_OBSERVER;
  #session: Tn3270Session | null = null;
  #last: Observed | null = null;
  readonly #opts: TerminalOptions;

  constructor(opts: TerminalOptions = {}) {
    this.#opts = opts;
  }

  /** The session, for tests and `handrail observe`; null before open. */
  get session(): Tn3270Session | null {
    return this.#session;
  }

  async open(entry: string): Promise<void> {
    const endpoint = parseEntry(entry);
    if (!endpoint) throw new SurfaceError('SURFACE_UNREACHABLE', `opening ${entry}: a terminal entry is tn3270://host:port`);
    await this.#session?.close();
    this.#last = null;
    try {
      this.#session = await Tn3270Session.connect(endpoint, this.#opts.connectTimeoutMs);
    } catch (e) {
      throw new SurfaceError('SURFACE_UNREACHABLE', `opening ${entry}: ${(e as Error).message}`);
    }
  }

  #ready(during: string): Tn3270Session {
    const s = this.#session;
    if (!s) throw new SurfaceError('STALE', `${during}: no terminal session is open`);
    if (s.ended) throw new SurfaceError('SURFACE_UNREACHABLE', `${during}: ${s.ended}`);
    if (!s.ready) {
      throw new SurfaceError('STALE', `${during}: waiting for the host (${s.screen.locked ? 'keyboard locked' : 'no new screen yet'})`);
    }
    return s;
  }

  observe(): Promise<Observation> {
    try {
      const s = this.#ready('observing the screen');
      this.#last = observeScreen(s.screen, `${s.endpoint.host}:${s.endpoint.port}`);
      return Promise.resolve(this.#last.observation);
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  async resolve(target: BoundTarget): Promise<Resolution> {
    const obs = await this.observe();
    const controls = obs.parts.flatMap((p) => p.controls);
    const lines = (obs.parts[0]?.text ?? '').split('\n');
    const rows = this.#last?.rows ?? [];
    return walkLadder(target, {
      find: (q) => {
        const want = q.rung === 'role_name' ? (q.name ?? '') : (q.value ?? q.name ?? '');
        if (q.rung === 'text' && q.role === 'text') {
          // A line of the screen holding the words: what a `read` of a result line finds; in a row scope, that row's line.
          const allowed = q.scope.length ? new Set(rows.filter((r) => r.link && inScope([r.link], q.scope)).map((r) => r.line)) : null;
          return Promise.resolve(want ? lines.flatMap((l, i) => (l.includes(want) && (!allowed || allowed.has(i)) ? [`|r${i}`] : [])) : []);
        }
        const hits = controls.filter((c) => {
          if (c.role !== q.role) return false;
          // A row scope: the control sits in the row whose key (in the named column, when the card names one) is the name.
          if (!inScope(c.scope, q.scope)) return false;
          if (q.rung === 'role_name') return c.name === want;
          if (q.rung === 'label') return !!want && c.name === want;
          if (q.rung === 'text') return !!want && c.name.includes(want);
          return false;
        });
        return Promise.resolve(hits.map((c) => c.ref));
      },
      controlOf: (ref) => controls.find((c) => c.ref === ref) ?? null,
      observer: TERMINAL_OBSERVER,
    });
  }

  act(ref: string, op: Operation): Promise<ActResult> {
    try {
      const s = this.#ready(`${op.verb} on ${ref}`);
      const t = targetOf(ref);
      if (!t) throw new SurfaceError('STALE', `${ref} is not on this screen`);
      const screen = s.screen;
      if (t.kind === 'key') {
        if (op.verb !== 'invoke') throw new SurfaceError('ACTION_FAILED', `${op.verb} on the ${t.aid} key, which only takes invoke`);
        s.press(t.aid);
        return Promise.resolve({});
      }
      if (t.kind === 'row') {
        if (op.verb !== 'read') throw new SurfaceError('ACTION_FAILED', `${op.verb} on a line of text, which only takes read`);
        return Promise.resolve({ read: (screen.lines()[t.row] ?? '').trim() });
      }
      const field = screen.fields().find((f) => f.start === t.start && !f.protected);
      if (!field) throw new SurfaceError('STALE', `no input field starts at ${ref} on this screen`);
      if (op.verb === 'read') return Promise.resolve({ read: field.hidden ? '' : screen.fieldText(field).trim() });
      if (op.verb !== 'set_value') throw new SurfaceError('ACTION_FAILED', `${op.verb} on an input field, which takes set_value and read`);
      const value = op.value ?? '';
      if (value.length > field.length) {
        throw new SurfaceError('ACTION_FAILED', `set_value on ${ref}: ${value.length} characters do not fit a ${field.length}-character field`);
      }
      screen.moveCursor(field.start);
      screen.eraseEof();
      screen.type(value);
      return Promise.resolve({});
    } catch (e) {
      if (e instanceof Tn3270Error) return Promise.reject(new SurfaceError('ACTION_FAILED', `${op.verb} on ${ref}: ${e.message}`));
      return Promise.reject(e as Error);
    }
  }

  async evaluate(query: Query): Promise<Answer> {
    const observation = await this.observe();
    if (query.kind === 'observe') return { kind: 'observe', observation };
    return { kind: 'text_present', present: screenWords(observation).includes(query.text) };
  }

  evidence(kind: 'screenshot'): Promise<Uint8Array>;
  evidence(kind: 'text'): Promise<string>;
  evidence(kind: 'screenshot' | 'text'): Promise<Uint8Array | string> {
    if (kind === 'screenshot') {
      return Promise.reject(new SurfaceError('ACTION_FAILED', 'a terminal has no screenshot: its evidence is text'));
    }
    const s = this.#session;
    if (!s) return Promise.reject(new SurfaceError('STALE', 'no terminal session is open'));
    // The screen as it is, even mid-answer: evidence of a failure must not wait for the host.
    return Promise.resolve(screenDump(observeScreen(s.screen, `${s.endpoint.host}:${s.endpoint.port}`).observation));
  }

  async close(): Promise<void> {
    await this.#session?.close();
    this.#session = null;
  }
}
