// The walker names every control the way Chromium does: Playwright's getByRole, in the control's frame and scope, finds exactly it.
import { randomBytes } from 'node:crypto';
import { test, expect, type Frame, type Locator, type Page } from '@playwright/test';
import { frameAt } from '../../runner/browser/frames.ts';
import { elementOf, observePage } from '../../runner/browser/observe.ts';
import { frameKey, parseRef } from '../../shared/ref.ts';
import { LANDMARK_ROLES } from '../../shared/dom/scopes.ts';
import { VERBS_BY_ROLE } from '../../shared/dom/walk.ts';
import type { Control, Observation, ScopeLink } from '../../shared/schema/observation.ts';
import { startBank } from '../../demo/plumbline/server.ts';
import { serveFixtures } from '../fixtures/server.ts';

type AriaRole = Parameters<Frame['getByRole']>[0];

/**
 * Deliberate differences from getByRole, each with its reason. Empty today: a mismatch not listed here fails.
 * (Controls with an empty name are still checked: getByRole(role, { name: '' }) must count them exactly.)
 */
const DELIBERATE: ReadonlyArray<{ role: string; name: string; why: string }> = [];

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The scope chain as Playwright locators, independent of the walker: rows by a cell's exact text, containers by role and name. */
function scopeLocator(frame: Frame, scope: readonly ScopeLink[]): Locator {
  let loc = frame.locator(':root');
  for (const link of scope) {
    if (link.role === 'frame') continue;
    if (link.role === 'row') {
      const cell = frame.locator('td, th').filter({ hasText: new RegExp(`^\\s*${escapeRegex(link.name)}\\s*$`) });
      loc = loc.locator('tr').filter({ has: cell });
    } else if (link.role === 'landmark') {
      // A landmark named by its role (unnamed), else any landmark role with that accessible name.
      const named = [...LANDMARK_ROLES].map((r) => loc.getByRole(r as AriaRole, { name: link.name, exact: true }));
      loc = LANDMARK_ROLES.has(link.name) ? loc.getByRole(link.name as AriaRole) : named.reduce((a, b) => a.or(b));
    } else {
      loc = loc.getByRole(link.role, { name: link.name, exact: true });
    }
  }
  return loc;
}

function inFrameScope(c: Control): ScopeLink[] {
  return c.scope.filter((l) => l.role !== 'frame');
}

function startsWith(scope: readonly ScopeLink[], prefix: readonly ScopeLink[]): boolean {
  return prefix.every((l, i) => scope[i]?.role === l.role && scope[i]?.name === l.name);
}

interface Checked {
  controls: number;
  mismatches: string[];
}

async function checkAgainstOracle(page: Page, obs: Observation): Promise<Checked> {
  const mismatches: string[] = [];
  let controls = 0;
  for (const f of obs.parts) {
    const key = frameKey(f.part);
    const frame = await frameAt(page, f.part);
    if (!frame) throw new Error(`frame ${key} not found`);
    for (const c of f.controls) {
      controls++;
      if (DELIBERATE.some((d) => d.role === c.role && d.name === c.name)) continue;
      const mine = (await elementOf(page, c.ref))?.el;
      if (!mine) {
        mismatches.push(`${c.ref}: walker ref does not resolve`);
        continue;
      }
      const scope = inFrameScope(c);
      const theirs = await scopeLocator(frame, scope)
        .getByRole(c.role as AriaRole, { name: c.name, exact: true })
        .elementHandles();
      const found = await frame.evaluate(([a, ...bs]) => bs.some((b) => b === a), [mine, ...theirs]);
      const expected = f.controls.filter((o) => o.role === c.role && o.name === c.name && startsWith(inFrameScope(o), scope)).length;
      if (!found) mismatches.push(`${c.ref} ${c.role} '${c.name}': getByRole in ${JSON.stringify(scope)} does not find it`);
      else if (theirs.length !== expected) {
        mismatches.push(`${c.ref} ${c.role} '${c.name}': getByRole finds ${theirs.length}, walker has ${expected}`);
      }
      await Promise.all(theirs.map((h) => h.dispose()));
      await mine.dispose();
    }
    // The other way round: every control role Playwright sees in the frame, the walker reports too.
    for (const role of Object.keys(VERBS_BY_ROLE)) {
      // A native <select>'s options are the select's `options`, not controls of their own.
      const theirs = await frame
        .getByRole(role as AriaRole)
        .evaluateAll((els) => els.filter((e) => !(e.tagName === 'OPTION' && e.closest('select, datalist'))).length);
      const ours = f.controls.filter((c) => c.role === role).length;
      if (theirs !== ours) mismatches.push(`frame '${key}' role ${role}: getByRole counts ${theirs}, walker ${ours}`);
    }
  }
  return { controls, mismatches };
}

