// The replay engine, over an in-memory surface it cannot tell from a browser: each step's six checkpoints and every typed word a run can end in, in milliseconds.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Replay, type StepEvent } from '../../runner/engine/engine.ts';
import { Journal } from '../../runner/engine/journal.ts';
import { Evidence, EvidenceError, LOG_FILE, verifyEvidence } from '../../runner/evidence.ts';
import { intentOf, storeIn } from '../../runner/intent.ts';
import { runCapability } from '../../runner/run.ts';
import { LocalReferee } from '../../runner/escalate/local.ts';
import { cardDiff } from '../../runner/diff.ts';
import { CountedModel, Scout } from '../../runner/escalate/scout.ts';
import { ScriptedModel, type Script } from '../../shared/author/scripted.ts';
import { NONE, type Referee, type RefereeQuestion, type Verdict } from '../../runner/escalate/referee.ts';
import { Capability, type CapabilityInput } from '../../shared/schema/capability.ts';
import { RunResult } from '../../shared/schema/result.ts';
import { Masker } from '../../shared/secrets.ts';
import { MAX_TEST_TEXT } from '../../shared/regex.ts';
import { proposeMarks } from '../../shared/marks.ts';
import { MemorySurface, type MemoryApp, type MemoryElement } from '../fixtures/memory-surface.ts';

const PASSWORD = 'correct-horse-9';
const MEMBER = '400118';
const INPUTS = { member: MEMBER, password: PASSWORD };

/** Layout-table furniture, as a legacy page has plenty of: a one-path drift then still scores Jaccard >= 0.85. */
const layout = (screen: string): string[] => 'ABCDEFGHIJKLM'.split('').map((c) => `table>row>cell '${screen} ${c}'`);

/** A four-screen hold desk: sign on, review, post, read the confirmation; plus the screens a run may end on. */
function bank(): MemoryApp {
  return {
    screens: {
      signon: {
        title: 'Sign On',
        text: 'OPERATOR SIGN ON',
        furniture: layout('signon'),
        elements: [
          { role: 'textbox', hint: 'Password', secret: true, ancestors: ['form'], css: ['input[name=pw]'] },
          { role: 'button', name: 'Sign On', ancestors: ['form'], css: ['#signon'], on: { invoke: 'review' } },
        ],
      },
      review: {
        title: 'Review Hold',
        text: `MEMBER ${MEMBER}`,
        furniture: layout('review'),
        elements: [
          { role: 'button', name: 'F10=Post Hold', ancestors: ['form'], scope: [{ role: 'form', name: 'Hold' }], on: { invoke: 'posted' } },
          { role: 'link', name: 'Cancel', on: { invoke: 'signon' } },
        ],
      },
      posted: {
        title: 'Hold Result',
        furniture: ["heading 'Hold Posted'"],
        elements: [
          { role: 'text', text: 'Hold placed: HX-123456', control: false },
          { role: 'link', name: 'Sign Off', on: { invoke: 'signon' } },
        ],
      },
      already: {
        title: 'Hold Result',
        furniture: ["heading 'Already Held'"],
        text: 'ALREADY HELD',
        elements: [{ role: 'link', name: 'Back', on: { invoke: 'review' } }],
      },
      expired: { title: 'Session Expired', text: 'SESSION EXPIRED, SIGN ON AGAIN', elements: [] },
      denied: { title: 'Sign On Refused', text: 'BAD PASSWORD', elements: [] },
      // An unlabelled screen: no card declares it (a maintenance page).
      maintenance: { title: 'Down For Maintenance', elements: [] },
    },
  };
}

/** The element of a screen by name or hint, for a test to rescript. */
function el(app: MemoryApp, screen: string, name: string): MemoryElement {
  const found = app.screens[screen]?.elements.find((e) => e.name === name || e.hint === name || e.text === name);
  if (!found) throw new Error(`no ${name} on ${screen}`);
  return found;
}

/** The card as compiled from an authoring run over the same app: screens carry the app's own signatures. */
function cardFor(surface: MemorySurface, edit: (c: CapabilityInput) => void = () => undefined): Capability {
  const card: CapabilityInput = {
    schema: 'handrail.capability/v1',
    id: 'place_hold',
    intent: 'Place a hold on a share.',
    surface: 'browser',
    entry: 'memory://signon',
    inputs: {
      member: { type: 'string', pattern: '\\d{6}' },
      password: { type: 'string', secret: true },
    },
    outputs: { confirmation: { from_step: 'read_result', regex: 'HX-(\\d{6})' } },
    screens: Object.fromEntries(['signon', 'review', 'posted', 'already', 'expired', 'denied'].map((s) => [s, surface.screenRecord(s)])),
    targets: {
      password_field: {
        role: 'textbox',
        hint: 'Password',
        supports: ['set_value', 'read'],
        ladder: [
          { rung: 'label', cost: 200 },
          { rung: 'css', cost: 10_000_000, value: 'input[name=pw]' },
        ],
        fingerprint: { over: ['role', 'supports'] },
      },
      sign_on: {
        role: 'button',
        name: { eq: 'Sign On' },
        supports: ['invoke'],
        ladder: [
          { rung: 'role_name', cost: 100 },
          { rung: 'css', cost: 10_000_000, value: '#signon' },
        ],
        fingerprint: { over: ['role', 'name', 'supports'] },
      },
      post_button: {
        role: 'button',
        name: { eq: 'F10=Post Hold' },
        supports: ['invoke'],
        scope: [{ role: 'form', name: 'Hold' }],
        ladder: [{ rung: 'role_name', cost: 100 }],
        fingerprint: {
          over: ['role', 'name', 'supports', 'ancestor_roles'],
          value: surface.fingerprintOf('review', 'F10=Post Hold', ['role', 'name', 'supports', 'ancestor_roles']),
        },
      },
      result_line: {
        role: 'text',
        supports: ['read'],
        ladder: [{ rung: 'text', cost: 300, value: 'HX-' }],
        fingerprint: { over: ['role'] },
      },
    },
    steps: [
      { id: 'enter_password', screen: 'signon', op: { verb: 'set_value', value: '{{input.password}}' }, target: 'password_field', effect: { kind: 'stage' } },
      {
        id: 'sign_on',
        screen: 'signon',
        op: { verb: 'invoke' },
        target: 'sign_on',
        effect: { kind: 'navigate' },
        settle: { kind: 'screen_is', screen: 'review', timeout_ms: 200 },
      },
      {
        id: 'post',
        screen: 'review',
        op: { verb: 'invoke' },
        target: 'post_button',
        effect: { kind: 'commit', confirmed_by: { owner: 'dana' } },
        pre: [{ kind: 'text', contains: '{{input.member}}' }],
        settle: { kind: 'screen_in', screens: ['posted'], timeout_ms: 200 },
        expect: { screen_in: ['posted'] },
      },
      { id: 'read_result', screen: 'posted', op: { verb: 'read' }, target: 'result_line', effect: { kind: 'read' } },
    ],
    outcomes: {
      success: { screens: ['posted'] },
      business: { already_held: { screen: 'already', text: 'ALREADY HELD', code: 'ALREADY_PROCESSED' } },
      recovery: { session_expired: { screen: 'expired', code: 'SESSION_EXPIRED' } },
      failure: { bad_password: { screen: 'denied', code: 'BAD_CREDENTIALS' } },
    },
    lifecycle: { state: 'verified' },
  };
  edit(card);
  return Capability.parse(card);
}

