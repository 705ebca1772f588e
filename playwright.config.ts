// Playwright Test runs the end-to-end suites in real headless Chromium against PLUMBLINE on 127.0.0.1.
import { defineConfig } from '@playwright/test';
import { findChromium } from './runner/browser/chromium.ts';

export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '**/*.spec.ts',
  timeout: 60_000,
  fullyParallel: false,
  workers: 2,
  reporter: [['list']],
  use: {
    headless: true,
    launchOptions: findChromium().launchOptions,
  },
});
