// The write-ahead journal remembers what was pressed: a commit written "dispatched" and never "observed" stays in doubt for every later run, across crashes and reopenings.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal, JournalError, JournalLine, preflightJournal } from '../../runner/engine/journal.ts';

let tmp: string;
let file: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-journal-'));
  file = path.join(tmp, 'nested', 'dir', 'journal.jsonl');
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const lines = async (f: string): Promise<string[]> => (await fs.readFile(f, 'utf8')).split('\n').filter((l) => l !== '');

describe('Journal', () => {
  it('creates the file and its parent dirs, and tracks dispatched then observed', async () => {
    const j = await Journal.open(file);
    expect(j.state('hold', 'post')).toBe('none');
    await j.dispatched('r1', 'hold', 'post', 'commit');
    expect(j.state('hold', 'post')).toBe('dispatched');
    // The line is on disk by the time dispatched() resolves: that is the point.
    const onDisk = await lines(file);
    expect(onDisk).toHaveLength(1);
    expect(JournalLine.parse(JSON.parse(onDisk[0] ?? ''))).toMatchObject({ v: 1, run: 'r1', card: 'hold', step: 'post', effect: 'commit', phase: 'dispatched' });
    expect(j.inDoubt('hold')).toEqual(['post']);
    await j.observed('r1', 'hold', 'post', 'commit');
    expect(j.state('hold', 'post')).toBe('observed');
    expect(j.inDoubt('hold')).toEqual([]);
    await j.close();
    expect(j.tornTail).toBeUndefined();
  });

  it('reports a commit in doubt across reopen, for its card only, and preflight refuses it', async () => {
    const a = await Journal.open(file);
    await a.dispatched('r1', 'hold', 'fill', 'stage');
    await a.observed('r1', 'hold', 'fill', 'stage');
    await a.dispatched('r1', 'hold', 'post', 'commit');
    await a.close();
    const b = await Journal.open(file);
    expect(b.state('hold', 'post')).toBe('dispatched');
    expect(b.inDoubt('hold')).toEqual(['post']);
    expect(b.inDoubt('other-card')).toEqual([]);
    await b.close();
    expect(await preflightJournal(file, 'hold')).toEqual({ ok: false, code: 'JOURNAL_IN_DOUBT', steps: ['post'] });
    expect(await preflightJournal(file, 'other-card')).toEqual({ ok: true });
  });

  it('a stage dispatched and never observed shows in state() but does not block as in doubt', async () => {
    const j = await Journal.open(file);
    await j.dispatched('r1', 'hold', 'fill_reason', 'stage');
    expect(j.state('hold', 'fill_reason')).toBe('dispatched');
    expect(j.inDoubt('hold')).toEqual([]);
    await j.close();
    expect(await preflightJournal(file, 'hold')).toEqual({ ok: true });
  });

  it('preflight on a journal that does not exist is ok and does not create it', async () => {
    expect(await preflightJournal(file, 'hold')).toEqual({ ok: true });
    await expect(fs.stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('tolerates a torn last line, reports it, and keeps appending on a fresh line that stays readable', async () => {
    const j = await Journal.open(file);
    await j.dispatched('r1', 'hold', 'post', 'commit');
    await j.close();
    await fs.appendFile(file, '{"v":1,"at":"2026-01-01T00:00:00.000Z","run":"r2","ca');
    const k = await Journal.open(file);
    expect(k.tornTail).toEqual({ line: 2, bytes: 53 });
    expect(k.inDoubt('hold')).toEqual(['post']);
    await k.observed('r3', 'hold', 'post', 'commit');
    await k.close();
    const again = await Journal.open(file);
    expect(again.tornTail).toBeUndefined();
    expect(again.state('hold', 'post')).toBe('observed');
    await again.close();
    // The fragment is still on disk: lines are never erased.
    expect(await fs.readFile(file, 'utf8')).toContain('"run":"r2","ca\n');
  });

  it('refuses a corrupt line in the middle, naming its line number', async () => {
    const j = await Journal.open(file);
    await j.dispatched('r1', 'hold', 'a', 'stage');
    await j.observed('r1', 'hold', 'a', 'stage');
    await j.dispatched('r1', 'hold', 'post', 'commit');
    await j.close();
    const text = (await fs.readFile(file, 'utf8')).split('\n');
    for (const [bad, why] of [
      ['{"v":1,"at":"x"', 'not JSON'],
      [text[1]?.replace('"observed"', '"maybe"') ?? '', 'schema'],
      [text[1]?.replace('}', ',"extra":1}') ?? '', 'strict'],
    ] as const) {
      const copy = [...text];
      copy[1] = bad;
      await fs.writeFile(file, copy.join('\n'));
      const err = await Journal.open(file).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, why).toBeInstanceOf(JournalError);
      expect((err as JournalError).code).toBe('JOURNAL_CORRUPT');
      expect((err as JournalError).line).toBe(2);
      expect((err as JournalError).message).toContain('line 2');
      expect(await preflightJournal(file, 'hold')).toMatchObject({ ok: false, code: 'JOURNAL_CORRUPT', line: 2 });
    }
  });

  it('a torn line that is not last is corruption, not tolerance', async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    const good = JSON.stringify({ v: 1, at: new Date().toISOString(), run: 'r', card: 'c', step: 's', effect: 'stage', phase: 'dispatched' });
    await fs.writeFile(file, `${good}\n{"v":1,"at\n${good}\n`);
    await expect(Journal.open(file)).rejects.toMatchObject({ code: 'JOURNAL_CORRUPT', line: 2 });
  });

  it('round-trips the receipt of the run that observed the commit', async () => {
    const j = await Journal.open(file);
    expect(j.lastReceipt('hold')).toBeUndefined();
    await j.dispatched('r1', 'hold', 'post', 'commit');
    await j.receipt('r1', 'hold', { word: 'UNSAFE_TO_RETRY' }); // a run that never observed: not "the" receipt
    await j.dispatched('r2', 'other', 'post', 'commit');
    await j.observed('r2', 'other', 'post', 'commit');
    await j.receipt('r2', 'other', { word: 'SUCCESS', outputs: { confirmation: 'HX-000002' } });
    expect(j.lastReceipt('hold')).toBeUndefined();
    await j.observed('r1b', 'hold', 'post', 'commit');
    await j.receipt('r1b', 'hold', { word: 'SUCCESS', outputs: { confirmation: 'HX-123456' }, n: [1, 2] });
    await j.close();
    const k = await Journal.open(file);
    expect(k.lastReceipt('hold')).toEqual({ word: 'SUCCESS', outputs: { confirmation: 'HX-123456' }, n: [1, 2] });
    expect(k.lastReceipt('other')).toEqual({ word: 'SUCCESS', outputs: { confirmation: 'HX-000002' } });
    await expect(k.receipt('r9', 'hold', { big: 1n })).rejects.toMatchObject({ code: 'JOURNAL_RECEIPT_NOT_JSON' });
    await k.close();
  });

  it('refuses appends after close with a typed error', async () => {
    const j = await Journal.open(file);
    await j.close();
    await expect(j.dispatched('r', 'c', 's', 'stage')).rejects.toMatchObject({ code: 'JOURNAL_CLOSED' });
  });

  it('concurrent appends from two Journal instances produce only whole lines', async () => {
    const a = await Journal.open(file);
    const b = await Journal.open(file);
    const big = 'x'.repeat(70_000); // far beyond a page: atomicity must not depend on small writes
    const work: Promise<void>[] = [];
    for (let i = 0; i < 100; i++) {
      work.push(a.dispatched('ra', 'card', `a${i}`, 'stage'));
      work.push(b.dispatched('rb', 'card', `b${i}`, 'commit'));
      if (i % 10 === 0) work.push(a.receipt('ra', 'card', { pad: big, i }), b.receipt('rb', 'card', { pad: big, i }));
    }
    await Promise.all(work);
    await a.close();
    await b.close();
    const all = await lines(file);
    expect(all).toHaveLength(220);
    for (const l of all) JournalLine.parse(JSON.parse(l));
    const c = await Journal.open(file);
    expect(c.tornTail).toBeUndefined();
    expect(c.inDoubt('card')).toHaveLength(100);
    expect(c.state('card', 'a99')).toBe('dispatched');
    await c.close();
  });
});
