// The extension offers what the runner offers on real web apps: a double-click (and a right-click) where the page listens for one (seen by a main-world probe) and nowhere else, and tables and div grids read as rows; each recorded as the runner's book step and replayed by the runner.
import { test, expect } from '@playwright/test';
import { parseScript } from '../../shared/author/scripted.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';
import { actsOf, answer, exportBook, exportCompileReplay, labelScreen, launchWithExtension, menuRows, openPanel, parseBook, startModelSession, startSession, type Loaded, finishSession } from '../fixtures/extension/harness.ts';

const API_KEY = `sk-fake-${Math.random().toString(36).slice(2, 10)}`;

/** An unnamed table (read through its first column header, as a card targets it) and a named grid of divs. */
const LEDGER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ledger</title></head><body>
<h1>Ledger</h1>
<table>
  <thead><tr><th>Account</th><th>Balance</th></tr></thead>
  <tbody><tr><td>A-1</td><td>10.00</td></tr><tr><td>A-2</td><td>25.50</td></tr><tr><td>A-3</td><td>0.75</td></tr></tbody>
</table>
<div role="grid" aria-label="Open cases">
  <div role="row"><span role="columnheader">Case</span><span role="columnheader">Owner</span></div>
  <div role="row"><span role="gridcell">C-101</span><span role="gridcell">Ada</span></div>
  <div role="row"><span role="gridcell">C-102</span><span role="gridcell">Grace</span></div>
</div>
</body></html>`;

/**
 * A page that answers the recorder's question (lib/gesture-probe.ts) itself: a gesture word for one element, words
 * outside the closed set for another, and answers at any time for a third.
 */
const HOSTILE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Hostile</title></head><body>
<p id="a">Plain words</p><p id="b">Other words</p><p id="c">Late words</p><button id="go">Go</button>
<script>
  const say = (id, words) => document.getElementById(id).dispatchEvent(new CustomEvent('handrail:gestures', { detail: words, composed: true }));
  addEventListener('handrail:gestures?', () => {
    say('a', 'double_click');
    say('b', 'context_menu invoke set_value read_rows');
    say('go', 'double_click');
  }, true);
  setInterval(() => say('c', 'double_click'), 2);
</script>
</body></html>`;

