// The client of the mac helper (docs/design/mac.md, "The mac surface"): spawns the helper, numbers requests,
// times each one out, parses every line with the protocol's schemas and turns each failure into a typed
// `MacHelperError`: a refusal from the helper, a helper that died, a line that is not the protocol. No request is
// left pending: a crash or `close` rejects them all, and `close` kills the child.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';
import { SurfaceError, type SurfaceErrorCode } from '../shared/surface.ts';
import { HelperLine, PROTOCOL_VERSION, parseResult, type HelperErrorCode, type HelperEvent, type Method, type ParamsOf, type ResultOf } from './protocol.ts';

/** Why the client failed: a helper's refusal, or the client's own (the helper could not start, died, or spoke nonsense). */
export type MacFailure = HelperErrorCode | 'helper_unavailable' | 'helper_crashed' | 'protocol_violation' | 'closed';

/** The surface word each failure ends a run with (shared/surfaces.ts, the macos declaration's `errors`). */
const WORD: Record<MacFailure, SurfaceErrorCode> = {
  stale_ref: 'STALE',
  action_not_listed: 'ACTION_FAILED',
  not_settable: 'ACTION_FAILED',
  disabled: 'ACTION_FAILED',
  timeout: 'TIMEOUT',
  permission_missing: 'SURFACE_UNREACHABLE',
  no_such_app: 'SURFACE_UNREACHABLE',
  version_mismatch: 'SURFACE_UNREACHABLE',
  bad_request: 'ACTION_FAILED',
  unknown_method: 'ACTION_FAILED',
  internal: 'ACTION_FAILED',
  helper_unavailable: 'SURFACE_UNREACHABLE',
  helper_crashed: 'SURFACE_UNREACHABLE',
  protocol_violation: 'SURFACE_UNREACHABLE',
  closed: 'SURFACE_UNREACHABLE',
};

/** A typed failure of the helper: `code` is the surface word (compare it, not the class); `reason` says exactly what. */
export class MacHelperError extends SurfaceError {
  constructor(
    readonly reason: MacFailure,
    message: string,
  ) {
    super(WORD[reason], message);
  }
}

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

/** Where `swift build -c release` in mac-agent/helper puts the helper. */
export const BUILT_HELPER = here('./helper/.build/release/handrail-mac-helper');
/** The fake helper: compiled beside this file in dist/, or its TypeScript source (run through tsx) in a clone. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
export const FAKE_HELPER = here(FROM_SOURCE ? './fake/main.ts' : './fake/main.js');
export const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * The command that starts a helper: `fake` → the recorded-tree fake under Node; a path → that executable; nothing →
 * the built Swift helper, which exists only on a Mac.
 */
export function helperCommand(spec: string | undefined, platform: NodeJS.Platform = process.platform): { command: string; args: string[] } {
  if (spec === 'fake') {
    if (!FROM_SOURCE) return { command: process.execPath, args: [FAKE_HELPER] };
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    return { command: process.execPath, args: ['--import', tsx, FAKE_HELPER] };
  }
  if (spec) {
    if (!existsSync(spec)) throw new MacHelperError('helper_unavailable', `HANDRAIL_MAC_HELPER names ${spec}, which does not exist`);
    return { command: spec, args: [] };
  }
  if (platform !== 'darwin') {
    throw new MacHelperError(
      'helper_unavailable',
      `the mac helper runs only on macOS (this is ${platform}); set HANDRAIL_MAC_HELPER=fake to use the recorded TextEdit, or a path to a helper`,
    );
  }
  if (!existsSync(BUILT_HELPER)) {
    throw new MacHelperError('helper_unavailable', `the mac helper is not built: run \`swift build -c release\` in mac-agent/helper (expected ${BUILT_HELPER})`);
  }
  return { command: BUILT_HELPER, args: [] };
}

export interface ClientOptions {
  /** `fake`, a path, or undefined (the built helper); the driver passes HANDRAIL_MAC_HELPER. */
  helper?: string | undefined;
  /** Extra environment for the helper process (the fake's HANDRAIL_MAC_FAKE_* settings). */
  env?: Readonly<Record<string, string | undefined>>;
  timeoutMs?: number;
}

interface Pending {
  method: Method;
  resolve: (v: unknown) => void;
  reject: (e: MacHelperError) => void;
  timer: NodeJS.Timeout;
}