test('tricky naming cases: every control is found by getByRole in its frame and scope', async ({ page }) => {
  const server = await serveFixtures();
  try {
    await page.goto(`${server.url}/tricky.html`);
    await page.frameLocator('iframe[name=inner]').getByRole('heading').waitFor();
    const obs = await observePage(page);
    const { controls, mismatches } = await checkAgainstOracle(page, obs);
    expect(mismatches).toEqual([]);
    expect(controls).toBeGreaterThan(50);
    const names = obs.parts.flatMap((f) => f.controls.map((c) => `${c.role}:${c.name}`));
    // Spot checks of rules the oracle alone would not show were exercised.
    expect(names).toEqual(expect.arrayContaining([
      'textbox:Billing Address', 'button:Resubmit', 'button:★ Favourite', 'link:Next page →', 'button:Submit',
      'button:Go search', 'button:Still a button', 'link:Deeply nested link', 'switch:Dark mode',
    ]));
    expect(names).not.toContain('button:Display none');
    expect(names).not.toContain('link:Inside aria-hidden');
    const inner = obs.parts.find((f) => f.part.join('>') === 'inner');
    expect(inner?.controls.map((c) => c.ref)).toEqual(['inner|c0', 'inner|c1', 'inner|c2']);
    expect(inner?.controls[0]?.scope).toEqual([{ role: 'frame', name: 'inner' }]);
    const cancels = obs.parts[0]?.controls.filter((c) => c.role === 'link' && c.name === 'Cancel') ?? [];
    expect(cancels.map((c) => c.scope.at(-1))).toEqual([
      { role: 'row', name: 'ORD-1001' }, { role: 'row', name: 'ORD-1002' }, { role: 'row', name: 'ORD-1003' },
    ]);
    const opid = obs.parts[0]?.controls.find((c) => c.hint === 'Operator ID');
    expect(opid?.name).toBe('');
  } finally {
    await server.close();
  }
});

test('PLUMBLINE screens from sign-on to the hold form agree with getByRole', async ({ page }) => {
  const password = randomBytes(9).toString('base64url');
  const bank = await startBank({ port: 0, operatorPassword: password });
  const checkScreen = async (expectControls: number) => {
    const obs = await observePage(page);
    const { controls, mismatches } = await checkAgainstOracle(page, obs);
    expect(mismatches).toEqual([]);
    expect(controls).toBeGreaterThanOrEqual(expectControls);
    return obs;
  };
  const work = () => page.frame({ name: 'work' })!;
  try {
    await page.goto(`${bank.url}/signon`);
    const signon = await checkScreen(4);
    const hinted = signon.parts[0]!.controls.filter((c) => c.name === '').map((c) => c.hint);
    expect(hinted).toEqual(['Operator ID', 'Password', 'Branch']);

    await page.locator('input[name=opid]').fill('OP1001');
    await page.locator('input[name=pwd]').fill(password);
    await page.getByRole('button', { name: 'F5=Sign On' }).click();
    await page.waitForURL(/\/desk/);
    await page.frame({ name: 'work' })?.waitForLoadState();
    await expect.poll(() => page.frame({ name: 'work' })?.url() ?? '').toMatch(/\/inquiry/);
    await page.frame({ name: 'nav' })!.waitForLoadState();
    const desk = await checkScreen(5);
    expect(desk.parts.map((f) => f.part.join('>'))).toEqual(['', 'nav', 'work']);
    expect(desk.parts.find((f) => f.part[0] === 'nav')?.controls[0]?.scope[0]).toEqual({ role: 'frame', name: 'nav' });

    await work().locator('input[name=value]').fill('400118');
    await work().getByRole('button', { name: 'F5=Search' }).click();
    await work().waitForURL(/\/results/);
    await checkScreen(3);

    await work().getByRole('link', { name: '400118', exact: true }).click();
    await work().waitForURL(/\/member/);
    const member = await checkScreen(4);
    const holds = member.parts.find((f) => f.part[0] === 'work')!.controls.filter((c) => c.name === 'Hold');
    expect(holds.map((c) => c.scope.at(-1))).toEqual([
      { role: 'row', name: '400118-S0001' },
      { role: 'row', name: '400118-S0005' },
    ]);

    const first = (await elementOf(page, holds[0]!.ref))?.el;
    expect(parseRef(holds[0]!.ref)?.frame).toEqual(['work']);
    await first!.click();
    await work().waitForURL(/\/hold/);
    await checkScreen(4);
  } finally {
    await bank.close();
  }
});
