// `handrail serve [DIR] [--http PORT] [--journal-dir DIR] [--concurrency N] [--evidence-dir DIR]`: the MCP
// server. Over stdio, stdout is the wire — nothing for people is ever written there (stray console output is
// sent to stderr). Resolves with the exit code when the client goes away or on SIGINT/SIGTERM.
import { randomBytes } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CatalogError, describeCatalog, loadCatalog } from '../mcp/catalog.ts';
import { startHttp } from '../mcp/http.ts';
import { buildMcpServer } from '../mcp/server.ts';
import { CallService } from '../mcp/service.ts';
import { UsageError } from './errors.ts';
import { withAllowedEnv } from './replay.ts';

export interface ServeFlags {
  /** Serve Streamable HTTP on 127.0.0.1:PORT (0 = any free port) instead of stdio. */
  http?: string | number;
  journalDir?: string;
  concurrency?: string | number;
  evidenceDir?: string;
  /** Environment variables a card's entry may read besides BASE_URL (`{{env.NAME}}`). */
  allowEnv?: string[];
  /** Browser origins allowed to call the HTTP transport besides this machine's. */
  allowOrigin?: string[];
}

/** Anything that would print to stdout goes to stderr instead: over stdio a stray line corrupts the protocol. */
function guardStdout(): void {
  const toErr = (...args: unknown[]): void => console.error(...args);
  console.log = toErr;
  console.info = toErr;
  console.debug = toErr;
}

function positiveInt(flag: string, v: string | number | undefined, min: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > 65535) throw new UsageError(`${flag} expects a whole number ≥ ${min}, got "${String(v)}"`);
  return n;
}

export async function serveCommand(dir = 'capabilities', flags: ServeFlags = {}): Promise<number> {
  guardStdout();
  const err = (line: string): boolean => process.stderr.write(`${line}\n`);
  const port = positiveInt('--http', flags.http, 0);
  const concurrency = positiveInt('--concurrency', flags.concurrency, 1);
  let catalog;
  try {
    catalog = await loadCatalog(dir);
  } catch (e) {
    if (e instanceof CatalogError) throw new UsageError(e.message, e.code);
    throw e;
  }
  err(describeCatalog(dir, catalog));
  if (catalog.served.length === 0) err('handrail serve: no approved card to serve; the tool list is empty');
  const service = new CallService({
    env: withAllowedEnv(process.env, flags.allowEnv),
    ...(flags.journalDir ? { journalDir: flags.journalDir } : {}),
    ...(flags.evidenceDir ? { evidenceDir: flags.evidenceDir } : {}),
    ...(concurrency ? { concurrency } : {}),
    log: err,
  });
  err(`handrail serve: journals in ${await service.journalDir()}`);

  let finish: (code: number) => void = () => undefined;
  const done = new Promise<number>((r) => (finish = r));
  let stopping = false;
  const stops: (() => Promise<void>)[] = [];
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    err(`handrail serve: stopping (${why})`);
    void Promise.allSettled(stops.map((s) => s()))
      .then(() => service.close())
      .then(() => finish(0), () => finish(1));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));

  if (port !== undefined) {
    const fromEnv = process.env['HANDRAIL_MCP_TOKEN'];
    const token = fromEnv && fromEnv.length > 0 ? fromEnv : randomBytes(24).toString('base64url');
    const allowedOrigins = flags.allowOrigin ?? [];
    for (const o of allowedOrigins) if (!/^https?:\/\/[^/\s]+$/i.test(o)) throw new UsageError(`--allow-origin expects scheme://host[:port], got ${JSON.stringify(o.slice(0, 80))}`);
    const http = await startHttp({ port, token, makeServer: () => buildMcpServer(catalog.served, service), log: err, allowedOrigins });
    stops.push(() => http.close());
    err(`handrail serve: MCP over Streamable HTTP at ${http.url}`);
    // A generated token is printed once so the operator can hand it to the client; one from the environment is not echoed.
    err(fromEnv ? 'handrail serve: bearer token from HANDRAIL_MCP_TOKEN' : `handrail serve: bearer token ${token} (set HANDRAIL_MCP_TOKEN to choose your own)`);
  } else {
    const server = buildMcpServer(catalog.served, service);
    const transport = new StdioServerTransport();
    stops.push(() => server.close());
    process.stdin.once('end', () => stop('the client closed stdin'));
    server.server.onclose = (): void => stop('the connection closed');
    await server.connect(transport);
    err('handrail serve: MCP over stdio');
  }
  return done;
}
