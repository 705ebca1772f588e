// `npm run golden:update`: regenerates every golden file and prints what changed, as a unified diff per file.
// The tests only compare; this is the one way a golden file is rewritten, on purpose, by a person who then
// reviews the diff (and commits it). What it regenerates:
//   capabilities/plumbline-place-hold.authored.json   the PLUMBLINE book (tests/fixtures/author/) through the compiler
//   capabilities/capability.schema.json               the JSON Schema, from the zod source
//   handrail.config.schema.json                       the config file's JSON Schema, from runner/config.ts
//   tests/fixtures/plumbline-{signon,member}.{menu.txt,observation.json}   a live PLUMBLINE through the walker
//   tests/fixtures/walker-golden/*.json               every fixture page, PLUMBLINE's and CASEDESK's screens, the bench page
//   with --docs, also docs/extension-sidepanel.png: builds the extension and runs tests/e2e/extension.spec.ts,
//   whose side panel shot it copies (a picture for the README; no test compares it)
// Output: one line per file, `unchanged <path>` or `changed <path>` followed by its diff (for a picture, its
// size and sha256 before and after); then a count.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startBank } from '../../demo/plumbline/server.ts';
import { findChromium } from '../../runner/browser/chromium.ts';
import { configSchemaText } from '../../runner/config.ts';
import { WALKER_GOLDEN_DIR, walkerGoldens } from './walker-golden.ts';
import { authoredCardText, DOC_SHOT_NAME, GOLDEN, menuText, observationText, readAuthoredBook, schemaText, walkPlumbline } from './golden.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The unified diff between two texts, labelled with the file's path (diff(1), as `git diff` shows it). */
function unifiedDiff(rel: string, before: string, after: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'handrail-golden-'));
  try {
    writeFileSync(join(dir, 'before'), before);
    writeFileSync(join(dir, 'after'), after);
    const r = spawnSync('diff', ['-u', '--label', `a/${rel}`, '--label', `b/${rel}`, join(dir, 'before'), join(dir, 'after')], { encoding: 'utf8' });
    if (r.error) throw r.error;
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes `text` to `file` and reports it; true when it changed. */
function put(file: string, text: string): boolean {
  const rel = relative(ROOT, file);
  const before = readOrEmpty(file);
  if (before === text) {
    process.stdout.write(`unchanged ${rel}\n`);
    return false;
  }
  writeFileSync(file, text);
  process.stdout.write(`changed ${rel}\n${unifiedDiff(rel, before, text)}`);
  return true;
}

const picture = (b: Buffer | null): string => (b ? `${b.length} bytes, sha256 ${createHash('sha256').update(b).digest('hex').slice(0, 16)}` : 'none');

/** Builds the extension, runs its suite into a scratch output folder and copies the side panel shot to the README's picture. */
function putDocShot(): boolean {
  const out = mkdtempSync(join(tmpdir(), 'handrail-golden-docs-'));
  try {
    const run = (args: string[]): void => {
      const r = spawnSync('npx', args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
      if (r.status !== 0) throw new Error(`npx ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    };
    run(['wxt', 'build']);
    run(['playwright', 'test', 'tests/e2e/extension.spec.ts', '--workers=1', '--reporter=dot', '--output', out]);
    const want = `sidepanel-${DOC_SHOT_NAME}.png`;
    const found = readdirSync(out, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith(want));
    if (!found) throw new Error(`the extension suite left no ${want} in ${out}`);
    const after = readFileSync(join(out, found));
    const rel = relative(ROOT, GOLDEN.docShot);
    let before: Buffer | null = null;
    try {
      before = readFileSync(GOLDEN.docShot);
    } catch {
      before = null;
    }
    if (before?.equals(after)) {
      process.stdout.write(`unchanged ${rel}\n`);
      return false;
    }
    writeFileSync(GOLDEN.docShot, after);
    process.stdout.write(`changed ${rel}\n  before: ${picture(before)}\n  after:  ${picture(after)}\n`);
    return true;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const results: boolean[] = [];
  results.push(put(GOLDEN.authoredCard, authoredCardText(readAuthoredBook())));
  results.push(put(GOLDEN.schema, schemaText()));
  results.push(put(GOLDEN.configSchema, configSchemaText()));

  const password = randomBytes(9).toString('base64url');
  const bank = await startBank({ port: 0, operatorPassword: password });
  const browser = await chromium.launch({ ...findChromium().launchOptions, headless: true });
  try {
    const page = await browser.newPage();
    await walkPlumbline(page, bank.url, password, (screen, obs) => {
      results.push(put(GOLDEN.menu(screen), menuText(obs)));
      results.push(put(GOLDEN.observation(screen), observationText(obs)));
      return Promise.resolve();
    });
    for (const g of await walkerGoldens(browser)) results.push(put(join(WALKER_GOLDEN_DIR, g.file), g.text));
  } finally {
    await browser.close();
    await bank.close();
  }
  if (process.argv.includes('--docs')) results.push(putDocShot());
  const changed = results.filter(Boolean).length;
  process.stdout.write(`${changed} of ${results.length} golden files changed${changed ? ': review the diff above and commit it' : ''}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`golden:update failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
