// Capabilities as Playwright Test cases in CI: two shards of `npx playwright test -c handrail.playwright.config.ts`
// split the card's rows between them, each writes JUnit and an HTML report, evidence is attached to every test, a
// commit card's failing row is not retried even under --retries, and the judge sees each share pressed once.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { bankScene } from './support/bank.ts';
import { node, type Ran } from './support/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const scene = bankScene({ scratch: 'handrail-ci-', operatorPassword: PASSWORD, reset: true, home: true });

/** `npx playwright test -c handrail.playwright.config.ts <args>` as CI runs it, outside this test run's own settings. */
function playwrightTest(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  // This worker's Playwright variables would make the child think it is one of our workers.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(PW_|PLAYWRIGHT_|TEST_)/.test(k)));
  return node([join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', 'handrail.playwright.config.ts', ...args], { ...clean, ...env });
}

const ROWS = [
  ['400118', '400118-S0001'],
  ['400118', '400118-S0005'],
  // Seeded as already held: the run ends BUSINESS_OUTCOME, so this row's test fails.
  ['400226', '400226-S0002'],
  ['400445', '400445-S0001'],
];

test('two shards split the rows; JUnit and HTML come from Playwright Test; evidence attached; a commit card never retries', async () => {
  test.setTimeout(300_000);
  const cards = join(scene.scratch, 'cards');
  await mkdir(cards);
  await copyFile(join(ROOT, 'capabilities/plumbline-place-hold.json'), join(cards, 'place-hold.json'));
  await writeFile(join(cards, 'place-hold.inputs.csv'), ['operator_id,member_number,share_id,reason', ...ROWS.map(([m, s]) => `OP1001,${m},${s},LEGAL`)].join('\n'));
  const shard = async (i: number): Promise<{ ran: Ran; junit: string; out: string; html: string }> => {
    const junit = join(scene.scratch, `junit-${i}.xml`);
    const html = join(scene.scratch, `html-${i}`);
    const out = join(scene.scratch, `out-${i}`);
    const ran = await playwrightTest([`--shard=${i}/2`, '--reporter=junit,html', '--retries=2', '--workers=1', '--output', out], {
      HANDRAIL_CARDS: cards,
      HANDRAIL_HOME: join(scene.scratch, `home-${i}`),
      BASE_URL: scene.app.url,
      HANDRAIL_SECRET_PASSWORD: PASSWORD,
      PLAYWRIGHT_JUNIT_OUTPUT_FILE: junit,
      PLAYWRIGHT_HTML_OUTPUT_DIR: html,
      PLAYWRIGHT_HTML_OPEN: 'never',
    });
    return { ran, junit: await readFile(junit, 'utf8'), out, html };
  };
  const one = await shard(1);
  const two = await shard(2);
  const cases = (xml: string): string[] => [...xml.matchAll(/<testcase name="([^"]+)"/g)].map((m) => m[1] ?? '');
  const first = cases(one.junit);
  const second = cases(two.junit);
  // fullyParallel: the four rows are split two and two, no row in both shards, every row in one.
  expect(first).toHaveLength(2);
  expect(second).toHaveLength(2);
  expect(new Set([...first, ...second]).size).toBe(4);
  for (const [, share] of ROWS) expect([...first, ...second].some((t) => t.startsWith('plumbline_place_hold › row ') && t.includes(`share_id=${share}`))).toBe(true);
  // The held share's row failed in whichever shard ran it; that shard exits 1, the other 0.
  const failing = [one, two].find((s) => s.junit.includes('400226-S0002'));
  const passing = [one, two].find((s) => !s.junit.includes('400226-S0002'));
  expect(failing?.ran.code).toBe(1);
  expect(passing?.ran.code, passing?.ran.stdout).toBe(0);
  expect(failing?.junit).toMatch(/tests="2" failures="1"/);
  expect(failing?.junit).toContain('BUSINESS_OUTCOME');
  // --retries=2 did not retry the commit card: no attempt directory beyond the first.
  for (const s of [one, two]) expect((await readdir(s.out)).filter((d) => /-retry\d+$/.test(d))).toEqual([]);
  // Evidence is attached to each test (JUnit lists path attachments), and each shard wrote an HTML report.
  for (const s of [one, two]) {
    expect([...s.junit.matchAll(/\[\[ATTACHMENT\|[^\]]*evidence-jsonl[^\]]*\]\]/g)]).toHaveLength(2);
    expect((await readFile(join(s.html, 'index.html'), 'utf8')).length).toBeGreaterThan(1000);
  }
  // The judge: every share pressed exactly once; the already-held one keeps its seeded hold (the bank said so).
  for (const [, share] of ROWS) expect(scene.app.store.holdFor(share ?? '').postPresses).toBe(1);
  expect(scene.app.store.holdFor('400226-S0002')).toMatchObject({ held: true, confirmation: 'HX-226002' });
  expect(one.ran.stdout + one.ran.stderr + two.ran.stdout + two.ran.stderr + one.junit + two.junit).not.toContain(PASSWORD);
});
