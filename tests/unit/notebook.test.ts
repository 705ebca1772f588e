// The notebook (runs.db): run history with the rung per target, referee verdicts settled by their run's word, and
// the two readings people use — calibration by confidence and drift off a target's first-choice rung — including
// through the real `handrail` command.
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Notebook } from '../../runner/notebook.ts';
import { LOG_FILE } from '../../runner/evidence.ts';
import { Capability } from '../../shared/schema/capability.ts';
import { RunResult } from '../../shared/schema/result.ts';
import { handrail } from '../e2e/support/cli.ts';

const CARD_FILE = 'capabilities/plumbline-place-hold.json';
let card: Capability;
let tmp: string;
beforeAll(async () => {
  card = Capability.parse(JSON.parse(await readFile(CARD_FILE, 'utf8')));
  tmp = await mkdtemp(join(tmpdir(), 'handrail-notebook-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

let n = 0;
function result(word: RunResult['word'], rungs: Record<string, string>, evidence: string | null = null): RunResult {
  return RunResult.parse({
    word, code: word === 'SUCCESS' ? 'OK' : 'COMMIT_IN_DOUBT', retryable: false, message: '', card: card.id, run_id: `run-${++n}`,
    outputs: {}, llm_calls: 0, classifier_calls: 0, rungs, screen: null, steps_done: 3, evidence, duration_ms: 1200,
  });
}

/** An evidence dir whose log holds one referee verdict (only the lines the notebook reads). */
async function withVerdict(top: number, kind: string): Promise<string> {
  const dir = join(tmp, `ev-${++n}`);
  await mkdir(dir, { recursive: true });
  const line = { kind: 'referee', data: { step: 'post_hold', backend: 'local', probabilities: { hold_result: top, none_of_these: 1 - top }, judgement: { kind } } };
  await writeFile(join(dir, LOG_FILE), `${JSON.stringify({ kind: 'run_start', data: {} })}\n${JSON.stringify(line)}\n`);
  return dir;
}

describe('the notebook', () => {
  it('keeps each run with the rung per target, and reports drift off the first choice, newest first', async () => {
    const book = Notebook.open(':memory:');
    const first = Object.fromEntries(Object.entries(card.targets).map(([id, t]) => [id, t.ladder[0]?.rung ?? 'role_name']));
    const t0 = Date.parse('2026-12-01T08:00:00Z');
    await book.record(card, result('SUCCESS', first), new Date(t0));
    await book.record(card, result('SUCCESS', { ...first, post_button: 'css' }), new Date(t0 + 60_000));
    const drift = book.drift(card.id);
    expect(drift[0]).toMatchObject({ target: 'post_button', off_first: 1, runs: 2, latest: 'css' });
    expect(drift.filter((d) => d.off_first === 0).length).toBe(drift.length - 1);
    expect(book.drifting(card.id).map((d) => d.target)).toEqual(['post_button']);
    // A receipt answered from the journal did nothing: it is not a run.
    await book.record(card, { ...result('SUCCESS', first), from_journal: true });
    expect(book.lastWords(card.id)).toHaveLength(2);
    book.close();
  });

  it('settles each verdict by its run\'s word and bins them by confidence', async () => {
    const book = Notebook.open(':memory:');
    await book.record(card, result('SUCCESS', {}, await withVerdict(0.97, 'named')));
    await book.record(card, result('SUCCESS', {}, await withVerdict(0.96, 'named')));
    await book.record(card, result('UNSAFE_TO_RETRY', {}, await withVerdict(0.85, 'named')));
    await book.record(card, result('UNSAFE_TO_RETRY', {}, await withVerdict(0.6, 'unsure')));
    const bins = book.calibration();
    expect(bins.map((b) => [b.verdicts, b.held])).toEqual([[0, 0], [1, 0], [1, 0], [0, 0], [2, 2]]);
    expect(bins[4]?.rate).toBe(1);
    expect(bins[0]?.rate).toBeNull();
    expect(book.calibration('claude').every((b) => b.verdicts === 0)).toBe(true);
    book.close();
  });

  it('is read by `handrail drift` and `handrail referee calibration` from the state directory', async () => {
    const home = join(tmp, 'home');
    await mkdir(home, { recursive: true });
    const book = Notebook.open(home);
    const first = Object.fromEntries(Object.entries(card.targets).map(([id, t]) => [id, t.ladder[0]?.rung ?? 'role_name']));
    await book.record(card, result('SUCCESS', { ...first, sign_on_button: 'css' }, await withVerdict(0.99, 'named')));
    book.close();
    const env = { ...process.env, HANDRAIL_HOME: home };
    const drift = await handrail(['drift', CARD_FILE], env);
    expect(drift.code).toBe(0);
    expect(drift.stdout).toContain('! sign_on_button: role_name → css · off first choice in 1 of 1');
    const cal = await handrail(['referee', 'calibration', '--json'], env);
    expect(cal.code).toBe(0);
    expect((JSON.parse(cal.stdout) as { verdicts: number }[]).at(-1)?.verdicts).toBe(1);
    const bad = await handrail(['drift', 'no-such-card.json'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});