let tmp: string;
let runs = 0;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-engine-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

interface Run {
  result: RunResult;
  evidence: string;
  progress: string[];
}

/** One replay of `card` over `surface`, with evidence in a fresh directory and, if given, a journal file. */
async function replay(
  surface: MemorySurface,
  card: Capability,
  opts: { journal?: string; inputs?: Record<string, string>; referee?: Referee; scout?: Scout; signal?: AbortSignal; onStep?: (e: StepEvent) => void } = {},
): Promise<Run> {
  const runId = `run-${++runs}`;
  const masker = new Masker([{ name: 'password', value: PASSWORD }]);
  const dir = path.join(tmp, runId);
  const evidence = await Evidence.create(dir, masker, runId);
  const journal = opts.journal ? await Journal.open(opts.journal, intentOf(card, opts.inputs ?? INPUTS)) : null;
  const progress: string[] = [];
  try {
    const result = await new Replay(
      {
        card,
        inputs: opts.inputs ?? INPUTS,
        entry: card.entry,
        runId,
        masker,
        evidence,
        journal,
        progress: (l) => progress.push(l),
        ...(opts.referee ? { referee: opts.referee } : {}),
        ...(opts.scout ? { scout: opts.scout } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.onStep ? { onStep: opts.onStep } : {}),
      },
      surface,
    ).run();
    // As runner/run.ts does: a run that pressed a commit leaves its receipt in the journal.
    if (journal?.view.committedBy(runId)) await journal.receipt(runId, masker.maskDeep(result));
    return { result: RunResult.parse(result), evidence: dir, progress };
  } finally {
    await journal?.close();
    await evidence.close();
  }
}

const journalLines = async (file: string): Promise<Array<{ step?: string; phase: string; run?: string }>> =>
  (await fs.readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { step?: string; phase: string; run?: string });

const phases = async (file: string): Promise<string[]> =>
  (await journalLines(file)).filter((l) => l.step).map((l) => `${l.step} ${l.phase}`);

describe('the memory surface is a surface the engine cannot tell from a browser', () => {
  it('names its screens by the same signatures a card records', async () => {
    const s = new MemorySurface(bank());
    await s.open('memory://signon');
    const obs = await s.observe();
    expect(obs.signature).toBe(s.screenRecord('signon').signature);
    expect(obs.paths).toContain("form>textbox 'Password'");
    expect(obs.parts[0]?.controls.map((c) => c.ref)).toEqual(['|e0', '|e1']);
    // Two screens that share a title are still told apart by their furniture.
    expect(s.screenRecord('posted').signature).not.toBe(s.screenRecord('already').signature);
  });

  it('puts elements in frames with the product\'s refs and scope, and resolves only in the target\'s frame', async () => {
    const s = new MemorySurface({
      screens: { desk: { title: 'Desk', elements: [{ role: 'link', name: 'Hold' }, { role: 'link', name: 'Hold', frame: ['work'] }] } },
    });
    await s.open('memory://desk');
    const obs = await s.observe();
    expect(obs.parts.map((f) => f.part)).toEqual([[], ['work']]);
    expect(obs.paths).toContain("frame 'work'");
    expect(obs.parts[1]?.controls[0]).toMatchObject({ ref: 'work|e1', scope: [{ role: 'frame', name: 'work' }] });
    const target = { id: 'hold', role: 'link', name: 'Hold', supports: ['invoke' as const], ladder: [{ rung: 'role_name' as const, cost: 1 }], fingerprint: { over: ['role' as const] } };
    expect(await s.resolve({ ...target, scope: [{ role: 'frame', name: 'work' }] })).toMatchObject({ ok: true, ref: 'work|e1' });
    expect(await s.resolve({ ...target, scope: [] })).toMatchObject({ ok: true, ref: '|e0' });
  });

  it('settles slowly when scripted to: a move shows the old screen for N observations first', async () => {
    const app = bank();
    el(app, 'signon', 'Sign On').on = { invoke: { to: 'review', after: 2 } };
    const s = new MemorySurface(app);
    await s.open('memory://signon');
    const [, button] = (await s.observe()).parts[0]?.controls ?? [];
    await s.act(button?.ref ?? '', { verb: 'invoke' });
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push((await s.observe()).parts[0]?.locus.title);
    expect(seen).toEqual(['Sign On', 'Sign On', 'Review Hold']);
  });
});

describe('SUCCESS', () => {
  it('promises its outputs: a read after the commit whose text has no match for an output is OUTPUT_MISSING_AFTER_COMMIT, saying the commit landed', async () => {
    const s = new MemorySurface(bank());
    const { result } = await replay(s, cardFor(s, (c) => (c.outputs = { confirmation: { from_step: 'read_result', regex: 'HZ-(\\d{6})' } })));
    expect(result).toMatchObject({ word: 'FAILED', code: 'OUTPUT_MISSING_AFTER_COMMIT', at_step: 'read_result' });
    expect(result.outputs).toEqual({});
    expect(result.message).toMatch(/output confirmation.*commit post was observed/);
  });

  it('passes every step through the six checkpoints and says which rung found each target', async () => {
    const s = new MemorySurface(bank());
    const { result } = await replay(s, cardFor(s));
    expect(result).toMatchObject({
      word: 'SUCCESS',
      code: 'OK',
      retryable: false,
      screen: 'posted',
      steps_done: 4,
      outputs: { confirmation: '123456' },
      rungs: { password_field: 'label', sign_on: 'role_name', post_button: 'role_name', result_line: 'text' },
      llm_calls: 0,
      classifier_calls: 0,
      from_journal: false,
    });
    expect(s.acts.map((a) => `${a.screen}:${a.verb} ${a.element}`)).toEqual([
      'signon:set_value Password',
      'signon:invoke Sign On',
      'review:invoke F10=Post Hold',
      'posted:read Hold placed: HX-123456',
    ]);
    expect(s.valueOf('signon', 'Password')).toBe(PASSWORD);
  });

  it('keeps a hash-chained evidence log in which the secret never appears', async () => {
    const s = new MemorySurface(bank());
    const { result, evidence, progress } = await replay(s, cardFor(s));
    expect(result.word).toBe('SUCCESS');
    expect(await verifyEvidence(evidence)).toMatchObject({ ok: true });
    const log = await fs.readFile(path.join(evidence, LOG_FILE), 'utf8');
    expect(log).toContain('"kind":"run_end"');
    expect(log + JSON.stringify(result) + progress.join('\n')).not.toContain(PASSWORD);
    // One screenshot per declared screen reached.
    expect((await fs.readdir(path.join(evidence, 'shots'))).length).toBe(3);
  });

  it('waits for a screen that settles slowly, and tolerates a frame still navigating (STALE) meanwhile', async () => {
    const app = bank();
    el(app, 'signon', 'Sign On').on = { invoke: { to: 'review', after: 3 } };
    app.screens['review'] = { ...app.screens['review']!, stale: 2 };
    const s = new MemorySurface(app);
    const { result } = await replay(s, cardFor(s));
    expect(result.word).toBe('SUCCESS');
    expect(s.observations).toBeGreaterThanOrEqual(6);
  });

  it('climbs the ladder: a rung that finds nothing tries the next, and the receipt names the rung that won', async () => {
    const app = bank();
    delete el(app, 'signon', 'Sign On').name; // drift: the button lost its accessible name, its id is still there
    const s = new MemorySurface(app);
    const card = cardFor(s);
    // The card was recorded before the drift: the screen is recognised as similar, not exact.
    card.screens['signon'] = new MemorySurface(bank()).screenRecord('signon');
    const { result } = await replay(s, card);
    expect(result.word).toBe('SUCCESS');
    expect(result.rungs['sign_on']).toBe('css');
  });
});

