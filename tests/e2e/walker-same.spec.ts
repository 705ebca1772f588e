// The walker observes every fixture page, PLUMBLINE's screens, CASEDESK's screens and the bench page exactly as its golden files say, byte for byte: a faster walker is the same walker.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { WALKER_GOLDEN_DIR, walkerGoldens } from '../tools/walker-golden.ts';

test('every golden observation is produced again byte for byte, and no golden is left over', async ({ browser }) => {
  test.setTimeout(180_000);
  const made = await walkerGoldens(browser);
  const stored = readdirSync(WALKER_GOLDEN_DIR).filter((f) => f.endsWith('.json')).sort();
  expect(made.map((g) => g.file).sort(), 'the scenes and tests/fixtures/walker-golden/ list the same files (npm run golden:update)').toEqual(stored);
  for (const g of made) {
    const want = readFileSync(join(WALKER_GOLDEN_DIR, g.file), 'utf8');
    // toBe on the whole text would print two large strings; the first differing line says where the walker changed.
    if (g.text !== want) {
      const a = want.split('\n');
      const b = g.text.split('\n');
      const at = a.findIndex((line, i) => line !== b[i]);
      expect({ file: g.file, line: at + 1, now: b[at] }).toEqual({ file: g.file, line: at + 1, now: a[at] });
    }
    expect(g.text.length, g.file).toBe(want.length);
  }
  expect(made.length).toBeGreaterThanOrEqual(25);
});
