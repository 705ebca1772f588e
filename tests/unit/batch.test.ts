// A rows file is checked whole before anything runs (naming row and column, never a secret's value), and a batch
// runs at most N rows at once, one intent at a time, answers each row once, and stops starting rows when drained.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Batch, batchExitCode, percentile, readRows, RowsError, summaryTable, type BatchRow } from '../../runner/batch.ts';
import { resultBeforeRun } from '../../runner/run.ts';
import { loadCapability, type Capability } from '../../shared/schema/index.ts';
import { RunResult, type Word } from '../../shared/schema/result.ts';

const loaded = loadCapability(readFileSync('capabilities/plumbline-place-hold.json', 'utf8'));
if (!loaded.ok) throw new Error('the PLUMBLINE card does not load');
const card: Capability = loaded.value;
const ENV = { HANDRAIL_SECRET_PASSWORD: 'pw-unit-secret-99' };
const DEFAULTS = { operator_id: 'OP1001' };

function refusal(text: string, env: Record<string, string> = ENV): RowsError {
  try {
    readRows(text, 'rows.csv', card, DEFAULTS, env);
  } catch (e) {
    if (e instanceof RowsError) return e;
    throw e;
  }
  throw new Error('the rows were accepted');
}

describe('rows file', () => {
  it('reads each row over the defaults, numbers the rows, and gives one intent one key', () => {
    const rows = readRows('member_number,share_id,reason\n400118,400118-S0001,LEGAL\n400118,"400118-S0005",OTHER\n400118,400118-S0001,LEGAL\n', 'rows.csv', card, DEFAULTS, ENV);
    expect(rows.map((r) => r.row)).toEqual([1, 2, 3]);
    expect(rows[1]?.inputs).toEqual({ operator_id: 'OP1001', member_number: '400118', share_id: '400118-S0005', reason: 'OTHER' });
    expect(rows[0]?.key).toBe(rows[2]?.key);
    expect(rows[0]?.key).not.toBe(rows[1]?.key);
  });

  it('refuses a column the card does not take, naming it and its position', () => {
    const e = refusal('member_number,shareid,reason\n400118,400118-S0001,LEGAL\n');
    expect(e.code).toBe('BAD_ROWS');
    expect(e.message).toMatch(/column 2 "shareid" is not an input of plumbline_place_hold/);
  });

  it('refuses a row missing an input, naming row and column', () => {
    const e = refusal('member_number,share_id,reason\n400118,400118-S0001,LEGAL\n400118,,LEGAL\n');
    expect(e.message).toMatch(/row 2 \(line 3\), column 2 \(share_id\): input "share_id" is required/);
    expect(e.path).toBe('rows.csv:3');
    const absent = refusal('member_number,reason\n400118,LEGAL\n');
    expect(absent.message).toMatch(/row 1 \(line 2\), column share_id \(not in the file\)/);
  });

  it('never echoes a secret cell, and a CSV syntax error shows no field', () => {
    const secret = 'hunter2-VERY-secret-value';
    const tooLong = `${secret}${'x'.repeat(80)}`;
    const e = refusal(`member_number,share_id,reason,password\n400118,400118-S0001,LEGAL,${tooLong}\n`);
    expect(e.message).toMatch(/column 4 \(password\)/);
    expect(e.message).not.toContain(secret);
    const broken = refusal(`member_number,share_id,reason\n400118,400118-S0001,"LEGAL${secret}\n`);
    expect(broken.message).toMatch(/not valid CSV/);
    expect(broken.message).not.toContain(secret);
    const missing = refusal('member_number,share_id,reason\n400118,400118-S0001,LEGAL\n', {});
    expect(missing.message).toMatch(/HANDRAIL_SECRET_PASSWORD/);
  });

  it('refuses an empty file, a header with no rows, and a column named twice', () => {
    expect(refusal('').message).toMatch(/is empty/);
    expect(refusal('member_number,share_id,reason\n').message).toMatch(/no rows/);
    expect(refusal('member_number,share_id,share_id\n1,2,3\n').message).toMatch(/twice/);
  });
});

function receipt(word: Word, ms: number): RunResult {
  return RunResult.parse({ ...resultBeforeRun(card.id, 'run-x', word, word === 'SUCCESS' ? 'OK' : 'INTERNAL', ''), duration_ms: ms });
}

