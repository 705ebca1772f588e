// Verifying a read-only rows card: a plate is clean only when the run says SUCCESS and returns exactly the rows the judge holds, and the record did not change under it; a judge answer without rows refuses the plate, and a card's rows judge must name a rows output.
import { describe, expect, it } from 'vitest';
import type { Judge } from '../../runner/judge.ts';
import type { RunRequest } from '../../runner/run.ts';
import { verify } from '../../runner/verify.ts';
import { Capability, loadCapability, type CapabilityInput } from '../../shared/schema/index.ts';
import { RunResult } from '../../shared/schema/result.ts';

const ROWS = [{ id: 'C-1002', title: 'Windscreen chip', status: 'open' }];

function card(judge: unknown = { rows: { output: 'cases', at: 'rows' } }): CapabilityInput {
  return {
    schema: 'handrail.capability/v1',
    id: 'list_cases',
    intent: 'List the cases of one assignee',
    surface: 'browser',
    entry: 'memory://list',
    inputs: { assignee: { type: 'string' } },
    outputs: { cases: { kind: 'rows', from_step: 'read_cases', columns: { id: { header: 'ID' }, title: { header: 'Title' }, status: { header: 'Status' } } } },
    screens: { list: { title: 'List', signature: 'abc', paths: ["heading 'Cases'"] } },
    targets: { cases_table: { role: 'table', name: { eq: 'Cases' }, supports: ['read_rows'], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role', 'name'] } } },
    steps: [{ id: 'read_cases', screen: 'list', op: { verb: 'read_rows' }, target: 'cases_table', effect: { kind: 'read' } }],
    outcomes: { success: { screens: ['list'] } },
    judge: judge as CapabilityInput['judge'],
    lifecycle: { state: 'draft' },
  };
}

function receipt(outputs: Record<string, unknown>, word = 'SUCCESS'): RunResult {
  return RunResult.parse({
    word, code: word === 'SUCCESS' ? 'OK' : 'SCREEN_MISMATCH', retryable: false, message: 'done', card: 'list_cases', run_id: 'run-1',
    outputs, llm_calls: 0, classifier_calls: 0, rungs: {}, screen: 'list', steps_done: 1, evidence: null, duration_ms: 1,
  });
}

async function plate(run: RunResult, before: unknown = { rows: ROWS }, after: unknown = before) {
  const judge: Judge = (req) => Promise.resolve({ ok: true, state: (req.phase === 'before' ? before : after) as Record<string, unknown> });
  return verify(Capability.parse(card()), {
    plates: [{ assignee: 'Ada Okafor' }], judge, env: {}, evidenceRoot: '/tmp/handrail-unused',
    run: (_req: RunRequest) => Promise.resolve(run),
  });
}

describe('a rows judge', () => {
  it('is clean when the run returns exactly the judge\'s rows', async () => {
    const r = await plate(receipt({ cases: ROWS }));
    expect(r).toMatchObject({ verified: true, k: 1, n: 1 });
    expect(r.plates[0]).toMatchObject({ status: 'clean', judge: { changed: false, agrees: true } });
  });

  it('compares rows as data: the judge\'s columns may come in another key order', async () => {
    const r = await plate(receipt({ cases: [{ status: 'open', id: 'C-1002', title: 'Windscreen chip' }] }));
    expect(r.plates[0]).toMatchObject({ status: 'clean' });
  });

  it('is clean with zero rows when the judge holds none', async () => {
    expect((await plate(receipt({ cases: [] }), { rows: [] })).plates[0]).toMatchObject({ status: 'clean' });
  });

  it.each<[string, RunResult, unknown, unknown, RegExp]>([
    ['a row the record does not have', receipt({ cases: [...ROWS, { id: 'C-9', title: 'x', status: 'open' }] }), { rows: ROWS }, { rows: ROWS }, /judge disagrees with the rows/],
    ['rows in another order', receipt({ cases: [ROWS[0], { id: 'C-3', title: 'y', status: 'open' }] }), { rows: [{ id: 'C-3', title: 'y', status: 'open' }, ROWS[0]] }, undefined, /judge disagrees/],
    ['a word that is not SUCCESS', receipt({}, 'FAILED'), { rows: ROWS }, { rows: ROWS }, /^FAILED SCREEN_MISMATCH/],
    ['a record that changed under the run', receipt({ cases: ROWS }), { rows: ROWS }, { rows: [] }, /record changed under a read-only run/],
    ['an after answer without rows', receipt({ cases: ROWS }), { rows: ROWS }, { total: 1 }, /no list of rows at "rows"/],
  ])('fails %s', async (_what, run, before, after, why) => {
    const r = await plate(run, before, after ?? before);
    expect(r.verified).toBe(false);
    expect(r.plates[0]?.status).toBe('failed');
    expect(r.plates[0]?.why).toMatch(why);
  });

  it('refuses a plate whose judge holds no rows before the run (not run)', async () => {
    const r = await plate(receipt({ cases: ROWS }), { count: 1 });
    expect(r.plates[0]).toMatchObject({ status: 'refused', word: null });
  });

  it('must name a rows output of the card, and stands instead of a change, not beside it', () => {
    const bad = loadCapability(JSON.stringify(card({ rows: { output: 'nothing', at: 'rows' } })));
    expect(bad.ok ? [] : bad.issues).toContainEqual(expect.objectContaining({ path: 'judge.rows.output', message: '"nothing" is not a rows output of this card' }));
    const both = loadCapability(JSON.stringify(card({ rows: { output: 'cases', at: 'rows' }, change: { before: {}, after: { a: 1 } } })));
    expect(both.ok).toBe(false);
  });
});
