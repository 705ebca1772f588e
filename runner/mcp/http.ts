// Streamable HTTP on 127.0.0.1, stateless (a fresh McpServer and transport per POST, as the SDK's stateless
// example does), behind a bearer token: a request without the right `Authorization: Bearer <token>` gets 401
// before any MCP code sees it (MCP 2025-06-18, "Authorization": 401 for a missing or invalid token).
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export const MCP_PATH = '/mcp';

export interface HttpHandle {
  url: string;
  port: number;
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

export async function startHttp(opts: {
  port: number;
  token: string;
  makeServer: () => McpServer;
  log: (line: string) => void;
}): Promise<HttpHandle> {
  let port = opts.port;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== MCP_PATH) return jsonError(res, 404, `no such endpoint ${path}; MCP is served at ${MCP_PATH}`);
    if (!tokenMatches(req.headers.authorization, opts.token)) {
      return jsonError(res, 401, 'missing or wrong bearer token (Authorization: Bearer <token>)', { 'www-authenticate': 'Bearer' });
    }
    if (req.method !== 'POST') return jsonError(res, 405, `${req.method ?? ''} is not served: this server is stateless, POST only`, { allow: 'POST' });
    const server = opts.makeServer();
    const transport = new StreamableHTTPServerTransport({
      // No sessionIdGenerator: stateless mode.
      // Refuse a browser page on another origin that resolves a name to 127.0.0.1 (DNS rebinding).
      enableDnsRebindingProtection: true,
      allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  const http: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      opts.log(`http: ${(e as Error).message}`);
      if (!res.headersSent) jsonError(res, 500, 'internal error');
      else res.end();
    });
  });
  await new Promise<void>((ok, fail) => {
    http.once('error', fail);
    http.listen(opts.port, '127.0.0.1', () => ok());
  });
  port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    port,
    close: () =>
      new Promise<void>((ok) => {
        http.closeAllConnections();
        http.close(() => ok());
      }),
  };
}
