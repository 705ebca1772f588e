// The guard's selectorsFor hook over a Playwright page: CSS candidates for the last and dearest rung, derived in
// the page by the walker (shared/dom/selectors.ts), the same code the extension's content script runs.
import type { Page } from 'playwright-core';
import { selectorsOfRef } from '../browser/observe.ts';

export function selectorsFor(page: Page): (ref: string) => Promise<string[]> {
  return (ref: string) => selectorsOfRef(page, ref);
}