describe('checkpoint 1: right screen?', () => {
  it('FAILED SCREEN_MISMATCH when a step would run on a screen it was not written for', async () => {
    const app = bank();
    el(app, 'signon', 'Sign On').on = { invoke: 'maintenance' };
    const s = new MemorySurface(app);
    const card = cardFor(s, (c) => {
      c.steps[1]!.settle = { kind: 'none' };
    });
    const { result } = await replay(s, card);
    expect(result).toMatchObject({ word: 'FAILED', code: 'SCREEN_MISMATCH', at_step: 'post', retryable: false, screen: null, steps_done: 2 });
    expect(s.presses('F10=Post Hold')).toBe(0);
  });

  it('ends with the declared outcome when the screen showing is one (a recovery before any commit is RECOVERABLE)', async () => {
    const app = bank();
    el(app, 'signon', 'Sign On').on = { invoke: 'expired' };
    const s = new MemorySurface(app);
    const { result } = await replay(s, cardFor(s));
    expect(result).toMatchObject({ word: 'RECOVERABLE', code: 'SESSION_EXPIRED', outcome: 'session_expired', retryable: true, at_step: 'sign_on' });
  });

  // The first screen is looked at once, with no settle: a start page that is slow to draw is a mismatch today.
  // The lead is making the first screen wait under settle rules; flip this to `it` when that lands.
  it('waits for the first screen to settle before calling it a mismatch', async () => {
    const app = bank();
    app.screens['signon'] = { ...app.screens['signon']!, stale: 1 };
    const s = new MemorySurface(app);
    const { result } = await replay(s, cardFor(s));
    expect(result.word).toBe('SUCCESS');
  });
});

describe('checkpoint 2: resolve', () => {
  it('FAILED TARGET_NOT_FOUND when no rung finds the target, with every rung tried', async () => {
    const app = bank();
    app.screens['signon']!.elements = app.screens['signon']!.elements.filter((e) => e.hint !== 'Password');
    const s = new MemorySurface(app);
    const card = cardFor(s);
    card.screens['signon'] = new MemorySurface(bank()).screenRecord('signon');
    const { result } = await replay(s, card);
    expect(result).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND', at_step: 'enter_password', steps_done: 0 });
    expect(result.message).toContain('label=0, css=0');
    expect(s.acts).toEqual([]);
  });

  it('FAILED AMBIGUOUS when a rung finds two, and the next rung is not tried', async () => {
    const app = bank();
    const button = el(app, 'signon', 'Sign On');
    app.screens['signon']!.elements.push({ ...button, ancestors: ['form', 'group'] });
    const s = new MemorySurface(app);
    const card = cardFor(s);
    card.screens['signon'] = new MemorySurface(bank()).screenRecord('signon');
    const { result } = await replay(s, card);
    expect(result).toMatchObject({ word: 'FAILED', code: 'AMBIGUOUS', at_step: 'sign_on' });
    expect(result.message).toContain('role_name=2]');
    expect(s.presses('Sign On')).toBe(0);
  });

  it('FAILED FINGERPRINT_MISMATCH when the one element found is not the control recorded', async () => {
    const app = bank();
    el(app, 'review', 'F10=Post Hold').ancestors = ['form', 'dialog'];
    const s = new MemorySurface(app);
    const card = cardFor(s);
    card.targets['post_button']!.fingerprint.value = new MemorySurface(bank()).fingerprintOf('review', 'F10=Post Hold', [
      'role',
      'name',
      'supports',
      'ancestor_roles',
    ]);
    card.screens['review'] = new MemorySurface(bank()).screenRecord('review');
    const { result } = await replay(s, card);
    expect(result).toMatchObject({ word: 'FAILED', code: 'FINGERPRINT_MISMATCH', at_step: 'post' });
    expect(s.presses('F10=Post Hold')).toBe(0);
  });
});

describe('checkpoint 3: the journal rule', () => {
  it('writes dispatched to disk before a stage or commit acts, and observed after; reads and navigations are not journalled', async () => {
    const file = path.join(tmp, 'journal.jsonl');
    const s = new MemorySurface(bank());
    const onDisk: string[] = [];
    s.onAct = async (a) => {
      if (a.verb === 'invoke' && a.element === 'F10=Post Hold') onDisk.push(...(await phases(file)));
    };
    const { result } = await replay(s, cardFor(s), { journal: file });
    expect(result.word).toBe('SUCCESS');
    expect(onDisk).toEqual(['enter_password dispatched', 'enter_password observed', 'post dispatched']);
    expect(await phases(file)).toEqual(['enter_password dispatched', 'enter_password observed', 'post dispatched', 'post observed']);
    // A run that pressed a commit leaves its receipt in the journal.
    expect((await journalLines(file)).filter((l) => l.phase === 'receipt')).toHaveLength(1);
  });

  it('does not wait for a stage\'s observed line, yet presses nothing more when that line could not be written', async () => {
    const file = path.join(tmp, 'journal.jsonl');
    const s = new MemorySurface(bank());
    const card = cardFor(s);
    const masker = new Masker([{ name: 'password', value: PASSWORD }]);
    const evidence = await Evidence.create(path.join(tmp, 'lost-observed'), masker, 'run-lost-observed');
    const journal = await Journal.open(file, intentOf(card, INPUTS));
    // The disk refuses the stage's `observed` (a full disk): the run learns it before its next journalled step.
    const observed = journal.observed.bind(journal);
    journal.observed = (run, step, effect) => (step === 'enter_password' ? Promise.reject(new Error('ENOSPC: no space left on device')) : observed(run, step, effect));
    const result = await new Replay({ card, inputs: INPUTS, entry: card.entry, runId: 'run-lost-observed', masker, evidence, journal }, s).run();
    await journal.close();
    await evidence.close();
    expect(result).toMatchObject({ word: 'FAILED', code: 'INTERNAL', at_step: 'post' });
    expect(result.message).toContain('ENOSPC');
    expect(s.presses('F10=Post Hold')).toBe(0);
    expect(await phases(file)).toEqual(['enter_password dispatched']);
  });

  it('a commit`s own evidence line that could not be written ends the run before its dispatched line: FAILED, never a commit in doubt', async () => {
    const file = path.join(tmp, 'journal.jsonl');
    const s = new MemorySurface(bank());
    const card = cardFor(s);
    const masker = new Masker([{ name: 'password', value: PASSWORD }]);
    const evidence = await Evidence.create(path.join(tmp, 'lost-commit-line'), masker, 'run-lost-commit-line');
    const journal = await Journal.open(file, intentOf(card, INPUTS));
    // The disk refuses the commit step's resolve line, which is queued, not awaited, when it is written.
    const append = evidence.append.bind(evidence);
    evidence.append = (kind, data) => (kind === 'resolve' && data['step'] === 'post' ? Promise.reject(new Error('ENOSPC: no space left on device')) : append(kind, data));
    const result = await new Replay({ card, inputs: INPUTS, entry: card.entry, runId: 'run-lost-commit-line', masker, evidence, journal }, s).run();
    await journal.close();
    await evidence.close();
    expect(result).toMatchObject({ word: 'FAILED', code: 'INTERNAL', at_step: 'post' });
    expect(s.presses('F10=Post Hold')).toBe(0);
    // Nothing says the commit may have been pressed: the key is not held in doubt.
    expect(await phases(file)).not.toContain('post dispatched');
  });

  it('hands back the recorded receipt, without pressing again, when the commit was already observed', async () => {
    const file = path.join(tmp, 'journal.jsonl');
    const s = new MemorySurface(bank());
    const card = cardFor(s);
    const first = await replay(s, card, { journal: file });
    expect(first.result.word).toBe('SUCCESS');
    const again = new MemorySurface(bank());
    const second = await replay(again, card, { journal: file });
    expect(second.result).toMatchObject({ word: 'SUCCESS', from_journal: true, run_id: first.result.run_id, outputs: { confirmation: '123456' } });
    expect(again.presses('F10=Post Hold')).toBe(0);
  });
});

