// The write-ahead journal of one intent remembers what was pressed, proves its own chain, and refuses — naming the line — when it was cut, zeroed, edited, reordered or belongs to another intent.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal, JournalError, readJournal, type JournalIntent } from '../../runner/engine/journal.ts';

let tmp: string;
let file: string;
const intent: JournalIntent = { key: 'hold.0123456789abcdef0123456789abcdef', card: 'hold', content_hash: 'sha256:abc' };
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-journal-'));
  file = path.join(tmp, 'nested', 'dir', 'journal.jsonl');
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const lines = async (f: string): Promise<string[]> => (await fs.readFile(f, 'utf8')).split('\n').filter((l) => l !== '');

async function openError(f = file, who = intent): Promise<JournalError> {
  const e = await Journal.open(f, who).then(
    async (j) => {
      await j.close();
      return undefined;
    },
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(JournalError);
  return e as JournalError;
}

/** A journal left by a run that crashed after pressing the commit: header, a stage, the commit dispatched. */
async function inDoubtJournal(): Promise<string[]> {
  const j = await Journal.open(file, intent);
  await j.dispatched('r1', 'fill', 'stage');
  await j.observed('r1', 'fill', 'stage');
  await j.dispatched('r1', 'post', 'commit');
  await j.close();
  return (await fs.readFile(file, 'utf8')).split('\n');
}

describe('Journal', () => {
  it('creates the file with a header and head witness, and tracks dispatched then observed', async () => {
    const j = await Journal.open(file, intent);
    expect(j.created).toBe(true);
    expect(j.state('post')).toBe('none');
    expect(j.status()).toBe('open');
    await j.dispatched('r1', 'post', 'commit');
    // The line is on disk by the time dispatched() resolves: that is the point.
    const onDisk = await lines(file);
    expect(onDisk).toHaveLength(2);
    expect(JSON.parse(onDisk[0] ?? '')).toMatchObject({ v: 2, n: 1, phase: 'header', key: intent.key, prev: null });
    expect(JSON.parse(onDisk[1] ?? '')).toMatchObject({ v: 2, n: 2, phase: 'dispatched', run: 'r1', step: 'post', effect: 'commit' });
    expect(j.status()).toBe('in_doubt');
    await j.observed('r1', 'post', 'commit');
    expect(j.status()).toBe('committed');
    await j.close();
    const again = await Journal.open(file, intent);
    expect(again.created).toBe(false);
    expect(again.state('post')).toBe('observed');
    await again.close();
  });

  it('a commit in doubt stays in doubt across reopen; a stage in doubt does not block', async () => {
    await inDoubtJournal();
    const j = await Journal.open(file, intent);
    expect(j.inDoubt()).toEqual(['post']);
    expect(j.state('fill')).toBe('observed');
    await j.close();
    expect((await readJournal(file))?.state.status()).toBe('in_doubt');
  });

  it('an absent journal reads as never started and is not created by reading', async () => {
    expect(await readJournal(file)).toBeNull();
    await expect(fs.stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a journal written for another intent, naming both keys', async () => {
    await inDoubtJournal();
    const e = await openError(file, { ...intent, key: 'hold.ffffffffffffffffffffffffffffffff' });
    expect(e.code).toBe('JOURNAL_KEY_MISMATCH');
    expect(e.message).toContain(intent.key);
  });

  it('settling not-committed lets the commit be pressed again; committed makes the key committed; both are chained records', async () => {
    await inDoubtJournal();
    const j = await Journal.open(file, intent);
    await j.settle('not_committed', 'Pat Operator', 'checked the core system: no hold', 'person');
    expect(j.state('post')).toBe('none');
    expect(j.status()).toBe('open');
    await expect(j.settle('committed', 'x', 'y', 'person')).rejects.toMatchObject({ code: 'JOURNAL_NOT_IN_DOUBT' });
    await j.dispatched('r2', 'post', 'commit');
    expect(j.status()).toBe('in_doubt');
    const s = await j.settle('committed', 'Pat Operator', 'hold HX-000001 is on the share', 'person');
    expect(s).toMatchObject({ phase: 'settled', as: 'committed', steps: ['post'], by: 'Pat Operator' });
    expect(j.status()).toBe('committed');
    expect(j.view.committedBySettlement()?.run).toBe('r2');
    await j.close();
    const k = await readJournal(file);
    expect(k?.state.status()).toBe('committed');
    expect(k?.state.settlements()).toHaveLength(2);
  });

  it('round-trips the receipt of the run that observed the commit, never one of a run that did not', async () => {
    const j = await Journal.open(file, intent);
    await j.dispatched('r1', 'post', 'commit');
    await j.receipt('r1', { word: 'UNSAFE_TO_RETRY' });
    expect(j.lastReceipt()).toBeUndefined();
    await j.settle('not_committed', 'P', 'n', 'person');
    await j.dispatched('r2', 'post', 'commit');
    await j.observed('r2', 'post', 'commit');
    await j.receipt('r2', { word: 'SUCCESS', outputs: { confirmation: 'HX-123456' } });
    await j.close();
    const k = await Journal.open(file, intent);
    expect(k.lastReceipt()).toEqual({ word: 'SUCCESS', outputs: { confirmation: 'HX-123456' } });
    expect(k.view.committedBy('r2')).toBe(true);
    expect(k.view.committedBy('r1')).toBe(false);
    await expect(k.receipt('r9', { big: 1n })).rejects.toMatchObject({ code: 'JOURNAL_RECEIPT_NOT_JSON' });
    await k.close();
    await expect(k.dispatched('r', 's', 'stage')).rejects.toMatchObject({ code: 'JOURNAL_CLOSED' });
  });
});

describe('damage: every way a journal can be hurt is JOURNAL_DAMAGED with the line named', () => {
  const cases: [string, (text: string[]) => Promise<void>, number][] = [
    ['truncated to zero bytes', async () => fs.writeFile(file, ''), 1],
    ['filled with NUL bytes', async (t) => fs.writeFile(file, Buffer.alloc(t.join('\n').length)), 1],
    ['a block of NULs in the middle', async (t) => fs.writeFile(file, [t[0], '\u0000'.repeat(40), ...t.slice(2)].join('\n')), 2],
    ['cut mid-line (the dispatched line)', async (t) => fs.writeFile(file, t.slice(0, 3).join('\n') + '\n' + (t[3] ?? '').slice(0, 30)), 4],
    ['the dispatched line deleted (the last record)', async (t) => fs.writeFile(file, [...t.slice(0, 3), ''].join('\n')), 4],
    ['a line deleted in the middle', async (t) => fs.writeFile(file, [t[0], t[2], t[3], ''].join('\n')), 2],
    ['a line edited', async (t) => fs.writeFile(file, [t[0], t[1]?.replace('"stage"', '"commit"'), t[2], t[3], ''].join('\n')), 2],
    ['two lines swapped', async (t) => fs.writeFile(file, [t[0], t[2], t[1], t[3], ''].join('\n')), 2],
    ['an unknown format version', async (t) => fs.writeFile(file, [t[0]?.replace('"v":2', '"v":3'), ...t.slice(1)].join('\n')), 1],
    ['a v1 journal of an older handrail', async () => fs.writeFile(file, '{"v":1,"at":"2026-01-01T00:00:00.000Z","run":"r","card":"hold","step":"post","effect":"commit","phase":"dispatched"}\n'), 1],
    ['the journal deleted but its head left', async () => fs.rm(file), 1],
    ['the head witness deleted', async () => fs.rm(`${file}.head`), 4],
    ['the head witness reset to an earlier record', async (t) => {
      const first = JSON.parse(t[0] ?? '') as { n: number; hash: string };
      await fs.writeFile(`${file}.head`, JSON.stringify({ n: first.n, hash: first.hash }));
    }, 4],
  ];
  for (const [name, hurt, line] of cases) {
    it(name, async () => {
      const text = await inDoubtJournal();
      await hurt(text);
      const e = await openError();
      expect(e.code).toBe('JOURNAL_DAMAGED');
      expect(e.line).toBe(line);
      expect(e.message).toContain(`line ${line}`);
      await expect(readJournal(file)).rejects.toMatchObject({ code: 'JOURNAL_DAMAGED' });
    });
  }

  it('tolerates a torn tail only when the head proves it was the unfinished append, and keeps appending on a fresh line', async () => {
    await inDoubtJournal();
    // What a crash inside write() before fsync leaves: a fragment without its newline; the head still names record 4.
    await fs.appendFile(file, '{"v":2,"n":5,"at":"2026-01-01T00:00:00.000Z","phase":"obs');
    const k = await Journal.open(file, intent);
    expect(k.tornTail).toEqual({ line: 5, bytes: 57 });
    expect(k.inDoubt()).toEqual(['post']);
    await k.settle('not_committed', 'P', 'n', 'person');
    await k.close();
    const again = await Journal.open(file, intent);
    expect(again.tornTail).toBeUndefined();
    expect(again.status()).toBe('open');
    await again.close();
    expect(await fs.readFile(file, 'utf8')).toContain('"phase":"obs\n'); // the fragment stays on disk
  });

  it('tolerates a head one record behind (crash between append and head update) and repairs it', async () => {
    await inDoubtJournal();
    const head = await fs.readFile(`${file}.head`, 'utf8');
    const j = await Journal.open(file, intent);
    await j.observed('r1', 'post', 'commit');
    await j.close();
    await fs.writeFile(`${file}.head`, head);
    const k = await Journal.open(file, intent);
    expect(k.status()).toBe('committed');
    await k.close();
    expect(await fs.readFile(`${file}.head`, 'utf8')).not.toBe(head);
  });
});
