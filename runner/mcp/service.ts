// What a tool call does, shared by every MCP session of one server: a lazily started shared browser (one
// context per call), a concurrency limit, and a per-(card, inputs) journal plus in-process lock, so two calls
// for the same commit on the same record are serialised and the second is answered from the journal.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { canonicalJson } from '../../shared/schema/canonical.ts';
import type { Capability } from '../../shared/schema/capability.ts';
import { RunResult } from '../../shared/schema/result.ts';
import type { Surface } from '../../shared/surface.ts';
import { findChromium } from '../browser/chromium.ts';
import { BrowserSurface } from '../browser/surface.ts';
import { newRunId, resultBeforeRun, runCapability } from '../run.ts';

export interface ServiceOptions {
  /** Where {{env.BASE_URL}} and HANDRAIL_SECRET_* come from. */
  env: Readonly<Record<string, string | undefined>>;
  /** Per-(card, inputs) journals. Default: a fresh temp dir for this server. */
  journalDir?: string;
  /** Evidence goes to <evidenceDir>/<run id>. Default runs/. */
  evidenceDir?: string;
  /** How many calls may run at once (default 4). */
  concurrency?: number;
  /** For tests: open a surface without the shared browser. */
  surfaceFactory?: () => Promise<Surface>;
  log?: (line: string) => void;
}

/** A counting semaphore: at most `limit` holders, the rest wait in arrival order. */
class Semaphore {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(limit: number) {
    this.#free = limit;
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((r) => this.#waiting.push(r));
    try {
      return await fn();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}

/** The key two calls share when they would commit the same thing on the same record. */
export function callKey(cardId: string, inputs: Readonly<Record<string, string>>): string {
  return `${cardId}-${createHash('sha256').update(canonicalJson(inputs)).digest('hex').slice(0, 16)}`;
}

export function journalFileFor(journalDir: string, cardId: string, inputs: Readonly<Record<string, string>>): string {
  return join(journalDir, `${callKey(cardId, inputs)}.jsonl`);
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
  readonly #locks = new Map<string, Promise<unknown>>();
  #journalDir: Promise<string> | null = null;
  #browser: Promise<Browser> | null = null;
  #closed = false;
  /** How many times a browser was started: a refused call must leave this at 0. */
  browserLaunches = 0;

  constructor(opts: ServiceOptions) {
    this.#opts = opts;
    const n = opts.concurrency ?? 4;
    if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`concurrency must be a whole number of at least 1, got ${n}`);
    this.#slots = new Semaphore(n);
  }

  #log(line: string): void {
    (this.#opts.log ?? ((l: string): boolean => process.stderr.write(`${l}\n`)))(line);
  }

  journalDir(): Promise<string> {
    this.#journalDir ??= this.#opts.journalDir
      ? Promise.resolve(resolve(this.#opts.journalDir))
      : mkdtemp(join(tmpdir(), 'handrail-serve-journal-'));
    return this.#journalDir;
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
    this.#log('starting the shared Chromium (one context per call)');
    const p = chromium.launch({ ...findChromium().launchOptions, headless: true });
    this.#browser = p;
    return p;
  }

  #surface(): Promise<Surface> {
    if (this.#opts.surfaceFactory) {
      this.browserLaunches++;
      return this.#opts.surfaceFactory();
    }
    return this.#sharedBrowser().then((browser) => BrowserSurface.launch({ browser }));
  }

  /** Serialise on `key`: the returned promise runs `fn` after every earlier holder of the key has finished. */
  async #locked<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(key) ?? Promise.resolve();
    const mine = before.then(fn, fn);
    const tail = mine.catch(() => undefined);
    this.#locks.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.#locks.get(key) === tail) this.#locks.delete(key);
    }
  }

  /** One call: arguments already validated against the tool's schema; the engine re-checks them all. */
  async call(card: Capability, inputs: Readonly<Record<string, string>>): Promise<RunResult> {
    const key = callKey(card.id, inputs);
    const journalPath = join(await this.journalDir(), `${key}.jsonl`);
    return this.#locked(key, () =>
      this.#slots.run(async () => {
        const runId = newRunId();
        this.#log(`${runId}: ${card.id} (${key})`);
        let result: RunResult;
        try {
          result = await runCapability({
            card,
            inputs,
            env: this.#opts.env,
            surface: () => this.#surface(),
            journalPath,
            evidenceDir: resolve(this.#opts.evidenceDir ?? 'runs', runId),
            requireApproved: true,
            runId,
            progress: (line) => this.#log(`${runId}: ${line}`),
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
    // A journal dir this server made for itself dies with it; one the operator named is theirs to keep.
    if (!this.#opts.journalDir && this.#journalDir) {
      const dir = await this.#journalDir;
      await rm(dir, { recursive: true, force: true });
    }
    const b = this.#browser;
    this.#browser = null;
    if (b) await b.then((x) => x.close(), () => undefined);
  }
}
