// CASEDESK's store and API, the second demo app: every write counted for the judge, refusals typed, the API behind
// a session, delays seeded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, startCaseDesk, type Desk } from '../../demo/casedesk/server.ts';
import { CaseStore } from '../../demo/casedesk/store.ts';

describe('the case store', () => {
  it('adds, renames, assigns and closes, counting each write; a closed case refuses them all', () => {
    const s = new CaseStore();
    const added = s.add('  Burst pipe in a flat  ');
    expect(added).toMatchObject({ ok: true, value: { id: 'C-1005', title: 'Burst pipe in a flat', status: 'open' } });
    expect(s.add('Burst pipe in a flat')).toMatchObject({ ok: false, code: 'DUPLICATE' });
    expect(s.added.get('Burst pipe in a flat')).toBe(2);
    expect(s.rename('C-1001', 'Water damage, 16 Elm Street')).toMatchObject({ ok: true });
    expect(s.assign('C-1001', 'Chidi Eze')).toMatchObject({ ok: true, value: { assignee: 'Chidi Eze' } });
    expect(s.assign('C-1001', 'Mallory')).toMatchObject({ ok: false, code: 'NO_SUCH_PERSON' });
    expect(s.close('C-1001')).toMatchObject({ ok: true, value: { status: 'closed' } });
    expect(s.close('C-1001')).toMatchObject({ ok: false, code: 'ALREADY_CLOSED' });
    expect(s.rename('C-1001', 'x')).toMatchObject({ ok: false, code: 'ALREADY_CLOSED' });
    expect(s.facts('C-1001')?.writes).toEqual({ renames: 1, assigns: 1, closes: 1 });
    expect(s.add('')).toMatchObject({ ok: false, code: 'BAD_TITLE' });
    expect(s.add('x'.repeat(81))).toMatchObject({ ok: false, code: 'BAD_TITLE' });
    s.reset();
    expect(s.get('C-1005')).toBeUndefined();
    expect(s.facts('C-1001')?.writes).toEqual({ renames: 0, assigns: 0, closes: 0 });
  });
});

describe('the desk over HTTP', () => {
  let desk: Desk;
  beforeAll(async () => {
    desk = await startCaseDesk({ delayMs: [0, 5] });
  });
  afterAll(() => desk.close());

  const call = (path: string, init: RequestInit = {}) => fetch(`${desk.url}${path}`, init);
  const post = (path: string, body: unknown, cookie = '') =>
    call(path, { method: 'POST', headers: { 'Content-Type': 'application/json', cookie }, body: JSON.stringify(body) });

  it('serves the shell and the bundled client; the API wants a session', async () => {
    expect(await (await call('/')).text()).toContain('<cd-app>');
    expect(await (await call('/app.js')).text()).toMatch(/customElements\.define\("cd-app"/);
    expect((await call('/api/cases')).status).toBe(401);
    expect((await post('/api/login', { user: 'clerk', password: 'wrong' })).status).toBe(401);
  });

  it('a session adds a case; the judge sees it and the press count; bad bodies are typed refusals', async () => {
    const login = await post('/api/login', { user: 'clerk', password: DEMO_PASSWORD });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const added = await post('/api/cases', { title: 'Fallen tree on a garage' }, cookie);
    expect(added.status).toBe(201);
    const judged = (await (await call(`/_judge/added?title=${encodeURIComponent('Fallen tree on a garage')}`)).json()) as { presses: number; cases: unknown[] };
    expect(judged).toMatchObject({ presses: 1, cases: [{ status: 'open' }] });
    const bad = await call('/api/cases', { method: 'POST', headers: { cookie }, body: '{nope' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'BAD_JSON' });
    const closed = await post('/api/cases/C-1004/close', {}, cookie);
    expect(closed.status).toBe(409);
    expect(await closed.json()).toMatchObject({ error: 'ALREADY_CLOSED' });
    expect((await call('/_judge/cases/C-1004')).status).toBe(200);
    expect((await call('/_judge/cases/C-9999')).status).toBe(404);
    expect((await (await call('/_judge/reset', { method: 'POST' })).json())).toEqual({ ok: true });
  });
});
