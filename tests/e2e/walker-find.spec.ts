// Replay finds its target again on the live page: each rung returns every match, inside the recorded scope, in the right frame.
import { test, expect } from '@playwright/test';
import { elementOf, findInFrame, observePage, selectorsOfRef, textOfRef } from '../../runner/browser/observe.ts';
import { walkerSource } from '../../runner/browser/walker-bundle.ts';
import type { FindQuery } from '../../shared/dom/api.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';

let server: FixtureServer;
test.beforeAll(async () => {
  server = await serveFixtures();
});
test.afterAll(async () => {
  await server.close();
});

test('rungs find exactly the recorded control, or say how many match', async ({ page }) => {
  await page.goto(`${server.url}/tricky.html`);
  await page.frameLocator('iframe[name=inner]').getByRole('heading').waitFor();
  const obs = await observePage(page);
  const find = (q: Omit<FindQuery, 'scope'> & { scope?: FindQuery['scope'] }) => findInFrame(page, [], { scope: [], ...q });

  // role + name inside a row: one of three same-named links.
  const cancel = obs.parts[0]!.controls.find((c) => c.name === 'Cancel' && c.scope.at(-1)?.name === 'ORD-1002')!;
  expect(await find({ rung: 'role_name', role: 'link', name: 'Cancel', scope: cancel.scope })).toEqual([cancel.ref]);
  expect(await find({ rung: 'role_name', role: 'link', name: 'Cancel' })).toHaveLength(3);
  expect(await find({ rung: 'role_name', role: 'link', name: 'Cancel', scope: [{ role: 'row', name: 'ORD-9999' }] })).toEqual([]);
  // Names compare after whitespace normalisation, exactly (no substring match).
  expect(await find({ rung: 'role_name', role: 'link', name: '  Deeply   nested link ' })).toHaveLength(1);
  expect(await find({ rung: 'role_name', role: 'link', name: 'Deeply' })).toEqual([]);

  // Named containers scope too.
  expect(await find({ rung: 'role_name', role: 'textbox', name: 'Street' })).toHaveLength(2);
  expect(await find({ rung: 'role_name', role: 'textbox', name: 'Street', scope: [{ role: 'group', name: 'Billing address' }] })).toHaveLength(1);

  // The visual-label rung: a cell to the left, a header cell above.
  const opid = obs.parts[0]!.controls.find((c) => c.hint === 'Operator ID')!;
  expect(await find({ rung: 'label', role: 'textbox', value: 'Operator ID' })).toEqual([opid.ref]);
  expect(await find({ rung: 'label', role: 'textbox', value: 'Amount' })).toHaveLength(1);
  expect(await find({ rung: 'label', role: 'combobox', value: 'Operator ID' })).toEqual([]);

  // Text: the smallest element whose text contains the value; fresh refs resolve and read.
  const result = await find({ rung: 'text', value: 'cancelled' });
  expect(result).toHaveLength(1);
  expect(await textOfRef(page, result[0]!)).toBe('Order ORD-1002 cancelled.');
  expect(await find({ rung: 'text', value: 'ORD-1002' })).toHaveLength(2);
  expect(await find({ rung: 'text', value: 'Display none' })).toEqual([]);

  // CSS, as the dearest rung; a bad selector finds nothing rather than throwing.
  const css = await find({ rung: 'css', value: '#result' });
  expect(css).toEqual(result);
  // The CSS candidates a guard records are derived from the element itself, in its own frame.
  expect(await selectorsOfRef(page, result[0]!)).toEqual(['#result']);
  const [inField] = await findInFrame(page, ['inner'], { rung: 'role_name', role: 'textbox', name: 'Reference', scope: [] });
  expect(await selectorsOfRef(page, inField!)).toEqual(['input[name=ref]']);
  expect(await selectorsOfRef(page, 'nosuchframe|c0')).toEqual([]);
  expect(await find({ rung: 'css', value: '#[' })).toEqual([]);

  // In a child frame.
  const ok = await findInFrame(page, ['inner'], { rung: 'role_name', role: 'button', name: 'OK', scope: [] });
  expect(ok).toEqual(['inner|c1']);
  const handle = await elementOf(page, ok[0]!);
  expect(await handle?.el.evaluate((e) => e.textContent)).toBe('OK');
});

test('evaluating the walker twice keeps refs valid, and a field reads its value', async ({ page }) => {
  await page.goto(`${server.url}/tricky.html`);
  const obs = await observePage(page);
  const qty = obs.parts[0]!.controls.find((c) => c.role === 'spinbutton')!;
  await page.evaluate(await walkerSource());
  expect(await textOfRef(page, qty.ref)).toBe('3');
  const pin = obs.parts[0]!.controls.find((c) => c.name === 'PIN')!;
  await (await elementOf(page, pin.ref))!.el.fill('1234');
  expect(await textOfRef(page, pin.ref)).toBe('');
  expect(JSON.stringify(await observePage(page))).not.toContain('1234');
  expect(await elementOf(page, '|c9999')).toBeNull();
  expect(await elementOf(page, 'nosuchframe|c0')).toBeNull();
  expect(await elementOf(page, '#5|c0')).toBeNull();
});
