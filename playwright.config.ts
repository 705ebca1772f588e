// Playwright Test runs the end-to-end suites in real headless Chromium against PLUMBLINE on 127.0.0.1.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { findChromium } from './runner/browser/chromium.ts';

// No test writes journals or leases into the real state directory: a fresh HANDRAIL_HOME unless one is given.
process.env['HANDRAIL_HOME'] ??= mkdtempSync(join(tmpdir(), 'handrail-home-e2e-'));

export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './tests/tools/build-first.ts',
  timeout: 60_000,
  fullyParallel: false,
  // On CI (a shared, noisy 2-core machine) a failed test runs once more in a fresh worker. A pass on that retry is
  // still reported, by name and first failure, at the end of the run (tests/tools/time-reporter.ts "flaky"), so a
  // race is named in every log rather than hidden; a test that fails twice fails the run. Locally: no retry.
  retries: process.env['CI'] ? 1 : 0,
  workers: 2,
  // The list as each test ends, then where the time went (tests/tools/time-reporter.ts).
  reporter: [['list'], ['./tests/tools/time-reporter.ts']],
  use: {
    headless: true,
    launchOptions: findChromium().launchOptions,
  },
});
