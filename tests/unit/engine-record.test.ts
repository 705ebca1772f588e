// A commit is pressed only on a screen that shows the record its inputs name (docs/design/replay.md, "The right record"): the hold form of another share ends FAILED WRONG_RECORD with nothing journalled as dispatched and nothing pressed.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Replay } from '../../runner/engine/engine.ts';
import { Journal } from '../../runner/engine/journal.ts';
import { Evidence, LOG_FILE } from '../../runner/evidence.ts';
import { intentOf } from '../../runner/intent.ts';
import { Capability, type CapabilityInput, type Precondition } from '../../shared/schema/capability.ts';
import { loadCapability } from '../../shared/schema/load.ts';
import { Masker } from '../../shared/secrets.ts';
import type { RunResult } from '../../shared/schema/result.ts';
import { MemorySurface, type MemoryApp } from '../fixtures/memory-surface.ts';

const NAMED = '400118-S0001';
const OTHER = '400118-S0005';
const layout = (s: string): string[] => 'ABCDEFGHIJKLM'.split('').map((c) => `table>row>cell '${s} ${c}'`);

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-record-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** A review screen for `shown` (the share the bank opened), whose Post goes to the result. */
function bank(shown: string): MemoryApp {
  return {
    screens: {
      review: {
        title: 'Hold Review',
        furniture: layout('review'),
        text: `SHARE ID ${shown} MEMBER 400118 REASON LEGAL`,
        elements: [
          { role: 'link', name: shown, scope: [{ role: 'row', name: `Share ID ${shown}` }] },
          { role: 'button', name: 'F10=Post Hold', ancestors: ['form'], on: { invoke: 'posted' } },
        ],
      },
      posted: { title: 'Hold Result', furniture: ["heading 'Hold Posted'"], text: 'HOLD POSTED', elements: [] },
    },
  };
}

