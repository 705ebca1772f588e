// What a tool call does, shared by every MCP session of one server: a lazily started shared browser (one
// context per call), a concurrency limit, and a journal per idempotency key in the persistent state directory
// (so a restarted server still knows what it pressed) plus an in-process queue per key, so two calls for the
// same intent are serialised and the second is answered from the journal. Other processes on the same store
// are kept out by the key's lease (runner/lease.ts).
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { KeyedLock, Semaphore } from '../../shared/lock.ts';
import type { Capability } from '../../shared/schema/capability.ts';
import { RunResult } from '../../shared/schema/result.ts';
import type { Surface } from '../../shared/surface.ts';
import { shownEndpoint, startBrowser } from '../browser/remote.ts';
import { intentOf, stateHome, storeIn, type Store } from '../intent.ts';
import { surfaces } from '../surfaces.ts';
import type { StepEvent } from '../engine/engine.ts';
import type { JournalStore } from '../engine/journal-store.ts';
import { newRunId, resultBeforeRun, runCapability, type RunNotebook } from '../run.ts';

export interface ServiceOptions {
  /** Where {{env.BASE_URL}} and HANDRAIL_SECRET_* come from. */
  env: Readonly<Record<string, string | undefined>>;
  /** Journals by key in this directory (leases in <dir>/locks). Default: $HANDRAIL_HOME (see runner/intent.ts). */
  journalDir?: string;
  /**
   * Every key's journal and lease behind the port (runner/engine/journal-store.ts), e.g. the shared PostgreSQL
   * journal of HANDRAIL_JOURNAL_URL, so many servers behind one load balancer press each intent once. Wins over
   * `journalDir`; closed with the service.
   */
  journalStore?: JournalStore;
  /** How long a call waits for another process holding the same key before answering BUSY (default 0). */
  lockWaitMs?: number;
  /** Evidence goes to <evidenceDir>/<run id>. Default runs/. */
  evidenceDir?: string;
  /** How many calls may run at once (default 4): the size of the pool of browser contexts in the one warm browser. */
  concurrency?: number;
  /** Browser contexts kept made ahead of the calls (default: `concurrency`); 0 makes each when its call starts. */
  spares?: number;
  /** For tests: open a surface without the shared browser. */
  surfaceFactory?: () => Promise<Surface>;
  /** Run history: every call's run is recorded (runner/notebook.ts), like a CLI replay's. */
  notebook?: RunNotebook;
  /** A Playwright browser server to open the calls' contexts in instead of launching Chromium (`serve --browser-ws`). */
  browserWs?: string;
  log?: (line: string) => void;
}

/** What one caller hands a call besides its inputs: its cancellation, and where its step events and log lines go. */
export interface CallOptions {
  signal?: AbortSignal;
  onStep?: (e: StepEvent) => void;
  log?: (line: string) => void;
  /** A rehearsal (the card's `<id>-rehearse` tool): up to the commit, its request shown, nothing pressed. */
  rehearse?: boolean;
}

/** The key two calls share when they are the same intent (card, content, identifying inputs). */
export function callKey(card: Capability, inputs: Readonly<Record<string, string>>): string {
  return intentOf(card, inputs).key;
}

export function journalFileFor(journalDir: string, card: Capability, inputs: Readonly<Record<string, string>>): string {
  return join(journalDir, `${callKey(card, inputs)}.jsonl`);
}

