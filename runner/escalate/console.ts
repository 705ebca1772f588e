// The person (rung 3): a console on 127.0.0.1 where someone sees what the run sees — the screenshot, the screen's
// words, the screens the run hoped for and the numbered menu — and acts through that same menu, each action
// guarded by the authoring guard (shared/author/guard.ts) and recorded with actor = human and their name. They hand
// back naming a screen, or abort. What they say is a proposal like any rung's: the engine checks the handback
// against the page (docs/design/escalation.md, "The escalation ladder").
//
// Security: the server listens on 127.0.0.1 only, on a random port, and answers only requests that carry the
// one-time token (in the URL printed on stderr, or the form field of the page it served) and a Host header naming
// that address — anything else is 403, so another page in the person's browser cannot drive it (DNS rebinding). The
// token lives for one climb: the server closes when the person hands back, aborts or times out. The token is never
// written to the evidence; the person's name and actions are.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { Guard } from '../../shared/author/guard.ts';
import type { EveningInput, Owner, OwnerAnswer, OwnerQuestion } from '../../shared/author/ports.ts';
import { Lock } from '../../shared/lock.ts';
import { renderRow, type MenuRow } from '../../shared/menu.ts';
import { takesValue } from '../../shared/operations.ts';
import { EffectKind } from '../../shared/schema/capability.ts';
import { Baton } from '../../shared/schema/result.ts';
import type { TraceLine } from '../../shared/schema/trace.ts';
import { screenWords } from '../../shared/screens.ts';
import type { Masker } from '../../shared/secrets.ts';
import { ruledEffect } from '../../shared/surfaces.ts';
import type { Surface } from '../../shared/surface.ts';
import { esc } from '../report.ts';
import type { ScreenOption } from './referee.ts';

export const DEFAULT_CONSOLE_TIMEOUT_MS = 10 * 60_000;
const BODY_MAX = 64 * 1024;
const NAME_MAX = 80;

/** One action the person did (or tried) through the menu, as the evidence and a repair proposal record it. */
export interface HumanStep {
  actor: 'human';
  by: string;
  row: number;
  verb: string;
  /** The menu row as it read (masked). */
  control: string;
  /** The sticker the guard gave it; null when the guard refused the action. */
  effect: EffectKind | null;
  /** Signatures of the page before and after (equal when nothing moved). */
  before: string;
  after: string;
  /** The guard's answer (masked): "done: …" or "refused (CODE): …". */
  said: string;
}

export interface PersonQuestion {
  step: string;
  /** The screens the run hoped for: what a handback may name. */
  options: readonly ScreenOption[];
  /** A commit was dispatched and its outcome is not seen: the person may look and navigate, nothing that changes data. */
  commitInFlight: boolean;
  surface: Surface;
  masker: Masker;
  goal: string;
  inputs: readonly EveningInput[];
  /** Appends one evidence line to the run's log (the engine's). */
  record(kind: string, data: Record<string, unknown>): Promise<void>;
  /**
   * The run's cancellation (SIGTERM/SIGINT in the CLI, the server stopping): when it fires the climb ends at once —
   * answered `stopped`, nothing more pressed, the console closed.
   */
  signal?: AbortSignal;
  /**
   * Runs one of the person's acts with every write to the app stopped (the engine's write window): given while a
   * commit is in flight, so nothing the person does can send a write that would pass for the commit's own.
   */
  refusingWrites?<T>(act: () => Promise<T>): Promise<T>;
}

export type PersonAnswer =
  | { kind: 'handback'; label: string; by: string; steps: HumanStep[] }
  | { kind: 'abort'; by: string; reason: string; steps: HumanStep[] }
  | { kind: 'timeout'; afterMs: number; steps: HumanStep[] }
  /** The run was told to stop (a signal, the server shutting down) while the person was asked. */
  | { kind: 'stopped'; reason: string; steps: HumanStep[] };

/** Why a signal fired, in words for the evidence: its reason when it is one (`SIGTERM`), else a plain phrase. */
export function stopReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'the caller cancelled';
}

