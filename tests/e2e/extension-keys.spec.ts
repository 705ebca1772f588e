// A key the clerk presses in a new document before its recorder has heard from the worker is not lost: Enter in a field, pressed while the page that the last Enter brought is still starting, is asked about and recorded like any other; and one pressed on a document that is being left is a hole in the book the panel names, never lost unsaid.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect, type Page } from '@playwright/test';
import { actsOf, answer, book, exportBook, labelScreen, launchWithExtension, openPanel, parseBook, startSession, type Loaded, finishSession } from '../fixtures/extension/harness.ts';
import { compile } from '../../shared/compile/compile.ts';

/**
 * A list whose form adds an item (POST, then back to the list). When `hold` is set, the next list page focuses its
 * field and then waits in a synchronous request until the test lets it go: a key pressed meanwhile is handled when
 * the page's first script ends, while the document is new and its recorder may still be asking the worker.
 */
class ListServer {
  readonly items: string[] = [];
  hold: { prefill: string; arrived: () => void; release: Promise<void> } | null = null;
  #server: Server;
  url = '';

  constructor() {
    this.#server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'POST' && path === '/add') {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          this.items.push(new URLSearchParams(body).get('item') ?? '');
          res.writeHead(303, { location: '/list' }).end();
        });
        return;
      }
      if (path === '/hold') {
        const h = this.hold;
        this.hold = null;
        if (!h) return void res.writeHead(204).end();
        h.arrived();
        void h.release.then(() => res.writeHead(204).end());
        return;
      }
      if (path !== '/list') return void res.writeHead(404).end();
      const h = this.hold;
      const script = h ? `<script>document.getElementById('item').focus(); const x = new XMLHttpRequest(); x.open('GET', '/hold', false); x.send();</script>` : '';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>List</title></head><body>
<h1>List</h1>
<form method="post" action="/add"><input id="item" name="item" aria-label="New item" value="${h?.prefill ?? ''}"></form>
<ul>${this.items.map((i) => `<li>${i}</li>`).join('')}</ul>
<script>window.heard = []; document.addEventListener('keydown', (e) => window.heard.push(e.key + (e.isTrusted ? '' : ' (script)')));</script>
${script}
</body></html>`);
    });
  }

  /**
   * The next list page starts with `prefill` typed and waits in its first script; `pressEnter` presses Enter on
   * `page` while it waits (the key stays in the browser's queue), then lets the page go on.
   */
  holdNext(prefill: string): { pressEnter(page: Page): Promise<void> } {
    let arrived!: () => void;
    let release!: () => void;
    const held = new Promise<void>((r) => (arrived = r));
    this.hold = { prefill, arrived, release: new Promise<void>((r) => (release = r)) };
    return {
      async pressEnter(page) {
        await held;
        const pressed = page.keyboard.press('Enter');
        await new Promise((r) => setTimeout(r, 300));
        release();
        await pressed;
      },
    };
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve, reject) => this.#server.close((e) => (e ? reject(e) : resolve())));
  }
}

let server: ListServer;
let ext: Loaded;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  server = new ListServer();
  await server.start();
  ext = await launchWithExtension();
});
test.afterAll(async () => {
  await ext?.close();
  await server?.close();
});

test('record mode: Enter pressed while the new document is still asking the worker is held, asked about and recorded, not let through unrecorded', async () => {
  test.setTimeout(120_000);
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/list`);
  const panel = await openPanel(ext, server.url);
  await startSession(panel, { mode: 'record', goal: 'Add two items', owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, 'list', 'List');

  await page.locator('#item').click();
  await page.keyboard.type('Call the plumber');
  await page.keyboard.press('Enter');
  // The next list page will start with "Renew the lease" typed and wait while the clerk presses Enter again.
  const next = server.holdNext('Renew the lease');
  await answer(panel, "textbox 'New item'", 'commit');
  // The page is inside its first script: the key waits in the browser's queue, then reaches a brand-new document.
  await next.pressEnter(page);

  // Not let through unrecorded: the owner is asked about it, as about the first.
  await answer(panel, "textbox 'New item'", 'commit');
  await expect.poll(() => server.items).toEqual(['Call the plumber', 'Renew the lease']);
  await expect(panel.getByTestId('screen-label')).toHaveText('list', { timeout: 20_000 });
  await finishSession(panel);
  expect(actsOf(await exportBook(panel))).toEqual(['set_value New item Call the plumber', 'press New item Enter', 'press New item Enter']);
  await page.close();
  await panel.close();
});

