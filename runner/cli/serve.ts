// `handrail serve [DIR] [--http PORT] [--bind NAME=VALUE…] [--journal-dir DIR] [--concurrency N] [--evidence-dir DIR]`:
// the MCP server. Over stdio, stdout is the wire — nothing for people is ever written there (stray console output
// is sent to stderr). The tool list follows the folder. Resolves with the exit code when the client goes away or on
// SIGINT/SIGTERM: the first signal stops taking calls and lets those in flight finish (bounded by --drain-ms) and
// answers them; a second cancels them, each stopping before any commit it has not dispatched.
import { randomBytes } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CatalogError, describeCatalog, LiveCatalog } from '../mcp/catalog.ts';
import { startHttp } from '../mcp/http.ts';
import { buildMcpServer } from '../mcp/server.ts';
import { openSharedJournal } from '../journals.ts';
import { CallService } from '../mcp/service.ts';
import { bindingProblem } from '../mcp/tools.ts';
import { UsageError } from './errors.ts';
import { openNotebook } from './notebook.ts';
import { withAllowedEnv } from './replay.ts';

export interface ServeFlags {
  /** Serve Streamable HTTP on 127.0.0.1:PORT (0 = any free port) instead of stdio. */
  http?: string | number;
  journalDir?: string;
  /** How many calls run at once: the pool of browser contexts in the one warm browser. */
  concurrency?: string | number;
  evidenceDir?: string;
  /** Environment variables a card's entry may read besides BASE_URL (`{{env.NAME}}`). */
  allowEnv?: string[];
  /** Browser origins allowed to call the HTTP transport besides this machine's. */
  allowOrigin?: string[];
  /**
   * Inputs bound by the deployment (`--bind operator_id=OP1001`, or a map from a config file): off every tool's
   * schema, the same value in every call. A secret can never be bound (it comes from HANDRAIL_SECRET_<NAME>).
   */
  bind?: readonly string[] | Readonly<Record<string, string>>;
  /** On the first SIGTERM/SIGINT, how long calls in flight may take before they are cancelled (default 30000). */
  drainMs?: string | number;
  /** Start the shared browser at once rather than at the first call. */
  warm?: boolean;
  /** Open the calls' contexts in this Playwright browser server (connected at start: a dead one is refused at once). */
  browserWs?: string;
}

/** Anything that would print to stdout goes to stderr instead: over stdio a stray line corrupts the protocol. */
function guardStdout(): void {
  const toErr = (...args: unknown[]): void => console.error(...args);
  console.log = toErr;
  console.info = toErr;
  console.debug = toErr;
}

function positiveInt(flag: string, v: string | number | undefined, min: number, max = 65535): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${flag} expects a whole number ≥ ${min}, got "${String(v)}"`);
  return n;
}

/** `NAME=VALUE` pairs (or a map) as bindings; a malformed pair or a name given twice is a usage error naming it. */
export function parseBindings(given: ServeFlags['bind']): Record<string, string> {
  const out: Record<string, string> = {};
  if (given === undefined) return out;
  const pairs: [string, string][] = Array.isArray(given)
    ? (given as readonly string[]).map((p, i) => {
        const at = p.indexOf('=');
        if (at <= 0) throw new UsageError(`--bind #${i + 1} expects NAME=VALUE, got ${at === 0 ? 'no name' : 'no "="'}`);
        return [p.slice(0, at), p.slice(at + 1)];
      })
    : Object.entries(given as Readonly<Record<string, string>>);
  for (const [name, value] of pairs) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new UsageError(`--bind ${JSON.stringify(name.slice(0, 40))}: an input name is lower_snake_case`);
    if (Object.hasOwn(out, name)) throw new UsageError(`--bind ${name} is given twice`);
    out[name] = value;
  }
  return out;
}

/** Every binding must name an input some card in the folder declares, and fit each served card that declares it. */
function checkBindings(bind: Readonly<Record<string, string>>, live: LiveCatalog): void {
  const cards = live.served.map((s) => s.card);
  for (const [name, value] of Object.entries(bind)) {
    const takers = cards.filter((c) => Object.hasOwn(c.inputs, name));
    if (takers.length === 0) {
      const known = [...new Set(cards.flatMap((c) => Object.keys(c.inputs)))].sort();
      throw new UsageError(`--bind ${name}: no served card has an input called ${name} (inputs: ${known.join(', ') || 'none'})`);
    }
    for (const card of takers) {
      const problem = bindingProblem(card, name, value);
      if (problem) throw new UsageError(problem);
    }
  }
}

