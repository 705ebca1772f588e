// TiddlyWiki (npm `tiddlywiki`, a wiki nobody here wrote) served by its own Node server: a scripted evening creates a
// tiddler with a title, text and a tag and presses the checkmark; the book compiles to the stored card, which verifies
// 3/3 with the wiki's own REST API as judge and replays SUCCESS for a tiddler the evening never made. When the clerk's
// write access is taken away while the page is open, the wiki keeps the tiddler on screen and says in its alert that
// the save failed: never a SUCCESS — the commit is in doubt.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect, type Browser } from '@playwright/test';
import { approvalStatus } from '../../runner/approval.ts';
import { approve } from '../../runner/cli/approve.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import { verify } from '../../runner/verify.ts';
import { parseScript, ScriptedModel } from '../../shared/author/scripted.ts';
import type { Owner } from '../../shared/author/ports.ts';
import type { Capability } from '../../shared/schema/capability.ts';
import { cardAt } from './support/cards.ts';
import { compiled, eveningInBrowser, outline } from './support/evening.ts';
import { tiddlerJudge, wikiScene, wikiSurface, type Access, type Wiki } from './support/tiddly.ts';

const here = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));
const SCRIPT = here('../fixtures/real/tiddlywiki.json');
const CARD = here('../fixtures/real/tiddlywiki-new-tiddler.card.json');
/** The checkmark's step, as the compiler names it from the button ("Confirm changes to this tiddler"). */
const SAVE = 'confirm_changes_to_this_tiddle';
/** The card's expected change, as the judge (the wiki's API) reports a tiddler. */
const CHANGE = { before: { exists: false }, after: { exists: true, text: '{{text}}', tags: '{{tag}}' } };
/** Anyone may read; only `editor` may write, and the clerk is not signed in as `editor`. */
const READ_ONLY: Access = { readers: '(anon)', writers: 'editor', userHeader: 'x-handrail-user' };

let wiki: Wiki;
let dir: string;
wikiScene({ scratch: 'handrail-tiddlywiki-' }, (s) => ({ app: wiki, scratch: dir } = s));
test.beforeEach(async () => {
  await wiki.store.reset();
});

/** The owner says the checkmark commits; the other presses (the wiki saves drafts and its story as it goes) navigate. */
function owner(asked: string[]): Owner {
  return {
    ask(q) {
      asked.push(q.control);
      return Promise.resolve({ answer: q.control.includes('Confirm changes to this tiddler') ? 'commit' : 'navigate', name: 'Dana Reviewer' });
    },
  };
}

let runs = 0;
function replay(card: Capability, inputs: Record<string, string>, browser: Browser, surface?: () => Promise<BrowserSurface>) {
  const n = ++runs;
  return runCapability({
    card,
    requireApproved: true,
    inputs,
    env: { BASE_URL: wiki.url },
    surface: surface ?? (() => wikiSurface(browser)),
    journalPath: join(dir, `journal-${n}.jsonl`),
    evidenceDir: join(dir, `evidence-${n}`),
  });
}

/** A card as the compiler makes it: the judge and the lifecycle are the reviewer's. */
const asCompiled = ({ lifecycle: _l, judge: _j, ...rest }: Capability): Omit<Capability, 'lifecycle' | 'judge'> => rest;