/** The person port the engine is handed: one question per climb, answered when someone hands back, aborts or is late. */
export interface Person {
  readonly name: string;
  ask(q: PersonQuestion): Promise<PersonAnswer>;
}

export interface ConsoleOptions {
  /** Where the one-time URL goes (stderr in the CLI). Never the evidence. */
  announce: (url: string) => void;
  /** How long nobody may answer before the climb goes on without a person (default 10 minutes, from the last request). */
  timeoutMs?: number;
}

/** `--console`: a person rung served over HTTP on 127.0.0.1. */
export class ConsolePerson implements Person {
  readonly name = 'console';
  constructor(private readonly opts: ConsoleOptions) {}

  ask(q: PersonQuestion): Promise<PersonAnswer> {
    return new ConsoleSession(q, this.opts).run();
  }
}

const Form = z.record(z.string(), z.string());

/** What a person may do while a commit is in flight: follow a link, or do what reads (hover to reveal, read). */
function followsOnly(row: MenuRow): boolean {
  if (row.verb === 'invoke') return row.control.role === 'link';
  return row.verb === 'hover' || row.verb === 'read' || row.verb === 'read_rows';
}

class ConsoleSession implements Owner {
  readonly #q: PersonQuestion;
  readonly #opts: ConsoleOptions;
  readonly #token = randomBytes(24).toString('base64url');
  readonly #lock = new Lock();
  readonly #steps: HumanStep[] = [];
  readonly #book: TraceLine[] = [];
  readonly #guard: Guard;
  #host = '';
  #said = 'The run is paused on a page the card does not know. Look, act through the menu if you must, then hand back naming the screen it is (or abort).';
  #lastName = '';
  /** The sticker the person declared for the press being made (the guard asks its owner about unruled buttons). */
  #declared: EffectKind | null = null;
  #calls = 0;
  #pages = 0;
  #controlled = false;
  /** Set once the climb is answered: no request acts after it (a press racing a signal is refused). */
  #ended = false;

  constructor(q: PersonQuestion, opts: ConsoleOptions) {
    this.#q = q;
    this.#opts = opts;
    this.#guard = new Guard({
      surface: q.surface,
      owner: this,
      book: { append: (line) => Promise.resolve(void this.#book.push(line)) },
      masker: q.masker,
      goal: q.goal,
      inputs: q.inputs,
      actor: 'human',
    });
  }