function card(s: MemorySurface, pre: Precondition[] | 'none'): Capability {
  const input: CapabilityInput = {
    schema: 'handrail.capability/v1',
    id: 'post_hold',
    intent: 'post a hold on the named share',
    surface: 'browser',
    entry: 'memory://review',
    inputs: { share_id: { type: 'string' } },
    outputs: {},
    screens: { review: s.screenRecord('review'), posted: s.screenRecord('posted') },
    targets: {
      post: { role: 'button', name: { eq: 'F10=Post Hold' }, supports: ['invoke'], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role'] } },
    },
    steps: [
      {
        id: 'post_hold',
        screen: 'review',
        op: { verb: 'invoke' },
        target: 'post',
        effect: { kind: 'commit', confirmed_by: { owner: 'o' } },
        settle: { kind: 'screen_is', screen: 'posted', timeout_ms: 2000, quiet_ms: 50 },
        expect: { screen_in: ['posted'] },
        ...(pre === 'none' ? { no_record: true as const } : { pre }),
      },
    ],
    outcomes: { success: { screens: ['posted'] }, business: {}, recovery: {}, failure: {} },
    lifecycle: { state: 'verified' },
  };
  return Capability.parse(input);
}

let runs = 0;

async function run(s: MemorySurface, c: Capability): Promise<{ result: RunResult; log: string; journal: string[] }> {
  const inputs = { share_id: NAMED };
  const masker = new Masker();
  const at = path.join(dir, `run-${++runs}`);
  const evidence = await Evidence.create(path.join(at, 'ev'), masker, 'r1');
  const file = path.join(at, 'journal.jsonl');
  const journal = await Journal.open(file, intentOf(c, inputs));
  try {
    const result = await new Replay({ card: c, inputs, entry: c.entry, runId: 'r1', masker, evidence, journal, quietMs: 50 }, s).run();
    return {
      result,
      log: await fs.readFile(path.join(at, 'ev', LOG_FILE), 'utf8'),
      journal: (await fs.readFile(file, 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { step?: string; phase: string })
        .filter((l) => l.step)
        .map((l) => `${l.step} ${l.phase}`),
    };
  } finally {
    await journal.close();
    await evidence.close();
  }
}

const shareOnScreen: Precondition[] = [{ kind: 'text', contains: '{{input.share_id}}' }];

describe('identity before the press', () => {
  it('the named share on the review screen: the commit is pressed once and the run is SUCCESS', async () => {
    const s = new MemorySurface(bank(NAMED));
    const { result, journal } = await run(s, card(s, shareOnScreen));
    expect([result.word, result.code]).toEqual(['SUCCESS', 'OK']);
    expect(s.presses('F10=Post Hold')).toBe(1);
    expect(journal).toEqual(['post_hold dispatched', 'post_hold observed']);
  });

  it('another share on the review screen: FAILED WRONG_RECORD, nothing journalled as dispatched, nothing pressed', async () => {
    const s = new MemorySurface(bank(OTHER));
    const { result, log, journal } = await run(s, card(s, shareOnScreen));
    expect([result.word, result.code, result.retryable, result.at_step]).toEqual(['FAILED', 'WRONG_RECORD', false, 'post_hold']);
    expect(result.message).toContain(NAMED);
    expect(s.presses('F10=Post Hold')).toBe(0);
    expect(journal).toEqual([]);
    expect(log).toContain('"precondition_failed"');
  });

  it('a control precondition holds only for the row of the named share', async () => {
    const pre: Precondition[] = [{ kind: 'control', role: 'link', name: '{{input.share_id}}', scope: [{ role: 'row', name: 'Share ID {{input.share_id}}' }] }];
    const right = new MemorySurface(bank(NAMED));
    expect((await run(right, card(right, pre))).result.word).toBe('SUCCESS');
    const wrong = new MemorySurface(bank(OTHER));
    const { result } = await run(wrong, card(wrong, pre));
    expect(result.code).toBe('WRONG_RECORD');
    expect(wrong.presses('F10=Post Hold')).toBe(0);
  });

  it('a commit the reviewer says chooses no record is pressed without a precondition', async () => {
    const s = new MemorySurface(bank(OTHER));
    const { result } = await run(s, card(s, 'none'));
    expect(result.word).toBe('SUCCESS');
    expect(s.presses('F10=Post Hold')).toBe(1);
  });
});

describe('a card says which record each commit acts on', () => {
  const base = (): Record<string, unknown> => {
    const s = new MemorySurface(bank(NAMED));
    return JSON.parse(JSON.stringify(card(s, shareOnScreen))) as Record<string, unknown>;
  };
  const withStep = (patch: (step: Record<string, unknown>) => void): string => {
    const c = base();
    const steps = c['steps'] as Record<string, unknown>[];
    patch(steps[0]!);
    return JSON.stringify(c);
  };
  const issues = (text: string): string[] => {
    const r = loadCapability(text);
    return r.ok ? [] : r.issues.map((i) => `${i.path} ${i.message}`);
  };

  it('a commit with neither a precondition nor no_record does not load, naming the step', () => {
    const got = issues(withStep((s) => delete s['pre']));
    expect(got.join('\n')).toMatch(/commit step "post_hold" does not say which record it acts on/);
  });

  it('a commit with both does not load', () => {
    expect(issues(withStep((s) => (s['no_record'] = true))).join('\n')).toMatch(/both a precondition and no_record/);
  });

  it('a precondition that names no input proves nothing about the record asked for', () => {
    expect(issues(withStep((s) => (s['pre'] = [{ kind: 'text', contains: 'HOLD REVIEW' }]))).join('\n')).toMatch(/at least one must hold an input blank/);
  });

  it('a precondition on a step that is no commit does not load', () => {
    const c = base();
    const steps = c['steps'] as Record<string, unknown>[];
    steps[0] = { ...steps[0], effect: { kind: 'navigate' } };
    expect(issues(JSON.stringify(c)).join('\n')).toMatch(/only a commit step says which record it acts on/);
  });

  it("a secret's blank never proves a record", () => {
    const c = base();
    (c['inputs'] as Record<string, unknown>)['pin'] = { type: 'string', secret: true };
    (c['steps'] as Record<string, unknown>[])[0]!['pre'] = [{ kind: 'text', contains: '{{input.share_id}} {{input.pin}}' }];
    expect(issues(JSON.stringify(c)).join('\n')).toMatch(/a secret never proves a record/);
  });
});
