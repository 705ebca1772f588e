// A detail page whose only heading is the record's value (the case's title) is named for whichever record a run is
// for: a card authored on one case replays on another with no model, and a case that is not there is never SUCCESS
// (docs/design/replay.md, "Record paths"; unit rules in tests/unit/screens-record.test.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { runCapability } from '../../runner/run.ts';
import { ScriptedModel } from '../../shared/author/scripted.ts';
import type { Capability } from '../../shared/schema/capability.ts';
import { serveFixtures, type FixtureServer } from '../fixtures/server.ts';
import { compiled, eveningInBrowser } from './support/evening.ts';

let server: FixtureServer;
let dir: string;
let card: Capability;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  server = await serveFixtures();
  dir = await mkdtemp(join(tmpdir(), 'handrail-detail-record-'));
});
test.afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function replay(title: string) {
  return await runCapability({ card, inputs: { case: title }, env: { BASE_URL: server.url }, evidenceDir: await mkdtemp(join(dir, 'run-')), allowUnapproved: true });
}

test('authored on one case, the detail screen is named by the case input, not by the first case`s title', async () => {
  const { evening, lines } = await eveningInBrowser(join(dir, 'notes.jsonl'), {
    model: new ScriptedModel({
      turns: [
        [
          { tool: 'assert_screen', label: 'search', title: 'Find a case' },
          { tool: 'act', match: "textbox 'Case title'", verb: 'set_value', value: '{{input.case}}' },
          { tool: 'act', match: "button 'Open'", verb: 'invoke' },
        ],
        [
          { tool: 'assert_screen', label: 'case_detail' },
          { tool: 'read_rows', table: 'T1', output: 'notes', columns: { when: 'When', note: 'Note' } },
          { tool: 'finish', label: 'case_detail' },
        ],
      ],
    }),
    owner: { ask: () => Promise.resolve({ answer: 'navigate', name: 'Dana Reviewer' }) },
    goal: 'Read the notes of a case',
    entry: `${server.url}/case-detail.html`,
    inputs: [{ name: 'case', value: 'Stolen bicycle', secret: false }],
  });
  expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true, finished: 'case_detail' });
  card = compiled(lines, { id: 'case_notes' });
  const detail = card.screens['case_detail'];
  // The heading is the record path, with the input's blank where the first case's title stood.
  expect(JSON.stringify(detail)).toContain('{{input.case}}');
  expect(JSON.stringify(detail)).not.toContain('Stolen bicycle');
});

test('replays with no model on the case it was authored on and on another, reading that case`s notes', async () => {
  const first = await replay('Stolen bicycle');
  expect(first.word, JSON.stringify(first)).toBe('SUCCESS');
  expect(first.outputs['notes']).toEqual([
    { when: 'Mon', note: 'Reported at the station' },
    { when: 'Tue', note: 'Insurer called' },
  ]);
  const other = await replay('Water damage');
  expect(other.word, JSON.stringify(other)).toBe('SUCCESS');
  expect(other.outputs['notes']).toHaveLength(3);
  expect(other.outputs['notes']).toContainEqual({ when: 'Fri', note: 'Claim approved' });
});

test('a case that is not there shows another screen: the run stops by name, never SUCCESS, with no rows', async () => {
  const missing = await replay('Lost passport');
  expect(missing).toMatchObject({ word: 'FAILED', code: 'SCREEN_MISMATCH', at_step: 'open', outputs: {} });
});
