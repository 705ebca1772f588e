// Vitest runs unit and integration suites only; Playwright Test owns tests/e2e (kept apart on purpose).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// No test writes journals or leases into the real state directory: a fresh HANDRAIL_HOME unless one is given.
process.env['HANDRAIL_HOME'] ??= mkdtempSync(join(tmpdir(), 'handrail-home-unit-'));

export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts'],
    globalSetup: ['./tests/tools/build-first.ts'],
    exclude: ['tests/e2e/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
