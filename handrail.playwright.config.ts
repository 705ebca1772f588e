// Capabilities as Playwright Test cases, for CI (docs/design/scale.md, "Many runs"): every approved card under
// HANDRAIL_CARDS (default capabilities/), one test per row of its inputs file, so sharding (--shard=i/n), retries, the
// HTML reporter and JUnit output are Playwright Test's own. Run: npx playwright test -c handrail.playwright.config.ts
// Kept apart from playwright.config.ts (tests/e2e) and vitest.config.ts (tests/unit): its only test file is
// runner/ci/capabilities.cases.ts, which neither of those globs matches.
import { defineConfig } from '@playwright/test';
import { findChromium } from './runner/browser/chromium.ts';

const remote = process.env['HANDRAIL_BROWSER_WS'];

export default defineConfig({
  testDir: 'runner/ci',
  testMatch: 'capabilities.cases.ts',
  outputDir: 'test-results/handrail',
  // Rows are independent runs (each its own key and journal): shards split them row by row.
  fullyParallel: true,
  timeout: 120_000,
  reporter: [['list']],
  use: {
    headless: true,
    // A Playwright browser server (or compatible grid) instead of a local Chromium: Playwright Test connects itself.
    ...(remote ? { connectOptions: { wsEndpoint: remote } } : { launchOptions: findChromium().launchOptions }),
  },
});
