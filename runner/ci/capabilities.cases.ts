// Each approved card as Playwright Test cases (handrail.playwright.config.ts; docs/design/scale.md, "Many runs").
// Cards come from HANDRAIL_CARDS (default capabilities/), chosen as `serve` chooses them (approved for exactly this
// content, on a surface that can run); a card's rows come from `<card file>.inputs.csv` beside it, read and checked
// as `replay --inputs` reads them (runner/batch.ts), secrets from HANDRAIL_SECRET_<NAME>, BASE_URL from the
// environment. One test per row, in a fresh context of the worker's browser (Playwright Test's `browser` fixture, so
// `connectOptions` reaches a remote one); it passes when the run ends SUCCESS. A card that commits never retries
// (a retry is a second press: the journal would answer it, but the test would then pass on the first attempt's
// receipt); the run's receipt and every file of its evidence are attached to the test.
import { existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { expect, test } from '@playwright/test';
import { readRows, RowsError } from '../batch.ts';
import { stateHome, storeIn } from '../intent.ts';
import { loadCatalog } from '../mcp/catalog.ts';
import { newRunId, runCapability } from '../run.ts';

const dir = process.env['HANDRAIL_CARDS'] ?? 'capabilities';
const env: Readonly<Record<string, string | undefined>> = { ...process.env };
const catalog = await loadCatalog(dir);

async function filesIn(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)).sort();
}

for (const { file, card } of catalog.served) {
  const rowsFile = file.replace(/\.json$/, '.inputs.csv');
  const commits = card.steps.some((s) => s.effect.kind === 'commit');
  test.describe(card.id, () => {
    if (commits) test.describe.configure({ retries: 0 });
    if (!existsSync(rowsFile)) {
      test(`${basename(file)}: inputs`, () => {
        throw new RowsError(`${card.id} has no inputs file: write ${rowsFile} (a CSV whose header names its inputs: ${Object.keys(card.inputs).join(', ') || 'none'})`, rowsFile);
      });
      return;
    }
    const rows = readRows(readFileSync(rowsFile, 'utf8'), rowsFile, card, {}, env);
    for (const row of rows) {
      // The title names the row and its public inputs, never a secret's value.
      const shown = Object.entries(row.inputs).filter(([name]) => !card.inputs[name]?.secret).map(([k, v]) => `${k}=${v}`).join(' ');
      test(`row ${row.row}: ${shown}`, async ({ browser }, testInfo) => {
        const evidenceDir = testInfo.outputPath('evidence');
        const result = await runCapability({
          card,
          inputs: row.inputs,
          env,
          store: storeIn(stateHome(env)),
          runId: newRunId(),
          evidenceDir,
          open: { browser: () => Promise.resolve(browser) },
        });
        await testInfo.attach('receipt.json', { body: JSON.stringify(result, null, 2), contentType: 'application/json' });
        for (const f of await filesIn(evidenceDir)) await testInfo.attach(relative(evidenceDir, f), { path: f });
        expect(`${result.word} ${result.code}`, result.message).toBe('SUCCESS OK');
      });
    }
  });
}