/** A checkbox the page also listens on for a double-click, and a Save button: a first click on it waits to see. */
const ORDER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Order</title></head><body>
<h1>Order</h1>
<label><input type="checkbox" id="urgent" ondblclick="document.getElementById('out').textContent = 'Flagged twice'"> Urgent</label>
<button id="save" onclick="document.getElementById('out').textContent = 'Saved, urgent: ' + document.getElementById('urgent').checked">Save</button>
<p id="out"></p>
</body></html>`;

/** A task list whose titles rename in place on a double-click (addEventListener), with an archive in a frame. */
const TASKS = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tasks</title></head><body>
<h1>Tasks</h1>
<ul id="tasks"><li><span class="title">Water the plants</span> <small>daily</small></li><li><span class="title">Pay the rent</span> <small>monthly</small></li></ul>
<p>Nobody listens here</p>
<iframe name="archive" title="Archive" src="/tasks-archive"></iframe>
<script>
  for (const title of document.querySelectorAll('#tasks .title')) {
    title.addEventListener('dblclick', () => {
      const old = title.textContent;
      title.innerHTML = '<input aria-label="Task title">';
      title.firstChild.value = old;
      title.firstChild.focus();
    });
  }
  document.getElementById('tasks').addEventListener('dblclick', () => {});
</script>
</body></html>`;
const TASKS_ARCHIVE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Archive</title></head><body>
<ul><li><span id="old">Old invoice</span></li></ul>
<script>document.getElementById('old').addEventListener('dblclick', (e) => { e.target.textContent = 'Old invoice (renaming)'; });</script>
</body></html>`;

let server: FixtureServer;
let ext: Loaded;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  server = await serveFixtures({
    '/start': '<!doctype html><html lang="en"><title>Start</title><h1>Start</h1><a href="/gestures.html">Gestures</a></html>',
    '/ledger': LEDGER,
    '/hostile': HOSTILE,
    '/order': ORDER,
    '/tasks': TASKS,
    '/tasks-archive': TASKS_ARCHIVE,
  });
  ext = await launchWithExtension();
});
test.afterAll(async () => {
  await ext?.close();
  await server?.close();
});


test('record mode: a title the page renames on double-click is offered double_click, an element nobody listens on is not, and the clerk\'s double-click is one recorded step', async () => {
  test.setTimeout(120_000);
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/start`);
  const panel = await openPanel(ext, server.url);
  await startSession(panel, { mode: 'record', goal: 'Rename a note', owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, 'start', 'Start');
  // The gestures page opens inside the session: the probe is in its main world before its scripts add listeners.
  await page.getByRole('link', { name: 'Gestures' }).click();
  await expect(page).toHaveURL(/gestures\.html$/);
  await labelScreen(panel, 'notes', 'Notes');

  const menu = await menuRows(panel);
  const doubles = menu.filter((m) => m.startsWith('double_click '));
  // Where the page listens itself: addEventListener on each title and a button, an ondblclick attribute, React props.
  for (const name of ["text 'Call the plumber'", "text 'Renew the lease'", "text 'Quarterly report'", "button 'Count quietly'", "text 'Draft the budget'"]) {
    expect(doubles.some((m) => m.startsWith(`double_click ${name}`)), name).toBe(true);
  }
  // Nowhere else: a listener on the list or the document is not the element's, and nobody listens on these.
  expect(menu.some((m) => /Only the list listens|Nobody listens here|Archive old files/.test(m))).toBe(false);
  expect(doubles).toHaveLength(5);
  // A right-click is offered where the page listens for it, as on the runner (tests/e2e/extension-menus.spec.ts does one).
  expect(menu.filter((m) => m.startsWith('context_menu ')).map((m) => m.replace(/ in .*$/, ''))).toEqual([
    "context_menu text 'report.pdf'",
    "context_menu text 'notes.txt'",
    "context_menu text 'Right-click does nothing visible here'",
  ]);

  // The clerk double-clicks a title: held, asked about like a press, then done with trusted input; the editor opens.
  await page.locator('#notes .title').first().dblclick();
  await expect(panel.getByTestId('question-control')).toHaveText(/^text 'Call the plumber'/, { timeout: 20_000 });
  await answer(panel, (await panel.getByTestId('question-control').textContent()) ?? '', 'stage');
  await expect(page.getByRole('textbox', { name: 'Note title' })).toHaveValue('Call the plumber');
  // The editor opens inside the list: still the notes screen, where the task ends.
  await expect(panel.getByTestId('screen-label')).toHaveText('notes');
  await finishSession(panel);

  // The runner replays it on a fresh page: the same title is found and double-clicked.
  const { card } = await exportCompileReplay(panel, { id: 'rename_note', acts: ['invoke Gestures', 'double_click Call the plumber'], baseUrl: server.url, evidenceDir: test.info().outputPath('evidence') });
  expect(card.steps.map((s) => s.op.verb)).toEqual(['invoke', 'double_click']);
  await page.close();
  await panel.close();
});

test('model mode: the probe starts in each new page of the model\'s site too, so the model is offered the double-click and its book has the step', async () => {
  test.setTimeout(120_000);
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'start', title: 'Start' },
          { tool: 'act', match: "link 'Gestures'", verb: 'invoke' },
        ],
        [
          { tool: 'assert_screen', label: 'notes', title: 'Notes' },
          { tool: 'act', match: "text 'Call the plumber'", verb: 'double_click' },
        ],
        [{ tool: 'finish', label: 'notes' }],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const { page, panel } = await startModelSession(ext, `${server.url}/start`, { key: API_KEY, baseURL: fake.url }, { goal: 'Rename a note', owner: 'Dana Reviewer' });
    await expect(panel.getByTestId('question-control')).toHaveText(/^text 'Call the plumber'/, { timeout: 30_000 });
    await answer(panel, (await panel.getByTestId('question-control').textContent()) ?? '', 'stage');
    await expect(page.getByRole('textbox', { name: 'Note title' })).toHaveValue('Call the plumber');
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 30_000 });
    expect(fake.problems).toEqual([]);
    expect(actsOf(await exportBook(panel))).toEqual(['invoke Gestures', 'double_click Call the plumber']);
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});

