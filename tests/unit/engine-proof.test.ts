// What a commit's SUCCESS must rest on (docs/design/replay.md, "Settling", "Postconditions"): a look taken while the
// app is still busy (a request out, a busy region) proves nothing, and a postcondition that already held on the
// screen the commit was pressed on cannot show that the press did anything.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CapabilityInput } from '../../shared/schema/capability.ts';
import { button, commitStep, memoryCard, replayInMemory } from '../fixtures/memory-cards.ts';
import { MemorySurface, type MemoryApp } from '../fixtures/memory-surface.ts';

const layout = (s: string): string[] => 'ABCDEFGHIJKLM'.split('').map((c) => `table>row>cell '${s} ${c}'`);

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-proof-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/**
 * The surface with the app's write out (as the browser surface counts a POST not yet answered) for `n` looks after
 * each act; the looks meanwhile are busy too, as the browser surface reports them.
 */
function busyAfterActs(s: MemorySurface, n: number): MemorySurface {
  let left = 0;
  const act = s.act.bind(s);
  s.act = async (ref, op) => {
    const r = await act(ref, op);
    left = n;
    return r;
  };
  const evaluate = s.evaluate.bind(s);
  s.evaluate = async (q) => {
    const a = await evaluate(q);
    if (a.kind === 'observe' && left > 0) {
      left--;
      return { ...a, observation: { ...a.observation, busy: true } };
    }
    return a;
  };
  (s as MemorySurface & { writesOut: () => number }).writesOut = () => (left > 0 ? 1 : 0);
  return s;
}

const run = (s: MemorySurface, card: CapabilityInput, inputs: Record<string, string> = {}) => replayInMemory(dir, s, card, inputs);

