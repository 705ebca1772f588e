// CASEDESK's server on 127.0.0.1: a shell page, the bundled client (client/app.ts, bundled by `npm run build`), a
// JSON API behind a session cookie with a random delay on every answer (so settling meets spinners honestly), and a
// judge on /_judge/ that reads the store directly. node:http with no framework, like PLUMBLINE.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { seeded } from '../random.ts';
import { CaseStore, PEOPLE, UNASSIGNED, type Outcome } from './store.ts';

export { CaseStore, PEOPLE } from './store.ts';

export interface DeskOptions {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Every API answer waits a random time in [min, max] ms (default 300–3000: the delays modern back ends have). */
  delayMs?: readonly [number, number];
  /** Seeds the delays, so a test can repeat a run's timing. */
  seed?: number;
  /** The clerk's password (default `desk-2026`, published for the demo). */
  password?: string;
}

export interface Desk {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  port: number;
  store: CaseStore;
  close(): Promise<void>;
}

export const DEMO_PASSWORD = 'desk-2026';
const COOKIE = 'CDSESS';
const MAX_BODY = 16 * 1024;
// Bundled by scripts/build.mjs into dist/demo/casedesk/client.js: beside this file when it runs compiled, under the
// package's dist/ when it runs from its TypeScript source.
const CLIENT = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../../dist/demo/casedesk/client.js' : './client.js', import.meta.url));

