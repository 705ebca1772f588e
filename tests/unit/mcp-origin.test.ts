// The HTTP transport answers only this machine's pages (and origins the operator names): a page on another origin
// gets 403 before the token or any MCP code is looked at; clients that send no Origin still need the bearer token.
import { afterEach, describe, expect, it } from 'vitest';
import { originAllowed, startHttp, type HttpHandle } from '../../runner/mcp/http.ts';
import { buildMcpServer } from '../../runner/mcp/server.ts';
import { CallService } from '../../runner/mcp/service.ts';

const handles: HttpHandle[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
});

async function serve(allowedOrigins?: string[]): Promise<HttpHandle> {
  const service = new CallService({ env: {}, log: () => undefined });
  const h = await startHttp({
    port: 0,
    token: 'tok-123',
    makeServer: () => buildMcpServer([], service),
    log: () => undefined,
    ...(allowedOrigins ? { allowedOrigins } : {}),
  });
  handles.push(h);
  return h;
}

const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } });

async function post(h: HttpHandle, headers: Record<string, string>): Promise<number> {
  const res = await fetch(h.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer tok-123', ...headers },
    body: init,
  });
  await res.body?.cancel();
  return res.status;
}

describe('the HTTP transport checks Origin', () => {
  it('refuses a foreign origin with 403, even with the right token', async () => {
    const h = await serve();
    expect(await post(h, { origin: 'https://evil.example' })).toBe(403);
    expect(await post(h, { origin: 'http://127.0.0.1.evil.example' })).toBe(403);
    expect(await post(h, { origin: 'null' })).toBe(403);
  });

  it('answers local origins and clients without an Origin', async () => {
    const h = await serve();
    expect(await post(h, {})).toBe(200);
    expect(await post(h, { origin: `http://127.0.0.1:${h.port}` })).toBe(200);
    expect(await post(h, { origin: 'http://localhost:5173' })).toBe(200);
  });

  it('answers an origin the operator allowed', async () => {
    const h = await serve(['https://console.example.com']);
    expect(await post(h, { origin: 'https://console.example.com' })).toBe(200);
    expect(await post(h, { origin: 'https://other.example.com' })).toBe(403);
  });

  it('originAllowed is exact about hosts', () => {
    expect(originAllowed('http://localhost')).toBe(true);
    expect(originAllowed('http://[::1]:8080')).toBe(true);
    expect(originAllowed('http://localhost.evil.com')).toBe(false);
    expect(originAllowed('file://')).toBe(false);
  });
});