describe('a commit is proven only on a screen at rest', () => {
  // The app shows its success screen at once (an optimistic update) and its refusal when the server answers.
  const app: MemoryApp = {
    screens: {
      review: {
        title: 'Review',
        furniture: layout('review'),
        elements: [{ role: 'button', name: 'Post', ancestors: ['form'], on: { invoke: { to: 'refused', after: 4, via: 'posted' } } }],
      },
      posted: { title: 'Result', furniture: ["heading 'Hold Posted'"], elements: [{ role: 'link', name: 'Sign Off' }] },
      refused: { title: 'Result', furniture: ["heading 'Refused'"], text: 'HOLD NOT POSTED', elements: [] },
    },
  };
  const card = (s: MemorySurface): CapabilityInput =>
    memoryCard(s, {
      id: 'post_hold',
      entry: 'memory://review',
      screens: ['review', 'posted', 'refused'],
      success: ['posted'],
      targets: { post: button('Post') },
      steps: [commitStep('post', 'review', 'post', { settle: { kind: 'screen_in', screens: ['posted'], timeout_ms: 2000 }, expect: { screen_in: ['posted'] } })],
      outcomes: { failure: { refused: { screen: 'refused', code: 'REFUSED_BY_BANK' } } },
    });

  it('a success screen seen while the request is still out is not SUCCESS: the refusal that follows is the word', async () => {
    const s = busyAfterActs(new MemorySurface(app), 4);
    const { result } = await run(s, card(s));
    expect(result.word).toBe('FAILED');
    expect(result.code).toBe('REFUSED_BY_BANK');
  });

  it('a commit whose write is still unanswered at the end of its wait is in doubt, never SUCCESS', async () => {
    const quiet: MemoryApp = { screens: { ...app.screens, review: { ...app.screens['review']!, elements: [{ role: 'button', name: 'Post', on: { invoke: { to: 'posted' } } }] } } };
    const s = busyAfterActs(new MemorySurface(quiet), 10_000);
    const c = card(s);
    (c.steps[0]!.settle as { timeout_ms: number }).timeout_ms = 300;
    const { result } = await run(s, c);
    expect([result.word, result.code]).toEqual(['UNSAFE_TO_RETRY', 'COMMIT_IN_DOUBT']);
    expect(result.message).toMatch(/not answered its write/);
  });

  it('a success screen that stays still while the write is out is waited on, not taken for an unknown screen', async () => {
    const quiet: MemoryApp = { screens: { ...app.screens, review: { ...app.screens['review']!, elements: [{ role: 'button', name: 'Post', on: { invoke: { to: 'posted' } } }] } } };
    // A write the look does not count as busy (to a sibling origin the card declares): the screen is still at rest.
    const s = new MemorySurface(quiet);
    (s as MemorySurface & { writesOut: () => number }).writesOut = () => (s.acts.length > 0 ? 1 : 0);
    const c = card(s);
    Object.assign(c.steps[0]!.settle as object, { timeout_ms: 600, quiet_ms: 50 });
    const { result, log } = await run(s, c);
    expect([result.word, result.code]).toEqual(['UNSAFE_TO_RETRY', 'COMMIT_IN_DOUBT']);
    expect(result.message).toMatch(/not answered its write/);
    expect(log).not.toContain('"screen_unrecognised"');
  });

  it('a commit that settles on none (it stays on its screen) is read only off a look with its write answered', async () => {
    // The same screen (same furniture) with the app's word on it: the postcondition the press made true.
    const review = { ...app.screens['review']!, elements: [{ role: 'button', name: 'Post', on: { invoke: 'review_posted' } }] };
    const stays: MemoryApp = { screens: { ...app.screens, review, review_posted: { ...review, text: 'Hold posted' } } };
    const s = new MemorySurface(stays);
    (s as MemorySurface & { writesOut: () => number }).writesOut = () => (s.acts.length > 0 ? 1 : 0);
    const c = card(s);
    c.steps[0] = { ...c.steps[0]!, settle: { kind: 'none' }, expect: { screen_in: ['review'] }, post: [{ kind: 'text', contains: 'Hold posted' }] };
    c.outcomes = { ...c.outcomes, success: { screens: ['review'] } };
    const { result } = await run(s, c);
    expect([result.word, result.code]).toEqual(['UNSAFE_TO_RETRY', 'COMMIT_IN_DOUBT']);
    expect(result.message).toMatch(/not answered its write/);
  });

  it('a write the page sent before the press (a stream opened on load, never answered) is not the commit\'s: SUCCESS', async () => {
    const quiet: MemoryApp = { screens: { ...app.screens, review: { ...app.screens['review']!, elements: [{ role: 'button', name: 'Post', on: { invoke: { to: 'posted' } } }] } } };
    const s = new MemorySurface(quiet);
    const opened = Date.now() - 1;
    (s as MemorySurface & { writesOut: (since?: number) => number }).writesOut = (since) => (since === undefined || since <= opened ? 1 : 0);
    const { result } = await run(s, card(s));
    expect(result.word).toBe('SUCCESS');
  });

  it('the same app at rest after the press ends SUCCESS (the check waits, it does not refuse)', async () => {
    const quiet: MemoryApp = { screens: { ...app.screens, review: { ...app.screens['review']!, elements: [{ role: 'button', name: 'Post', on: { invoke: { to: 'posted' } } }] } } };
    const s = busyAfterActs(new MemorySurface(quiet), 3);
    const { result } = await run(s, card(s));
    expect(result.word).toBe('SUCCESS');
  });
});

