// The session machine the worker runs (DESIGN.md "Authoring", hosted in the extension). A session is a record
// in IndexedDB plus, while the worker is alive, a live guard over the clerk's tab. Model mode hands the tab to
// shared/author's runEvening (resumeEvening after a stop, from the book and the evening's kept place); record
// mode sends each of the clerk's own actions through the same Guard, resumed from the book. Any state worth
// keeping is written before it is acted on, so a worker killed between two events comes back, finds the session
// in IndexedDB and carries on: no book line lost, none written twice, and a press under way is never made twice.
import { Guard } from '../../shared/author/guard.ts';
import { resumeEvening, runEvening, type EveningOptions, type EveningResult } from '../../shared/author/evening.ts';
import { OwnerError, type Book, type EveningInput, type Model, type Owner, type OwnerAnswer, type OwnerQuestion } from '../../shared/author/ports.ts';
import { WALKER_VERSION } from '../../shared/dom/version.ts';
import { buildMenu, renderRow } from '../../shared/menu.ts';
import { formatRef } from '../../shared/ref.ts';
import type { Observation } from '../../shared/schema/observation.ts';
import { TRACE_SCHEMA_ID, TraceLine } from '../../shared/schema/trace.ts';
import { nameScreen, type KnownScreen } from '../../shared/screens.ts';
import { Masker } from '../../shared/secrets.ts';
import { SurfaceError, type ActResult, type Answer, type BoundTarget, type Operation, type Query, type Resolution, type Surface } from '../../shared/surface.ts';
import type { ClerkAct, CommandReply, PanelCommand } from './messages.ts';
import { valueForGuard } from './record.ts';
import type { BookStore, SessionRecord } from './store.ts';
import { ExtensionSurface, type TabChannel } from './surface.ts';

type StartCommand = Extract<PanelCommand, { type: 'start' }>;

export interface SecretVault {
  put(session: string, values: Record<string, string>): Promise<void>;
  get(session: string): Promise<Record<string, string> | null>;
  drop(session: string): Promise<void>;
}

export interface HostDeps {
  store: BookStore;
  tab(tabId: number): TabChannel;
  tabUrl(tabId: number): Promise<string>;
  vault: SecretVault;
  /** The model for a model-mode session; `saved` is its conversation as `Model.save()` gave it, to go on from. */
  model(saved?: unknown): Promise<Model>;
  /** Tell open panels that a session changed (they re-read IndexedDB). */
  changed(session: string): void;
  /** Keep the worker awake while a model evening runs; returns the release. */
  keepAlive(): () => void;
  newId(): string;
  now?: () => Date;
  /** Has the content script start in every new document of the recorded site (and stop when nothing records). */
  agents?: { register(url: string): Promise<void>; unregister(): Promise<void> };
}

const fail = (code: string, message: string): CommandReply => ({ ok: false, code, message });

/** The record without a dispatched action: that action's line is written, or it was settled another way. */
function settled(r: SessionRecord): SessionRecord {
  const { dispatched: _done, ...rest } = r;
  return rest;
}

/** The book of one session: lines keyed by (session, seq), numbered by the guard (which resumes from the book). */
class SessionBook implements Book {
  constructor(
    private readonly store: BookStore,
    private readonly session: string,
    private readonly onLine: (l: TraceLine) => Promise<void>,
  ) {}

  async append(line: TraceLine): Promise<void> {
    const checked = TraceLine.parse(line);
    await this.store.appendLine(this.session, checked);
    await this.onLine(checked);
  }
}