describe('UNSAFE_TO_RETRY', () => {
  it('when the commit click fails after landing: dispatched, never observed, and every later run refuses to press', async () => {
    const file = path.join(tmp, 'journal.jsonl');
    const app = bank();
    el(app, 'review', 'F10=Post Hold').fault = { code: 'BROWSER_CRASHED', landed: true };
    const s = new MemorySurface(app);
    const card = cardFor(s);
    const { result } = await replay(s, card, { journal: file });
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'post', retryable: false });
    expect(await phases(file)).toEqual(['enter_password dispatched', 'enter_password observed', 'post dispatched']);
    for (let i = 0; i < 2; i++) {
      const later = new MemorySurface(bank());
      const again = await replay(later, card, { journal: file });
      expect(again.result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', retryable: false });
      expect(later.presses('F10=Post Hold')).toBe(0);
    }
    expect((await phases(file)).filter((p) => p.startsWith('post'))).toEqual(['post dispatched']);
  });

  // The in-doubt refusal of a later run names the commit an earlier run left in doubt (the InDoubt thrown at the
  // journal checkpoint carries its step; until session 14 the message read "commit step  was dispatched").
  it('names the commit in doubt when a later run refuses to press it', async () => {
    const file = path.join(tmp, 'journal.jsonl');
    const s = new MemorySurface(bank());
    const card = cardFor(s);
    const j = await Journal.open(file, intentOf(card, INPUTS));
    await j.dispatched('run-0', 'post', 'commit');
    await j.close();
    const { result } = await replay(s, card, { journal: file });
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', at_step: 'post' });
    expect(result.message).toMatch(/^an earlier run pressed post and its outcome was never observed/);
    expect(s.presses('F10=Post Hold')).toBe(0);
  });

  it('when the screen never settles after a commit', async () => {
    const app = bank();
    el(app, 'review', 'F10=Post Hold').on = { invoke: { to: 'posted', after: Infinity } };
    const s = new MemorySurface(app);
    const { result } = await replay(s, cardFor(s));
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'post' });
  });

  it('when an undeclared screen follows a commit', async () => {
    const app = bank();
    el(app, 'review', 'F10=Post Hold').on = { invoke: 'maintenance' };
    const s = new MemorySurface(app);
    const card = cardFor(s, (c) => {
      c.steps[2]!.settle = { kind: 'none' };
    });
    const { result } = await replay(s, card);
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'post' });
  });
});

describe('checkpoint 4: act', () => {
  it('FAILED with the surface code when a click that commits nothing throws (nothing pressed twice)', async () => {
    const app = bank();
    el(app, 'signon', 'Sign On').fault = { code: 'ACTION_FAILED' };
    const s = new MemorySurface(app);
    const { result } = await replay(s, cardFor(s));
    expect(result).toMatchObject({ word: 'FAILED', code: 'ACTION_FAILED', retryable: false, steps_done: 1 });
    // The receipt names the step that failed, as every other ending does.
    expect(result.at_step).toBe(cardFor(s).steps[1]?.id);
    expect(s.presses('Sign On')).toBe(1);
  });

  it('RECOVERABLE when the surface is unreachable before any step ran', async () => {
    const s = new MemorySurface(bank());
    s.openFault = 'SURFACE_UNREACHABLE';
    const { result } = await replay(s, cardFor(s));
    expect(result).toMatchObject({ word: 'RECOVERABLE', code: 'SURFACE_UNREACHABLE', retryable: true, steps_done: 0 });
    expect(s.acts).toEqual([]);
  });
});

  it('ends the step whose evidence line could not be written and presses nothing after it, though the engine did not wait for that line', async () => {
    const s = new MemorySurface(bank());
    const card = cardFor(s);
    const masker = new Masker([{ name: 'password', value: PASSWORD }]);
    const evidence = await Evidence.create(path.join(tmp, 'lost-line'), masker, 'run-lost-line');
    // The disk refuses the summary line of the navigation before the commit (a full disk, a yanked volume).
    const append = evidence.append.bind(evidence);
    evidence.append = (kind, data) =>
      kind === 'step' && data['step'] === 'sign_on' ? Promise.reject(new Error('ENOSPC: no space left on device')) : append(kind, data);
    const result = await new Replay({ card, inputs: INPUTS, entry: card.entry, runId: 'run-lost-line', masker, evidence, journal: null }, s).run();
    await evidence.close();
    expect(result).toMatchObject({ word: 'FAILED', code: 'INTERNAL', at_step: 'sign_on' });
    expect(result.message).toContain('ENOSPC');
    expect(s.presses('Sign On')).toBe(1);
    expect(s.presses('F10=Post Hold')).toBe(0);
  });

