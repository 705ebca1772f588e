// A model (scripted, through the real Anthropic adapter to a fake Messages API) saves a note in the recorded TextEdit
// through the fake mac helper; the book compiles to the committed TextEdit card, which replays with no model.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MacSurface } from '../../mac-agent/surface.ts';
import { AnthropicModel } from '../../runner/author/anthropic.ts';
import { JsonlBook, readBook } from '../../runner/author/book.ts';
import { runCapability } from '../../runner/run.ts';
import { runEvening } from '../../shared/author/evening.ts';
import type { Owner } from '../../shared/author/ports.ts';
import { parseScript } from '../../shared/author/scripted.ts';
import { cardBytes, compile } from '../../shared/compile/compile.ts';
import { Capability } from '../../shared/schema/capability.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../fixtures/fake-anthropic.ts';

const SCRIPT = fileURLToPath(new URL('../fixtures/mac/textedit-evening.json', import.meta.url));
const CARD = fileURLToPath(new URL('../../capabilities/textedit-save-note.json', import.meta.url));
const API_KEY = 'sk-fake-mac';

let fake: FakeAnthropic;
let dir: string;
beforeAll(async () => {
  fake = await startFakeAnthropic(parseScript(await readFile(SCRIPT, 'utf8')), { apiKey: API_KEY });
  dir = await mkdtemp(join(tmpdir(), 'handrail-mac-author-'));
});
afterAll(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

const files = async (state: string): Promise<{ path: string; text: string }[]> => ((JSON.parse(await readFile(state, 'utf8')) as { files: { path: string; text: string }[] }).files);

it('the TextEdit evening is authored on the fake helper, compiles to the committed card, and the card replays SUCCESS', async () => {
  const asked: string[] = [];
  const owner: Owner = {
    ask(q) {
      asked.push(q.control);
      return Promise.resolve({ answer: q.control === "button 'Save'" ? 'commit' : 'navigate', name: 'Dana Reviewer' });
    },
  };
  const state = join(dir, 'authoring-disk.json');
  const bookPath = join(dir, 'trace.jsonl');
  const surface = await MacSurface.launch({ helper: 'fake', env: { HANDRAIL_MAC_FAKE_STATE: state } });
  const book = await JsonlBook.create(bookPath);
  let evening;
  try {
    evening = await runEvening({
      surface,
      model: new AnthropicModel({ apiKey: API_KEY, baseURL: fake.url, model: 'claude-fake' }),
      owner,
      book,
      goal: 'Type a note in TextEdit and save it under a name',
      entry: 'com.apple.TextEdit',
      inputs: [
        { name: 'text', value: 'Buy milk and bread', secret: false },
        { name: 'filename', value: 'groceries', secret: false },
      ],
    });
  } finally {
    await book.close();
    await surface.close();
  }
  expect(evening).toMatchObject({ ok: true, finished: 'saved' });
  // Through the real adapter, with well-formed requests; asked about the two presses, the Save button a commit.
  expect(fake.problems).toEqual([]);
  expect(asked).toEqual(["menuitem 'Save…'", "button 'Save'"]);
  expect(await files(state)).toEqual([{ path: '/Users/fake/Documents/groceries.rtf', text: 'Buy milk and bread' }]);

  // The book compiles, with the reviewer's postcondition, to the committed card's steps, targets, screens and outcomes.
  const read = await readBook(bookPath);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  const compiled = compile(read.lines, { id: 'textedit_save_note', post: { save: [{ kind: 'text', contains: '{{input.filename}}' }] }, noRecord: ['save'] });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.holes));
  const card = compiled.card;
  const committed = Capability.parse(JSON.parse(await readFile(CARD, 'utf8')));
  for (const k of ['surface', 'entry', 'screens', 'targets', 'steps', 'outcomes'] as const) expect(card[k], k).toEqual(committed[k]);
  expect(card.targets['save_as_field']).toMatchObject({ role: 'textbox', name: { eq: 'Save As:' } });
  expect(card.steps.map((s) => [s.id, s.effect.kind])).toEqual([
    ['enter_first_text_view', 'stage'],
    ['press_save', 'navigate'],
    ['enter_save_as', 'stage'],
    ['save', 'commit'],
  ]);

  // The compiled draft replays with no model, for other inputs, on a fresh fake: the file is on its disk.
  const replayDisk = join(dir, 'replay-disk.json');
  const result = await runCapability({
    card,
    allowUnapproved: true,
    inputs: { text: 'Return the library books', filename: 'library' },
    env: {},
    surface: () => MacSurface.launch({ helper: 'fake', env: { HANDRAIL_MAC_FAKE_STATE: replayDisk } }),
    evidenceDir: join(dir, 'evidence'),
  });
  expect(result).toMatchObject({ word: 'SUCCESS', llm_calls: 0, screen: 'saved' });
  expect(await files(replayDisk)).toEqual([{ path: '/Users/fake/Documents/library.rtf', text: 'Return the library books' }]);
  expect(cardBytes(card)).toContain('"surface": "macos"');
});
