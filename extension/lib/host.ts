// The session machine the worker runs (docs/design/authoring.md, "Authoring", hosted in the extension). A session is a record
// in IndexedDB plus, while the worker is alive, a live guard over the clerk's tab. Model mode hands the tab to
// shared/author's runEvening (model-session.ts); record mode sends each of the clerk's own actions through the
// same Guard, resumed from the book (record-session.ts). Any state worth keeping is written before it is acted
// on, so a worker killed between two events comes back, finds the session in IndexedDB and carries on: no book
// line lost, none written twice, and a press under way is never made twice. This file starts, stops and ends
// sessions and routes the panel's commands; the parts named above do the rest.
import { KeyedLock } from '../../shared/lock.ts';
import { lineHash, TRACE_SCHEMA_ID, TraceLine } from '../../shared/schema/trace.ts';
import { editSession } from './edit-session.ts';
import { openLive } from './live-session.ts';
import { trace } from './trace-ring.ts';
import type { ClerkAct, ClerkLost, ClerkUnrecorded, CommandReply, PanelCommand } from './messages.ts';
import { spawnModelSession } from './model-session.ts';
import { OwnerQuestions } from './owner-questions.ts';
import { bookLost, originsOf, recordClerkAct, recordGuard, recordTool, sayNotRecorded, writeScopeOf } from './record-session.ts';
import { fail, type EndState, type HostDeps, type Live, type SessionContext } from './session-context.ts';
import type { SessionRecord } from './store.ts';

export type { HostDeps, SecretVault } from './session-context.ts';

type StartCommand = Extract<PanelCommand, { type: 'start' }>;

const originOf = (url: string): string | null => {
  try {
    const o = new URL(url).origin;
    return o === 'null' ? null : o;
  } catch {
    return null;
  }
};


/** When to look again at a screen that settled unlabelled after a clerk's action (see `Host#lookAgainLater`). */
const LOOK_AGAIN_MS: readonly number[] = [1_000, 2_000, 4_000];

export class Host {
  readonly #live = new Map<string, Live>();
  /** One session's calls one at a time: a clerk's type-then-click arrives and is written in order. */
  readonly #sessions = new KeyedLock();
  /** How many clerk actions each session has had reported in this worker: a later look is for the latest one only. */
  readonly #acts = new Map<string, number>();
  readonly #questions: OwnerQuestions;
  readonly #ctx: SessionContext;