describe('checkpoint 5: settle', () => {
  it('FAILED TIMEOUT when a step that commits nothing never reaches its screen', async () => {
    const app = bank();
    el(app, 'signon', 'Sign On').on = { invoke: { to: 'review', after: Infinity } };
    const s = new MemorySurface(app);
    const started = Date.now();
    const { result } = await replay(s, cardFor(s));
    expect(result).toMatchObject({ word: 'FAILED', code: 'TIMEOUT', at_step: 'sign_on', retryable: false, screen: 'signon' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('waits for a load the surface hears about, then names the new screen with one look (no look between documents)', async () => {
    const app = bank();
    el(app, 'signon', 'Sign On').on = { invoke: { to: 'review', after: 3, load: true } };
    el(app, 'review', 'F10=Post Hold').on = { invoke: { to: 'posted', after: 3, load: true } };
    const s = new MemorySurface(app);
    const { result } = await replay(s, cardFor(s));
    expect(result.word).toBe('SUCCESS');
    // Two looks for the first screen (at rest: the same screen, not busy, across the rest window; shared/rest.ts)
    // and one after each of the four steps: none at the old screen while loading.
    expect(s.observations).toBe(6);
    // Asked before every look, bounded by the quiet window (1 s) or what is left of the step's timeout (200 ms).
    expect(s.loadWaits).toHaveLength(6);
    const [first, again, typed, signOn, post, read] = s.loadWaits;
    expect([first, again, typed, read]).toEqual([1_000, 1_000, 1_000, 1_000]);
    for (const ms of [signOn, post]) expect(ms).toBeGreaterThan(0);
    for (const ms of [signOn, post]) expect(ms).toBeLessThanOrEqual(200);
  });

  it('a load that never ends is waited for at most the bound before each look, and the step still ends by looking', async () => {
    const app = bank();
    el(app, 'signon', 'Sign On').on = { invoke: { to: 'review', after: Infinity, load: true } };
    const s = new MemorySurface(app);
    const started = Date.now();
    const { result } = await replay(s, cardFor(s));
    expect(result).toMatchObject({ word: 'FAILED', code: 'TIMEOUT', at_step: 'sign_on', screen: 'signon' });
    // The step's 200 ms bound the whole wait: looks still happened, the run did not hang on the load.
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(s.observations).toBeGreaterThanOrEqual(3);
  });
});

describe('checkpoint 6: expected screen?', () => {
  it('BUSINESS_OUTCOME when the commit lands on a declared outcome: an answer, not a failure', async () => {
    const app = bank();
    el(app, 'review', 'F10=Post Hold').on = { invoke: 'already' };
    const s = new MemorySurface(app);
    const { result } = await replay(s, cardFor(s));
    expect(result).toMatchObject({
      word: 'BUSINESS_OUTCOME',
      code: 'ALREADY_PROCESSED',
      outcome: 'already_held',
      retryable: false,
      at_step: 'post',
      screen: 'already',
      steps_done: 3,
    });
  });

  it('FAILED with the card\'s code for a declared failure outcome', async () => {
    const app = bank();
    el(app, 'signon', 'Sign On').on = { invoke: 'denied' };
    const s = new MemorySurface(app);
    const { result } = await replay(s, cardFor(s));
    expect(result).toMatchObject({ word: 'FAILED', code: 'BAD_CREDENTIALS', outcome: 'bad_password', at_step: 'sign_on' });
  });

  it('FAILED, not RECOVERABLE, for a recovery outcome once a commit was pressed', async () => {
    const app = bank();
    el(app, 'review', 'F10=Post Hold').on = { invoke: 'expired' };
    const s = new MemorySurface(app);
    const { result } = await replay(s, cardFor(s));
    expect(result).toMatchObject({ word: 'FAILED', code: 'SESSION_EXPIRED', retryable: false });
  });

  it('FAILED SCREEN_MISMATCH when a step lands on a declared screen it did not expect', async () => {
    const app = bank();
    el(app, 'signon', 'Sign On').on = { invoke: 'posted' };
    const s = new MemorySurface(app);
    const card = cardFor(s, (c) => {
      c.steps[1]!.settle = { kind: 'none' };
      c.steps[1]!.expect = { screen_in: ['review'] };
    });
    const { result } = await replay(s, card);
    expect(result).toMatchObject({ word: 'FAILED', code: 'SCREEN_MISMATCH', at_step: 'sign_on', screen: 'posted' });
  });

  it('FAILED UNDECLARED_OUTCOME when every step ran but the run ended on no declared outcome', async () => {
    const s = new MemorySurface(bank());
    const card = cardFor(s, (c) => {
      c.steps = c.steps.slice(0, 2);
      c.outputs = {};
    });
    const { result } = await replay(s, card);
    expect(result).toMatchObject({ word: 'FAILED', code: 'UNDECLARED_OUTCOME', screen: 'review', steps_done: 2 });
  });
});

describe('REFUSED, before any surface opens (runner/run.ts preflight)', () => {
  const run = async (card: Capability, inputs: Record<string, string>, extra: { requireApproved?: boolean; allowUnapproved?: boolean } = {}) => {
    let opened = 0;
    const result = await runCapability({
      card,
      inputs,
      env: {},
      surface: () => {
        opened++;
        return Promise.resolve(new MemorySurface(bank()));
      },
      evidenceDir: path.join(tmp, `refused-${++runs}`),
      // These cards are drafts that commit: run them as verify would, unless a test says otherwise.
      allowUnapproved: true,
      ...extra,
    });
    return { result, opened };
  };

  it('refuses bad input without echoing a secret, and opens nothing', async () => {
    const s = new MemorySurface(bank());
    const { result, opened } = await run(cardFor(s), { member: '12', password: PASSWORD });
    expect(result).toMatchObject({ word: 'REFUSED', code: 'INVALID_INPUT', retryable: false, steps_done: 0 });
    expect(JSON.stringify(result)).not.toContain(PASSWORD);
    expect(opened).toBe(0);
  });

  it('refuses a card that is not approved when serving requires it', async () => {
    const s = new MemorySurface(bank());
    const { result, opened } = await run(cardFor(s), INPUTS, { requireApproved: true });
    expect(result).toMatchObject({ word: 'REFUSED', code: 'NOT_APPROVED' });
    expect(opened).toBe(0);
  });

  it('refuses a draft that commits unless told to run it anyway, and opens nothing', async () => {
    const s = new MemorySurface(bank());
    const { result, opened } = await run(cardFor(s), INPUTS, { allowUnapproved: false });
    expect(result).toMatchObject({ word: 'REFUSED', code: 'NOT_APPROVED' });
    expect(result.message).toContain('commits');
    expect(opened).toBe(0);
  });

  it('runs the same card through the same path when nothing is wrong', async () => {
    const s = new MemorySurface(bank());
    const { result, opened } = await run(cardFor(s), INPUTS);
    expect(result).toMatchObject({ word: 'SUCCESS', outputs: { confirmation: '123456' } });
    expect(opened).toBe(1);
  });
});

describe('a disk that fills during a run (the evidence cannot be written)', () => {
  /** Every evidence line after the first `ok` (or, with `from`, from the first line of that kind on) fails as a full disk makes it fail. */
  function diskFullAfter(ok: number, from?: string): () => void {
    let lines = 0;
    let full = false;
    const real = Object.getOwnPropertyDescriptor(Evidence.prototype, 'append')?.value as Evidence['append'];
    Evidence.prototype.append = function (this: Evidence, kind, data) {
      full ||= from === undefined ? ++lines > ok : kind === from;
      if (full) return Promise.reject(new EvidenceError('EVIDENCE_IO', 'cannot write run.jsonl: ENOSPC'));
      return real.call(this, kind, data);
    };
    return () => {
      Evidence.prototype.append = real;
    };
  }

  const runWith = async (s: MemorySurface, store: ReturnType<typeof storeIn> | null) =>
    runCapability({
      card: cardFor(s),
      inputs: INPUTS,
      env: {},
      ...(store ? { store } : {}),
      surface: () => Promise.resolve(s),
      evidenceDir: path.join(tmp, `full-${++runs}`),
      allowUnapproved: true,
    });

  it('after the commit was pressed: a typed UNSAFE_TO_RETRY, never a rejected promise, and the key stays in doubt', async () => {
    const store = storeIn(path.join(tmp, 'home'));
    const s = new MemorySurface(bank());
    // Fill the disk as the commit is pressed.
    let restore: () => void = () => undefined;
    s.onAct = (a) => {
      if (a.element === 'F10=Post Hold') restore = diskFullAfter(0);
      return undefined;
    };
    let result;
    try {
      result = await runWith(s, store);
    } finally {
      restore();
    }
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT' });
    expect(result.message).toMatch(/ENOSPC/);
    expect(s.presses('F10=Post Hold')).toBe(1);
    // The same call again is not pressed a second time.
    const again = await runWith(s, store);
    expect(again.word).toBe('UNSAFE_TO_RETRY');
    expect(s.presses('F10=Post Hold')).toBe(1);
  });

  it('before anything was pressed: FAILED EVIDENCE_UNWRITABLE, naming the disk\'s answer', async () => {
    const restore = diskFullAfter(0);
    let result;
    try {
      result = await runWith(new MemorySurface(bank()), storeIn(path.join(tmp, 'home2')));
    } finally {
      restore();
    }
    expect(result).toMatchObject({ word: 'FAILED', code: 'EVIDENCE_UNWRITABLE' });
    expect(result.message).toMatch(/ENOSPC/);
  });

  it('after a proven commit, its last evidence line lost: not SUCCESS without its evidence, and never pressed again', async () => {
    const store = storeIn(path.join(tmp, 'home3'));
    const s = new MemorySurface(bank());
    const restore = diskFullAfter(0, 'run_end');
    let result;
    try {
      result = await runWith(s, store);
    } finally {
      restore();
    }
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'EVIDENCE_UNWRITABLE', outputs: { confirmation: '123456' } });
    expect(result.message).toMatch(/^it ended as it should, but its evidence could not be written \(.*ENOSPC/);
    const again = await runWith(s, store);
    expect(again.word).toBe('UNSAFE_TO_RETRY');
    expect(s.presses('F10=Post Hold')).toBe(1);
  });

  it('a receipt the journal cannot keep leaves the proven word, and a later call is never pressed again', async () => {
    const store = storeIn(path.join(tmp, 'home4'));
    const s = new MemorySurface(bank());
    // The method is the sealed journal's (runner/engine/journal.ts SealedJournal), which every store's journal shares.
    const sealed = Object.getPrototypeOf(Journal.prototype) as Journal;
    const real = sealed.receipt;
    sealed.receipt = () => Promise.reject(new Error('ENOSPC: no space left on device, write'));
    let result;
    try {
      result = await runWith(s, store);
    } finally {
      sealed.receipt = real;
    }
    expect(result).toMatchObject({ word: 'SUCCESS', outputs: { confirmation: '123456' } });
    const again = await runWith(s, store);
    expect(again.word).toBe('UNSAFE_TO_RETRY');
    expect(s.presses('F10=Post Hold')).toBe(1);
  });
});

describe('BUSY, when another run holds the same intent (runner/lease.ts)', () => {
  it('a second run of the same card and inputs is BUSY and retryable while the first is pressing, and opens nothing', async () => {
    const store = storeIn(path.join(tmp, 'home'));
    const first = new MemorySurface(bank());
    let release: () => void = () => undefined;
    let pressing: () => void = () => undefined;
    const atCommit = new Promise<void>((r) => (pressing = r));
    first.onAct = (a) =>
      a.element === 'F10=Post Hold' ? (pressing(), new Promise<void>((r) => (release = r))) : undefined;
    const card = cardFor(first);
    const common = { card, inputs: INPUTS, env: {}, store, allowUnapproved: true };
    const running = runCapability({ ...common, surface: () => Promise.resolve(first), evidenceDir: path.join(tmp, `busy-${++runs}`) });
    await atCommit;
    let opened = 0;
    const second = await runCapability({
      ...common,
      surface: () => {
        opened++;
        return Promise.resolve(new MemorySurface(bank()));
      },
      evidenceDir: path.join(tmp, `busy-${++runs}`),
    });
    expect(second).toMatchObject({ word: 'BUSY', code: 'BUSY', retryable: true, steps_done: 0 });
    expect(opened).toBe(0);
    release();
    expect((await running).word).toBe('SUCCESS');
    expect(first.presses('F10=Post Hold')).toBe(1);
  });
});

describe('the truth of the word (docs/design/replay.md, "The truth of the word")', () => {
  /** The bank with a refusal page that has the result page's furniture and other words. */
  function refusingBank(): MemoryApp {
    const app = bank();
    const posted = app.screens['posted'];
    if (!posted) throw new Error('no posted screen');
    posted.furniture = [...layout('result'), "heading 'Hold Posted'"];
    app.screens['refused'] = {
      title: 'Hold Result',
      text: 'HOLD NOT POSTED: ALREADY HELD (FRAUD_REVIEW)',
      furniture: [...layout('result'), "heading 'Hold Not Posted'"],
      elements: [{ role: 'link', name: 'Sign Off', on: { invoke: 'signon' } }],
    };
    return app;
  }

  const withMarks = (c: CapabilityInput): void => {
    for (const [label, marks] of Object.entries(proposeMarks(Capability.parse(c)))) {
      const screen = c.screens[label];
      if (screen) screen.marks = marks;
    }
  };

  it('a refusal with the success screen\'s furniture ends in doubt with the page\'s words, not SUCCESS', async () => {
    const app = refusingBank();
    el(app, 'review', 'F10=Post Hold').on = { invoke: 'refused' };
    const s = new MemorySurface(app);
    const card = cardFor(s, withMarks);
    expect(card.screens['posted']?.marks?.paths).toContain("heading 'Hold Posted'");
    const { result, evidence } = await replay(s, card);
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'post' });
    expect(result.page_text).toContain('HOLD NOT POSTED: ALREADY HELD (FRAUD_REVIEW)');
    const log = await fs.readFile(path.join(evidence, LOG_FILE), 'utf8');
    expect(log).toContain('screen_unrecognised');
  });

  describe('a declared text far down a long screen', () => {
    /** The result page, its refusal words after `before` characters of other text (a long statement above them). */
    function longResult(before: number, words: string): MemoryApp {
      const app = bank();
      const posted = app.screens['posted'];
      if (!posted) throw new Error('no posted screen');
      posted.text = `${'LINE OF STATEMENT 0123456789 '.repeat(Math.ceil(before / 29)).slice(0, before)} ${words}`;
      return app;
    }
    /** The card with a business outcome on the success screen itself, told apart by its text only. */
    const refusalOnPosted = (c: CapabilityInput): void => {
      c.outcomes.business = { already_held: { screen: 'posted', text: 'ALREADY HELD', code: 'ALREADY_PROCESSED' } };
    };

    it('is found past the first 100,000 characters: the business outcome, not SUCCESS', async () => {
      const s = new MemorySurface(longResult(150_000, 'ALREADY HELD'));
      const { result } = await replay(s, cardFor(s, refusalOnPosted));
      expect(result).toMatchObject({ word: 'BUSINESS_OUTCOME', code: 'ALREADY_PROCESSED', at_step: 'post' });
    });

    it('past what is searched, the commit is in doubt: whether the refusal shows cannot be told', async () => {
      const s = new MemorySurface(longResult(MAX_TEST_TEXT + 10, 'ALREADY HELD'));
      const { result } = await replay(s, cardFor(s, refusalOnPosted));
      expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'post' });
      expect(result.message).toMatch(/already_held/);
      expect(result.message).toMatch(/2,000,000/);
    });

    it('a screen past what is searched that no commit led to is FAILED OUTCOME_UNDECIDED, safe to run again', async () => {
      const app = longResult(MAX_TEST_TEXT + 10, 'nothing to see');
      const s = new MemorySurface(app);
      const card = cardFor(s, (c) => {
        c.outcomes.failure = { bad_password: { screen: 'review', text: 'BAD PASSWORD', code: 'BAD_CREDENTIALS' } };
      });
      const review = app.screens['review'];
      if (!review) throw new Error('no review screen');
      review.text = 'x'.repeat(MAX_TEST_TEXT + 10);
      const { result } = await replay(s, card);
      expect(result).toMatchObject({ word: 'FAILED', code: 'OUTCOME_UNDECIDED', at_step: 'sign_on' });
      expect(s.presses('F10=Post Hold')).toBe(0);
    });

    it('a short screen without the text is the success it shows (the window is no excuse for doubt)', async () => {
      const s = new MemorySurface(longResult(1_000, 'all good'));
      const { result } = await replay(s, cardFor(s, refusalOnPosted));
      expect(result).toMatchObject({ word: 'SUCCESS' });
    });
  });

  it('the same card names the real result screen when a banner was added (all marks present)', async () => {
    const app = refusingBank();
    const s = new MemorySurface(app);
    const card = cardFor(s, withMarks);
    app.screens['posted']?.furniture?.push("strong 'SYSTEM NOTICE'");
    const { result } = await replay(s, card);
    expect(result).toMatchObject({ word: 'SUCCESS', outputs: { confirmation: '123456' } });
  });

  it('without marks a screen after a commit is named only exactly: a drifted result is in doubt, not guessed', async () => {
    const app = refusingBank();
    const s = new MemorySurface(app);
    const card = cardFor(s);
    app.screens['posted']?.furniture?.push("strong 'SYSTEM NOTICE'");
    const { result } = await replay(s, card);
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT' });
  });

  it('a commit whose postcondition holds succeeds; one whose postcondition never shows is in doubt', async () => {
    const post = (contains: string) => (c: CapabilityInput): void => {
      const step = c.steps.find((x) => x.id === 'post');
      if (step) step.post = [{ kind: 'text', contains }];
    };
    const ok = new MemorySurface(bank());
    expect((await replay(ok, cardFor(ok, post('HX-')))).result.word).toBe('SUCCESS');
    const missing = new MemorySurface(bank());
    const file = path.join(tmp, 'post-journal.jsonl');
    const { result } = await replay(missing, cardFor(missing, post('{{input.member}} HELD')), { journal: file });
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'post' });
    expect(result.message).toContain(`"{{input.member}} HELD"`);
    // Its effect was never shown, so the journal keeps the commit in doubt: dispatched, never observed.
    expect((await phases(file)).filter((p) => p.startsWith('post '))).toEqual(['post dispatched']);
  });

  it('counts model and classifier calls from the ports it is given', async () => {
    const s = new MemorySurface(bank());
    const card = cardFor(s);
    const masker = new Masker([{ name: 'password', value: PASSWORD }]);
    const evidence = await Evidence.create(path.join(tmp, 'counted'), masker, 'run-counted');
    const model = { calls: 0 };
    const classifier = { calls: 0 };
    const replayer = new Replay({ card, inputs: INPUTS, entry: card.entry, runId: 'run-counted', masker, evidence, journal: null, model, classifier }, s);
    // A port that was consulted three times and once during the run: the receipt reads the ports, not constants.
    s.onAct = () => {
      model.calls = 3;
      classifier.calls = 1;
      return Promise.resolve();
    };
    const result = await replayer.run();
    await evidence.close();
    expect(result).toMatchObject({ word: 'SUCCESS', llm_calls: 3, classifier_calls: 1 });
  });
});