describe('a postcondition that held before the press proves nothing', () => {
  const COMMENT = 'Please call the member back';
  // A comment box that is a contenteditable editor: what is typed is in the page's text before Send is pressed.
  const app = (sendTo: string): MemoryApp => ({
    screens: {
      compose: {
        title: 'Case',
        furniture: ["heading 'Case C-#'", "form>button 'Send'"],
        text: `Comments ${COMMENT}`,
        elements: [{ role: 'button', name: 'Send', on: { invoke: { to: sendTo, after: 4 } } }],
      },
      failed: {
        title: 'Case',
        furniture: ["heading 'Case C-#'", "form>button 'Send'"],
        text: `Could not send: you are offline. ${COMMENT}`,
        elements: [{ role: 'button', name: 'Send' }],
      },
      sent: {
        title: 'Case',
        furniture: ["heading 'Case C-#'", "form>button 'Send'"],
        text: `Comment sent. ${COMMENT}`,
        elements: [{ role: 'button', name: 'Send' }],
      },
    },
  });
  const card = (s: MemorySurface, post: { kind: 'text'; contains: string }[]): CapabilityInput =>
    memoryCard(s, {
      id: 'comment',
      entry: 'memory://compose',
      inputs: { comment: { type: 'string' } },
      screens: ['compose'],
      success: ['compose'],
      targets: { send: button('Send') },
      steps: [commitStep('send', 'compose', 'send', { settle: { kind: 'screen_is', screen: 'compose', timeout_ms: 1000 }, post })],
    });

  it('only the comment, already on the page before Send: in doubt, and the evidence says why', async () => {
    const s = new MemorySurface(app('failed'));
    const { result, log } = await run(s, card(s, [{ kind: 'text', contains: '{{input.comment}}' }]), { comment: COMMENT });
    expect([result.word, result.code]).toEqual(['UNSAFE_TO_RETRY', 'COMMIT_IN_DOUBT']);
    expect(result.message).toMatch(/already held before/);
    expect(log).toContain('"postcondition_held_before"');
  });

  it('one postcondition the press made true (the app said it sent) is proof: SUCCESS', async () => {
    const s = new MemorySurface(app('sent'));
    const { result } = await run(s, card(s, [{ kind: 'text', contains: 'Comment sent' }, { kind: 'text', contains: '{{input.comment}}' }]), { comment: COMMENT });
    expect(result.message).toBe('ended on compose');
    expect(result.word).toBe('SUCCESS');
  });

  it('the refusal never shows the new sign: in doubt, not SUCCESS', async () => {
    const s = new MemorySurface(app('failed'));
    const { result } = await run(s, card(s, [{ kind: 'text', contains: 'Comment sent' }, { kind: 'text', contains: '{{input.comment}}' }]), { comment: COMMENT });
    expect([result.word, result.code]).toEqual(['UNSAFE_TO_RETRY', 'COMMIT_IN_DOUBT']);
  });

  describe('on the list a dialog was opened from, which the commit closes back to', () => {
    // The list already shows Ann Lee on another row; Save in the assign dialog closes back to the list whether the
    // app assigned or refused (a refusal said only in a toast, which is no path).
    /** The case list, as the app shows it with `text` in its page (the same furniture whatever it says). */
    const list = (text: string): MemoryApp['screens'][string] => ({
      title: 'Cases',
      furniture: ["heading 'Cases'", 'table>row>cell'],
      text,
      elements: [{ role: 'button', name: 'Assign', on: { invoke: 'assign' } }],
    });
    const ROWS = 'C-1 Printer on fire Ann Lee open C-2 Stolen bicycle';
    const desk = (saveTo: string): MemoryApp => ({
      screens: {
        cases: list(`${ROWS} Unassigned open`),
        assign: {
          title: 'Cases',
          furniture: ["dialog>heading 'Assign case'", "dialog>button 'Save'"],
          elements: [{ role: 'button', name: 'Save', ancestors: ['dialog'], on: { invoke: { to: saveTo, after: 2 } } }],
        },
        refused: list(`Could not assign C-2: it changed. ${ROWS} Unassigned open`),
        assigned: list(`Assigned C-2 to Ann Lee ${ROWS} Ann Lee open`),
      },
    });
    const deskCard = (s: MemorySurface, post: { kind: 'text'; contains: string }[]): CapabilityInput =>
      memoryCard(s, {
        id: 'assign',
        entry: 'memory://cases',
        inputs: { assignee: { type: 'string' } },
        screens: ['cases', 'assign'],
        success: ['cases'],
        targets: { assign: button('Assign'), save: button('Save') },
        steps: [
          { id: 'open', screen: 'cases', op: { verb: 'invoke' }, target: 'assign', effect: { kind: 'navigate' }, settle: { kind: 'screen_is', screen: 'assign', timeout_ms: 1000 } },
          commitStep('save', 'assign', 'save', { settle: { kind: 'screen_is', screen: 'cases', timeout_ms: 1000 }, expect: { screen_in: ['cases'] }, post }),
        ],
      });

    it('a postcondition the list showed before the dialog opened proves nothing: in doubt, not SUCCESS', async () => {
      const s = new MemorySurface(desk('refused'));
      const { result, log } = await run(s, deskCard(s, [{ kind: 'text', contains: '{{input.assignee}}' }]), { assignee: 'Ann Lee' });
      expect([result.word, result.code, result.at_step]).toEqual(['UNSAFE_TO_RETRY', 'COMMIT_IN_DOUBT', 'save']);
      expect(result.message).toMatch(/already held before/);
      expect(log).toContain('"postcondition_held_before"');
    });

    it('one the save made true (the app said it assigned) is proof: SUCCESS', async () => {
      const s = new MemorySurface(desk('assigned'));
      const { result } = await run(s, deskCard(s, [{ kind: 'text', contains: 'Assigned' }, { kind: 'text', contains: '{{input.assignee}}' }]), { assignee: 'Ann Lee' });
      expect(result.word).toBe('SUCCESS');
    });
  });

  // Postconditions are read only on looks with no write out (seen failing first in session 12, kept as it.fails while
  // CASEDESK's rename-in-place card had its landing on a screen its row's focus made; docs/design/replay.md, "Settling").
  it('postconditions seen only while the request is out, then the refusal: the refusal is the word', async () => {
    const base = app('failed');
    const optimistic: MemoryApp = {
      screens: {
        ...base.screens,
        compose: { ...base.screens['compose']!, elements: [{ role: 'button', name: 'Send', on: { invoke: { to: 'refused', after: 4, via: 'sent' } } }] },
        refused: { title: 'Case', furniture: ["heading 'Case C-#'", "alert 'Could not send'"], text: 'Could not send', elements: [] },
      },
    };
    const s = busyAfterActs(new MemorySurface(optimistic), 4);
    const c = card(s, [{ kind: 'text', contains: 'Comment sent' }]);
    c.screens['refused'] = s.screenRecord('refused');
    c.outcomes = { ...c.outcomes, failure: { refused: { screen: 'refused', code: 'NOT_SENT' } } };
    const { result } = await run(s, c, { comment: COMMENT });
    expect([result.word, result.code]).toEqual(['FAILED', 'NOT_SENT']);
  });

  it('postconditions that hold on a screen read at rest, then a write goes out and is never answered: in doubt, and the evidence says why', async () => {
    const s = new MemorySurface(app('sent'));
    // The first look after the press sees no write out; from the next one on, one is out for good (a debounced save).
    let looks = -1;
    const act = s.act.bind(s);
    s.act = async (ref, op) => {
      const r = await act(ref, op);
      looks = 0;
      return r;
    };
    const evaluate = s.evaluate.bind(s);
    s.evaluate = async (q) => {
      const a = await evaluate(q);
      if (a.kind === 'observe' && looks >= 0) looks++;
      return a;
    };
    (s as MemorySurface & { writesOut: () => number }).writesOut = () => (looks >= 2 ? 1 : 0);
    const c = card(s, [{ kind: 'text', contains: 'Comment sent' }]);
    const { result, log } = await run(s, c, { comment: COMMENT });
    expect([result.word, result.code]).toEqual(['UNSAFE_TO_RETRY', 'COMMIT_IN_DOUBT']);
    expect(result.message).toMatch(/still not answered its write/);
    expect(log).toContain('"postcondition_unanswered"');
  });
});
