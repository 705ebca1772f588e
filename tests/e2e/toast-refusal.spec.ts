// A list that comes back the same whether the app saved or refused, saying which only in a toast that repeats the
// name: the card authored on its success path replays SUCCESS for another name, a refused name is never a SUCCESS
// (COMMIT_IN_DOUBT, naming what the app said and what it said when the card was made), and the refusal is the card's
// business outcome once its words are declared. A row-scoped postcondition holds only in the record's own row.
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import type { Owner } from '../../shared/author/ports.ts';
import { ScriptedModel } from '../../shared/author/scripted.ts';
import { parsePost } from '../../runner/cli/compile.ts';
import type { Capability, Postcondition } from '../../shared/schema/capability.ts';
import { startToastDesk, type ToastDesk } from '../fixtures/toast-desk.ts';
import { compiled, eveningInBrowser } from './support/evening.ts';
import { appScene } from './support/scene.ts';

let desk: ToastDesk;
let dir: string;
appScene(startToastDesk, { scratch: 'handrail-toast-' }, (s) => ({ app: desk, scratch: dir } = s));

const owner: Owner = {
  ask(q) {
    return Promise.resolve({ answer: q.control.includes('Save supplier') ? 'commit' : 'navigate', name: 'Dana Reviewer' });
  },
};

const TOO_LONG = 'Consolidated Intercontinental Freight';

/** One evening on the success path (a name the desk takes), compiled with the reviewer's postcondition. */
async function author(post: Postcondition[], book: string): Promise<Capability> {
  desk.reset();
  const { evening, lines } = await eveningInBrowser(join(dir, book), {
    model: new ScriptedModel({
      turns: [
        [
          { tool: 'assert_screen', label: 'suppliers', title: 'Suppliers' },
          { tool: 'act', match: "textbox 'Supplier name'", verb: 'set_value', value: '{{input.name}}' },
          { tool: 'act', match: "button 'Save supplier'", verb: 'invoke' },
        ],
        [{ tool: 'finish', label: 'suppliers' }],
      ],
    }),
    owner,
    goal: 'Add a supplier by name',
    entry: `${desk.url}/`,
    inputs: [{ name: 'name', value: 'Cobalt Freight', secret: false }],
  });
  expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true });
  // (Failed once in a loaded fresh-clone CI: the evening ended ok and the desk held no new supplier. The book says why.)
  expect(desk.suppliers.map((s) => s.name), `saves seen: ${desk.saves}; book: ${JSON.stringify(lines)}`).toContain('Cobalt Freight');
  return compiled(lines, { id: 'toast_add_supplier', post: { save_supplier: post }, noRecord: ['save_supplier'] });
}

let runs = 0;
async function replay(card: Capability, name: string) {
  return runCapability({
    card,
    allowUnapproved: true,
    inputs: { name },
    env: { BASE_URL: desk.url },
    surface: () => BrowserSurface.launch(),
    evidenceDir: join(dir, `evidence-${++runs}`),
  });
}

test('a refusal toast that repeats the name never proves the save: success is SUCCESS, a refused name is in doubt, and declared it is the business outcome', async () => {
  test.setTimeout(120_000);
  // The reviewer's postcondition is the record's own words: the name shows on the list once saved.
  const card = await author([{ kind: 'text', contains: '{{input.name}}' }], 'text.jsonl');
  // The book kept what the app said where the save landed, and the compiler carried it to the step, the name a blank.
  expect(card.steps.find((s) => s.id === 'save_supplier')?.said).toEqual(['Saved supplier {{input.name}}']);

  desk.reset();
  const ok = await replay(card, 'Dunmore Haulage');
  expect(ok, JSON.stringify(ok)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(desk.suppliers.map((s) => s.name)).toContain('Dunmore Haulage');

  // Refused: the same list comes back, and only the toast says so, with the very name the postcondition looks for.
  const refused = await replay(card, TOO_LONG);
  expect(desk.suppliers.map((s) => s.name)).not.toContain(TOO_LONG);
  expect(refused.word, JSON.stringify(refused)).not.toBe('SUCCESS');
  expect(refused).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'save_supplier' });
  expect(refused.message).toContain(`the app said "Not saved: ${TOO_LONG} is longer than 24 characters"`);
  expect(refused.message).toContain(`when the card was made it said "Saved supplier ${TOO_LONG}"`);

  // The reviewer declares the refusal's words: it is an answer, not a doubt.
  const declared: Capability = structuredClone(card);
  declared.outcomes.business['name_too_long'] = { screen: 'suppliers', text: 'is longer than 24 characters', code: 'NAME_TOO_LONG' };
  const answered = await replay(declared, TOO_LONG);
  expect(answered, JSON.stringify(answered)).toMatchObject({ word: 'BUSINESS_OUTCOME', code: 'NAME_TOO_LONG', outcome: 'name_too_long' });
  expect(desk.suppliers.map((s) => s.name)).not.toContain(TOO_LONG);
});

test('a row-scoped postcondition (handrail compile --post STEP=row:KEY:WORDS) holds only in the saved supplier\'s own row', async () => {
  test.setTimeout(120_000);
  const post = parsePost(['save_supplier=row:{{input.name}}:new']).save_supplier ?? [];
  const card = await author(post, 'row.jsonl');
  expect(card.steps.find((s) => s.id === 'save_supplier')?.post).toEqual([{ kind: 'row', key: '{{input.name}}', contains: 'new' }]);

  desk.reset();
  const ok = await replay(card, 'Dunmore Haulage');
  expect(ok, JSON.stringify(ok)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });

  // Without the words the card kept, the row alone still tells: a refused name has no row of its own.
  const silent: Capability = structuredClone(card);
  for (const s of silent.steps) delete s.said;
  const refused = await replay(silent, TOO_LONG);
  expect(refused).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'save_supplier' });
  expect(refused.message).toContain('row "{{input.name}}" showing "new" on the screen does not hold');
});
