// Every write is seen: on PLUMBLINE's preferences desk a link that posts, a toggle and a select that submit when
// changed, and a field that submits on Enter each change the store without a button — and the browser surface
// reports each as a write, holds it while a gate is asked, and stops it when the gate says no.
import { expect, test } from '@playwright/test';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import type { Control } from '../../shared/schema/observation.ts';
import type { WriteScope } from '../../shared/writes.ts';

let bank: Bank;
test.beforeAll(async () => {
  bank = await startBank({ port: 0 });
});
test.afterAll(async () => {
  await bank.close();
});

const MEMBER = '400118';

async function controlOf(surface: BrowserSurface, role: string, name: string): Promise<Control> {
  const obs = await surface.observe();
  const all = obs.parts.flatMap((p) => p.controls);
  const c = all.find((x) => x.role === role && (x.name === name || x.hint === name));
  if (!c) throw new Error(`no ${role} '${name}' among ${all.map((x) => `${x.role} '${x.name ?? x.hint ?? ''}'`).join(', ')}`);
  return c;
}

const ACTIONS = [
  { what: 'a link that posts', role: 'link', name: 'Send Statement Now', op: { verb: 'invoke' as const }, path: '/prefs/flag', kind: 'flag' },
  { what: 'an auto-submitting toggle', role: 'checkbox', name: 'Paperless', op: { verb: 'toggle' as const }, path: '/prefs/paperless', kind: 'paperless' },
  { what: 'an auto-submitting select', role: 'combobox', name: 'Statement Cycle', op: { verb: 'select' as const, value: 'ANNUAL' }, path: '/prefs/cycle', kind: 'cycle' },
  { what: 'an Enter-submitting form', role: 'textbox', name: 'Nickname', op: { verb: 'set_value' as const, value: 'Sunny' }, path: '/prefs/nickname', kind: 'nickname' },
] as const;

async function writesOf(member: string): Promise<Record<string, number>> {
  return ((await (await fetch(`${bank.url}/_judge/prefs/${member}`)).json()) as { writes: Record<string, number> }).writes;
}

const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

for (const a of ACTIONS) {
  test(`${a.what} is reported as a write, and a gate that says no keeps it from the store`, async () => {
    const scope: WriteScope = { origins: [bank.url], ignore: [] };
    const surface = await BrowserSurface.launch();
    try {
      await surface.open(`${bank.url}/prefs?m=${MEMBER}`);
      // Watched without a gate (replay): the write goes out and is reported.
      const before = await writesOf(MEMBER);
      await surface.watchWrites(scope);
      await surface.act((await controlOf(surface, a.role, a.name)).ref, a.op);
      await settle(500);
      const seen = await surface.takeWrites();
      expect(seen).toEqual([{ method: 'POST', url: `${bank.url}${a.path}`, via: 'form', fate: 'unasked' }]);
      expect((await writesOf(MEMBER))[a.kind]).toBe((before[a.kind] ?? 0) + 1);
      // Held behind a gate that says no: asked once, stopped, the store unchanged.
      await surface.open(`${bank.url}/prefs?m=${MEMBER}`);
      const asked: string[] = [];
      await surface.watchWrites(scope, (w) => {
        asked.push(`${w.method} ${w.url}`);
        return Promise.resolve(false);
      });
      const op = a.op.verb === 'select' ? { verb: 'select' as const, value: 'QUARTERLY' } : a.op.verb === 'set_value' ? { ...a.op, value: 'Rainy' } : a.op;
      await surface.act((await controlOf(surface, a.role, a.name)).ref, op);
      await settle(500);
      const held = await surface.takeWrites();
      expect(asked).toEqual([`POST ${bank.url}${a.path}`]);
      expect(held.map((w) => w.fate)).toEqual(['blocked']);
      expect((await writesOf(MEMBER))[a.kind]).toBe((before[a.kind] ?? 0) + 1);
    } finally {
      await surface.close();
    }
  });
}

test('reads and navigation are not writes, nor are requests to other origins or ignored endpoints', async () => {
  const surface = await BrowserSurface.launch();
  try {
    await surface.open(`${bank.url}/prefs?m=${MEMBER}`);
    await surface.watchWrites({ origins: [bank.url], ignore: ['POST /prefs/flag'] });
    await surface.act((await controlOf(surface, 'link', 'Send Statement Now')).ref, { verb: 'invoke' });
    await settle(500);
    await surface.page.evaluate(() => fetch('/prefs?m=400118').then(() => undefined));
    await surface.page.evaluate(() => fetch('http://localhost:9/elsewhere', { method: 'POST' }).catch(() => undefined));
    expect(await surface.takeWrites()).toEqual([]);
  } finally {
    await surface.close();
  }
});