test('a page open before the session: the listeners it added before the probe came are read once through the debugger, so its rows\' rename-by-double-click is offered (in a frame too), recorded and replayed', async () => {
  test.setTimeout(120_000);
  const page = await ext.context.newPage();
  // Open, and its scripts have added their listeners, before the session starts: the clerk's normal case.
  await page.goto(`${server.url}/tasks`);
  await expect(page.frameLocator('iframe[name=archive]').getByText('Old invoice')).toBeVisible();
  const panel = await openPanel(ext, `${server.url}/tasks`);
  await startSession(panel, { mode: 'record', goal: 'Rename a task', owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, 'tasks', 'Tasks');
  const doubles = (await menuRows(panel)).filter((m) => m.startsWith('double_click '));
  // Each row's title (addEventListener before the probe), in the top document and in the same-origin frame; the list
  // itself listens too, which is delegation and not offered; nothing else listens.
  expect(doubles.map((m) => m.replace(/ in .*$/, ''))).toEqual(["double_click text 'Water the plants'", "double_click text 'Pay the rent'", "double_click text 'Old invoice'"]);
  expect((await menuRows(panel)).filter((m) => /Nobody listens/.test(m) && m.startsWith('double_click'))).toEqual([]);

  await page.getByText('Pay the rent').dblclick();
  await expect(panel.getByTestId('question-control')).toHaveText(/^text 'Pay the rent'/, { timeout: 20_000 });
  await answer(panel, (await panel.getByTestId('question-control').textContent()) ?? '', 'stage');
  await expect(page.getByRole('textbox', { name: 'Task title' })).toHaveValue('Pay the rent');
  // The editor open in the row is a screen of its own on this small page: named, and the task ends there.
  await labelScreen(panel, 'renaming', 'Tasks');
  await finishSession(panel);

  await exportCompileReplay(panel, { id: 'rename_task', acts: ['double_click Pay the rent'], baseUrl: server.url, evidenceDir: test.info().outputPath('evidence-before') });
  await page.close();
  await panel.close();
});

test('a page open before the session is offered what the same page opened during one is: React\'s delegated double-click (its root listened first) and the right-clicks too', async () => {
  test.setTimeout(60_000);
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/gestures.html`);
  const panel = await openPanel(ext, `${server.url}/gestures.html`);
  await startSession(panel, { mode: 'record', goal: 'Look at the notes', owner: 'Dana Clerk', inputs: [] });
  await expect(panel.getByTestId('menu').locator('li').first()).toBeVisible({ timeout: 20_000 });
  const menu = (await menuRows(panel)).map((m) => m.replace(/ in .*$/, ''));
  // As the first test here, where the page opens inside the session.
  expect(menu.filter((m) => m.startsWith('double_click '))).toEqual([
    "double_click button 'Count quietly'",
    "double_click text 'Call the plumber'",
    "double_click text 'Renew the lease'",
    "double_click text 'Quarterly report'",
    "double_click text 'Draft the budget'",
  ]);
  expect(menu.filter((m) => m.startsWith('context_menu '))).toEqual(["context_menu text 'report.pdf'", "context_menu text 'notes.txt'", "context_menu text 'Right-click does nothing visible here'"]);
  await panel.getByTestId('stop').click();
  await page.close();
  await panel.close();
});

test('a hostile page that answers the probe\'s question itself gets no more than it could by listening: a gesture on an element, no other verb, and nothing outside the question', async () => {
  test.setTimeout(60_000);
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/hostile`);
  const panel = await openPanel(ext, `${server.url}/hostile`);
  await startSession(panel, { mode: 'record', goal: 'Look at a hostile page', owner: 'Dana Clerk', inputs: [] });
  await expect(panel.getByTestId('menu').locator('li').first()).toBeVisible({ timeout: 20_000 });
  // The gesture words of the closed set are taken (double_click, context_menu); invoke, set_value and read_rows are not.
  expect(await menuRows(panel)).toEqual(["invoke button 'Go'", "double_click button 'Go'", "double_click text 'Plain words'", "context_menu text 'Other words'"]);
  await panel.getByTestId('stop').click();
  await page.close();
  await panel.close();
});