function escaped(card: Capability, runId: string, e: unknown): RunResult {
  const code = (e as { code?: unknown }).code;
  const message = (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
  const refused = typeof code === 'string' && code.startsWith('SECRET_');
  return resultBeforeRun(card.id, runId, refused ? 'REFUSED' : 'FAILED', refused ? 'INVALID_INPUT' : 'INTERNAL', message);
}

export class CallService {
  readonly #opts: ServiceOptions;
  readonly #slots: Semaphore;
  /** Calls for one key, one at a time in this process: the second is answered from the journal, not BUSY. */
  readonly #perKey = new KeyedLock();
  readonly #store: Store;
  readonly #spareCount: number;
  #browser: Promise<Browser> | null = null;
  #closed = false;
  /** Set by `drain`: new calls are answered SHUTTING_DOWN; calls already in flight finish. */
  #draining = false;
  /** Aborts every call in flight (a second signal, or the drain's bound): each stops unless its commit was dispatched. */
  readonly #abortAll = new AbortController();
  readonly #inflight = new Set<Promise<RunResult>>();
  /** How many times a browser was started: a refused call must leave this at 0. */
  browserLaunches = 0;

  constructor(opts: ServiceOptions) {
    this.#opts = opts;
    const n = opts.concurrency ?? 4;
    if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`concurrency must be a whole number of at least 1, got ${n}`);
    this.#slots = new Semaphore(n);
    this.#spareCount = opts.spares ?? n;
    if (!(Number.isInteger(this.#spareCount) && this.#spareCount >= 0)) throw new RangeError(`spares must be a whole number, got ${this.#spareCount}`);
    this.#store = opts.journalDir
      ? { journals: resolve(opts.journalDir), locks: join(resolve(opts.journalDir), 'locks') }
      : storeIn(stateHome(opts.env));
  }

  #log(line: string): void {
    (this.#opts.log ?? ((l: string): boolean => process.stderr.write(`${l}\n`)))(line);
  }

  /** Where the journals live: kept when the server stops, read again when it starts. */
  journalDir(): Promise<string> {
    return Promise.resolve(this.#opts.journalStore?.where ?? this.#store.journals);
  }

  #sharedBrowser(): Promise<Browser> {
    const current = this.#browser;
    if (current) {
      return current.then(
        (b) => (b.isConnected() ? b : this.#launch()),
        () => this.#launch(),
      );
    }
    return this.#launch();
  }

  #launch(): Promise<Browser> {
    if (this.#closed) return Promise.reject(new Error('the server is shutting down'));
    this.browserLaunches++;
    const remote = this.#opts.browserWs;
    this.#log(remote ? `connecting to the browser server at ${shownEndpoint(remote)} (one context per call)` : 'starting the shared Chromium (one context per call)');
    // The server decides when its browser closes: Playwright's default would close it on the first SIGTERM, under
    // the calls the graceful stop is letting finish (runner/browser/remote.ts launches it so).
    const p = startBrowser(remote ? { wsEndpoint: remote } : {});
    this.#browser = p;
    return p;
  }

  /**
   * Browser surfaces made ahead of the calls that will use them: a fresh context and page in the warm browser,
   * each used by exactly one call, so a call does not wait for a context to be made. Refilled as they are taken.
   */
  #spares: Promise<Surface>[] = [];
  /** Contexts closing after their call was answered (awaited on close). */
  readonly #closing = new Set<Promise<void>>();

  #fillSpares(): void {
    if (this.#closed || this.#draining || this.#opts.surfaceFactory || !this.#browser) return;
    while (this.#spares.length < this.#spareCount) {
      const p = surfaces.open('browser', { browser: () => this.#sharedBrowser() });
      p.catch(() => undefined);
      this.#spares.push(p);
    }
  }

  async #spare(): Promise<Surface | null> {
    const next = this.#spares.shift();
    if (!next) return null;
    try {
      const s = await next;
      // A spare made in a browser that has since gone away is no use; the call makes its own.
      const b = this.#browser ? await this.#browser.catch(() => null) : null;
      if (b?.isConnected()) return s;
      this.#afterAnswer(s);
    } catch {
      // fall through: made afresh below
    }
    return null;
  }

  /** Closes a call's context once it is done, off the path of the answer. */
  #afterAnswer(s: Surface): void {
    const p = s.close().catch(() => undefined);
    this.#closing.add(p);
    void p.finally(() => this.#closing.delete(p));
  }

  /** A surface whose `close` returns at once: the context is closed after the run's receipt is on its way. */
  #detached(s: Surface): Surface {
    return new Proxy(s, {
      get: (target, prop): unknown => {
        if (prop === 'close') {
          return (): Promise<void> => {
            this.#afterAnswer(target);
            return Promise.resolve();
          };
        }
        const v: unknown = Reflect.get(target, prop, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  }

  /** The card's surface, chosen by the registry; a browser surface is a fresh context in the shared browser. */
  async #surface(card: Capability): Promise<Surface> {
    if (this.#opts.surfaceFactory) {
      this.browserLaunches++;
      return this.#opts.surfaceFactory();
    }
    if (card.surface === 'browser') {
      const spare = await this.#spare();
      this.#fillSpares();
      if (spare) return this.#detached(spare);
    }
    const made = await surfaces.open(card.surface, { browser: () => this.#sharedBrowser() });
    if (card.surface === 'browser') this.#fillSpares();
    return this.#detached(made);
  }

  /** Where a run's evidence lives (the directory the MCP resources are read from). */
  evidenceDirOf(runId: string): string {
    return resolve(this.#opts.evidenceDir ?? 'runs', runId);
  }

  /** Starts the shared browser now, so the first call does not pay for it (a surface factory has nothing to warm). */
  async warm(): Promise<void> {
    if (this.#opts.surfaceFactory) return;
    await this.#sharedBrowser();
    this.#fillSpares();
  }

  /** How many calls are running or queued. */
  get inflight(): number {
    return this.#inflight.size;
  }

  /**
   * One call: arguments already validated against the tool's schema; the engine re-checks them all. Cancelled
   * through `opts.signal` (or by the server stopping) it stops unless a commit has been dispatched.
   */
  call(card: Capability, inputs: Readonly<Record<string, string>>, opts: CallOptions = {}): Promise<RunResult> {
    if (this.#draining) {
      return Promise.resolve(
        resultBeforeRun(card.id, newRunId(), 'RECOVERABLE', 'SHUTTING_DOWN', 'the server is stopping and takes no new call; nothing was run, so trying again (on another server, or after it restarts) is safe'),
      );
    }
    const p = this.#call(card, inputs, opts);
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p));
    return p;
  }

  /**
   * Graceful stop: takes no new call, waits up to `boundMs` for those in flight, then cancels the rest (each stops
   * before any commit it has not dispatched; one already dispatched finishes and is journalled) and waits for them.
   */
  async drain(boundMs: number): Promise<void> {
    this.#draining = true;
    const all = (): Promise<unknown> => Promise.allSettled([...this.#inflight]);
    if (this.#inflight.size === 0) return;
    this.#log(`waiting for ${this.#inflight.size} call(s) in flight (at most ${boundMs} ms before cancelling them)`);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((r) => (timer = setTimeout(r, boundMs)));
    await Promise.race([all(), bound]);
    clearTimeout(timer);
    if (this.#inflight.size > 0) this.abortAll(`the server stopped waiting after ${boundMs} ms`);
    await all();
  }

  /** Cancels every call in flight (a second SIGTERM): each stops before a commit it has not dispatched. */
  abortAll(reason: string): void {
    this.#draining = true;
    if (this.#abortAll.signal.aborted) return;
    this.#log(`cancelling ${this.#inflight.size} call(s) in flight: ${reason}`);
    this.#abortAll.abort(reason);
  }

  #call(card: Capability, inputs: Readonly<Record<string, string>>, opts: CallOptions): Promise<RunResult> {
    const key = callKey(card, inputs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, this.#abortAll.signal]) : this.#abortAll.signal;
    return this.#perKey.run(key, () =>
      this.#slots.run(async () => {
        const runId = newRunId();
        this.#log(`${runId}: ${card.id} (${key})`);
        let result: RunResult;
        try {
          result = await runCapability({
            card,
            inputs,
            env: this.#opts.env,
            surface: () => this.#surface(card),
            ...(this.#opts.journalStore ? { journalStore: this.#opts.journalStore } : { store: this.#store }),
            ...(this.#opts.lockWaitMs ? { lockWaitMs: this.#opts.lockWaitMs } : {}),
            evidenceDir: resolve(this.#opts.evidenceDir ?? 'runs', runId),
            requireApproved: true,
            runId,
            progress: (line) => {
              this.#log(`${runId}: ${line}`);
              opts.log?.(line);
            },
            signal,
            ...(opts.onStep ? { onStep: opts.onStep } : {}),
            ...(opts.rehearse ? { rehearse: true } : {}),
            ...(this.#opts.notebook ? { notebook: this.#opts.notebook } : {}),
          });
        } catch (e) {
          // runCapability answers everything a run can meet with a typed result; what still escapes (e.g. a
          // secret too short to mask) becomes a typed receipt too, so a caller never decides from an exception.
          result = escaped(card, runId, e);
        }
        this.#log(`${runId}: ${result.word} ${result.code}${result.from_journal ? ' (answered from the journal)' : ''}`);
        return result;
      }),
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const s of this.#spares.splice(0)) await s.then((x) => x.close(), () => undefined);
    await Promise.allSettled([...this.#closing]);
    const b = this.#browser;
    this.#browser = null;
    if (b) await b.then((x) => x.close(), () => undefined);
    await this.#opts.journalStore?.close();
  }
}