describe('a cancellation (docs/design/journal.md, "Cancelling a run")', () => {
  it('before the commit is dispatched stops the run RECOVERABLE / CANCELLED: nothing pressed, nothing in doubt', async () => {
    const s = new MemorySurface(bank());
    const journal = path.join(tmp, 'cancel.jsonl');
    const abort = new AbortController();
    const events: string[] = [];
    const { result, evidence } = await replay(s, cardFor(s), {
      journal,
      signal: abort.signal,
      onStep: (e) => {
        events.push(`${e.phase} ${e.n}/${e.of} ${e.step}@${e.screen}`);
        if (e.step === 'sign_on') abort.abort('the agent changed its mind');
      },
    });
    expect(result).toMatchObject({ word: 'RECOVERABLE', code: 'CANCELLED', retryable: true, at_step: 'post', steps_done: 2 });
    expect(result.message).toContain('the agent changed its mind');
    expect(s.presses('F10=Post Hold')).toBe(0);
    expect(events).toEqual(['start 1/4 enter_password@signon', 'dispatched 1/4 enter_password@signon', 'start 2/4 sign_on@signon']);
    expect(await phases(journal)).not.toContain('post dispatched');
    const log = await fs.readFile(path.join(evidence, LOG_FILE), 'utf8');
    expect(log).toContain('"kind":"run_end"');
  });

  it('after the commit is dispatched is too late: the run finishes and the commit is observed and journalled', async () => {
    const s = new MemorySurface(bank());
    const journal = path.join(tmp, 'late.jsonl');
    const abort = new AbortController();
    const { result } = await replay(s, cardFor(s), {
      journal,
      signal: abort.signal,
      onStep: (e) => {
        if (e.phase === 'dispatched' && e.effect === 'commit') abort.abort();
      },
    });
    expect(abort.signal.aborted).toBe(true);
    expect(result).toMatchObject({ word: 'SUCCESS', steps_done: 4, outputs: { confirmation: '123456' } });
    expect(s.presses('F10=Post Hold')).toBe(1);
    expect(await phases(journal)).toEqual(expect.arrayContaining(['post dispatched', 'post observed']));
  });

  it('already cancelled when the run starts: no step acts', async () => {
    const s = new MemorySurface(bank());
    const { result } = await replay(s, cardFor(s), { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ word: 'RECOVERABLE', code: 'CANCELLED', at_step: 'enter_password', steps_done: 0 });
    expect(s.presses('Sign On')).toBe(0);
  });
});