function rowsOf(keys: string[]): BatchRow[] {
  return keys.map((key, i) => ({ row: i + 1, inputs: {}, key }));
}

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('batch', () => {
  it('runs at most N rows at once and answers every row once', async () => {
    let now = 0;
    const batch = new Batch({
      rows: rowsOf(['a', 'b', 'c', 'd', 'e', 'f', 'g']),
      parallel: 3,
      card: card.id,
      run: async () => {
        now++;
        await tick(15);
        now--;
        return receipt('SUCCESS', 10);
      },
    });
    const results = await batch.run();
    expect(results.map((r) => r.row.row)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(batch.peak).toBe(3);
    expect(now).toBe(0);
  });

  it('runs two rows of one key one after the other, never side by side', async () => {
    const inFlight = new Map<string, number>();
    let overlapped = false;
    const batch = new Batch({
      rows: rowsOf(['k', 'other', 'k']),
      parallel: 3,
      card: card.id,
      run: async (row) => {
        const n = (inFlight.get(row.key) ?? 0) + 1;
        inFlight.set(row.key, n);
        if (n > 1) overlapped = true;
        await tick(20);
        inFlight.set(row.key, n - 1);
        return receipt('SUCCESS', 1);
      },
    });
    await batch.run();
    expect(overlapped).toBe(false);
    expect(batch.peak).toBe(2);
  });

  it('a drain lets running rows finish and answers the rest SHUTTING_DOWN without running them', async () => {
    const ran: number[] = [];
    const batch: Batch = new Batch({
      rows: rowsOf(['a', 'b', 'c', 'd']),
      parallel: 2,
      card: card.id,
      run: async (row) => {
        ran.push(row.row);
        await tick(5);
        if (row.row === 1) void batch.drain(5_000);
        await tick(20);
        return receipt('SUCCESS', 1);
      },
    });
    const results = await batch.run();
    expect(ran).toEqual([1, 2]);
    expect(results.map((r) => `${r.result.word} ${r.result.code}`)).toEqual(['SUCCESS OK', 'SUCCESS OK', 'RECOVERABLE SHUTTING_DOWN', 'RECOVERABLE SHUTTING_DOWN']);
  });

  it('a drain past its bound cancels the running rows through their signal', async () => {
    const batch: Batch = new Batch({
      rows: rowsOf(['a']),
      parallel: 1,
      card: card.id,
      run: (_row, signal) => {
        setTimeout(() => void batch.drain(10), 0);
        return new Promise((r) => signal.addEventListener('abort', () => r(receipt('RECOVERABLE', 1))));
      },
    });
    const [only] = await batch.run();
    expect(only?.result.word).toBe('RECOVERABLE');
  });

  it('a run that throws is that row\'s FAILED INTERNAL receipt; the other rows still run', async () => {
    const batch = new Batch({
      rows: rowsOf(['a', 'b']),
      parallel: 2,
      card: card.id,
      run: (row) => (row.row === 1 ? Promise.reject(new Error('boom\nstack')) : Promise.resolve(receipt('SUCCESS', 1))),
    });
    const results = await batch.run();
    expect(results.map((r) => `${r.result.word} ${r.result.code} ${r.result.message}`)).toEqual(['FAILED INTERNAL row 1: boom', 'SUCCESS OK ']);
  });

  it('exits with the most serious word any row ended on, and tabulates words with p50/p95', () => {
    const rows = rowsOf(['a', 'b', 'c']);
    const of = (words: Word[]): { row: BatchRow; result: RunResult }[] => words.map((w, i) => ({ row: rows[i] as BatchRow, result: receipt(w, (i + 1) * 1000) }));
    expect(batchExitCode(of(['SUCCESS', 'SUCCESS']))).toBe(0);
    expect(batchExitCode(of(['SUCCESS', 'BUSINESS_OUTCOME', 'UNSAFE_TO_RETRY']))).toBe(12);
    const table = summaryTable(of(['SUCCESS', 'SUCCESS', 'FAILED']), 4_200);
    expect(table).toMatch(/^SUCCESS\s+2\s+1\.0s\s+2\.0s$/m);
    expect(table).toMatch(/^FAILED\s+1\s+3\.0s\s+3\.0s$/m);
    expect(table).toMatch(/^all\s+3\s+2\.0s\s+3\.0s$/m);
    expect(table).toContain('wall 4.2s');
    expect(percentile([5, 1, 4, 2, 3], 95)).toBe(5);
  });
});
