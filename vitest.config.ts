// Vitest runs unit and integration suites only; Playwright Test owns tests/e2e (kept apart on purpose).
import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// No test writes journals or leases into the real state directory: a fresh HANDRAIL_HOME unless one is given.
process.env['HANDRAIL_HOME'] ??= mkdtempSync(join(tmpdir(), 'handrail-home-unit-'));

export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts'],
    globalSetup: ['./tests/tools/build-first.ts'],
    exclude: ['tests/e2e/**', 'node_modules/**'],
    // One more worker than cores (vitest's default is one fewer: a single worker on 2 cores). The slow files wait on
    // real timers, s3270, PostgreSQL and child processes: at one worker the ten slowest used 91 CPU-s in 160 s of wall,
    // at three 112 s (`npx vitest run --maxWorkers=N <files>`, issue "fast feedback").
    maxWorkers: availableParallelism() + 1,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
