// The walker and the verbs on real framework builds, not imitations: a task list written with React 19 (production
// build, bundled by esbuild) and the same list with Vue 3 (its browser build with the template compiler). On each:
// set_value reaches the controlled input and Enter submits its form; the title's double-click listener (React's
// delegated onDoubleClick, Vue's @dblclick on the element) is found, so double_click is offered, and nowhere else (not
// on text under a portal's container or an island root, where React listens for every event); a rename in place is
// authored by a scripted model, compiled, and replayed with no model for another task, the server's judge confirming
// the one rename; a title already taken is refused by the server and the replay does not say SUCCESS.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import type { Owner } from '../../shared/author/ports.ts';
import { parseScript, ScriptedModel } from '../../shared/author/scripted.ts';
import { startRealApp, type RealApp } from '../fixtures/real/server.ts';
import { compiled, eveningInBrowser } from './support/evening.ts';
import { controls, one } from './support/observed.ts';

let app: RealApp;
let dir: string;
test.beforeAll(async () => {
  app = await startRealApp();
  dir = await mkdtemp(join(tmpdir(), 'handrail-real-frameworks-'));
});
test.afterAll(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});
test.beforeEach(() => {
  app.renames.length = 0;
});


for (const framework of ['react', 'vue'] as const) {
  test(`${framework}: set_value reaches the controlled input, Enter submits its form, and the title's double-click is offered and renames in place`, async ({ browser }) => {
    const surface = await BrowserSurface.launch({ browser });
    try {
      await surface.open(`${app.url}/${framework}`);
      let o = await surface.observe();
      expect(one(o, 'text', 'Call the plumber').offers).toEqual(['double_click']);
      // A task title that does not listen (the heading) is not offered the gesture, nor is text under a container React
      // listens on for every event: the toast in its portal's container, the island root that holds only "Week 12".
      expect(controls(o).filter((c) => c.offers?.length).map((c) => c.name)).toEqual(['Call the plumber', 'Renew the lease']);
      expect(one(o, 'text', 'Call the plumber').offers).toEqual(['double_click']);
      await surface.act(one(o, 'textbox', 'New task').ref, { verb: 'set_value', value: 'Water the plants' });
      o = await surface.observe();
      await surface.act(one(o, 'textbox', 'New task').ref, { verb: 'press', value: 'Enter' });
      o = await surface.observe();
      // The framework's own state took the value: the new task is rendered, and the field it controls is empty again.
      expect(one(o, 'text', 'Water the plants')).toBeDefined();
      expect(one(o, 'textbox', 'New task').value ?? '').toBe('');
      await surface.act(one(o, 'text', 'Renew the lease').ref, { verb: 'double_click' });
      o = await surface.observe();
      expect(one(o, 'textbox', 'Task title').value).toBe('Renew the lease');
    } finally {
      await surface.close();
    }
  });

  test(`${framework}: a rename in place is authored, compiled and replayed with no model; a taken title is not called SUCCESS`, async ({ browser }) => {
    test.setTimeout(120_000);
    const script = parseScript(await readFile(fileURLToPath(new URL('../fixtures/real/rename.json', import.meta.url)), 'utf8'));
    const bookPath = join(dir, `${framework}.jsonl`);
    const asked: string[] = [];
    const owner: Owner = {
      ask(q) {
        asked.push(q.control);
        return Promise.resolve({ answer: q.control.includes("textbox 'Task title'") ? 'commit' : 'navigate', name: 'Dana Reviewer' });
      },
    };
    const { evening, lines } = await eveningInBrowser(bookPath, {
      model: new ScriptedModel(script),
      owner,
      goal: 'Rename a task in place: double-click its title, type the new title, press Enter',
      entry: `${app.url}/${framework}`,
      inputs: [
        { name: 'task', value: 'Call the plumber', secret: false },
        { name: 'new_title', value: 'Call the plumber today', secret: false },
      ],
    });
    expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
    // The double-click sends nothing; the Enter that saves is the one write the owner is asked about.
    expect(asked).toEqual(["textbox 'Task title'"]);
    expect(app.renames).toEqual([{ from: 'Call the plumber', to: 'Call the plumber today' }]);
    const card = compiled(lines, { id: `${framework}_rename_task` });
    const dbl = card.steps.find((s) => s.op.verb === 'double_click');
    expect(card.targets[dbl?.target ?? '']).toMatchObject({ role: 'text', name: { eq: '{{input.task}}' } });
    expect(card.steps.find((s) => s.effect.kind === 'commit')).toMatchObject({ op: { verb: 'press', value: 'Enter' } });

    app.renames.length = 0;
    const replay = (inputs: Record<string, string>, n: string) =>
      runCapability({ card, allowUnapproved: true, inputs, env: { BASE_URL: app.url }, surface: () => BrowserSurface.launch({ browser }), evidenceDir: join(dir, `${framework}-${n}`) });
    const ok = await replay({ task: 'Renew the lease', new_title: 'Renew the lease by May' }, 'ok');
    expect(ok, JSON.stringify(ok)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
    expect(app.renames).toEqual([{ from: 'Renew the lease', to: 'Renew the lease by May' }]);
    // The server refuses a title another task has and the page says so on a screen the card never saw after its
    // commit: the run cannot prove what happened, so it says the commit is in doubt, never SUCCESS.
    const taken = await replay({ task: 'Renew the lease', new_title: 'Call the plumber' }, 'taken');
    expect(taken, JSON.stringify(taken)).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT' });
    expect(app.renames).toHaveLength(1);
  });
}
