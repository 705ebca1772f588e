// What the app says is never proof of a record (docs/design/replay.md, "What the app says"): a list that comes back the
// same after a save or a refusal, saying which only in a toast, is SUCCESS only when the toast says what it said when
// the card was made (or nothing new), in doubt when it says something else, and the declared outcome when its words
// are declared; a toast repeating the record's name meets no text postcondition, and a row-scoped one holds only in
// the record's own row.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CapabilityInput, Postcondition } from '../../shared/schema/capability.ts';
import { button, commitStep, memoryCard, replayInMemory } from '../fixtures/memory-cards.ts';
import { MemorySurface, type MemoryApp, type MemoryScreen } from '../fixtures/memory-surface.ts';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-said-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const run = (s: MemorySurface, card: CapabilityInput, inputs: Record<string, string>) => replayInMemory(dir, s, card, inputs);

const NAME = 'Cobalt Freight';
const LONG = 'Consolidated Intercontinental Freight';
const SEED = [
  { key: 'Acme Tools', text: 'Acme Tools active' },
  // Another row that names the supplier the run adds: it is not that supplier's row.
  { key: 'Birch & Sons', text: `Birch & Sons active, merging with ${NAME}` },
];

/** The supplier list as the app shows it: the same furniture whatever its toast says. */
const list = (o: { text?: string; said?: string[]; rows?: { key: string; text: string }[] } = {}): MemoryScreen => ({
  title: 'Suppliers',
  furniture: ["heading 'Suppliers'", 'table>row>cell'],
  text: o.text ?? 'Suppliers Name Status Acme Tools active Birch & Sons active',
  ...(o.said ? { said: o.said } : {}),
  rows: o.rows ?? SEED,
  elements: [{ role: 'button', name: 'Save supplier', on: { invoke: 'landed' } }],
});

/** The desk: `landed` is the list as the save left it. */
const desk = (landed: MemoryScreen, before: MemoryScreen = list()): MemoryApp => ({ screens: { suppliers: before, landed } });

function card(s: MemorySurface, o: { post?: Postcondition[]; said?: string[]; business?: CapabilityInput['outcomes']['business'] } = {}): CapabilityInput {
  const save = commitStep('save', 'suppliers', 'save', {
    settle: { kind: 'screen_is', screen: 'suppliers', timeout_ms: 1000, quiet_ms: 100 },
    post: o.post ?? [{ kind: 'text', contains: '{{input.name}}' }],
    ...(o.said ? { said: o.said } : {}),
  });
  return memoryCard(s, {
    id: 'add_supplier',
    entry: 'memory://suppliers',
    inputs: { name: { type: 'string' } },
    screens: ['suppliers'],
    success: ['suppliers'],
    targets: { save: button('Save supplier') },
    steps: [save],
    outcomes: { business: o.business ?? {} },
  });
}

const saved = (name: string, id = 'S-1042'): MemoryScreen =>
  list({ text: `Suppliers Name Status Acme Tools active Birch & Sons active ${name} new`, said: [`Saved supplier ${id}: ${name}`], rows: [...SEED, { key: name, text: `${name} new` }] });
const refused = (name: string): MemoryScreen => list({ said: [`Not saved: ${name} is longer than 24 characters`] });

describe('a commit whose landing says something', () => {
  it('says what it said when the card was made (another number, another name): the postconditions decide, SUCCESS', async () => {
    const s = new MemorySurface(desk(saved(NAME, 'S-1077')));
    const { result, log } = await run(s, card(s, { said: ['Saved supplier S-1042: {{input.name}}'] }), { name: NAME });
    expect(result.word, result.message).toBe('SUCCESS');
    // The evidence keeps what the app said where the commit landed.
    expect(log).toContain(`"said":["Saved supplier S-1077: ${NAME}"]`);
  });

  it('says something else: in doubt, naming what it said and what it said when the card was made', async () => {
    const s = new MemorySurface(desk(refused(LONG)));
    const { result, log } = await run(s, card(s, { said: ['Saved supplier S-1042: {{input.name}}'] }), { name: LONG });
    expect([result.word, result.code, result.at_step]).toEqual(['UNSAFE_TO_RETRY', 'COMMIT_IN_DOUBT', 'save']);
    expect(result.message).toContain(`the app said "Not saved: ${LONG} is longer than 24 characters"; when the card was made it said "Saved supplier S-1042: ${LONG}"`);
    expect(log).toContain('"said_unexpected"');
    // The receipt's page text carries the toast too, so a caller reads the refusal without opening the evidence.
    expect(result.page_text).toContain('Not saved:');
  });

  it('says something else that a declared business outcome names: that outcome, not a doubt', async () => {
    const s = new MemorySurface(desk(refused(LONG)));
    const business = { name_too_long: { screen: 'suppliers', text: 'is longer than 24 characters', code: 'NAME_TOO_LONG' } };
    const { result } = await run(s, card(s, { said: ['Saved supplier S-1042: {{input.name}}'], business }), { name: LONG });
    expect(result).toMatchObject({ word: 'BUSINESS_OUTCOME', code: 'NAME_TOO_LONG', outcome: 'name_too_long' });
  });

  it('says only what it already said before the press: no news, the postconditions decide', async () => {
    const before = list({ said: ['Logged in as clerk'] });
    const s = new MemorySurface(desk(list({ said: ['Logged in as clerk'] }), before));
    const { result } = await run(s, card(s, { said: ['Saved supplier S-1042: {{input.name}}'] }), { name: NAME });
    // Nothing new said, and the name is nowhere in the list: the postcondition does not hold.
    expect([result.word, result.code]).toEqual(['UNSAFE_TO_RETRY', 'COMMIT_IN_DOUBT']);
    expect(result.message).toContain('shows no sign of its effect');
  });

  it('a card that recorded nothing said (older, or a silent landing) leaves the words to the postconditions', async () => {
    const s = new MemorySurface(desk(saved(NAME)));
    const { result } = await run(s, card(s), { name: NAME });
    expect(result.word, result.message).toBe('SUCCESS');
  });
});

describe('a toast that repeats the record proves nothing', () => {
  it('a text postcondition on the name is not met by the refusal toast that names it', async () => {
    const s = new MemorySurface(desk(refused(NAME)));
    const { result } = await run(s, card(s), { name: NAME });
    expect([result.word, result.code]).toEqual(['UNSAFE_TO_RETRY', 'COMMIT_IN_DOUBT']);
    expect(result.message).toContain('text "{{input.name}}" on the screen does not hold');
  });

  it('a row-scoped postcondition holds only in the record\'s own row: another row naming it is not it', async () => {
    const post: Postcondition[] = [{ kind: 'row', key: '{{input.name}}', contains: 'new' }];
    // Refused, with another row that mentions the name (and a text postcondition on the name would hold on it).
    const mentioned = list({ text: `Suppliers Acme Tools active Birch & Sons active, merging with ${NAME}`, said: [`Not saved: ${NAME} is a duplicate`] });
    const s = new MemorySurface(desk(mentioned));
    const { result } = await run(s, card(s, { post }), { name: NAME });
    expect([result.word, result.code]).toEqual(['UNSAFE_TO_RETRY', 'COMMIT_IN_DOUBT']);
    expect(result.message).toContain('row "{{input.name}}" showing "new" on the screen does not hold');

    const ok = new MemorySurface(desk(saved(NAME)));
    expect((await run(ok, card(ok, { post }), { name: NAME })).result.word).toBe('SUCCESS');
  });
});
