// `npx tsx tests/tools/report-shot.ts`: the README's pictures of `handrail report`, from real runs, never by hand.
// Starts PLUMBLINE on 127.0.0.1, replays the approved place-hold card three times (two holds, then a sign-on the
// bank refuses), writes the reports with the same code `handrail report` uses, opens them in headless
// Chromium and saves docs/report.png (one run's page) and docs/report-index.png (the index over the three).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { startBank } from '../../demo/plumbline/server.ts';
import { findChromium } from '../../runner/browser/chromium.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { readCard } from '../../runner/cli/replay.ts';
import { reportCommand } from '../../runner/cli/report.ts';
import { storeIn } from '../../runner/intent.ts';
import { runCapability } from '../../runner/run.ts';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));

async function main(): Promise<void> {
  const password = randomBytes(9).toString('base64url');
  const bank = await startBank({ port: 0, operatorPassword: password });
  const browser = await chromium.launch({ ...findChromium().launchOptions, headless: true });
  const scratch = mkdtempSync(join(tmpdir(), 'handrail-report-shot-'));
  try {
    const loaded = await readCard(fileURLToPath(new URL('../../capabilities/plumbline-place-hold.json', import.meta.url)));
    if (!loaded.ok) throw new Error(loaded.message);
    const root = join(scratch, 'runs');
    // Two holds, then a sign-on the bank refuses (a wrong password): a failure word among the successes.
    const plates = [['400118', '400118-S0005', password], ['400337', '400337-S0001', password], ['400445', '400445-S0001', 'not-the-password']] as const;
    for (const [i, [member, share, pw]] of plates.entries()) {
      const result = await runCapability({
        card: loaded.card,
        inputs: { operator_id: 'OP1001', password: pw, member_number: member, share_id: share, reason: 'LEGAL' },
        env: { BASE_URL: bank.url },
        surface: () => BrowserSurface.launch({ browser }),
        evidenceDir: join(root, `run-${i + 1}`),
        // Journalled as `handrail replay` does: the receipts there give the report each run's anchor.
        store: storeIn(join(scratch, 'home')),
        settleTimeoutMs: 10_000,
      });
      process.stderr.write(`run ${i + 1}: ${result.word} ${result.code}\n`);
    }
    const code = await reportCommand([root], {}, { HANDRAIL_HOME: join(scratch, 'home'), HANDRAIL_SECRET_PASSWORD: password });
    if (code !== 0) throw new Error(`handrail report exited ${code}`);
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(pathToFileURL(join(root, 'run-1.html')).href);
    await page.screenshot({ path: join(DOCS, 'report.png') });
    await page.goto(pathToFileURL(`${root}.html`).href);
    await page.setViewportSize({ width: 1280, height: 640 });
    await page.screenshot({ path: join(DOCS, 'report-index.png') });
    process.stderr.write(`wrote ${join(DOCS, 'report.png')} and ${join(DOCS, 'report-index.png')}\n`);
  } finally {
    await browser.close();
    await bank.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