const SHELL = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>CaseDesk</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="margin:0;font-family:system-ui,sans-serif">
<cd-app></cd-app>
<script src="/app.js"></script>
</body>
</html>
`;

interface Reply {
  status: number;
  body: string;
  type: string;
  headers?: Record<string, string>;
}

const json = (v: unknown, status = 200, headers?: Record<string, string>): Reply => ({ status, body: JSON.stringify(v), type: 'application/json', ...(headers ? { headers } : {}) });
const problem = (status: number, code: string, message: string): Reply => json({ error: code, message }, status);
const STATUS_OF: Record<string, number> = { NO_SUCH_CASE: 404, ALREADY_CLOSED: 409, DUPLICATE: 409, BAD_TITLE: 422, NO_SUCH_PERSON: 422 };
const answer = (o: Outcome<unknown>, created = false): Reply => (o.ok ? json(o.value, created ? 201 : 200) : problem(STATUS_OF[o.code] ?? 400, o.code, o.message));

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpProblem(413, 'TOO_LARGE', `a request body is at most ${MAX_BODY} bytes`);
    chunks.push(chunk);
  }
  try {
    const v: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    return v as Record<string, unknown>;
  } catch {
    throw new HttpProblem(400, 'BAD_JSON', 'the body must be a JSON object');
  }
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const text = (v: unknown, field: string): string => {
  if (typeof v !== 'string') throw new HttpProblem(422, 'BAD_FIELD', `${field} must be a string`);
  return v;
};

export async function startCaseDesk(opts: DeskOptions = {}): Promise<Desk> {
  const store = new CaseStore();
  const password = opts.password ?? DEMO_PASSWORD;
  const [min, max] = opts.delayMs ?? [300, 3000];
  const next = seeded(opts.seed ?? 20261201);
  const sessions = new Map<string, string>();
  const appJs = await readFile(CLIENT, 'utf8').catch(() => {
    throw new Error(`CASEDESK's client is not built (${CLIENT}): run \`npm run build\``);
  });

  const userOf = (req: IncomingMessage): string | undefined => {
    for (const part of (req.headers.cookie ?? '').split(';')) {
      const [k, v] = part.trim().split('=');
      if (k === COOKIE && v) return sessions.get(v);
    }
    return undefined;
  };

  async function api(req: IncomingMessage, path: string, query: URLSearchParams): Promise<Reply> {
    const method = req.method ?? 'GET';
    if (path === '/api/login' && method === 'POST') {
      const body = await readJson(req);
      const user = text(body['user'], 'user').trim();
      if (!user || text(body['password'], 'password') !== password) return problem(401, 'BAD_LOGIN', 'that user name and password do not match');
      const id = randomBytes(12).toString('hex');
      sessions.set(id, user);
      return json({ user }, 200, { 'Set-Cookie': `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/` });
    }
    const user = userOf(req);
    if (!user) return problem(401, 'NOT_LOGGED_IN', 'log in first');
    if (path === '/api/logout' && method === 'POST') return json({ ok: true }, 200, { 'Set-Cookie': `${COOKIE}=; Max-Age=0; Path=/` });
    if (path === '/api/me' && method === 'GET') return json({ user });
    if (path === '/api/people' && method === 'GET') return json(PEOPLE);
    if (path === '/api/cases' && method === 'GET') {
      const assignee = query.get('assignee');
      return json(assignee === null ? store.list() : store.openOf(assignee));
    }
    if (path === '/api/cases' && method === 'POST') return answer(store.add(text((await readJson(req))['title'], 'title')), true);
    const m = /^\/api\/cases\/(C-\d{4})(\/close)?$/.exec(path);
    if (m?.[1] && m[2] && method === 'POST') return answer(store.close(m[1]));
    if (m?.[1] && !m[2] && method === 'PATCH') {
      const body = await readJson(req);
      if ('title' in body) return answer(store.rename(m[1], text(body['title'], 'title')));
      if ('assignee' in body) return answer(store.assign(m[1], text(body['assignee'], 'assignee')));
      return problem(422, 'NOTHING_TO_CHANGE', 'send a title or an assignee');
    }
    if (m?.[1] && !m[2] && method === 'GET') {
      const c = store.get(m[1]);
      return c ? json(c) : problem(404, 'NO_SUCH_CASE', `no case ${m[1]}`);
    }
    return problem(404, 'NOT_FOUND', `no ${method} ${path}`);
  }

  /** The judge reads the store directly: no session, no delay, never a screen. */
  function judge(method: string, url: URL): Reply {
    const m = /^\/_judge\/cases\/(.+)$/.exec(url.pathname);
    if (m?.[1] && method === 'GET') {
      const facts = store.facts(decodeURIComponent(m[1]));
      return facts ? json(facts) : problem(404, 'NO_SUCH_CASE', `no case ${m[1]}`);
    }
    if (url.pathname === '/_judge/added' && method === 'GET') {
      const title = url.searchParams.get('title') ?? '';
      const found = store.list().filter((c) => c.title === title);
      return json({ title, presses: store.added.get(title) ?? 0, cases: found });
    }
    // The case a title names now (the newest, if a closed one shares it), for a judge that knows cases by title.
    if (url.pathname === '/_judge/titled' && method === 'GET') {
      const title = url.searchParams.get('title') ?? '';
      const c = store.list().filter((x) => x.title === title).at(-1);
      const facts = c ? store.facts(c.id) : undefined;
      return json({ title, exists: facts !== undefined, ...(facts ?? {}) });
    }
    // The open cases of one assignee as the Find cases table shows them, under `rows` in a rows card's column names:
    // the truth a read-only card's rows are verified against (docs/design/authoring.md, "Verifying rows").
    if (url.pathname === '/_judge/open-cases' && method === 'GET') {
      const assignee = url.searchParams.get('assignee') ?? '';
      const rows = store.openOf(assignee).map((c) => ({ id: c.id, title: c.title, assignee: c.assignee ?? UNASSIGNED, status: c.status }));
      return json({ assignee, rows });
    }
    if (url.pathname === '/_judge/reset' && method === 'POST') {
      store.reset();
      return json({ ok: true });
    }
    return problem(404, 'NOT_FOUND', `no judge endpoint ${url.pathname}`);
  }

  async function route(req: IncomingMessage): Promise<Reply> {
    const url = new URL(req.url ?? '/', 'http://casedesk.invalid');
    const method = req.method ?? 'GET';
    if (url.pathname.startsWith('/_judge/')) return judge(method, url);
    if (url.pathname.startsWith('/api/')) {
      const reply = await api(req, url.pathname, url.searchParams);
      await sleep(min + Math.round(next() * Math.max(0, max - min)));
      return reply;
    }
    if (method !== 'GET' && method !== 'HEAD') return problem(405, 'METHOD_NOT_ALLOWED', `${method} ${url.pathname}`);
    if (url.pathname === '/app.js') return { status: 200, body: appJs, type: 'text/javascript; charset=utf-8' };
    // The same app opened on its Find cases view (the client reads the path).
    if (url.pathname === '/' || url.pathname === '/index.html' || url.pathname === '/find') return { status: 200, body: SHELL, type: 'text/html; charset=utf-8' };
    return problem(404, 'NOT_FOUND', `no page ${url.pathname}`);
  }

  const server = createServer((req, res: ServerResponse) => {
    route(req)
      .catch((e: unknown) => (e instanceof HttpProblem ? problem(e.status, e.code, e.message) : problem(500, 'INTERNAL', 'the desk could not answer')))
      .then((reply) => {
        req.resume();
        if (res.destroyed) return;
        res.writeHead(reply.status, { 'Content-Type': reply.type, 'Cache-Control': 'no-store', ...(reply.headers ?? {}) });
        res.end(req.method === 'HEAD' ? undefined : reply.body);
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    store,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