test('record mode: Enter pressed again while the first is asked about, on the document the answer then leaves, is a hole in the book the panel names, not lost unsaid', async () => {
  test.setTimeout(120_000);
  server.items.length = 0;
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/list`);
  const panel = await openPanel(ext, server.url);
  await startSession(panel, { mode: 'record', goal: 'Add one item', owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, 'list', 'List');

  await page.locator('#item').click();
  await page.keyboard.type('Call the plumber');
  await page.keyboard.press('Enter');
  await expect(panel.getByTestId('question-control')).toHaveText("textbox 'New item'", { timeout: 20_000 });
  // The clerk presses Enter again while the first is being asked about: held, its report waits behind the first's.
  await page.keyboard.press('Enter');
  // The answer posts the form, and the document with the second Enter still to send is left.
  await answer(panel, "textbox 'New item'", 'commit');
  await expect(book(panel).last()).toHaveText(/^Not recorded: Your press of Enter in textbox 'New item' — the page was being left before it could be recorded\. Do that step again, then remove this line\./, { timeout: 20_000 });
  // Held and not done: one item posted.
  expect(server.items).toEqual(['Call the plumber']);
  await expect(panel.getByTestId('screen-label')).toHaveText('list', { timeout: 20_000 });
  await finishSession(panel);
  await panel.getByTestId('saved-compile').first().click();
  await expect(panel.getByTestId('holes')).toContainText("INPUT_NOT_BOOKED — your press of Enter in textbox 'New item' was not recorded");
  const r = compile(parseBook(await exportBook(panel)), { id: 'add_item' });
  expect(r.ok ? [] : r.holes.map((h) => h.code)).toEqual(['INPUT_NOT_BOOKED']);
  // The second Enter was not wanted (the item is in): the clerk takes the line out, and the hole is gone (what is left
  // are the card's own questions: which record the commit acts on — an add chooses none, which the panel cannot say
  // yet — and, for a commit that lands on the list, a postcondition).
  await book(panel).filter({ hasText: 'Not recorded:' }).getByTestId('line-remove').click();
  await expect(book(panel).filter({ hasText: 'Not recorded:' })).toHaveCount(0, { timeout: 20_000 });
  await panel.getByTestId('saved-compile').first().click();
  await expect(panel.getByTestId('holes').locator('li')).toHaveText([/NO_RECORD_IDENTITY/, /NO_VISIBLE_EFFECT/], { timeout: 20_000 });
  await page.close();
  await panel.close();
});

test('another tab of the recorded site, not recorded: a key pressed while its new document asks is given back as a script\'s key, and nothing is booked', async () => {
  test.setTimeout(120_000);
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/list`);
  const panel = await openPanel(ext, server.url);
  await startSession(panel, { mode: 'record', goal: 'Add nothing', owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, 'list', 'List');

  // The worker is kept busy while the other tab loads a list page: that page's recorder asks and waits for the
  // answer, and the clerk presses Enter in its field meanwhile. Under load the page can take longer to load than the
  // worker is kept busy; then the recorder already knew "not recorded" when the key came, the key was the page's own,
  // and the scenario did not happen: it is tried again with a longer hold (the test says so rather than pass or fail
  // on a scenario it did not make).
  const worker = await ext.worker();
  let other: Page | null = null;
  let typed = '';
  let made = false;
  for (const holdMs of [3000, 8000, 20_000]) {
    typed = `Not for the book (${holdMs} ms)`;
    await other?.close();
    other = await ext.context.newPage();
    const busy = worker.evaluate((ms) => {
      const until = Date.now() + ms;
      while (Date.now() < until);
      return until;
    }, holdMs);
    await other.goto(`${server.url}/list`, { waitUntil: 'domcontentloaded' });
    await other.evaluate((text) => {
      const field = document.getElementById('item') as HTMLInputElement;
      field.value = text;
      field.focus();
    }, typed);
    await other.keyboard.press('Enter');
    const pressedAt = Date.now();
    made = pressedAt < (await busy);
    if (made) break;
    test.info().annotations.push({ type: 'retried', description: `the page took longer to load than a ${holdMs} ms hold` });
  }
  expect(made, 'the key was pressed while the worker was busy, in one of three tries').toBe(true);
  const tab = other!;
  // The worker said "not recorded": the page heard the key as a script's (its handlers ran), and no form was posted.
  await expect.poll(() => tab.evaluate(() => (window as unknown as { heard: string[] }).heard)).toEqual(['Enter (script)']);
  expect(server.items).not.toContain(typed);
  expect((await book(panel).allTextContents()).filter((t) => t.startsWith('Pressed'))).toEqual([]);
  await panel.getByTestId('stop').click();
  await expect(panel.getByTestId('phase')).toHaveText('stopped', { timeout: 20_000 });
  await tab.close();
  await page.close();
  await panel.close();
});