/** The tab's surface, which the clerk can halt: every verb then fails, so a running evening ends itself at once. */
class HaltableSurface implements Surface {
  halted = false;
  constructor(
    readonly inner: ExtensionSurface,
    private readonly seen: (obs: Observation) => Promise<void>,
  ) {}
  #live(): void {
    if (this.halted) throw new SurfaceError('ACTION_FAILED', 'the clerk stopped the session');
  }
  open(entry: string): Promise<void> {
    this.#live();
    return this.inner.open(entry);
  }
  async observe(): Promise<Observation> {
    this.#live();
    const obs = await this.inner.observe();
    await this.seen(obs);
    return obs;
  }
  resolve(t: BoundTarget): Promise<Resolution> {
    this.#live();
    return this.inner.resolve(t);
  }
  act(ref: string, op: Operation): Promise<ActResult> {
    this.#live();
    return this.inner.act(ref, op);
  }
  evaluate(q: Query): Promise<Answer> {
    return this.inner.evaluate(q);
  }
  evidence(kind: 'screenshot'): Promise<Uint8Array>;
  evidence(kind: 'text'): Promise<string>;
  evidence(kind: 'screenshot' | 'text'): Promise<Uint8Array | string> {
    return kind === 'screenshot' ? this.inner.evidence('screenshot') : this.inner.evidence('text');
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

interface Live {
  session: string;
  inputs: EveningInput[];
  masker: Masker;
  surface: HaltableSurface;
  book: SessionBook;
  known: KnownScreen[];
  /** Record mode only: the guard the clerk's actions go through. */
  guard: Guard | null;
  lastSignature: string | null;
}

export class Host {
  readonly #live = new Map<string, Live>();
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #questions = new Map<string, { resolve: (a: OwnerAnswer) => void; reject: (e: Error) => void }>();

  constructor(private readonly d: HostDeps) {}

  /** Runs `fn` after everything queued for the session: a clerk's type-then-click arrives and is written in order. */
  #queue<T>(session: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#queues.get(session) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    this.#queues.set(session, next.catch(() => undefined));
    return next;
  }

  async #update(id: string, change: (s: SessionRecord) => SessionRecord): Promise<SessionRecord> {
    const s = await this.d.store.updateSession(id, change);
    this.d.changed(id);
    return s;
  }

  /** The worker started (first install, or woken after being stopped): settle what the last worker left. */
  async wake(): Promise<void> {
    for (const s of await this.d.store.listSessions()) {
      if (s.state !== 'running') continue;
      if ((await this.d.vault.get(s.id)) === null) {
        // storage.session is emptied when the browser closes: the secrets (and the tab) this session had are gone.
        await this.#end(s.id, 'failed', 'SECRET_GONE', 'the browser was closed during the session; start a new session');
        continue;
      }
      if (s.mode === 'model') {
        // The press the owner was being asked about never happened (it waits for the answer): the resumed
        // evening runs that call again and asks again.
        await this.#update(s.id, (r) => ({ ...r, question: null, note: 'the extension restarted; the evening goes on' }));
        this.#spawnModel(s, true);
        continue;
      }
      if (s.question) {
        // The press the owner was asked about never happened (it waits for the answer): nothing to undo.
        await this.#update(s.id, (r) => ({ ...r, question: null, note: 'the extension restarted; press that control again' }));
      }
    }
  }

  async #open(s: SessionRecord): Promise<Live> {
    const have = this.#live.get(s.id);
    if (have) return have;
    const secrets = await this.d.vault.get(s.id);
    const inputs: EveningInput[] = [];
    for (const i of s.inputs) {
      const value = i.secret ? secrets?.[i.name] : i.value;
      if (value === undefined) throw Object.assign(new Error(`the value of the secret "${i.name}" is gone (the browser was closed); start a new session`), { code: 'SECRET_GONE' });
      inputs.push({ name: i.name, value, secret: i.secret });
    }
    const masker = new Masker(inputs.filter((i) => i.secret).map((i) => ({ name: i.name, value: i.value })));
    const inner = new ExtensionSurface(this.d.tab(s.tabId));
    inner.recording = s.mode === 'record';
    // The labels already in the book (a restarted worker), for the panel's view of the live screen.
    const known: KnownScreen[] = (await this.d.store.lines(s.id)).flatMap((l) =>
      l.kind === 'label' ? [{ label: l.label, signature: l.screen.signature, paths: l.screen.paths }] : [],
    );
    const book = new SessionBook(this.d.store, s.id, (l) => {
      if (l.kind === 'label') known.push({ label: l.label, signature: l.screen.signature, paths: l.screen.paths });
      this.d.changed(s.id);
      return Promise.resolve();
    });
    const surface = new HaltableSurface(inner, (obs) => this.#seen(live, obs));
    const live: Live = { session: s.id, inputs, masker, surface, book, known, guard: null, lastSignature: null };
    this.#live.set(s.id, live);
    return live;
  }

  /** Keeps the panel's view of the live screen (label and masked menu) current, writing only when it changed. */
  async #seen(live: Live, obs: Observation): Promise<void> {
    const menu = buildMenu(obs).map((r) => live.masker.mask(renderRow(r)));
    const label = nameScreen(obs, live.known)?.label ?? null;
    const key = `${obs.signature}|${label ?? ''}|${menu.join('\n')}`;
    if (key === live.lastSignature) return;
    live.lastSignature = key;
    await this.#update(live.session, (r) => ({ ...r, view: { url: live.masker.mask(obs.url), signature: obs.signature, label, menu } }));
  }

  #owner(session: string): Owner {
    return {
      ask: async (q: OwnerQuestion): Promise<OwnerAnswer> => {
        const id = this.d.newId();
        const answer = new Promise<OwnerAnswer>((resolve, reject) => this.#questions.set(id, { resolve, reject }));
        await this.#update(session, (r) => ({ ...r, question: { id, control: q.control, screen: q.screen, goal: q.goal } }));
        const release = this.d.keepAlive();
        try {
          return await answer;
        } finally {
          release();
          this.#questions.delete(id);
        }
      },
    };
  }

  /** A record-mode guard; after a restart it goes on from the book (numbering, labels, finished). */
  async #guard(live: Live, s: SessionRecord): Promise<Guard> {
    if (live.guard) return live.guard;
    live.guard = new Guard({
      surface: live.surface,
      owner: this.#owner(s.id),
      book: live.book,
      masker: live.masker,
      goal: s.goal,
      inputs: live.inputs,
      actor: 'human',
      resume: await this.d.store.lines(s.id),
      dispatching: async (d) => {
        const lines = await this.d.store.countLines(s.id);
        await this.d.store.updateSession(s.id, (r) => ({ ...r, dispatched: { ...d, lines } }));
      },
      selectorsFor: (ref) => live.surface.inner.selectorsFor(ref),
      ...(this.d.now ? { now: this.d.now } : {}),
    });
    return live.guard;
  }

  async start(cmd: StartCommand): Promise<CommandReply> {
    const busy = (await this.d.store.listSessions()).find((s) => s.tabId === cmd.tabId && s.state === 'running');
    if (busy) return fail('ALREADY_RUNNING', 'a session is already running on this tab; stop it first');
    const entry = await this.d.tabUrl(cmd.tabId);
    if (!/^https?:\/\//.test(entry)) return fail('NOT_A_WEB_PAGE', `Handrail records web pages (http or https), not ${entry || 'this tab'}`);
    const id = this.d.newId();
    const names = new Set<string>();
    for (const i of cmd.inputs) {
      if (names.has(i.name)) return fail('BAD_INPUTS', `the input "${i.name}" is named twice`);
      names.add(i.name);
    }
    const now = new Date().toISOString();
    await this.d.vault.put(id, Object.fromEntries(cmd.inputs.filter((i) => i.secret).map((i) => [i.name, i.value])));
    const record: SessionRecord = {
      id,
      tabId: cmd.tabId,
      mode: cmd.mode,
      goal: cmd.goal,
      entry,
      owner: cmd.owner,
      inputs: cmd.inputs.map((i) => (i.secret ? { name: i.name, secret: true } : { name: i.name, secret: false, value: i.value })),
      state: 'running',
      created: now,
      updated: now,
      question: null,
      view: null,
      note: null,
      events: [],
    };
    await this.d.store.putSession(record);
    this.d.changed(id);
    if (cmd.mode === 'record') await this.d.agents?.register(entry).catch(() => undefined);
    if (cmd.mode === 'model') {
      this.#spawnModel(record, false);
      return { ok: true, session: id };
    }
    return this.#queue(id, async () => {
      const live = await this.#open(record);
      const guard = await this.#guard(live, record);
      await guard.write({
        kind: 'start',
        schema: TRACE_SCHEMA_ID,
        goal: record.goal,
        entry,
        inputs: record.inputs.map((i) => (i.secret ? { name: i.name, secret: true } : { name: i.name, secret: false, value: i.value ?? '' })),
        walker: WALKER_VERSION,
        author: { kind: 'human' },
      });
      await guard.show();
      return { ok: true as const, session: id };
    });
  }

  #spawnModel(s: SessionRecord, resume: boolean): void {
    this.#runModel(s, resume).catch(async (e: unknown) => {
      const code = (e as { code?: string }).code ?? 'MODEL_FAILED';
      await this.#end(s.id, 'failed', code, e instanceof Error ? e.message : String(e)).catch(() => undefined);
    });
  }

  /**
   * A model evening, new or resumed. After each model answer and each call the evening's place (turns taken,
   * the model's conversation, this turn's calls and answers) is kept in the session record, secrets masked; a
   * worker started after a stop hands it back with the book to resumeEvening.
   */
  async #runModel(s: SessionRecord, resume: boolean): Promise<void> {
    const saved = resume ? (s.evening ?? null) : null;
    let model: Model;
    try {
      model = await this.d.model(saved?.model ?? undefined);
    } catch (e) {
      if (resume) throw e;
      await this.#update(s.id, (r) => ({ ...r, state: 'failed', note: (e as Error).message }));
      return;
    }
    if (!resume) await this.#update(s.id, (r) => ({ ...r, model: model.name }));
    const live = await this.#open(s);
    const release = this.d.keepAlive();
    try {
      const o: EveningOptions = {
        surface: live.surface,
        model,
        owner: this.#owner(s.id),
        book: live.book,
        goal: s.goal,
        entry: s.entry,
        inputs: live.inputs,
        selectorsFor: (ref) => live.surface.inner.selectorsFor(ref),
        progress: (line) => {
          this.#update(s.id, (r) => ({ ...r, note: line })).catch(() => undefined);
        },
        checkpoint: async (state) => {
          await this.d.store.updateSession(s.id, (r) => ({ ...r, evening: live.masker.maskDeep(state) }));
        },
        ...(this.d.now ? { now: this.d.now } : {}),
      };
      const result: EveningResult = resume ? await resumeEvening(o, { lines: await this.d.store.lines(s.id), state: saved }) : await runEvening(o);
      const state = result.ok ? 'finished' : live.surface.halted ? 'stopped' : 'failed';
      await this.#close(s.id, state, result.ok ? `finished on ${result.finished}` : `${result.code}: ${result.message}`);
    } finally {
      release();
    }
  }

  /** Ends a session whose book is already closed (runEvening wrote its own end line). */
  async #close(id: string, state: SessionRecord['state'], note: string): Promise<void> {
    const live = this.#live.get(id);
    this.#live.delete(id);
    await this.d.vault.drop(id);
    await this.#update(id, (r) => {
      // The evening's place is of no use once its book is closed.
      const { evening: _done, ...rest } = r;
      return { ...rest, state, question: null, note: live ? live.masker.mask(note) : note };
    });
    const recording = (await this.d.store.listSessions()).some((s) => s.state === 'running' && s.mode === 'record');
    if (!recording) await this.d.agents?.unregister().catch(() => undefined);
  }

  /** Is a record session running on this tab (a new document's agent asks when it starts)? */
  async recording(tabId: number): Promise<boolean> {
    return (await this.d.store.listSessions()).some((s) => s.tabId === tabId && s.state === 'running' && s.mode === 'record');
  }

  /** Ends a session and closes its book with an `end` line. */
  async #end(id: string, state: 'failed' | 'stopped' | 'finished', code: string | null, message: string): Promise<void> {
    const live = this.#live.get(id);
    const masked = live ? live.masker.mask(message) : message;
    const n = await this.d.store.countLines(id);
    const lines = await this.d.store.lines(id);
    if (lines.at(-1)?.kind !== 'end') {
      const end = TraceLine.parse({
        seq: n + 1,
        at: (this.d.now?.() ?? new Date()).toISOString(),
        kind: 'end',
        outcome: state === 'finished' ? 'finished' : 'failed',
        ...(code ? { code, message: masked } : {}),
      });
      await this.d.store.appendLine(id, end);
    }
    this.#dropQuestions();
    await this.#close(id, state, code ? `${code}: ${masked}` : masked);
  }

  /** A waiting owner question ends the guard's call with OwnerError: the press it was about never happens. */
  #dropQuestions(): void {
    for (const q of this.#questions.values()) q.reject(new OwnerError('the session ended before the owner answered'));
    this.#questions.clear();
  }

  /** A command from the side panel. */
  async command(cmd: PanelCommand): Promise<CommandReply> {
    switch (cmd.type) {
      case 'ping':
        return { ok: true };
      case 'start':
        return this.start(cmd);
      case 'answer': {
        const q = this.#questions.get(cmd.question);
        if (!q) return fail('NO_QUESTION', 'that question is no longer waiting (the extension restarted); do the step again');
        await this.#update(cmd.session, (r) => ({ ...r, question: null }));
        q.resolve({ answer: cmd.answer, name: cmd.owner });
        return { ok: true };
      }
      case 'stop': {
        const s = await this.d.store.getSession(cmd.session);
        if (!s) return fail('NO_SESSION', 'no such session');
        if (s.state !== 'running') return { ok: true };
        const live = this.#live.get(cmd.session);
        if (s.mode === 'model' && live) {
          // The evening owns its book: halting the surface makes it write its own end line and stop.
          live.surface.halted = true;
          this.#dropQuestions();
          return { ok: true };
        }
        await this.#end(cmd.session, 'stopped', 'STOPPED', 'the clerk stopped the session');
        return { ok: true };
      }
      case 'label':
      case 'finish':
        return this.#queue(cmd.session, () => this.#recordTool(cmd));
    }
  }

  async #recording(id: string): Promise<{ s: SessionRecord; live: Live; guard: Guard } | CommandReply> {
    const s = await this.d.store.getSession(id);
    if (!s) return fail('NO_SESSION', 'no such session');
    if (s.state !== 'running') return fail('NOT_RUNNING', `the session is ${s.state}`);
    if (s.mode !== 'record') return fail('NOT_RECORDING', 'in model mode the model labels screens and finishes');
    try {
      const live = await this.#open(s);
      return { s, live, guard: await this.#guard(live, s) };
    } catch (e) {
      const code = (e as { code?: string }).code ?? 'SURFACE_FAILED';
      return fail(code, (e as Error).message);
    }
  }

  async #recordTool(cmd: Extract<PanelCommand, { type: 'label' | 'finish' }>): Promise<CommandReply> {
    const got = await this.#recording(cmd.session);
    if ('ok' in got) return got;
    const { live, guard } = got;
    await guard.show();
    const input = cmd.type === 'label' ? { label: cmd.label, ...(cmd.title ? { title: cmd.title } : {}) } : { label: cmd.label };
    const out = await guard.handle({ id: this.d.newId(), name: cmd.type === 'label' ? 'assert_screen' : 'finish', input });
    const note = live.masker.mask(out.text);
    if (guard.finished) {
      await this.#end(cmd.session, 'finished', null, `finished on ${guard.finished}`);
      return { ok: true, text: note };
    }
    live.lastSignature = null;
    await guard.show();
    await this.#update(cmd.session, (r) => ({ ...r, note }));
    return out.ok ? { ok: true, text: note } : fail('REFUSED', note);
  }

  /** The clerk touched a control in the recorded tab (record mode): the same guard writes the same book line. */
  async clerkAct(msg: ClerkAct, tabId: number): Promise<void> {
    const all = await this.d.store.listSessions();
    const s = all.find((x) => x.tabId === tabId && x.state === 'running' && x.mode === 'record');
    if (!s) return;
    await this.#queue(s.id, async () => {
      const fresh = await this.d.store.getSession(s.id);
      if (!fresh || fresh.state !== 'running' || fresh.events.includes(msg.event)) return;
      const got = await this.#recording(s.id);
      if ('ok' in got) {
        await this.#update(s.id, (r) => ({ ...r, note: got.ok ? null : got.message }));
        return;
      }
      const { live, guard } = got;
      const shown = await guard.show();
      const was = fresh.dispatched;
      if (was?.call === msg.event) {
        // The last worker was doing this very action when it stopped, and the content script sent it again.
        const recovery = (await this.d.store.countLines(s.id)) > was.lines ? 'written' : await guard.recover(was);
        if (recovery !== 'redo') {
          const note =
            recovery === 'written'
              ? 'the extension restarted during that action; it had happened and is in the book'
              : 'the extension restarted during that press and cannot tell whether it happened: check the application, and press again only if it did not';
          live.lastSignature = null;
          await guard.show();
          await this.#update(s.id, (r) => ({ ...settled(r), note, events: [...r.events, msg.event].slice(-200) }));
          return;
        }
      }
      const ref = formatRef(msg.frame, msg.ref);
      const row = shown.menu.find((r) => r.control.ref === ref && r.verb === msg.verb);
      if (!row) {
        await this.#update(s.id, (r) => ({ ...r, note: 'that control is not on the menu (disabled, or not a control); nothing recorded' }));
        return;
      }
      const value = valueForGuard(msg, live.inputs);
      const out = await guard.handle({ id: msg.event, name: 'act', input: { row: row.n, verb: msg.verb, ...(value !== undefined ? { value } : {}) } });
      live.lastSignature = null;
      await guard.show();
      await this.#update(s.id, (r) => ({ ...settled(r), note: live.masker.mask(out.text), events: [...r.events, msg.event].slice(-200) }));
    });
  }

  /** Whether this id is a live question (tests and the panel's refresh use it). */
  asking(question: string): boolean {
    return this.#questions.has(question);
  }
}