test('model mode: read_rows offers a table and a div grid as the runner does; the book has the runner\'s read_rows steps and the card replays them', async () => {
  test.setTimeout(120_000);
  const script = parseScript(
    JSON.stringify({
      turns: [
        [
          { tool: 'assert_screen', label: 'ledger', title: 'Ledger' },
          { tool: 'read_rows', table: 'T2', output: 'accounts', columns: { account: 'Account', balance: 'Balance' } },
          { tool: 'read_rows', table: 'T1', output: 'cases', columns: { case_id: 'Case', owner: 'Owner' } },
          { tool: 'finish', label: 'ledger' },
        ],
      ],
    }),
  );
  const fake = await startFakeAnthropic(script, { apiKey: API_KEY });
  try {
    const { page, panel } = await startModelSession(ext, `${server.url}/ledger`, { key: API_KEY, baseURL: fake.url }, { goal: 'List the accounts and the open cases', owner: 'Dana Reviewer' });
    await expect(panel.getByTestId('phase')).toHaveText('finished', { timeout: 30_000 });
    expect(fake.problems).toEqual([]);
    // The model was shown both, as the runner shows them (shared/author/rows.ts).
    const first = JSON.parse(fake.bodies[0] ?? '{}') as { messages: Array<{ content: Array<{ text?: string }> }> };
    const prompt = first.messages[0]?.content[0]?.text ?? '';
    expect(/Rows \(read_rows\):\n([^]*?)\nText:/.exec(prompt)?.[1]).toBe("T1: grid 'Open cases', columns 'Case', 'Owner'; 2 rows\nT2: table, columns 'Account', 'Balance'; 3 rows");

    const { jsonl, result } = await exportCompileReplay(panel, { id: 'ledger_rows', baseUrl: server.url, evidenceDir: test.info().outputPath('evidence-rows') });
    const reads = parseBook(jsonl).flatMap((l) => (l.kind === 'act' && l.verb === 'read_rows' ? [{ role: l.control.role, name: l.control.name, rows: l.rows }] : []));
    expect(reads).toEqual([
      { role: 'columnheader', name: 'Account', rows: { output: 'accounts', columns: { account: { header: 'Account' }, balance: { header: 'Balance' } }, headers: ['Account', 'Balance'], count: 3 } },
      { role: 'grid', name: 'Open cases', rows: { output: 'cases', columns: { case_id: { header: 'Case' }, owner: { header: 'Owner' } }, headers: ['Case', 'Owner'], count: 2 } },
    ]);
    expect(result.outputs).toEqual({
      accounts: [
        { account: 'A-1', balance: '10.00' },
        { account: 'A-2', balance: '25.50' },
        { account: 'A-3', balance: '0.75' },
      ],
      cases: [
        { case_id: 'C-101', owner: 'Ada' },
        { case_id: 'C-102', owner: 'Grace' },
      ],
    });
    await page.close();
    await panel.close();
  } finally {
    await fake.close();
  }
});

test('record mode: a click on a control that may be double-clicked, then another control within the double-click time, are recorded in the clerk`s order', async () => {
  test.setTimeout(90_000);
  const page = await ext.context.newPage();
  await page.goto(`${server.url}/start`);
  const panel = await openPanel(ext, server.url);
  await startSession(panel, { mode: 'record', goal: 'Save an urgent order', owner: 'Dana Clerk', inputs: [] });
  await labelScreen(panel, 'start', 'Start');
  await page.goto(`${server.url}/order`);
  await labelScreen(panel, 'order', 'Order');
  expect((await menuRows(panel)).some((m) => m.startsWith("double_click checkbox 'Urgent'"))).toBe(true);
  // The tick waits to see whether a second click follows; Save comes 100 ms later, well inside that time.
  await page.locator('#urgent').click();
  await page.waitForTimeout(100);
  await page.locator('#save').click();
  // Whatever the guard asks about, it asks in the clerk's order: the tick first, then Save.
  for (let asked = 0; asked < 2; asked++) {
    const q = panel.getByTestId('question-control');
    if (!(await q.isVisible().catch(() => false)) && !(await q.waitFor({ timeout: 5_000 }).then(() => true, () => false))) break;
    await answer(panel, (await q.textContent()) ?? '', 'navigate');
  }
  await expect(page.locator('#out')).toHaveText('Saved, urgent: true', { timeout: 20_000 });
  await finishSession(panel);
  expect(actsOf(await exportBook(panel)).slice(-2)).toEqual(['toggle Urgent', 'invoke Save']);
  await page.close();
  await panel.close();
});
