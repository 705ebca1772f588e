// Streamable HTTP on 127.0.0.1 with sessions (MCP 2025-06-18, "Session Management": an `Mcp-Session-Id` from
// initialize, a GET stream for what the server sends unasked, DELETE to end), behind a bearer token: a request
// without the right `Authorization: Bearer <token>` gets 401 before any MCP code sees it (MCP 2025-06-18,
// "Authorization"). A session is what lets a `notifications/cancelled` reach the call it names and a
// `tools/list_changed` reach the client: each session has its own McpServer, made by `makeServer`.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export const MCP_PATH = '/mcp';

export interface HttpHandle {
  url: string;
  port: number;
  /** Takes no new connection and answers a new request on an open one 503; requests already running go on. */
  stopAccepting(): void;
  /** Stops accepting, waits for the requests already running to be answered, then closes every connection. */
  close(): Promise<void>;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!m?.[1]) return false;
  const given = Buffer.from(m[1]);
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

function jsonError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** Origins a browser page may call from by default: this machine only (any port), http or https. */
const LOCAL_ORIGIN = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/i;

/**
 * Is a request's `Origin` allowed? No Origin (a non-browser client: the SDK, curl) is allowed; the bearer token
 * still applies. Otherwise it must be a local origin or one listed with `--allow-origin` (MCP 2025-06-18,
 * "Security Warning": servers MUST validate the Origin header to prevent DNS rebinding attacks).
 */
export function originAllowed(origin: string | undefined, allowed: readonly string[] = []): boolean {
  if (origin === undefined) return true;
  return LOCAL_ORIGIN.test(origin) || allowed.some((a) => a.replace(/\/+$/, '').toLowerCase() === origin.toLowerCase());
}

export async function startHttp(opts: {
  port: number;
  token: string;
  makeServer: () => McpServer;
  log: (line: string) => void;
  /** Extra browser origins allowed to call (exact `scheme://host[:port]`); local origins always are. */
  allowedOrigins?: readonly string[];
  /** A session unused this long is ended (default 30 minutes). */
  sessionIdleMs?: number;
}): Promise<HttpHandle> {
  let port = opts.port;
  let accepting = true;
  /** POSTs not yet answered (a tool call's answer ends its SSE stream); GET streams stay open and are not counted. */
  let running = 0;
  let idle: (() => void) | null = null;
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer; seen: number }>();
  const idleMs = opts.sessionIdleMs ?? 30 * 60_000;
  const end = (id: string): void => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    void s.transport.close();
    void s.server.close();
  };
  /** Sessions nobody has used for `idleMs` are ended (a client that went away without DELETE). */
  const sweep = (): void => {
    const now = Date.now();
    for (const [id, s] of sessions) if (now - s.seen > idleMs) end(id);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!accepting) return jsonError(res, 503, 'the server is stopping; try again on another or after it restarts', { connection: 'close', 'retry-after': '5' });
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (!originAllowed(req.headers.origin, opts.allowedOrigins)) {
      const shown = (req.headers.origin ?? '').slice(0, 100);
      opts.log(`http: refused a request from origin ${JSON.stringify(shown)} (403); allow it with --allow-origin`);
      return jsonError(res, 403, `origin ${JSON.stringify(shown)} is not allowed to call this server (allow it with --allow-origin)`);
    }
    if (path !== MCP_PATH) return jsonError(res, 404, `no such endpoint ${JSON.stringify(path.slice(0, 100))}; MCP is served at ${MCP_PATH}`);
    if (!tokenMatches(req.headers.authorization, opts.token)) {
      return jsonError(res, 401, 'missing or wrong bearer token (Authorization: Bearer <token>)', { 'www-authenticate': 'Bearer' });
    }
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const s = sessions.get(sid);
      // MCP 2025-06-18, "Session Management": an unknown or ended session is 404, and the client starts a new one.
      if (!s) return jsonError(res, 404, 'no such session (it ended, or the server restarted): initialize a new one');
      s.seen = Date.now();
      await s.transport.handleRequest(req, res);
      if (req.method === 'DELETE') end(sid);
      return;
    }
    if (req.method !== 'POST') return jsonError(res, 400, `${req.method ?? ''} needs an Mcp-Session-Id: POST initialize first`);
    sweep();
    const server = opts.makeServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, seen: Date.now() });
      },
      // Refuse a browser page on another origin that resolves a name to 127.0.0.1 (DNS rebinding).
      enableDnsRebindingProtection: true,
      allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
    // Anything but an initialize without a session is refused by the transport: nothing to keep.
    if (!transport.sessionId) {
      void transport.close();
      void server.close();
    }
  };
  const http: Server = createServer((req, res) => {
    if (req.method === 'POST') {
      running++;
      // A request is done when its response is (a tool call's answer comes at the end of its SSE stream).
      res.once('close', () => {
        running--;
        if (running === 0) idle?.();
      });
    }
    handle(req, res).catch((e: unknown) => {
      opts.log(`http: ${(e as Error).message}`);
      if (!res.headersSent) jsonError(res, 500, 'internal error');
      else res.end();
    });
  });
  const stopAccepting = (): void => {
    if (!accepting) return;
    accepting = false;
    http.close();
    http.closeIdleConnections();
  };
  await new Promise<void>((ok, fail) => {
    http.once('error', fail);
    http.listen(opts.port, '127.0.0.1', () => ok());
  });
  port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    port,
    stopAccepting,
    close: async () => {
      stopAccepting();
      if (running > 0) await new Promise<void>((ok) => (idle = ok));
      for (const id of [...sessions.keys()]) end(id);
      http.closeAllConnections();
    },
  };
}
