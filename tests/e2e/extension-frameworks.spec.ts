// The extension's gesture probe on real framework builds, not imitations: the task list written with React 19
// (production build; React listens for every event once, on its root, and keeps each element's handlers in props)
// and with Vue 3 (its runtime adds the title's dblclick listener on the element). Opened before the record session
// starts, the probe comes late and the listeners the page added are read through chrome.debugger
// (docs/design/extension.md, "The extension's trusted input"): the clerk renames a task in place, the book is compiled and
// the runner replays it for another task, the server's judge confirming each rename. Opened during a session, the
// probe is in the document before the framework's scripts, and the same gestures are offered.
import { test, expect, type Page } from '@playwright/test';
import { startRealApp, type RealApp } from '../fixtures/real/server.ts';
import { answer, exportCompileReplay, finishSession, labelScreen, launchWithExtension, menuRows, openPanel, startSession, type Loaded } from '../fixtures/extension/harness.ts';

let app: RealApp;
let ext: Loaded;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  app = await startRealApp();
  ext = await launchWithExtension();
});
test.afterAll(async () => {
  await ext?.close();
  await app?.close();
});
test.beforeEach(() => {
  app.renames.length = 0;
});

/**
 * The panel's menu offers the two titles' double-clicks and nothing else of the kind: they listen (React: an
 * onDoubleClick prop under the root's one listener; Vue: a listener on the element); the heading, the field and the
 * button do not, and no one is offered a right-click.
 */
async function expectTitlesOffered(panel: Page): Promise<void> {
  const menu = await menuRows(panel);
  expect(menu.filter((m) => m.startsWith('double_click ')).map((m) => m.replace(/ in .*$/, ''))).toEqual([
    "double_click text 'Call the plumber'",
    "double_click text 'Renew the lease'",
  ]);
  expect(menu.some((m) => m.startsWith('context_menu '))).toBe(false);
}

for (const framework of ['react', 'vue'] as const) {
  test(`${framework}: a page open before the session is offered the title's double-click and nothing else; the clerk's rename in place is recorded and the runner replays it for another task`, async () => {
    test.setTimeout(150_000);
    const page = await ext.context.newPage();
    await page.goto(`${app.url}/${framework}`);
    await expect(page.getByText('Call the plumber')).toBeVisible();
    // The scenario: no probe was in this document while the framework added its listeners.
    expect(await page.evaluate(() => '__handrailListeners' in globalThis)).toBe(false);
    const panel = await openPanel(ext, `${app.url}/${framework}`);
    try {
      await startSession(panel, {
        mode: 'record',
        goal: 'Rename a task in place',
        owner: 'Dana Clerk',
        inputs: [
          { name: 'task', value: 'Call the plumber' },
          { name: 'new_title', value: 'Call the plumber today' },
        ],
      });
      await labelScreen(panel, 'tasks', 'Tasks');

      await expectTitlesOffered(panel);

      // The clerk double-clicks the title: held, asked about, then done with trusted input, so the framework's own
      // handler opens its editor.
      await page.getByText('Call the plumber').dblclick();
      await answer(panel, "text 'Call the plumber'", 'stage');
      // The title became a field: a screen of its own, which the clerk names before typing.
      await labelScreen(panel, 'renaming', 'Renaming a task in place');
      const field = page.getByRole('textbox', { name: 'Task title' });
      await expect(field).toHaveValue('Call the plumber');
      await field.fill('Call the plumber today');
      await field.press('Enter');
      await answer(panel, "textbox 'Task title'", 'commit');
      await expect.poll(() => app.renames).toEqual([{ from: 'Call the plumber', to: 'Call the plumber today' }]);
      // The list again, with the new title: the outcome screen the commit led to.
      await labelScreen(panel, 'renamed', 'The task renamed');
      await finishSession(panel);

      app.renames.length = 0;
      const { card } = await exportCompileReplay(panel, {
        id: `${framework}_rename_in_extension`,
        acts: ['double_click Call the plumber', 'set_value Task title {{input.new_title}}', 'press Task title Enter'],
        inputs: { task: 'Renew the lease', new_title: 'Renew the lease by May' },
        baseUrl: app.url,
        evidenceDir: test.info().outputPath('evidence'),
      });
      // The card is bound to the inputs, not to the task the clerk happened to rename.
      const dbl = card.steps.find((s) => s.op.verb === 'double_click');
      expect(card.targets[dbl?.target ?? '']).toMatchObject({ role: 'text', name: { eq: '{{input.task}}' } });
      expect(app.renames).toEqual([{ from: 'Renew the lease', to: 'Renew the lease by May' }]);
    } finally {
      await panel.close();
      await page.close();
    }
  });
}

for (const framework of ['react', 'vue'] as const) {
  test(`${framework}: opened during a record session (the probe in its main world before the framework's scripts), the titles' double-clicks are offered and nothing else`, async () => {
    test.setTimeout(120_000);
    // A start page of the app's origin with a link to the list, answered by the test (the app has no such page).
    await ext.context.route(`${app.url}/start`, (route) =>
      route.fulfill({ contentType: 'text/html; charset=utf-8', body: `<!doctype html><html lang="en"><title>Start</title><h1>Start</h1><a href="/${framework}">Tasks</a></html>` }),
    );
    const page = await ext.context.newPage();
    await page.goto(`${app.url}/start`);
    const panel = await openPanel(ext, `${app.url}/start`);
    try {
      await startSession(panel, { mode: 'record', goal: 'Look at the tasks', owner: 'Dana Clerk', inputs: [] });
      await labelScreen(panel, 'start', 'Start');
      await page.getByRole('link', { name: 'Tasks' }).click();
      await expect(page.getByText('Call the plumber')).toBeVisible();
      // The scenario: the probe was in the document before the framework added its listeners.
      expect(await page.evaluate(() => '__handrailListeners' in globalThis)).toBe(true);
      await labelScreen(panel, 'tasks', 'Tasks');
      await expectTitlesOffered(panel);
      await finishSession(panel);
    } finally {
      await ext.context.unroute(`${app.url}/start`);
      await panel.close();
      await page.close();
    }
  });
}