/** Extra furniture on a screen the card recorded: three new paths take the review screen below the similar tier. */
function drift(app: MemoryApp, screen: string, n: number): void {
  for (let i = 0; i < n; i++) app.screens[screen]?.furniture?.push(`strong 'NOTICE ${i}'`);
}

/** The bank whose result page was reworded after the card was recorded: its mark (the heading) is gone. */
function rewordedResult(): { app: MemoryApp; s: MemorySurface; card: Capability } {
  const app = bank();
  const s = new MemorySurface(app);
  const card = cardFor(s, (c) => {
    const posted = c.screens['posted'];
    if (posted) posted.marks = { paths: ["heading 'Hold Posted'"], text: [] };
  });
  const posted = app.screens['posted'];
  if (posted) posted.furniture = ["heading 'Hold Accepted'"];
  return { app, s, card };
}

describe('the escalation ladder\'s first rung: the referee (docs/design/escalation.md, "The escalation ladder")', () => {
  const evidenceOf = async (dir: string): Promise<Array<{ kind: string; data: Record<string, unknown> }>> =>
    (await fs.readFile(path.join(dir, LOG_FILE), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; data: Record<string, unknown> });

  it('names a drifted screen no tier could name, once the furniture agrees, and the run goes on to SUCCESS', async () => {
    const app = bank();
    const s = new MemorySurface(app);
    const card = cardFor(s);
    drift(app, 'review', 3);
    const without = await replay(new MemorySurface(app), card);
    expect(without.result).toMatchObject({ word: 'FAILED', at_step: 'sign_on', classifier_calls: 0 });
    const referee = new LocalReferee();
    const { result, evidence } = await replay(s, card, { referee });
    expect(result).toMatchObject({ word: 'SUCCESS', classifier_calls: 1, llm_calls: 0, outputs: { confirmation: '123456' } });
    const lines = await evidenceOf(evidence);
    const verdict = lines.find((l) => l.kind === 'referee');
    expect(verdict?.data).toMatchObject({ backend: 'local', judgement: { kind: 'named', label: 'review' } });
    expect(s.presses('F10=Post Hold')).toBe(1);
  });

  it('proposes a repair beside the evidence, never applied: a draft with the screen re-recorded and a review note', async () => {
    const app = bank();
    const s = new MemorySurface(app);
    const card = cardFor(s);
    const before = JSON.stringify(card);
    drift(app, 'review', 3);
    const evidenceDir = path.join(tmp, `repair-${++runs}`);
    const result = await runCapability({ card, inputs: INPUTS, env: {}, surface: () => Promise.resolve(s), evidenceDir, allowUnapproved: true, referee: new LocalReferee() });
    expect(result).toMatchObject({ word: 'SUCCESS', classifier_calls: 1 });
    expect(JSON.stringify(card)).toBe(before);
    const proposed = Capability.parse(JSON.parse(await fs.readFile(`${evidenceDir}.proposed.json`, 'utf8')));
    expect(proposed.lifecycle.state).toBe('draft');
    expect(proposed.lifecycle.review_notes.join('\n')).toMatch(/local referee named screen review after step sign_on/);
    const changes = cardDiff(card, proposed);
    expect(changes.filter((c) => c.area === 'screens').map((c) => c.key)).toEqual(['review']);
    expect(changes.find((c) => c.area === 'screens')?.detail).toContain("+ strong 'NOTICE 0'");
  });

  it('says none of these to a result whose marks are gone: the commit stays in doubt, and it is asked once', async () => {
    const { s, card } = rewordedResult();
    const { result, evidence } = await replay(s, card, { referee: new LocalReferee() });
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', classifier_calls: 1 });
    const lines = await evidenceOf(evidence);
    expect(lines.filter((l) => l.kind === 'referee').map((l) => (l.data['judgement'] as { kind: string }).kind)).toEqual(['none']);
    expect(lines.filter((l) => l.kind === 'ladder').map((l) => l.data['decision'])).toEqual([{ ask: 'referee' }, { stop: 'exhausted' }]);
  });

  /** A referee that answers what it is told to, whatever the page shows. */
  class Scripted implements Referee {
    readonly name = 'scripted';
    readonly kind = 'model' as const;
    calls = 0;
    constructor(private readonly answer: (q: RefereeQuestion) => Verdict | Error) {}
    ask(q: RefereeQuestion): Promise<Verdict> {
      this.calls++;
      const a = this.answer(q);
      return a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
    }
  }

  it('refuses a confident wrong verdict the furniture contradicts, and the run ends as it would without a referee', async () => {
    const app = bank();
    const s = new MemorySurface(app);
    const card = cardFor(s);
    el(app, 'review', 'F10=Post Hold').on = { invoke: 'maintenance' };
    const liar = new Scripted(() => ({ backend: 'scripted', probabilities: { posted: 0.99, [NONE]: 0.01 } }));
    const { result, evidence } = await replay(s, card, { referee: liar });
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', llm_calls: 1 });
    const verdict = (await evidenceOf(evidence)).find((l) => l.kind === 'referee');
    expect(verdict?.data['judgement']).toMatchObject({ kind: 'refused', label: 'posted' });
  });

  it('climbs past a referee that cannot answer, and records why without any secret', async () => {
    const app = bank();
    const s = new MemorySurface(app);
    const card = cardFor(s);
    drift(app, 'review', 3);
    const down = new Scripted(() => new Error(`upstream 503 for ${PASSWORD}`));
    const { result, evidence } = await replay(s, card, { referee: down });
    expect(result).toMatchObject({ word: 'FAILED', at_step: 'sign_on', llm_calls: 1 });
    const log = await fs.readFile(path.join(evidence, LOG_FILE), 'utf8');
    expect(log).toContain('referee_unavailable');
    expect(log).not.toContain(PASSWORD);
  });
});

