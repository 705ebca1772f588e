// `choose` in a combobox that filters (aria-autocomplete=list) whose options come only after typing and a server's answer, as in MUI's Autocomplete: the option is found once the server answers, and a name the server never lists fails ACTION_FAILED saying what was typed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import type { Control, Observation } from '../../shared/schema/observation.ts';

const CITIES = ['Amsterdam', 'Antwerp', 'Berlin', 'Bern'];
/** How long the server takes to answer a search: longer than any wait for a list the page renders itself. */
const ANSWER_MS = 800;

const PAGE = `<!doctype html><html lang="en"><title>Search</title>
<label for="city">City</label>
<input id="city" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="cities" autocomplete="off">
<ul id="cities" role="listbox" aria-label="Cities" hidden></ul>
<script>
  const box = document.getElementById('city');
  const list = document.getElementById('cities');
  let asked = 0;
  box.addEventListener('input', async () => {
    const mine = ++asked;
    list.replaceChildren();
    list.hidden = true;
    box.setAttribute('aria-expanded', 'false');
    if (box.value === '') return;
    const found = await (await fetch('/search?q=' + encodeURIComponent(box.value))).json();
    if (mine !== asked || found.length === 0) return;
    for (const name of found) {
      const li = document.createElement('li');
      li.setAttribute('role', 'option');
      li.textContent = name;
      li.addEventListener('click', () => { box.value = name; list.hidden = true; box.setAttribute('aria-expanded', 'false'); });
      list.append(li);
    }
    list.hidden = false;
    box.setAttribute('aria-expanded', 'true');
  });
</script>`;

let server: Server;
let url: string;
const searches: string[] = [];
test.beforeAll(async () => {
  server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (u.pathname === '/search') {
      const q = (u.searchParams.get('q') ?? '').toLowerCase();
      searches.push(q);
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(CITIES.filter((c) => c.toLowerCase().startsWith(q))));
      }, ANSWER_MS);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
test.afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

let surface: BrowserSurface;
test.beforeEach(async ({ browser }) => {
  searches.length = 0;
  surface = await BrowserSurface.launch({ browser });
  await surface.open(url);
});
test.afterEach(async () => {
  await surface.close();
});

function city(o: Observation): Control {
  const found = o.parts.flatMap((p) => p.controls).filter((c) => c.role === 'combobox' && c.name === 'City');
  expect(found).toHaveLength(1);
  return found[0] as Control;
}

test('choose types the name into a combobox whose options come from its server, waits for the answer, and picks it', async () => {
  const box = city(await surface.observe());
  await surface.act(box.ref, { verb: 'choose', value: 'Bern' });
  await expect(surface.page.locator('#city')).toHaveValue('Bern');
  expect(searches).toContain('bern');
});

test('a name the server never lists fails ACTION_FAILED saying what was typed, and the field holds what it held', async () => {
  test.setTimeout(30_000);
  const box = city(await surface.observe());
  await expect(surface.act(box.ref, { verb: 'choose', value: 'Zurich' })).rejects.toMatchObject({
    code: 'ACTION_FAILED',
    message: expect.stringContaining('after typing "Zurich" and waiting 5 s') as unknown,
  });
  expect(searches).toContain('zurich');
  await expect(surface.page.locator('#city')).toHaveValue('');
});