test('a scripted evening creates a tagged tiddler; the card verifies 3/3 with the wiki’s API as judge, is approved, and replays for another tiddler', async ({ browser }) => {
  test.setTimeout(300_000);
  const asked: string[] = [];
  const sent: string[] = [];
  const began = Date.now();
  const { evening, lines } = await eveningInBrowser(
    join(dir, 'tiddlywiki.jsonl'),
    {
      model: new ScriptedModel(parseScript(await readFile(SCRIPT, 'utf8'))),
      owner: owner(asked),
      goal: 'Create a tiddler with a title, text and a tag, and save it',
      entry: `${wiki.url}/`,
      inputs: [
        { name: 'title', value: 'Shopping list', secret: false },
        { name: 'text', value: 'Milk and bread', secret: false },
        { name: 'tag', value: 'errands', secret: false },
      ],
    },
    async () => {
      // What the page sent the wiki, for a failure's message: the evening's saved tiddler once lost its text and
      // tags in CI, under load, and was never reproduced here (session notes, 2026-12-07).
      const surface = await wikiSurface(browser);
      surface.page.on('request', (r) => {
        if (r.method() !== 'GET') sent.push(`${Date.now() - began} ms ${r.method()} ${decodeURIComponent(r.url().replace(wiki.url, ''))} ${(r.postData() ?? '').slice(0, 300)}`);
      });
      return surface;
    },
  );
  expect(evening, JSON.stringify(evening)).toMatchObject({ ok: true, finished: 'saved' });
  expect(asked).toContain("button 'Confirm changes to this tiddler'");
  expect(await wiki.tiddler('Shopping list'), `${outline(lines)}\n${sent.join('\n')}`).toMatchObject({ text: 'Milk and bread', tags: 'errands' });

  const card = compiled(lines, { id: 'tiddlywiki_new_tiddler', noRecord: [SAVE] });
  const stored = await cardAt(CARD);
  expect(asCompiled(card)).toEqual(asCompiled(stored));
  expect(card.steps.find((s) => s.effect.kind === 'commit')).toMatchObject({ id: SAVE, effect: { confirmed_by: { owner: 'Dana Reviewer' } } });
  // The saved page is told from the others by the tiddler's own buttons, never by the title it was authored with.
  expect(JSON.stringify(card.screens['saved']?.marks)).not.toContain('Shopping list');

  const report = await verify(card, {
    plates: [
      { title: 'Garden plan', text: 'Plant the beans in May', tag: 'outdoors' },
      { title: 'Reading list', text: 'The Left Hand of Darkness', tag: 'books' },
      { title: 'Boiler service', text: 'Call the engineer on Tuesday', tag: 'house' },
    ],
    judge: tiddlerJudge(wiki),
    change: CHANGE,
    env: { BASE_URL: wiki.url },
    surfaceFactory: () => wikiSurface(browser),
    evidenceRoot: join(dir, 'verify'),
  });
  expect(report, JSON.stringify(report.plates)).toMatchObject({ verified: true, k: 3, n: 3 });
  const signed = approve({ ...card, judge: { change: CHANGE }, lifecycle: report.lifecycle }, 'Riley Approver');
  if (!signed.ok) throw new Error(signed.reason);
  const approved: Capability = { ...card, judge: { change: CHANGE }, lifecycle: signed.lifecycle };
  expect(approvalStatus(approved)).toMatchObject({ servable: true, by: 'Riley Approver' });

  const ok = await replay(approved, { title: 'Bike repair', text: 'Fix the rear brake', tag: 'errands' }, browser);
  expect(ok, JSON.stringify(ok)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(await wiki.tiddler('Bike repair')).toMatchObject({ text: 'Fix the rear brake', tags: 'errands' });
});

test('write access taken away while the page is open: the wiki keeps the tiddler on screen and alerts; the run is never SUCCESS but in doubt', async ({ browser }) => {
  test.setTimeout(240_000);
  const stored = await cardAt(CARD);
  expect(approvalStatus(stored)).toMatchObject({ servable: true, by: 'Riley Approver' });
  // The clerk may write when the page loads and while typing (the wiki asks its server once, at start); then, as the
  // checkmark is pressed, an administrator restarts the server so that only `editor` may write. The clerk's page
  // still offers the checkmark, and the wiki keeps the tiddler on screen whatever its server answers.
  const revoking = (): (() => Promise<BrowserSurface>) => async () => {
    const s = await wikiSurface(browser);
    const act = s.act.bind(s);
    let revoked = false;
    s.act = async (ref, op) => {
      if (!revoked && op.verb === 'invoke' && (await s.page.getByRole('button', { name: 'Confirm changes to this tiddler' }).count()) > 0) {
        revoked = true;
        await wiki.restart(READ_ONLY);
      }
      return act(ref, op);
    };
    return s;
  };
  try {
    const refused = await replay(stored, { title: 'Holiday dates', text: 'First week of August', tag: 'family' }, browser, revoking());
    expect(refused.word, JSON.stringify(refused)).not.toBe('SUCCESS');
    expect(refused, JSON.stringify(refused)).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: SAVE });
    // What the wiki says, in its own alert (the first of its failed saves: the story list), is in the receipt.
    expect(refused.page_text, JSON.stringify(refused)).toContain('Sync error while processing save of');
    expect(refused.page_text).toContain('XMLHttpRequest error code: 401');
    expect(await wiki.tiddler('Holiday dates')).toBeNull();
  } finally {
    await wiki.restart();
  }
});