describe('the escalation ladder\'s second rung: the scout', () => {
  const scoutOf = (turns: Script['turns']): Scout => new Scout(new CountedModel(new ScriptedModel({ turns })), 300);

  it('a scout that names the reworded result is not believed for a screen after a commit: in doubt, and a repair proposed', async () => {
    const { s, card } = rewordedResult();
    const scout = scoutOf([[{ tool: 'finish', label: 'posted' }]]);
    const evidenceDir = path.join(tmp, `scout-${++runs}`);
    const result = await runCapability({ card, inputs: INPUTS, env: {}, surface: () => Promise.resolve(s), evidenceDir, allowUnapproved: true, referee: new LocalReferee(), scout });
    // The furniture agrees, but a refusal could share it: only the marks prove the hold was posted.
    expect(result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', classifier_calls: 1, llm_calls: 1 });
    const log = await fs.readFile(path.join(evidenceDir, LOG_FILE), 'utf8');
    expect(log).toContain('"judgement":{"kind":"unproven","label":"posted"');
    const proposed = Capability.parse(JSON.parse(await fs.readFile(`${evidenceDir}.proposed.json`, 'utf8')));
    expect(proposed.lifecycle.review_notes.join('\n')).toMatch(/scout named screen posted after step post, but .* its marks did not show.*set marks that prove the effect/);
    expect(s.presses('F10=Post Hold')).toBe(1);
  });

  it('is refused when it tries to press a commit, and its naming still has to agree with the furniture', async () => {
    const app = bank();
    const s = new MemorySurface(app);
    const card = cardFor(s);
    drift(app, 'review', 3);
    const scout = scoutOf([[{ tool: 'act', match: "button 'F10=Post Hold'", verb: 'invoke' }], [{ tool: 'finish', label: 'review' }]]);
    const { result, evidence } = await replay(s, card, { scout });
    expect(result).toMatchObject({ word: 'SUCCESS', llm_calls: 2 });
    // The engine pressed Post Hold once, as the card says; the scout never did.
    expect(s.presses('F10=Post Hold')).toBe(1);
    const log = await fs.readFile(path.join(evidence, LOG_FILE), 'utf8');
    expect(log).toMatch(/refused act: .*F10=Post Hold.* may change data \(commit struck off\)/);
  });

  it('a scout that names a screen the page contradicts is refused; one that wanders names nothing; the run ends as before', async () => {
    const app = bank();
    const s = new MemorySurface(app);
    const card = cardFor(s);
    drift(app, 'review', 3);
    const liar = scoutOf([[{ tool: 'finish', label: 'already' }]]);
    const lied = await replay(s, card, { scout: liar });
    expect(lied.result).toMatchObject({ word: 'FAILED', at_step: 'sign_on', llm_calls: 1 });
    expect(await fs.readFile(path.join(lied.evidence, LOG_FILE), 'utf8')).toContain('"judgement":{"kind":"refused"');
    const s2 = new MemorySurface(app);
    const wanderer = scoutOf([[{ tool: 'act', match: "link 'Cancel'", verb: 'invoke' }], [], [], []]);
    const wandered = await replay(s2, card, { scout: wanderer });
    expect(wandered.result).toMatchObject({ word: 'FAILED', llm_calls: 4 });
  });
});
