// A field is named by the labels of its own tree, as the browser's `labels` lists them: inside a shadow root, a document's label pointing at an id there names nothing, and two labels name one field together.
import { test, expect } from '@playwright/test';
import { observePage } from '../../runner/browser/observe.ts';

const PAGE = `<!DOCTYPE html><html><head><title>Labels</title></head><body>
<label for="s-in">Outside label</label>
<label for="doc-in">Document field</label><input id="doc-in">
<label for="pair">First part</label><label for="pair">second part</label><input id="pair">
<label for="secret-kind">Hidden input's label</label><input id="secret-kind" type="hidden" value="x">
<div id="host"></div>
<script>
  document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML =
    '<label for="s-in">Inside label</label><input id="s-in">' +
    '<label for="doc-in">Shadow label for a document id</label><input id="s-other" aria-label="Other">' +
    '<label>Wrapped <input type="checkbox"></label>';
</script>
</body></html>`;

test('fields are named by the labels of their own document or shadow root, in tree order', async ({ page }) => {
  await page.setContent(PAGE);
  const obs = await observePage(page);
  const named = obs.parts[0]!.controls.map((c) => `${c.role} '${c.name}'`);
  expect(named).toEqual([
    "textbox 'Document field'",
    "textbox 'First part second part'",
    "textbox 'Inside label'",
    "textbox 'Other'",
    "checkbox 'Wrapped'",
  ]);
  // The browser's own answer for each field, from its `labels` list (what the walker's per-tree table stands for).
  const fromBrowser = await page.evaluate(() => {
    const shadow = document.getElementById('host')!.shadowRoot!;
    const texts = (el: Element | null) => [...((el as HTMLInputElement).labels ?? [])].map((l) => l.textContent);
    return { doc: texts(document.getElementById('doc-in')), pair: texts(document.getElementById('pair')), inside: texts(shadow.getElementById('s-in')) };
  });
  expect(fromBrowser).toEqual({ doc: ['Document field'], pair: ['First part', 'second part'], inside: ['Inside label'] });
});
