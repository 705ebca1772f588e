// PLUMBLINE's web front end: the mock bank's HTTP server on 127.0.0.1.
// Built on node:http with no framework: a dozen fixed routes, form bodies and one cookie do
// not need one, and a framework would add behaviour (content negotiation, error pages) we
// would then have to keep out of a deliberately 1990s app.
// Every handler is wrapped: a bad request gets a mainframe-style error page, never a crash.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Drift } from './pages.ts';
import { startGreenScreen, type GreenScreen } from './green/server.ts';
import { listenOn } from './listen.ts';
import * as pages from './pages.ts';
import { HoldReason, REMARKS, StatementCycle, Store, UnknownShareError } from './store.ts';

export { Drift } from './pages.ts';
export { Store } from './store.ts';

export interface BankOptions {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** A fixed delay before every response (the green screen's too), so a client's settling is exercised honestly. */
  latencyMs?: number;
  /** The drift for every session that does not choose its own with /signon?drift=KIND. */
  drift?: Drift;
  /** Demo-only: overrides PLUMBLINE_PASSWORD and the published demo password. */
  operatorPassword?: string;
  /** The notes desk's F6=Add Note button: inert (the default: a note is added with Enter only) or a real submit. */
  notesButton?: 'inert' | 'submit';
  /** Also start the green screen (a TN3270 host, ./green/server.ts) on the same Store, so one judge sees both. */
  terminal?: boolean;
  /** The green screen's port when `terminal` is set; 0 (the default) picks a free port. */
  terminalPort?: number;
}

export interface Bank {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  port: number;
  store: Store;
  /** tn3270://127.0.0.1:PORT when started with `terminal: true`. */
  terminalUrl?: string;
  close(): Promise<void>;
}

interface Session { opid: string; branch: string; drift: Drift }

interface Reply {
  status: number;
  body: string | Buffer;
  type?: string;
  headers?: Record<string, string | string[]>;
}

const SESSION_COOKIE = 'PLUMBSESS';
const DRIFT_COOKIE = 'PLUMBDRIFT';
const MAX_BODY = 64 * 1024;
// A 1x1 GIF89a, shown stretched: the logo only has to be an <img>, not art.
const LOGO = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

class BadRequest extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

const html = (body: string, status = 200, headers?: Record<string, string | string[]>): Reply =>
  headers ? { status, body, type: 'text/html; charset=utf-8', headers } : { status, body, type: 'text/html; charset=utf-8' };
const json = (value: unknown, status = 200): Reply => ({ status, body: JSON.stringify(value), type: 'application/json' });
const redirect = (location: string, headers: Record<string, string | string[]> = {}): Reply => ({
  status: 303,
  body: '',
  headers: { Location: location, ...headers },
});
const errorReply = (status: number, code: string, message: string): Reply => html(pages.errorPage(code, message), status);

function cookies(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  return out;
}

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  // Plain events rather than `for await`: leaving an async iterator early destroys the socket,
  // and an oversized form should still get its error page.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size <= MAX_BODY) chunks.push(b);
    });
    req.on('end', () => {
      if (size > MAX_BODY) reject(new BadRequest(413, 'ERR 413', 'REQUEST TOO LARGE'));
      else resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', reject);
  });
}

function parseDrift(value: string | null | undefined): Drift | undefined {
  const r = Drift.safeParse(value);
  return r.success ? r.data : undefined;
}

