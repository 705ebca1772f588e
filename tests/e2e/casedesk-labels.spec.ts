// The guard and the compiler name CASEDESK's screens with one function: in evenings that label screens the way a
// model does — asserting a label the guard refuses (ALREADY_LABELLED on the rename screen, a label already taken),
// then going on — every screen the guard let the model act on is the screen the compiler names, and the book compiles.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { DEMO_PASSWORD, type Desk } from '../../demo/casedesk/server.ts';
import type { EveningInput } from '../../shared/author/ports.ts';
import { parseScript, ScriptedModel, type Script } from '../../shared/author/scripted.ts';
import { compile, type CompileResult } from '../../shared/compile/compile.ts';
import type { TraceLine } from '../../shared/schema/trace.ts';
import { deskScene } from './support/desk.ts';
import { eveningInBrowser } from './support/evening.ts';

const here = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));
const LOCKED_SHED = 'Stolen bicycle from a locked shed';

let desk: Desk;
let dir: string;
deskScene({ scratch: 'handrail-casedesk-labels-' }, (s) => ({ app: desk, scratch: dir } = s));

/** One scripted evening through the real browser; the owner calls `commitOn` a commit. Returns the book and its compilation. */
async function evening(name: string, script: Script, inputs: EveningInput[], commitOn: (control: string) => boolean): Promise<{ lines: TraceLine[]; compiled: CompileResult }> {
  const { evening: ev, lines } = await eveningInBrowser(join(dir, `${name}.jsonl`), {
    model: new ScriptedModel(script),
    owner: { ask: (q) => Promise.resolve({ answer: commitOn(q.control) ? 'commit' : 'navigate', name: 'Dana Reviewer' }) },
    goal: `CASEDESK ${name}`,
    entry: `${desk.url}/`,
    inputs: [{ name: 'user', value: 'clerk', secret: false }, { name: 'password', value: DEMO_PASSWORD, secret: true }, ...inputs],
  });
  expect(ev, JSON.stringify(ev)).toMatchObject({ ok: true });
  return { lines, compiled: compile(lines, { post: { [name === 'rename' ? 'key_case_title' : 'assign']: [{ kind: 'text', contains: 'ed' }] } }) };
}

/** Each act the guard let through started on the screen it had labelled: the compiled step starts on that same label. */
function expectAgreement(lines: TraceLine[], compiled: CompileResult): void {
  expect(compiled.ok, JSON.stringify(compiled.ok ? null : compiled.holes)).toBe(true);
  if (!compiled.ok) return;
  const guardSaw = lines.flatMap((l) => (l.kind === 'act' ? [l.before.label] : []));
  expect(guardSaw.every((l) => l !== null)).toBe(true);
  expect(compiled.card.steps.map((s) => s.screen)).toEqual(guardSaw);
}

test('rename: the guard says ALREADY_LABELLED on the rename screen (it has the list`s furniture and one field more: the row actions the focus shows are no furniture), and the compiler names it the same', async () => {
  test.setTimeout(120_000);
  const script = parseScript(await readFile(here('../fixtures/author/casedesk-rename-case.json'), 'utf8'));
  const { lines, compiled } = await evening('rename', script, [{ name: 'case_title', value: LOCKED_SHED, secret: false }, { name: 'new_title', value: 'Stolen bicycle from a garden shed', secret: false }], (c) => c.includes("'Case title'"));
  expect(lines.filter((l) => l.kind === 'refusal').map((l) => l.kind === 'refusal' && [l.tool, l.code, l.message])).toEqual([
    ['assert_screen', 'ALREADY_LABELLED', 'this screen is already labelled cases'],
  ]);
  expectAgreement(lines, compiled);
});

test('assign: a model that first tries a label already taken, then labels the assign panel, gets a book that compiles', async () => {
  test.setTimeout(120_000);
  const script = parseScript(await readFile(here('../fixtures/author/casedesk-assign-case.json'), 'utf8'));
  // On the assign panel the model first calls it "cases" (taken: refused), then labels it as the script does.
  const turns = script.turns.map((t) => (t[0]?.tool === 'assert_screen' && t[0].label === 'assign_panel' ? [{ tool: 'assert_screen' as const, label: 'cases' }, ...t] : t));
  const { lines, compiled } = await evening('assign', { turns }, [{ name: 'case_title', value: LOCKED_SHED, secret: false }, { name: 'assignee', value: 'Dana Kowalski', secret: false }], (c) => c.startsWith("button 'Assign'") && !c.includes('Assign case'));
  expect(lines.filter((l) => l.kind === 'refusal').map((l) => l.kind === 'refusal' && l.code)).toEqual(['LABEL_TAKEN']);
  expectAgreement(lines, compiled);
  if (compiled.ok) expect(compiled.card.steps.find((s) => s.id === 'assign_case')).toMatchObject({ settle: { kind: 'screen_is', screen: 'assign_panel' } });
});