export async function serveCommand(dir = 'capabilities', flags: ServeFlags = {}): Promise<number> {
  guardStdout();
  const err = (line: string): boolean => process.stderr.write(`${line}\n`);
  const port = positiveInt('--http', flags.http, 0);
  const concurrency = positiveInt('--concurrency', flags.concurrency, 1);
  const drainMs = positiveInt('--drain-ms', flags.drainMs, 0, 3_600_000) ?? 30_000;
  const bind = parseBindings(flags.bind);
  let live: LiveCatalog;
  try {
    live = await LiveCatalog.open(dir, { log: err });
  } catch (e) {
    if (e instanceof CatalogError) throw new UsageError(e.message, e.code);
    throw e;
  }
  try {
    checkBindings(bind, live);
  } catch (e) {
    live.close();
    throw e;
  }
  err(describeCatalog(dir, live.catalog));
  if (live.served.length === 0) err('handrail serve: no approved card to serve yet; the tool list follows the folder');
  if (Object.keys(bind).length) err(`handrail serve: bound by the server, not asked of the agent: ${Object.keys(bind).join(', ')}`);
  // HANDRAIL_JOURNAL_URL: one journal for every server behind a load balancer (runner/journals.ts).
  let shared;
  try {
    shared = await openSharedJournal(process.env);
    if (shared && flags.journalDir) throw new UsageError('--journal-dir names a directory, but HANDRAIL_JOURNAL_URL keeps the journals in a database: use one of them');
  } catch (e) {
    live.close();
    await shared?.close();
    throw e;
  }
  // Every call's run goes into the notebook, as a CLI replay's does (drift and calibration read them all).
  const notebook = await openNotebook(err);
  const service = new CallService({
    env: withAllowedEnv(process.env, flags.allowEnv),
    ...(notebook ? { notebook } : {}),
    ...(flags.journalDir ? { journalDir: flags.journalDir } : {}),
    ...(shared ? { journalStore: shared } : {}),
    ...(flags.evidenceDir ? { evidenceDir: flags.evidenceDir } : {}),
    ...(concurrency ? { concurrency } : {}),
    ...(flags.browserWs ? { browserWs: flags.browserWs } : {}),
    log: err,
  });
  err(`handrail serve: journals in ${await service.journalDir()}`);
  if (flags.browserWs) {
    try {
      await service.warm();
    } catch (e) {
      live.close();
      await service.close();
      throw e;
    }
  } else if (flags.warm) service.warm().catch((e: unknown) => err(`handrail serve: the browser did not start: ${(e as Error).message}`));

  let finish: (code: number) => void = () => undefined;
  const done = new Promise<number>((r) => (finish = r));
  let stopping = false;
  /** Stop taking calls (before the drain); close the transports (after it). */
  const refuse: (() => void)[] = [];
  const closers: (() => Promise<void>)[] = [];
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    err(`handrail serve: stopping (${why}); taking no new call`);
    for (const r of refuse) r();
    live.close();
    void service
      .drain(drainMs)
      // Let the answers of the last calls reach the wire before the transports close.
      .then(() => new Promise((r) => setTimeout(r, 0)))
      .then(() => Promise.allSettled(closers.map((c) => c())))
      .then(() => service.close())
      .then(() => notebook?.close())
      .then(
        () => {
          err('handrail serve: stopped');
          finish(0);
        },
        () => finish(1),
      );
  };
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    signals++;
    if (signals === 1) return stop(sig);
    // A second signal: do not wait; every call stops before a commit it has not dispatched.
    if (signals === 2) service.abortAll(`a second ${sig}`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  if (port !== undefined) {
    const fromEnv = process.env['HANDRAIL_MCP_TOKEN'];
    const token = fromEnv && fromEnv.length > 0 ? fromEnv : randomBytes(24).toString('base64url');
    const allowedOrigins = flags.allowOrigin ?? [];
    for (const o of allowedOrigins) if (!/^https?:\/\/[^/\s]+$/i.test(o)) throw new UsageError(`--allow-origin expects scheme://host[:port], got ${JSON.stringify(o.slice(0, 80))}`);
    const http = await startHttp({ port, token, makeServer: () => buildMcpServer(live, service, { follow: true, bind }), log: err, allowedOrigins });
    refuse.push(() => http.stopAccepting());
    closers.push(() => http.close());
    err(`handrail serve: MCP over Streamable HTTP at ${http.url}`);
    // A generated token is printed once so the operator can hand it to the client; one from the environment is not echoed.
    err(fromEnv ? 'handrail serve: bearer token from HANDRAIL_MCP_TOKEN' : `handrail serve: bearer token ${token} (set HANDRAIL_MCP_TOKEN to choose your own)`);
  } else {
    const server = buildMcpServer(live, service, { follow: true, bind });
    const transport = new StdioServerTransport();
    closers.push(async () => {
      await server.close();
      // stdin would keep the process alive after a signal.
      process.stdin.destroy();
    });
    process.stdin.once('end', () => stop('the client closed stdin'));
    const onclose = server.server.onclose;
    server.server.onclose = (): void => {
      onclose?.();
      stop('the connection closed');
    };
    await server.connect(transport);
    err('handrail serve: MCP over stdio');
  }
  return done;
}
