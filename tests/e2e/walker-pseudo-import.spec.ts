// A ::before/::after rule that reaches the page only through an @import (a same-origin sheet the page imports, and
// one imported by that one) still names the control, as Chromium names it: the walker's "could this page have pseudo
// content?" shortcut looks inside imported sheets.
import { test, expect } from '@playwright/test';
import { observePage } from '../../runner/browser/observe.ts';

const ORIGIN = 'http://fixtures.test';
const FILES: Record<string, [string, string]> = {
  '/page.html': ['text/html', `<!DOCTYPE html><html><head><title>Imported</title><link rel="stylesheet" href="/outer.css"></head>
    <body><button class="star"></button><button class="deep">Save</button></body></html>`],
  '/outer.css': ['text/css', `@import url("/inner.css");\n@import url("/deeper.css");\nbody { margin: 0 }`],
  '/inner.css': ['text/css', `.star::before { content: "Star this case" }`],
  '/deeper.css': ['text/css', `@import url("/deepest.css");`],
  '/deepest.css': ['text/css', `.deep::after { content: " draft" }`],
};

test('pseudo-element content from an imported sheet, at any depth, is part of the name', async ({ page }) => {
  await page.route(`${ORIGIN}/**`, (route) => {
    const file = FILES[new URL(route.request().url()).pathname];
    return file ? route.fulfill({ contentType: file[0], body: file[1] }) : route.fulfill({ status: 404 });
  });
  await page.goto(`${ORIGIN}/page.html`);
  const obs = await observePage(page);
  const named = obs.parts[0]?.controls.map((c) => `${c.role} '${c.name}'`);
  expect(named).toEqual(["button 'Star this case'", "button 'Save draft'"]);
  // Chromium's own names for the same buttons.
  await expect(page.getByRole('button', { name: 'Star this case', exact: true })).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Save draft', exact: true })).toHaveCount(1);
});
