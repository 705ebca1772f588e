// PLUMBLINE's record store tells the truth about holds (seeded, posted, already held, every Post press counted, reset), and its judge API and sign-on guard say the same over HTTP.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Store, UnknownShareError } from '../../demo/plumbline/store.ts';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';

const PASSWORD = 'test-only-pw';

describe('record store', () => {
  it('seeds the members and shares the demo names, with 400226-S0002 already under a LEGAL hold', () => {
    const s = new Store({ operatorPassword: PASSWORD });
    expect(s.sharesOf('400118').map((x) => x.id)).toEqual(['400118-S0001', '400118-S0005']);
    expect(s.sharesOf('400337').map((x) => x.id)).toEqual(['400337-S0001']);
    expect(s.sharesOf('400445').map((x) => x.id)).toEqual(['400445-S0001']);
    expect(s.sharesOf('400226').map((x) => x.id)).toEqual(['400226-S0002']);
    expect(s.holdFor('400226-S0002')).toEqual({ held: true, reason: 'LEGAL', confirmation: 'HX-226002', postPresses: 0 });
    expect(s.holdFor('400118-S0005')).toEqual({ held: false, reason: null, confirmation: null, postPresses: 0 });
  });

  it('is deterministic: two stores hold the same members and shares', () => {
    const a = new Store({ operatorPassword: PASSWORD });
    const b = new Store({ operatorPassword: PASSWORD });
    expect(a.searchByName(',')).toEqual(b.searchByName(','));
    expect(a.searchByName(',').length).toBeGreaterThanOrEqual(40);
    const many = a.searchByName(',').filter((m) => a.sharesOf(m.number).length >= 8);
    expect(many.length).toBeGreaterThan(0);
  });

  it('finds several members for a common surname, ignoring case', () => {
    const s = new Store({ operatorPassword: PASSWORD });
    const rows = s.searchByName('marsh');
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.every((m) => m.name.startsWith('MARSH'))).toBe(true);
    expect(rows.map((m) => m.number)).toContain('400118');
    expect(s.searchByName('zzzz')).toEqual([]);
  });

  it('posts a hold once, refuses a second one as already held, and counts both presses', () => {
    const s = new Store({ operatorPassword: PASSWORD });
    const first = s.postHold('400118-S0005', 'LEGAL', '', 'OP1001');
    expect(first.kind).toBe('posted');
    const confirmation = first.kind === 'posted' ? first.confirmation : '';
    expect(confirmation).toMatch(/^HX-\d{6}$/);
    expect(s.holdFor('400118-S0005')).toEqual({ held: true, reason: 'LEGAL', confirmation, postPresses: 1 });
    expect(s.postHold('400118-S0005', 'FRAUD_REVIEW', '', 'OP1001')).toEqual({ kind: 'already_held', reason: 'LEGAL' });
    expect(s.holdFor('400118-S0005')).toEqual({ held: true, reason: 'LEGAL', confirmation, postPresses: 2 });
    expect(s.holdFor('400118-S0001').postPresses).toBe(0);
  });

  it('reset returns to the seed: posted holds gone, seeded hold back, presses zero', () => {
    const s = new Store({ operatorPassword: PASSWORD });
    s.postHold('400118-S0005', 'LEGAL', '', 'OP1001');
    s.postHold('400226-S0002', 'OTHER', '', 'OP1001');
    s.reset();
    expect(s.holdFor('400118-S0005')).toEqual({ held: false, reason: null, confirmation: null, postPresses: 0 });
    expect(s.holdFor('400226-S0002')).toEqual({ held: true, reason: 'LEGAL', confirmation: 'HX-226002', postPresses: 0 });
  });

  it('refuses to answer about a share that does not exist, with a code', () => {
    const s = new Store({ operatorPassword: PASSWORD });
    expect(() => s.holdFor('999999-S0001')).toThrow(UnknownShareError);
    expect(s.postHold('999999-S0001', 'LEGAL', '', 'OP1001')).toEqual({ kind: 'unknown_share' });
  });

  it('accepts only the demo operator with the configured password', () => {
    const s = new Store({ operatorPassword: PASSWORD });
    expect(s.checkOperator('OP1001', PASSWORD)).toBe(true);
    expect(s.checkOperator('op1001', PASSWORD)).toBe(true);
    expect(s.checkOperator('OP1001', 'wrong')).toBe(false);
    expect(s.checkOperator('OP9999', PASSWORD)).toBe(false);
  });
});