  constructor(private readonly d: HostDeps) {
    this.#ctx = {
      d,
      update: (id, change) => this.#update(id, change),
      open: (s) => this.#open(s),
      owner: (session) => this.#questions.owner(session),
      end: (id, state, code, message) => this.#end(id, state, code, message),
      close: (id, state, note) => this.#close(id, state, note),
    };
    this.#questions = new OwnerQuestions(this.#ctx);
  }

  async #update(id: string, change: (s: SessionRecord) => SessionRecord): Promise<SessionRecord> {
    const s = await this.d.store.updateSession(id, change);
    this.d.changed(id);
    return s;
  }

  async #open(s: SessionRecord): Promise<Live> {
    const have = this.#live.get(s.id);
    if (have) return have;
    const live = await openLive(this.#ctx, s);
    this.#live.set(s.id, live);
    return live;
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
        spawnModelSession(this.#ctx, s, true);
        continue;
      }
      if (s.question) {
        // The press the owner was asked about never happened (it waits for the answer): nothing to undo.
        await this.#update(s.id, (r) => ({ ...r, question: null, note: 'the extension restarted; press that control again' }));
      }
    }
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
      ...(cmd.mode === 'record' ? { origins: [originOf(entry) ?? entry], paused: null } : {}),
    };
    await this.d.store.putSession(record);
    this.d.changed(id);
    await this.#registerAgents();
    if (cmd.mode === 'model') {
      spawnModelSession(this.#ctx, record, false);
      return { ok: true, session: id };
    }
    return this.#sessions.run(id, async () => {
      const live = await this.#open(record);
      const guard = await recordGuard(this.#ctx, live, record);
      await guard.write({
        kind: 'start',
        schema: TRACE_SCHEMA_ID,
        goal: record.goal,
        entry,
        inputs: record.inputs.map((i) => (i.secret ? { name: i.name, secret: true } : { name: i.name, secret: false, value: i.value ?? '' })),
        surface: live.surface.kind,
        walker: live.surface.observer,
        author: { kind: 'human' },
        writes: writeScopeOf(record),
      });
      await guard.show();
      return { ok: true as const, session: id };
    });
  }

  /** Ends a session whose book is already closed (runEvening wrote its own end line). */
  async #close(id: string, state: SessionRecord['state'], note: string): Promise<void> {
    const live = this.#live.get(id);
    this.#live.delete(id);
    // Lets go of the tab's trusted input (Chrome's debugging bar goes away with it).
    await live?.surface.close().catch(() => undefined);
    await this.d.vault.drop(id);
    await this.#update(id, (r) => {
      // The evening's place is of no use once its book is closed.
      const { evening: _done, ...rest } = r;
      return { ...rest, state, question: null, note: live ? live.masker.mask(note) : note };
    });
    await this.#registerAgents();
  }

  /**
   * The agent starts in new documents of every origin a running record session is bound to, and the double-click
   * probe alone in those of a running model session's entry (the model is offered what the page listens for); with
   * none, nowhere.
   */
  async #registerAgents(): Promise<void> {
    const running = (await this.d.store.listSessions()).filter((s) => s.state === 'running');
    const origins = new Set(running.filter((s) => s.mode === 'record').flatMap(originsOf));
    const probed = new Set(running.filter((s) => s.mode === 'model').flatMap((s) => originOf(s.entry) ?? []));
    for (const o of origins) probed.delete(o);
    const done = origins.size || probed.size ? this.d.agents?.register([...origins].sort(), [...probed].sort()) : this.d.agents?.unregister();
    await done?.catch(() => undefined);
  }

  /** The running record session on this tab, if any. */
  async #recordingOn(tabId: number): Promise<SessionRecord | undefined> {
    return (await this.d.store.listSessions()).find((s) => s.tabId === tabId && s.state === 'running' && s.mode === 'record');
  }

  /**
   * Where the tab is, against the origins its session is bound to: recording pauses on any other site (and the
   * panel says so), and goes on when the tab is back. Returns whether the tab is on one of the session's origins.
   */
  async #checkOrigin(s: SessionRecord): Promise<boolean> {
    const url = await this.d.tabUrl(s.tabId).catch(() => '');
    const origin = originOf(url);
    const inside = origin !== null && originsOf(s).includes(origin);
    const paused = inside ? null : (origin ?? 'a site Handrail has no access to');
    if ((s.paused ?? null) !== paused) {
      await this.#update(s.id, (r) => ({
        ...r,
        paused,
        note: paused
          ? `recording paused: this tab is on ${paused}, which this session was not started on; go back to ${originsOf(r).join(' or ')}, or record on this site too`
          : 'back on the session\'s site: recording goes on',
      }));
    }
    return inside;
  }

  /** The tab of a record session started loading a page: is it still on the session's sites? */
  async tabMoved(tabId: number): Promise<void> {
    const s = await this.#recordingOn(tabId);
    if (s) await this.#checkOrigin(s);
  }

  /**
   * The tab of a record session finished loading a document: one the clerk reached without touching a control
   * (an address typed, a bookmark, Back) is looked at now, so the panel shows it — to label, or to go back from —
   * before the clerk acts on it. A document a recorded action led to is looked at again, which changes nothing.
   */
  async tabLoaded(tabId: number): Promise<void> {
    await this.#lookIn(tabId, async (live, now) => void (await (await recordGuard(this.#ctx, live, now)).show()));
  }

  /** `look` in the running record session of `tabId`, on its sites, in the session's turn, unless it asks the owner. */
  async #lookIn(tabId: number, look: (live: Live, now: SessionRecord) => Promise<void>): Promise<void> {
    const s = await this.#recordingOn(tabId);
    if (!s || !(await this.#checkOrigin(s))) return;
    await this.#sessions.run(s.id, async () => {
      const now = await this.d.store.getSession(s.id);
      if (now?.state !== 'running' || now.question) return;
      const live = await this.#open(now);
      live.lastSignature = null;
      trace('a look at the tab begins');
      await look(live, now).finally(() => trace('a look at the tab ended'));
    });
  }

  /**
   * A look for the panel's view only (`#lookAgainLater`): not the guard's, whose last screen is where a clerk's pick
   * in a list they open next starts (`Guard.lastShown`) — a later look that caught their list open would make that
   * unnamed screen the pick's start.
   */
  async #viewAgain(tabId: number, still: () => boolean): Promise<void> {
    // Asked again once the session's turn is taken: a clerk's act queued ahead of this look has made it stale.
    await this.#lookIn(tabId, async (live) => {
      if (still()) await live.surface.observe();
    });
  }

  /** Is a record session running on this tab, on one of its sites (a new document's agent asks when it starts)? */
  async recording(tabId: number): Promise<boolean> {
    const s = await this.#recordingOn(tabId);
    return s ? this.#checkOrigin(s) : false;
  }

  /** Ends a session and closes its book with an `end` line. */
  async #end(id: string, state: EndState, code: string | null, message: string): Promise<void> {
    const live = this.#live.get(id);
    const masked = live ? live.masker.mask(message) : message;
    const n = await this.d.store.countLines(id);
    const lines = await this.d.store.lines(id);
    const last = lines.at(-1);
    if (last?.kind !== 'end') {
      const end = TraceLine.parse({
        seq: n + 1,
        ...(last ? { prev: lineHash(last) } : {}),
        at: (this.d.now?.() ?? new Date()).toISOString(),
        kind: 'end',
        outcome: state === 'finished' ? 'finished' : 'failed',
        ...(code ? { code, message: masked } : {}),
      });
      await this.d.store.appendLine(id, end);
    }
    this.#questions.dropAll();
    await this.#close(id, state, code ? `${code}: ${masked}` : masked);
  }

  /** A command from the side panel. */
  async command(cmd: PanelCommand): Promise<CommandReply> {
    switch (cmd.type) {
      case 'ping':
        return { ok: true };
      case 'start':
        return this.start(cmd);
      case 'answer': {
        if (!this.#questions.has(cmd.question)) return fail('NO_QUESTION', 'that question is no longer waiting (the extension restarted); do the step again');
        await this.#update(cmd.session, (r) => ({ ...r, question: null }));
        this.#questions.answer(cmd.question, { answer: cmd.answer, name: cmd.owner });
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
          live.model?.stop?.();
          this.#questions.dropAll();
          return { ok: true };
        }
        await this.#end(cmd.session, 'stopped', 'STOPPED', 'the clerk stopped the session');
        return { ok: true };
      }
      case 'allow_origin': {
        const s = await this.d.store.getSession(cmd.session);
        if (!s || s.state !== 'running' || s.mode !== 'record') return fail('NOT_RECORDING', 'only a running record session records on more sites');
        const origin = originOf(cmd.origin);
        if (!origin || !/^https?:/.test(origin)) return fail('NOT_A_WEB_PAGE', `Handrail records web pages (http or https), not ${cmd.origin}`);
        await this.#update(s.id, (r) => ({ ...r, origins: [...new Set([...originsOf(r), origin])] }));
        // The guard's watch reads this scope at each request: writes to the added site count from now on.
        const watched = this.#live.get(s.id)?.writes;
        if (watched && !watched.origins.includes(origin)) watched.origins.push(origin);
        await this.#registerAgents();
        const now = await this.d.store.getSession(s.id);
        if (now && (await this.#checkOrigin(now))) {
          // The page showing now started before the site was added, without the recorder: look at it, which puts
          // the recorder in each of its frames.
          await this.#sessions
            .run(s.id, async () => {
              const live = await this.#open(now);
              live.lastSignature = null;
              await (await recordGuard(this.#ctx, live, now)).show();
            })
            .catch(() => undefined);
        }
        return { ok: true };
      }
      case 'label':
      case 'finish':
        return this.#sessions.run(cmd.session, () => recordTool(this.#ctx, cmd));
      case 'edit':
        return this.#sessions.run(cmd.session, async () => {
          const r = await editSession(this.#ctx, cmd);
          if (!r.ok || !this.#live.has(cmd.session)) return r;
          // The guard and the panel's labels were built from the old book: build them again from the edited one.
          this.#live.delete(cmd.session);
          const s = await this.d.store.getSession(cmd.session);
          if (s?.state === 'running') {
            const live = await this.#open(s);
            await (await recordGuard(this.#ctx, live, s)).show();
          }
          return r;
        });
    }
  }

  /** The clerk touched a control in the recorded tab (record mode): the same guard writes the same book line. */
  async clerkAct(msg: ClerkAct, tabId: number): Promise<void> {
    const s = await this.#recordingOn(tabId);
    // Nothing done on a site the session is not bound to is recorded (the panel shows the session paused).
    if (!s || !(await this.#checkOrigin(s))) {
      trace(`clerk_act ${msg.event.slice(0, 8)} dropped: ${s ? 'off the session\'s sites' : 'no record session on the tab'}`);
      return;
    }
    const turn = (this.#acts.get(s.id) ?? 0) + 1;
    this.#acts.set(s.id, turn);
    trace(`clerk_act ${msg.event.slice(0, 8)} waits for the session's turn`);
    await this.#sessions.run(s.id, async () => {
      trace(`clerk_act ${msg.event.slice(0, 8)} recording`);
      try {
        await recordClerkAct(this.#ctx, s.id, msg);
        trace(`clerk_act ${msg.event.slice(0, 8)} recorded`);
      } catch (e) {
        trace(`clerk_act ${msg.event.slice(0, 8)} failed: ${(e as { code?: string }).code ?? (e as Error).name}`);
        await sayNotRecorded(this.#ctx, s.id, msg, e, this.#live.get(s.id)?.masker).catch(() => undefined);
        throw e;
      }
    });
    this.#lookAgainLater(tabId, s.id, turn);
  }

  /**
   * The screen an action settled on, looked at again a little later while it shows unlabelled (`lookAgainMs`), until
   * a look shows it labelled or the clerk acts again. A list's closing can leave the settled look on a screen gone a
   * moment later: MUI keeps the page `aria-hidden` through its exit transition, and the look saw nothing but the
   * closing list. Not looked at again, the panel showed that screen — Finish disabled, and a label offered for a
   * screen that no longer exists (docs/design/extension.md, "The extension's trusted input").
   */
  #lookAgainLater(tabId: number, id: string, turn: number): void {
    const waits = this.d.lookAgainMs ?? LOOK_AGAIN_MS;
    if (waits.length === 0) return;
    const release = this.d.keepAlive();
    void (async () => {
      try {
        const start = Date.now();
        for (const ms of waits) {
          const s = await this.d.store.getSession(id);
          if (s?.state !== 'running' || s.view?.label || this.#acts.get(id) !== turn) return;
          await new Promise((r) => setTimeout(r, Math.max(0, start + ms - Date.now())));
          if (this.#acts.get(id) !== turn) return;
          await this.#viewAgain(tabId, () => this.#acts.get(id) === turn);
        }
      } catch {
        // A look that fails (the tab closed, the session ended) is the next action's to make.
      } finally {
        release();
      }
    })();
  }

  /** The frame reported something the clerk did that this worker cannot read (`field`: where): not recorded, and said. */
  async clerkUnreadable(tabId: number, field: string): Promise<void> {
    const s = await this.#recordingOn(tabId);
    if (!s || !(await this.#checkOrigin(s))) return;
    const note = `your last action could not be read by the extension (${field} is not as expected) and was not recorded; do it again, and if this repeats, reload the page`;
    await this.#sessions.run(s.id, () => this.#ctx.update(s.id, (r) => (r.state === 'running' ? { ...r, note } : r)));
  }

  /**
   * The frame caught an action of the clerk's and could not report it (the document was left with it still to send,
   * no worker answered as it started, its control was gone): a `lost` line in the book, a hole the compiler refuses,
   * and the panel says which. `from` is the sending document's address: a document being left may have handed the tab
   * to another site already, so the session's sites are checked against the document's, not the tab's.
   */
  async clerkLost(msg: ClerkLost, tabId: number, from: string): Promise<void> {
    const s = await this.#recordingOn(tabId);
    const origin = originOf(from);
    if (!s || origin === null || !originsOf(s).includes(origin)) {
      trace(`clerk_lost ${msg.event.slice(0, 8)} dropped: ${s ? 'off the session\'s sites' : 'no record session on the tab'}`);
      return;
    }
    trace(`clerk_lost ${msg.verb} ${msg.event.slice(0, 8)} (${msg.why})`);
    await this.#sessions.run(s.id, () => bookLost(this.#ctx, s.id, msg.event, msg));
  }

  /** The frame held something the clerk did and could not report it: the panel says it was not recorded. */
  async clerkUnrecorded(msg: ClerkUnrecorded, tabId: number): Promise<void> {
    const s = await this.#recordingOn(tabId);
    if (!s || !(await this.#checkOrigin(s))) return;
    // The item's name is the page's and may hold a secret's value: the note is kept, so it is masked as every line is.
    const live = this.#live.get(s.id);
    const note = live ? live.masker.mask(msg.message) : msg.message;
    await this.#sessions.run(s.id, async () => {
      await this.#ctx.update(s.id, (r) => (r.events.includes(msg.event) ? r : { ...r, note, events: [...r.events, msg.event].slice(-200) }));
    });
  }

  /** Whether this id is a live question (tests and the panel's refresh use it). */
  asking(question: string): boolean {
    return this.#questions.has(question);
  }
}