export async function startBank(opts: BankOptions = {}): Promise<Bank> {
  const host = opts.host ?? '127.0.0.1';
  const latencyMs = Math.max(0, opts.latencyMs ?? 0);
  const defaultDrift = opts.drift ?? 'none';
  const store = new Store(opts.operatorPassword === undefined ? {} : { operatorPassword: opts.operatorPassword });
  const sessions = new Map<string, Session>();

  const sessionOf = (req: IncomingMessage): Session | undefined => {
    const id = cookies(req).get(SESSION_COOKIE);
    return id ? sessions.get(id) : undefined;
  };

  async function route(req: IncomingMessage, url: URL): Promise<Reply> {
    const method = req.method ?? 'GET';
    const path = url.pathname;

    if (path.startsWith('/_judge/')) return judge(method, path);

    const allow = (methods: string[]): Reply | undefined =>
      methods.includes(method)
        ? undefined
        : { ...errorReply(405, 'ERR 405', `METHOD ${method} NOT ALLOWED FOR ${path.toUpperCase()}`), headers: { Allow: methods.join(', ') } };

    switch (path) {
      case '/':
        return allow(['GET']) ?? redirect('/signon');
      case '/logo.gif':
        return allow(['GET']) ?? { status: 200, body: LOGO, type: 'image/gif' };
      case '/signon':
        return allow(['GET', 'POST']) ?? (method === 'GET' ? signonGet(req, url) : signonPost(req));
      case '/notes':
        return allow(['GET', 'POST']) ?? (method === 'GET' ? notesGet(url) : notesPost(await readForm(req)));
      case '/prefs':
        return allow(['GET']) ?? prefsGet(url);
      case '/audit': {
        // The `stray` drift's member page posts here as it loads; the judge counts what arrived (/_judge/audit).
        const bad = allow(['POST']);
        if (bad) return bad;
        await readForm(req);
        store.countAudit();
        return { status: 204, body: '' };
      }
      case '/prefs/flag':
      case '/prefs/paperless':
      case '/prefs/cycle':
      case '/prefs/nickname':
        return allow(['POST']) ?? prefsPost(path, await readForm(req));
      case '/signoff': {
        const bad = allow(['GET']);
        if (bad) return bad;
        const id = cookies(req).get(SESSION_COOKIE);
        if (id) sessions.delete(id);
        return redirect('/signon', { 'Set-Cookie': `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0` });
      }
    }

    const workRoutes: Record<string, string> = {
      '/desk': 'GET', '/nav': 'GET', '/inquiry': 'GET', '/results': 'GET', '/member': 'GET', '/hold': 'GET',
      '/review': 'POST', '/post': 'POST',
    };
    const want = workRoutes[path];
    if (want === undefined) return errorReply(404, 'ERR 404', `TRANSACTION ${path.toUpperCase()} NOT FOUND`);
    const bad = allow([want]);
    if (bad) return bad;
    const session = sessionOf(req);
    // Every work page needs a signed-on operator; /post in particular records nothing without one.
    if (!session) return redirect('/signon');

    switch (path) {
      case '/desk':
        return html(pages.deskPage());
      case '/nav':
        return html(pages.navPage(session.opid, session.branch));
      case '/inquiry':
        return html(pages.inquiryPage());
      case '/results':
        return results(url);
      case '/member':
        return member(url.searchParams.get('m') ?? '', session);
      case '/hold': {
        const asked = store.share(url.searchParams.get('share') ?? '');
        // The `wrong_share` drift: the form of the member's next share opens instead of the one asked for.
        const siblings = asked && session.drift === 'wrong_share' ? store.sharesOf(asked.member) : [];
        const share = siblings.length > 1 && asked ? siblings[(siblings.findIndex((x) => x.id === asked.id) + 1) % siblings.length] : asked;
        return share ? html(pages.holdPage(share)) : errorReply(404, 'ERR 404', 'SHARE NOT ON FILE');
      }
      case '/review':
        return review(await readForm(req));
      default:
        return post(await readForm(req), session);
    }
  }

  function signonGet(req: IncomingMessage, url: URL): Reply {
    const asked = url.searchParams.get('drift');
    if (asked !== null) {
      const drift = parseDrift(asked);
      if (!drift) return errorReply(400, 'ERR 400', `UNKNOWN DRIFT ${asked.toUpperCase()} (USE ${Drift.options.join(', ').toUpperCase()})`);
      return html(pages.signonPage(store.branches, { banner: drift === 'banner' }), 200, {
        'Set-Cookie': `${DRIFT_COOKIE}=${drift}; Path=/; HttpOnly; SameSite=Lax`,
      });
    }
    return html(pages.signonPage(store.branches, { banner: driftBeforeSignon(req) === 'banner' }));
  }

  function driftBeforeSignon(req: IncomingMessage): Drift {
    return parseDrift(cookies(req).get(DRIFT_COOKIE)) ?? defaultDrift;
  }

  async function signonPost(req: IncomingMessage): Promise<Reply> {
    const form = await readForm(req);
    const opid = form.get('opid') ?? '';
    const branch = form.get('branch') ?? '';
    const drift = driftBeforeSignon(req);
    const again = (error: string): Reply =>
      html(pages.signonPage(store.branches, { banner: drift === 'banner', error, opid }));
    if (!store.checkOperator(opid, form.get('pwd') ?? '')) return again('INVALID OPERATOR ID OR PASSWORD');
    if (!store.isBranch(branch)) return again('INVALID BRANCH');
    const id = randomBytes(18).toString('base64url');
    sessions.set(id, { opid: opid.trim().toUpperCase(), branch, drift });
    return redirect('/desk', { 'Set-Cookie': `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax` });
  }

  function notesGet(url: URL): Reply {
    const m = store.member(url.searchParams.get('m') ?? '');
    if (!m) return errorReply(404, 'ERR 404', 'MEMBER NOT ON FILE');
    return html(pages.notesPage(m.number, store.notesOf(m.number), { addButton: opts.notesButton ?? 'inert' }));
  }

  function notesPost(form: URLSearchParams): Reply {
    const m = store.member(form.get('m') ?? '');
    if (!m) return errorReply(404, 'ERR 404', 'MEMBER NOT ON FILE');
    const note = (form.get('note') ?? '').trim().slice(0, 60);
    if (note) store.addNote(m.number, note);
    return redirect(`/notes?m=${encodeURIComponent(m.number)}`);
  }

  function prefsGet(url: URL): Reply {
    const m = store.member(url.searchParams.get('m') ?? '');
    if (!m) return errorReply(404, 'ERR 404', 'MEMBER NOT ON FILE');
    return html(pages.prefsPage(m.number, store.prefsOf(m.number), REMARKS[m.number]));
  }

  function prefsPost(path: string, form: URLSearchParams): Reply {
    const m = store.member(form.get('m') ?? '');
    if (!m) return errorReply(404, 'ERR 404', 'MEMBER NOT ON FILE');
    const now = store.prefsOf(m.number);
    switch (path) {
      case '/prefs/flag':
        store.changePrefs(m.number, 'flag', { statementsSent: now.statementsSent + 1 });
        break;
      case '/prefs/paperless':
        store.changePrefs(m.number, 'paperless', { paperless: form.get('on') === '1' });
        break;
      case '/prefs/cycle': {
        const cycle = StatementCycle.safeParse(form.get('cycle'));
        if (!cycle.success) return errorReply(400, 'ERR 400', 'INVALID STATEMENT CYCLE');
        store.changePrefs(m.number, 'cycle', { cycle: cycle.data });
        break;
      }
      default:
        store.changePrefs(m.number, 'nickname', { nickname: (form.get('nickname') ?? '').trim().toUpperCase().slice(0, 20) });
    }
    return redirect(`/prefs?m=${encodeURIComponent(m.number)}`);
  }

  function results(url: URL): Reply {
    const by = url.searchParams.get('by') ?? 'number';
    const value = (url.searchParams.get('value') ?? '').trim();
    if (by !== 'number' && by !== 'name') return html(pages.inquiryPage({ error: 'INVALID SEARCH TYPE', value }));
    if (!value) return html(pages.inquiryPage({ error: 'ENTER A SEARCH VALUE', by }));
    if (by === 'number' && !/^\d{6}$/.test(value)) {
      return html(pages.inquiryPage({ error: 'MEMBER NUMBER MUST BE 6 DIGITS', by, value }));
    }
    const found = by === 'name' ? store.searchByName(value) : store.searchByNumber(value);
    return html(pages.resultsPage(found, by, value));
  }

  function member(number: string, session: Session): Reply {
    const m = store.member(number);
    if (!m) return errorReply(404, 'ERR 404', 'MEMBER NOT ON FILE');
    const status = (id: string): string => {
      const h = store.hold(id);
      return h ? `HELD ${h.reason}` : 'ACTIVE';
    };
    return html(pages.memberPage(m, store.sharesOf(m.number), status, { stray: session.drift === 'stray' }));
  }

  function review(form: URLSearchParams): Reply {
    const share = store.share(form.get('share') ?? '');
    if (!share) return errorReply(404, 'ERR 404', 'SHARE NOT ON FILE');
    const rawReason = form.get('reason') ?? '';
    const note = (form.get('note') ?? '').slice(0, 60);
    if (!rawReason) return html(pages.holdPage(share, { error: 'REASON IS REQUIRED', note }));
    const reason = HoldReason.safeParse(rawReason);
    if (!reason.success) return html(pages.holdPage(share, { error: 'INVALID REASON CODE', note }));
    return html(pages.reviewPage(share, reason.data, note));
  }

  function post(form: URLSearchParams, session: Session): Reply {
    const share = store.share(form.get('share') ?? '');
    if (!share) return errorReply(404, 'ERR 404', 'SHARE NOT ON FILE');
    const reason = HoldReason.safeParse(form.get('reason'));
    if (!reason.success) {
      store.countPress(share.id);
      return html(pages.resultPage({ kind: 'refused', share, why: 'INVALID REASON CODE' }, session.drift));
    }
    const outcome = store.postHold(share.id, reason.data, (form.get('note') ?? '').slice(0, 60), session.opid);
    switch (outcome.kind) {
      case 'posted':
        return html(pages.resultPage({ kind: 'posted', share, reason: reason.data, confirmation: outcome.confirmation }, session.drift));
      case 'already_held':
        return html(pages.resultPage({ kind: 'already_held', share, reason: outcome.reason }, session.drift));
      case 'unknown_share':
        return errorReply(404, 'ERR 404', 'SHARE NOT ON FILE');
    }
  }

  /** The judge's API: JSON only, no session, never a screen. */
  function judge(method: string, path: string): Reply {
    const holdPrefix = '/_judge/holds/';
    if (path.startsWith(holdPrefix)) {
      if (method !== 'GET') return json({ error: 'METHOD_NOT_ALLOWED', message: `${method} ${path}: use GET` }, 405);
      let id: string;
      try {
        id = decodeURIComponent(path.slice(holdPrefix.length));
      } catch {
        return json({ error: 'BAD_SHARE_ID', message: 'share id is not valid percent-encoding' }, 400);
      }
      try {
        return json(store.holdFor(id));
      } catch (e) {
        if (e instanceof UnknownShareError) return json({ error: e.code, message: e.message }, 404);
        throw e;
      }
    }
    const notesPrefix = '/_judge/notes/';
    if (path.startsWith(notesPrefix)) {
      if (method !== 'GET') return json({ error: 'METHOD_NOT_ALLOWED', message: `${method} ${path}: use GET` }, 405);
      const member = path.slice(notesPrefix.length);
      if (!store.member(member)) return json({ error: 'UNKNOWN_MEMBER', message: `no member ${member}` }, 404);
      return json(store.notesFor(member));
    }
    // A member's shares as the store has them (for checking a rows output: docs/design/capability.md, "Rows as outputs").
    const sharesPrefix = '/_judge/shares/';
    if (path.startsWith(sharesPrefix)) {
      if (method !== 'GET') return json({ error: 'METHOD_NOT_ALLOWED', message: `${method} ${path}: use GET` }, 405);
      const member = path.slice(sharesPrefix.length);
      if (!store.member(member)) return json({ error: 'UNKNOWN_MEMBER', message: `no member ${member}` }, 404);
      return json(store.sharesOf(member).map((sh) => ({ id: sh.id, type: sh.type, balance_cents: sh.balanceCents, hold: store.hold(sh.id)?.reason ?? null })));
    }
    // The same shares as a judge of a read-only card holds them (docs/design/authoring.md, "Verifying rows"): in the
    // card's column names and the screen's words, under `rows`.
    const shareRowsPrefix = '/_judge/share-rows/';
    if (path.startsWith(shareRowsPrefix)) {
      if (method !== 'GET') return json({ error: 'METHOD_NOT_ALLOWED', message: `${method} ${path}: use GET` }, 405);
      const member = path.slice(shareRowsPrefix.length);
      if (!store.member(member)) return json({ error: 'UNKNOWN_MEMBER', message: `no member ${member}` }, 404);
      const rows = store.sharesOf(member).map((sh) => {
        const hold = store.hold(sh.id)?.reason;
        return { share_id: sh.id, type: sh.type, balance: pages.money(sh.balanceCents), status: hold ? `HELD ${hold}` : 'ACTIVE' };
      });
      return json({ member, rows });
    }
    const prefsPrefix = '/_judge/prefs/';
    if (path.startsWith(prefsPrefix)) {
      if (method !== 'GET') return json({ error: 'METHOD_NOT_ALLOWED', message: `${method} ${path}: use GET` }, 405);
      const member = path.slice(prefsPrefix.length);
      if (!store.member(member)) return json({ error: 'UNKNOWN_MEMBER', message: `no member ${member}` }, 404);
      return json(store.prefsFor(member));
    }
    if (path === '/_judge/audit') {
      if (method !== 'GET') return json({ error: 'METHOD_NOT_ALLOWED', message: `${method} ${path}: use GET` }, 405);
      return json(store.auditsFor());
    }
    if (path === '/_judge/reset') {
      if (method !== 'POST') return json({ error: 'METHOD_NOT_ALLOWED', message: `${method} ${path}: use POST` }, 405);
      store.reset();
      return json({ ok: true });
    }
    return json({ error: 'NOT_FOUND', message: `no judge endpoint ${path}` }, 404);
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let reply: Reply;
    try {
      const url = new URL(req.url ?? '/', 'http://plumbline.invalid');
      reply = await route(req, url);
    } catch (e) {
      reply =
        e instanceof BadRequest
          ? errorReply(e.status, e.code, e.message)
          : errorReply(500, 'ERR 500', 'SYSTEM ERROR - TRANSACTION ABENDED');
    }
    // Drain an unread body so keep-alive connections stay usable.
    req.resume();
    if (latencyMs > 0) await sleep(latencyMs);
    if (res.destroyed) return;
    const headers: Record<string, string | string[]> = { 'Cache-Control': 'no-store', ...(reply.headers ?? {}) };
    if (reply.type) headers['Content-Type'] = reply.type;
    res.writeHead(reply.status, headers);
    res.end(req.method === 'HEAD' ? undefined : reply.body);
  }

  const server = createServer((req, res) => {
    dispatch(req, res).catch(() => {
      // dispatch already turns every failure into a page; this only guards a failed socket write.
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end();
    });
  });

  const { port, authority } = await listenOn(server, opts.port ?? 0, host);
  const closeWeb = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeAllConnections();
    });

  let green: GreenScreen | undefined;
  if (opts.terminal) {
    try {
      green = await startGreenScreen({ store, host, port: opts.terminalPort ?? 0, latencyMs });
    } catch (e) {
      await closeWeb();
      throw e;
    }
  }
  const bank: Bank = {
    url: `http://${authority}`,
    port,
    store,
    close: async () => {
      await Promise.all([closeWeb(), green?.close()]);
    },
  };
  if (green) bank.terminalUrl = green.url;
  return bank;
}
