// A gesture is offered only where the element itself listens: on a plain page, a listener on the document, the <html>
// element or the <body> (the places a page delegates from) offers nothing, even when the body holds nothing but
// text; a paragraph that listens itself is still offered. (The real React and Vue builds: real-frameworks.spec.ts.)
import { test, expect } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { serveFixtures } from '../fixtures/server.ts';
import { controls } from './support/observed.ts';

/** A page of text whose document, <html> and <body> listen for both gestures; `own` adds a paragraph that listens. */
const page = (own: boolean): string => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Saved</title></head><body>
<p>Saved three minutes ago</p>
${own ? '<p id="own">Double-click to edit this note</p>' : ''}
<script>
  document.addEventListener('dblclick', () => {});
  document.documentElement.addEventListener('contextmenu', (e) => e.preventDefault());
  document.body.addEventListener('dblclick', () => {});
  document.body.oncontextmenu = () => false;
  document.getElementById('own')?.addEventListener('dblclick', () => {});
</script></body></html>`;

test('a plain page: listeners on the document, <html> and <body> offer nothing; a paragraph that listens is offered', async ({ browser }) => {
  const server = await serveFixtures({ '/text.html': page(false), '/own.html': page(true) });
  const surface = await BrowserSurface.launch({ browser });
  const offered = async (path: string): Promise<string[]> => {
    await surface.open(`${server.url}${path}`);
    const o = await surface.observe();
    return controls(o).filter((c) => c.offers?.length).map((c) => `${c.role} '${c.name}' ${c.offers?.join(' ')}`);
  };
  try {
    expect(await offered('/text.html')).toEqual([]);
    expect(await offered('/own.html')).toEqual(["text 'Double-click to edit this note' double_click"]);
  } finally {
    await surface.close();
    await server.close();
  }
});
