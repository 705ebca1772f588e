// CASEDESK's rename in place by double-click: the evening, scripted through the real Anthropic adapter against the fake Messages API, double-clicks a case title the walker offers because the row listens for it, and compiles to capabilities/casedesk-rename-inline.json (verified 3 of 3 by the judge and approved through the CLI); the approved card replays SUCCESS for another case with the judge confirming one rename, and a title that is not there, or a closed case's (which does not listen), ends TARGET_NOT_FOUND with nothing written.
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import type { Desk } from '../../demo/casedesk/server.ts';
import { approvalStatus } from '../../runner/approval.ts';
import { asCompiled, authorEvening, replayCard, storedCard } from './support/casedesk-cards.ts';
import { deskScene, judgeCase } from './support/desk.ts';

let desk: Desk;
let dir: string;
deskScene({ scratch: 'handrail-casedesk-inline-' }, (s) => ({ app: desk, scratch: dir } = s));

let runs = 0;
const evidence = (): string => join(dir, `evidence-${++runs}`);

test('rename in place: double-click the title, type, Enter; the card replays for another case, and a missing or closed case writes nothing', async () => {
  test.setTimeout(240_000);
  const stored = await storedCard('rename-inline');
  const live = await authorEvening({
    desk,
    dir,
    name: 'rename-inline',
    goal: 'Rename a CASEDESK case in place: double-click its title, type the new title, press Enter',
    inputs: [
      { name: 'case_title', value: 'Stolen bicycle from a locked shed', secret: false },
      { name: 'new_title', value: 'Stolen bicycle from a garden shed', secret: false },
    ],
    commitOn: "textbox 'Case title'",
    post: { key_case_title: [{ kind: 'row', key: '{{input.new_title}}', contains: 'open' }] },
  });
  // The double-click sends no write, so the owner is asked only about the two presses that do.
  expect(live.asked).toEqual(["button 'Log in' in dialog 'Log in'", "textbox 'Case title'"]);
  expect(asCompiled(live.card)).toEqual(asCompiled(stored));
  const dbl = stored.steps.find((s) => s.op.verb === 'double_click');
  expect(dbl).toMatchObject({ screen: 'cases', effect: { kind: 'navigate' } });
  // The title is text the row listens on: found by its name (the input), the gesture beside its vocabulary.
  expect(stored.targets[dbl?.target ?? '']).toMatchObject({ role: 'text', name: { eq: '{{input.case_title}}' }, supports: ['read', 'double_click'] });
  expect(stored.steps.find((s) => s.effect.kind === 'commit')).toMatchObject({ op: { verb: 'press', value: 'Enter' } });
  expect(approvalStatus(stored)).toMatchObject({ servable: true, by: 'Handrail maintainers' });
  expect(stored.lifecycle.reliability).toMatchObject({ k: 3, n: 3 });

  desk.store.reset();
  const ok = await replayCard(desk, stored, { case_title: 'Water damage, 14 Elm Street', new_title: 'Water damage, 16 Elm Street' }, evidence());
  expect(ok, JSON.stringify(ok)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(await judgeCase(desk, 'C-1001')).toMatchObject({ case: { title: 'Water damage, 16 Elm Street' }, writes: { renames: 1 } });

  const missing = await replayCard(desk, stored, { case_title: 'No such case anywhere', new_title: 'Anything' }, evidence());
  expect(missing).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND', at_step: dbl?.id });
  // A closed case's title does not listen for a double-click: it is not offered, so not found.
  const closed = await replayCard(desk, stored, { case_title: 'Hail on a conservatory roof', new_title: 'Hail again' }, evidence());
  expect(closed).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND', at_step: dbl?.id });
  for (const id of ['C-1001', 'C-1002', 'C-1003', 'C-1004']) expect((await judgeCase(desk, id)).writes.renames).toBe(id === 'C-1001' ? 1 : 0);
});