export class MacHelperClient {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Set<(e: HelperEvent) => void>();
  readonly #timeoutMs: number;
  #next = 1;
  #dead: MacHelperError | null = null;
  #stderr = '';

  private constructor(child: ChildProcessWithoutNullStreams, timeoutMs: number) {
    this.#child = child;
    this.#timeoutMs = timeoutMs;
    createInterface({ input: child.stdout }).on('line', (l) => this.#line(l));
    child.stderr.on('data', (d: Buffer) => (this.#stderr = (this.#stderr + d.toString('utf8')).slice(-2_000)));
    child.on('error', (e) => this.#fail(new MacHelperError('helper_unavailable', `the mac helper could not start: ${e.message}`)));
    // A write to a helper that has died fails EPIPE on the stream too: without a listener that is an uncaught error.
    child.stdin.on('error', (e) => this.#fail(new MacHelperError('helper_crashed', `cannot write to the mac helper: ${e.message}`)));
    child.on('exit', (code, signal) => {
      const last = this.#stderr.trim().split('\n').pop() ?? '';
      this.#fail(new MacHelperError('helper_crashed', `the mac helper exited (${signal ?? `code ${code ?? '?'}`})${last ? `: ${last}` : ''}`));
    });
  }

  /** Starts a helper and checks it speaks this protocol version. */
  static async start(opts: ClientOptions = {}): Promise<MacHelperClient> {
    const { command, args } = helperCommand(opts.helper);
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
    const client = new MacHelperClient(child, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      const hello = await client.request('hello', { version: PROTOCOL_VERSION, client: 'handrail' }, opts.timeoutMs ?? 20_000);
      if (hello.version !== PROTOCOL_VERSION) throw new MacHelperError('version_mismatch', `the helper speaks protocol ${hello.version}, this client ${PROTOCOL_VERSION}`);
      return client;
    } catch (e) {
      await client.close();
      throw e;
    }
  }

  /** Called with every event line (AX notifications, human input); returns the unsubscribe. */
  onEvent(fn: (e: HelperEvent) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  request<M extends Method>(method: M, params: ParamsOf<M>, timeoutMs = this.#timeoutMs): Promise<ResultOf<M>> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#next++;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new MacHelperError('timeout', `the mac helper did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer });
      this.#child.stdin.write(`${JSON.stringify({ v: PROTOCOL_VERSION, id, method, params })}\n`, (err) => {
        if (err) this.#settle(id, new MacHelperError('helper_crashed', `cannot write to the mac helper: ${err.message}`));
      });
    });
  }

  #settle(id: number, outcome: MacHelperError | { result: unknown }): void {
    const p = this.#pending.get(id);
    if (!p) return;
    this.#pending.delete(id);
    clearTimeout(p.timer);
    if (outcome instanceof MacHelperError) {
      p.reject(outcome);
      return;
    }
    try {
      p.resolve(parseResult(p.method, outcome.result));
    } catch (e) {
      p.reject(new MacHelperError('protocol_violation', `the mac helper answered ${p.method} with a result that is not the protocol's: ${(e as Error).message.split('\n')[0] ?? ''}`));
    }
  }

  #line(raw: string): void {
    if (!raw.trim()) return;
    let parsed;
    try {
      parsed = HelperLine.safeParse(JSON.parse(raw));
    } catch {
      parsed = null;
    }
    if (!parsed?.success) {
      this.#fail(new MacHelperError('protocol_violation', `the mac helper wrote a line that is not the protocol: ${raw.slice(0, 120)}`));
      this.#child.kill();
      return;
    }
    const line = parsed.data;
    if ('event' in line) {
      for (const fn of this.#listeners) fn(line);
      return;
    }
    this.#settle(line.id, line.ok ? { result: line.result } : new MacHelperError(line.error.code, line.error.message));
  }

  #fail(e: MacHelperError): void {
    this.#dead ??= e;
    for (const id of [...this.#pending.keys()]) this.#settle(id, e);
  }

  /** Stops the helper: pending requests are rejected `closed`, the child is killed. */
  async close(): Promise<void> {
    this.#fail(new MacHelperError('closed', 'the mac helper was closed'));
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((r) => this.#child.once('exit', () => r()));
    this.#child.stdin.end();
    this.#child.kill();
    await Promise.race([exited, new Promise<void>((r) => setTimeout(r, 2_000).unref())]);
  }
}