describe('bank over HTTP', () => {
  let bank: Bank;
  beforeAll(async () => {
    bank = await startBank({ port: 0, operatorPassword: PASSWORD });
  });
  afterAll(async () => {
    await bank.close();
  });
  beforeEach(async () => {
    const r = await fetch(`${bank.url}/_judge/reset`, { method: 'POST' });
    expect(await r.json()).toEqual({ ok: true });
  });

  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual' as const,
  });

  async function signOn(): Promise<string> {
    const r = await fetch(`${bank.url}/signon`, form({ opid: 'OP1001', pwd: PASSWORD, branch: '01' }));
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/desk');
    const cookie = r.headers.getSetCookie().find((c) => c.startsWith('PLUMBSESS='));
    expect(cookie).toMatch(/HttpOnly/);
    return (cookie ?? '').split(';')[0] ?? '';
  }

  it('listens on 127.0.0.1 on the port it reports', () => {
    expect(bank.url).toBe(`http://127.0.0.1:${bank.port}`);
    expect(bank.port).toBeGreaterThan(0);
  });

  it('judge reports a share as JSON, and 404 JSON for an unknown share', async () => {
    const ok = await fetch(`${bank.url}/_judge/holds/400226-S0002`);
    expect(ok.headers.get('content-type')).toBe('application/json');
    expect(await ok.json()).toEqual({ held: true, reason: 'LEGAL', confirmation: 'HX-226002', postPresses: 0 });
    const missing = await fetch(`${bank.url}/_judge/holds/400118-S9999`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'UNKNOWN_SHARE' });
  });

  it('refuses a wrong password with the error line and no session cookie', async () => {
    const r = await fetch(`${bank.url}/signon`, form({ opid: 'OP1001', pwd: 'not-it', branch: '01' }));
    expect(r.status).toBe(200);
    expect(r.headers.getSetCookie().some((c) => c.startsWith('PLUMBSESS='))).toBe(false);
    expect(await r.text()).toContain('INVALID OPERATOR ID OR PASSWORD');
  });

  it('will not post a hold without a session, and counts no press', async () => {
    const r = await fetch(`${bank.url}/post`, form({ share: '400118-S0005', reason: 'LEGAL', note: '' }));
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/signon');
    expect(await (await fetch(`${bank.url}/_judge/holds/400118-S0005`)).json()).toEqual({
      held: false, reason: null, confirmation: null, postPresses: 0,
    });
  });

  it('posts with a session, then refuses the same share and counts both presses', async () => {
    const cookie = await signOn();
    const post = () => fetch(`${bank.url}/post`, { ...form({ share: '400118-S0005', reason: 'LEGAL', note: '' }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } });
    const first = await (await post()).text();
    const conf = /id="result"><b>HOLD POSTED CONFIRMATION (HX-\d{6})</.exec(first)?.[1];
    expect(conf).toMatch(/^HX-\d{6}$/);
    const second = await (await post()).text();
    expect(second).toContain('HOLD NOT POSTED: SHARE ALREADY HELD (LEGAL)');
    expect(await (await fetch(`${bank.url}/_judge/holds/400118-S0005`)).json()).toEqual({
      held: true, reason: 'LEGAL', confirmation: conf, postPresses: 2,
    });
  });

  it('redirects every work page to sign-on without a session', async () => {
    for (const path of ['/desk', '/nav', '/inquiry', '/results?by=number&value=400118', '/member?m=400118', '/hold?share=400118-S0005']) {
      const r = await fetch(`${bank.url}${path}`, { redirect: 'manual' });
      expect([path, r.status, r.headers.get('location')]).toEqual([path, 303, '/signon']);
    }
  });

  it('answers bad requests with a mainframe error page and keeps serving', async () => {
    const cookie = await signOn();
    const get = (path: string, init: RequestInit = {}) => fetch(`${bank.url}${path}`, { ...init, headers: { cookie }, redirect: 'manual' });
    const member = await get('/member?m=999999');
    expect(member.status).toBe(404);
    expect(await member.text()).toContain('MEMBER NOT ON FILE');
    const share = await get('/hold?share=400118-S0099');
    expect(share.status).toBe(404);
    expect(await share.text()).toContain('SHARE NOT ON FILE');
    const method = await get('/post');
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toBe('POST');
    expect(await method.text()).toContain('<title>PLUMBLINE - ERR 405</title>');
    expect((await get('/member?m=%E0%A4%A')).status).toBe(404);
    expect((await get('/_judge/holds/%E0%A4%A')).status).toBe(400);
    expect((await get('/nowhere')).status).toBe(404);
    const big = await fetch(`${bank.url}/review`, { method: 'POST', headers: { cookie }, body: 'x'.repeat(200_000) });
    expect(big.status).toBe(413);
    expect((await get('/inquiry')).status).toBe(200);
  });

  it('sends a missing reason back to the hold form with an error line', async () => {
    const cookie = await signOn();
    const r = await fetch(`${bank.url}/review`, { ...form({ share: '400118-S0005', reason: '', note: '' }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } });
    const text = await r.text();
    expect(text).toContain('PLACE ACCOUNT HOLD');
    expect(text).toContain('REASON IS REQUIRED');
  });

  it('escapes what the user typed', async () => {
    const cookie = await signOn();
    const r = await fetch(`${bank.url}/review`, { ...form({ share: '400118-S0005', reason: 'LEGAL', note: '<script>x</script>' }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } });
    const text = await r.text();
    expect(text).not.toContain('<script>');
    expect(text).toContain('&#60;script&#62;');
  });
});

describe('bank options', () => {
  it('the drift option puts the banner on the sign-on page; ?drift=none takes it off for that browser', async () => {
    const bank = await startBank({ port: 0, drift: 'banner', operatorPassword: PASSWORD });
    try {
      expect(await (await fetch(`${bank.url}/signon`)).text()).toContain('SYSTEM NOTICE');
      const none = await fetch(`${bank.url}/signon?drift=none`);
      expect(await none.text()).not.toContain('SYSTEM NOTICE');
      expect((await fetch(`${bank.url}/signon?drift=sideways`)).status).toBe(400);
    } finally {
      await bank.close();
    }
  });
});