  /** The guard's owner question, answered from what the person declared with the press — never a commit. */
  ask(_q: OwnerQuestion): Promise<OwnerAnswer> {
    const d = this.#declared;
    const allowed = d !== null && d !== 'commit' && (!this.#q.commitInFlight || d === 'navigate' || d === 'read');
    return Promise.resolve(allowed ? { answer: d as Exclude<EffectKind, 'read'>, name: this.#lastName } : { answer: 'cancel', name: this.#lastName });
  }

  async run(): Promise<PersonAnswer> {
    await this.#guard.show();
    const began = Date.now();
    const signal = this.#q.signal;
    if (signal?.aborted) return { kind: 'stopped', reason: stopReason(signal), steps: this.#steps };
    let resolveAnswer: (a: PersonAnswer) => void = () => undefined;
    const answered = new Promise<PersonAnswer>((resolve) => (resolveAnswer = resolve));
    const finish = (a: PersonAnswer): void => {
      this.#ended = true;
      resolveAnswer(a);
    };
    const onStop = (): void => finish({ kind: 'stopped', reason: stopReason(signal as AbortSignal), steps: this.#steps });
    signal?.addEventListener('abort', onStop, { once: true });
    const ms = this.#opts.timeoutMs ?? DEFAULT_CONSOLE_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => finish({ kind: 'timeout', afterMs: Date.now() - began, steps: this.#steps }), ms);
    };
    const server = createServer((req, res) => {
      this.#lock
        .run(() => this.#serve(req, res, finish, arm))
        .catch((e: unknown) => {
          if (!res.headersSent) this.#reply(res, 500, 'text/plain', `the console failed: ${this.#q.masker.mask(e instanceof Error ? e.message : String(e)).split('\n')[0] ?? ''}`);
        });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    this.#host = `127.0.0.1:${port}`;
    arm();
    this.#opts.announce(`http://${this.#host}/?t=${this.#token}`);
    try {
      return await answered;
    } finally {
      signal?.removeEventListener('abort', onStop);
      clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  #reply(res: ServerResponse, status: number, type: string, body: string | Uint8Array, extra: Record<string, string> = {}): void {
    res.writeHead(status, {
      'content-type': type,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'content-security-policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      ...extra,
    });
    res.end(body);
  }

  #tokenOk(given: string | undefined): boolean {
    if (!given) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(this.#token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  async #serve(req: IncomingMessage, res: ServerResponse, finish: (a: PersonAnswer) => void, arm: () => void): Promise<void> {
    const url = new URL(req.url ?? '/', `http://${this.#host}`);
    const form = req.method === 'POST' ? await readForm(req) : null;
    // Only this address, and only with the one-time token: a page elsewhere in the browser cannot drive the console.
    if (req.headers.host !== this.#host || !this.#tokenOk(form?.['t'] ?? url.searchParams.get('t') ?? undefined)) {
      return this.#reply(res, 403, 'text/plain', 'forbidden: open the one-time link the run printed on stderr');
    }
    if (form === undefined) return this.#reply(res, 413, 'text/plain', 'the request body is too large or not a form');
    if (this.#ended) return this.#reply(res, 409, 'text/plain', 'the climb has ended: the run took its page back');
    // Any request with the token is someone at the console: the timeout counts from the last one.
    arm();
    const json = (req.headers.accept ?? '').includes('application/json');
    if (req.method === 'GET' && url.pathname === '/') return this.#reply(res, 200, 'text/html; charset=utf-8', await this.#page());
    if (req.method === 'GET' && url.pathname === '/state.json') return this.#reply(res, 200, 'application/json', JSON.stringify(await this.#state()));
    if (req.method === 'GET' && url.pathname === '/shot.png') return this.#reply(res, 200, 'image/png', await this.#q.surface.evidence('screenshot'));
    if (req.method !== 'POST' || !form) return this.#reply(res, 405, 'text/plain', 'use the page: GET /, POST /act, /handback or /abort');
    const name = (form['name'] ?? '').trim();
    if (!name || name.length > NAME_MAX) return this.#answer(res, json, 400, false, `say who you are (your name, at most ${NAME_MAX} characters): the evidence records who acted`);
    this.#lastName = name;
    if (url.pathname === '/act') {
      const said = await this.#act(name, form);
      return this.#answer(res, json, said.ok ? 200 : 409, said.ok, said.text);
    }
    if (url.pathname === '/handback') {
      const label = form['label'] ?? '';
      if (!this.#q.options.some((o) => o.label === label)) return this.#answer(res, json, 400, false, `hand back naming one of the expected screens: ${this.#q.options.map((o) => o.label).join(', ')}`);
      finish({ kind: 'handback', label, by: name, steps: this.#steps });
      return this.#answer(res, json, 200, true, `handed back as ${label}; the run checks it against the page and goes on`, true);
    }
    if (url.pathname === '/abort') {
      finish({ kind: 'abort', by: name, reason: this.#q.masker.mask((form['reason'] ?? '').slice(0, 200)), steps: this.#steps });
      return this.#answer(res, json, 200, true, 'the run was aborted', true);
    }
    return this.#reply(res, 404, 'text/plain', 'no such page');
  }

  /** JSON for a script, a page (or a redirect back to it) for a person. */
  async #answer(res: ServerResponse, json: boolean, status: number, ok: boolean, text: string, done = false): Promise<void> {
    this.#said = text;
    if (json) return this.#reply(res, status, 'application/json', JSON.stringify({ ok, text }));
    if (done) return this.#reply(res, status, 'text/html; charset=utf-8', shell('Handrail — handed over', `<p role="status">${esc(text)}</p><p>You may close this page.</p>`));
    return this.#reply(res, status, 'text/html; charset=utf-8', await this.#page());
  }

  /** One press through the guard: the same checks as authoring, the person's word about what it does, never a commit. */
  async #act(name: string, form: Record<string, string>): Promise<{ ok: boolean; text: string }> {
    const shown = await this.#guard.show();
    const n = Number(form['row']);
    const row = shown.menu.find((r) => r.n === n);
    if (!row) return { ok: false, text: `there is no row ${form['row'] ?? ''} on the menu now` };
    const ruled = ruledEffect(this.#q.surface.kind, row.verb, row.control.role);
    const declared = EffectKind.safeParse(form['effect'] ?? '');
    this.#declared = ruled ?? (declared.success ? declared.data : null);
    const mask = (s: string): string => this.#q.masker.mask(s);
    const refuse = async (why: string): Promise<{ ok: false; text: string }> => {
      await this.#record(name, row, null, shown.obs.signature, shown.obs.signature, `refused: ${why}`);
      return { ok: false, text: `refused: ${why}` };
    };
    if (this.#declared === 'commit') return refuse(`${mask(renderRow(row))} commits: a person does not commit through the console (the card's commit stays journalled by the run)`);
    if (this.#q.commitInFlight && this.#declared !== null && this.#declared !== 'navigate' && this.#declared !== 'read') {
      return refuse('a commit is in flight: only look and follow what navigates');
    }
    // With a commit in flight the page says "look and follow links": that is what is allowed, whatever a press is
    // declared to do. A button or a key may submit a form (the commit's own button shown again, "Try again"), and its
    // write would pass for the commit's own in the engine's window (docs/design/escalation.md, "The escalation ladder", "A person on the ladder").
    if (this.#q.commitInFlight && !followsOnly(row)) {
      return refuse(`a commit is in flight: only links are followed and pages looked at, not ${mask(renderRow(row))}`);
    }
    if (this.#declared === null) return refuse(`say what pressing ${mask(renderRow(row))} does (navigate, stage): the guard asks before a press nobody classified`);
    // The guard refuses an act on a screen nobody named; the person's pages get neutral labels in the book.
    if (shown.label === null) await this.#guard.handle({ id: `console-${++this.#calls}`, name: 'assert_screen', input: { label: `person_page_${++this.#pages}` } });
    const value = form['value'];
    const input = takesValue(row.verb) ? { row: n, verb: row.verb, value: value ?? '' } : { row: n, verb: row.verb };
    const before = this.#book.length;
    const press = (): ReturnType<Guard['handle']> => this.#guard.handle({ id: `console-${++this.#calls}`, name: 'act', input });
    // Told to stop while this request was on its way (a signal between the look and the press): nothing is pressed.
    if (this.#ended) return refuse('the run was told to stop: nothing more is pressed');
    const outcome = this.#q.commitInFlight && this.#q.refusingWrites ? await this.#q.refusingWrites(press) : await press();
    const act = this.#book.slice(before).find((l) => l.kind === 'act');
    const after = await this.#guard.show();
    if (!this.#controlled && act) {
      this.#controlled = true;
      await this.#q.record('baton', { step: this.#q.step, from: Baton.enum.PAUSED, to: Baton.enum.HUMAN_CONTROL, by: name });
    }
    await this.#record(name, row, act?.kind === 'act' ? act.effect.kind : null, shown.obs.signature, after.obs.signature, outcome.text);
    return { ok: outcome.ok, text: mask(outcome.text) };
  }

  async #record(by: string, row: MenuRow, effect: EffectKind | null, before: string, after: string, said: string): Promise<void> {
    const mask = (s: string): string => this.#q.masker.mask(s);
    const step: HumanStep = { actor: 'human', by, row: row.n, verb: row.verb, control: mask(renderRow(row)), effect, before, after, said: mask(said) };
    this.#steps.push(step);
    await this.#q.record('human_step', { step: this.#q.step, ...step });
  }

  async #state(): Promise<Record<string, unknown>> {
    const shown = await this.#guard.show();
    const mask = (s: string): string => this.#q.masker.mask(s);
    return {
      step: this.#q.step,
      commit_in_flight: this.#q.commitInFlight,
      said: this.#said,
      text: mask(screenWords(shown.obs)),
      expected: this.#q.options.map((o) => ({ label: o.label, title: o.title })),
      menu: shown.menu.map((r) => ({ n: r.n, verb: r.verb, text: mask(renderRow(r)), value: takesValue(r.verb), asks: ruledEffect(this.#q.surface.kind, r.verb, r.control.role) === null })),
      steps: this.#steps,
    };
  }

  async #page(): Promise<string> {
    const s = await this.#state();
    const t = `<input type="hidden" name="t" value="${esc(this.#token)}">`;
    const name = `<p><label for="%id">Your name</label> <input id="%id" name="name" required maxlength="${NAME_MAX}" autocomplete="name" value="${esc(this.#lastName)}"></p>`;
    const menu = (s['menu'] as { n: number; text: string; value: boolean; asks: boolean }[])
      .map((r, i) => `<li><input type="radio" name="row" id="row-${r.n}" value="${r.n}"${i === 0 ? ' required' : ''}> <label for="row-${r.n}">${esc(r.text)}${r.value ? ' (takes a value)' : ''}${r.asks ? ' (say what it does)' : ''}</label></li>`)
      .join('\n');
    const options = this.#q.options.map((o) => `<option value="${esc(o.label)}">${esc(o.title)} (${esc(o.label)})</option>`).join('');
    const effects = (this.#q.commitInFlight ? ['navigate'] : ['navigate', 'stage']).map((e) => `<option value="${e}">${e}</option>`).join('');
    return shell(
      'Handrail — a run needs a person',
      `<h1>Run paused at step ${esc(this.#q.step)}</h1>
<p role="status">${esc(s['said'])}</p>
${this.#q.commitInFlight ? '<p><strong>A commit was sent and its outcome is not proven.</strong> You may look and follow links; nothing that changes data.</p>' : ''}
<h2>The page now</h2>
<img src="/shot.png?t=${esc(this.#token)}" alt="Screenshot of the page the run is on">
<pre>${esc(s['text'])}</pre>
<h2>Screens the run hoped for</h2>
<ul>${this.#q.options.map((o) => `<li>${esc(o.title)} (${esc(o.label)})</li>`).join('')}</ul>
<form method="post" action="/act"><fieldset><legend>Do one row of the menu</legend>${t}
<ol class="menu">${menu}</ol>
<p><label for="value">Value (for a row that takes one; an input as {{input.name}})</label> <input id="value" name="value"></p>
<p><label for="effect">What a press does (asked for unruled buttons)</label> <select id="effect" name="effect">${effects}</select></p>
${name.replaceAll('%id', 'name-act')}
<button type="submit">Do it</button></fieldset></form>
<form method="post" action="/handback"><fieldset><legend>Hand back</legend>${t}
<p><label for="label">The page is</label> <select id="label" name="label">${options}</select></p>
${name.replaceAll('%id', 'name-back')}
<button type="submit">Hand back to the run</button></fieldset></form>
<form method="post" action="/abort"><fieldset><legend>Abort</legend>${t}
<p><label for="reason">Why</label> <input id="reason" name="reason" maxlength="200"></p>
${name.replaceAll('%id', 'name-abort')}
<button type="submit">Abort the run</button></fieldset></form>`,
    );
  }
}

function shell(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:1rem auto;padding:0 1rem}img{max-width:100%;border:1px solid #666}pre{white-space:pre-wrap;background:#f4f4f4;padding:.5rem}fieldset{margin:1rem 0}:focus{outline:3px solid #1a5fb4;outline-offset:2px}.menu{list-style:none;padding:0}</style>
</head><body><main>${body}</main></body></html>`;
}

/** A urlencoded form body, at most BODY_MAX bytes; undefined when it is larger or not a form. */
async function readForm(req: IncomingMessage): Promise<Record<string, string> | undefined> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_MAX) return undefined;
    chunks.push(chunk as Buffer);
  }
  const parsed = Form.safeParse(Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
  return parsed.success ? parsed.data : undefined;
}

/** The run's inputs as the guard wants them (secrets reach the surface and the masker, never the page). */
export function eveningInputs(inputs: Readonly<Record<string, string>>, secret: (name: string) => boolean): EveningInput[] {
  return Object.entries(inputs).map(([name, value]) => ({ name, value, secret: secret(name) }));
}
