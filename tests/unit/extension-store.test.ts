// The extension's book store keeps every trace line once, in order, parsed on the way in and out — a line
// written again after a worker restart is a no-op, never a duplicate or an overwrite.
import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { BookStore, StoreError, toJsonl, type SessionRecord } from '../../extension/lib/store.ts';
import { TRACE_SCHEMA_ID, TraceLine } from '../../shared/schema/trace.ts';

let n = 0;
const fresh = (): Promise<BookStore> => BookStore.open(`handrail-test-${n++}`);

const session = (id: string, created = '2026-01-01T00:00:00.000Z'): SessionRecord => ({
  id,
  tabId: 7,
  mode: 'record',
  goal: 'Place a hold',
  entry: 'http://127.0.0.1/signon',
  owner: 'Dana',
  inputs: [
    { name: 'member_number', secret: false, value: '400118' },
    { name: 'password', secret: true },
  ],
  state: 'running',
  created,
  updated: created,
  question: null,
  view: null,
  note: null,
  events: [],
});

const start = (seq: number): TraceLine => ({
  seq,
  at: '2026-01-01T00:00:00.000Z',
  kind: 'start',
  schema: TRACE_SCHEMA_ID,
  goal: 'Place a hold',
  entry: 'http://127.0.0.1/signon',
  inputs: [{ name: 'password', secret: true }],
  walker: 'w1',
  author: { kind: 'human' },
});
const end = (seq: number, code?: string): TraceLine => ({ seq, at: '2026-01-01T00:00:01.000Z', kind: 'end', outcome: 'failed', ...(code ? { code } : {}) });

describe('BookStore', () => {
  it('keeps sessions and returns them newest first', async () => {
    const store = await fresh();
    await store.putSession(session('a', '2026-01-01T00:00:00.000Z'));
    await store.putSession(session('b', '2026-01-02T00:00:00.000Z'));
    expect((await store.listSessions()).map((s) => s.id)).toEqual(['b', 'a']);
    const changed = await store.updateSession('a', (s) => ({ ...s, state: 'stopped' }));
    expect(changed.state).toBe('stopped');
    expect((await store.getSession('a'))?.state).toBe('stopped');
    await expect(store.updateSession('nope', (s) => s)).rejects.toMatchObject({ code: 'NO_SESSION' });
  });

  it('refuses a session that does not parse', async () => {
    const store = await fresh();
    await expect(store.putSession({ ...session('a'), state: 'dancing' } as unknown as SessionRecord)).rejects.toThrow();
  });

  it('appends lines in order, writes a repeated line once, and refuses a different line under a taken seq', async () => {
    const store = await fresh();
    expect(await store.appendLine('s', start(1))).toBe('written');
    expect(await store.appendLine('s', end(2))).toBe('written');
    // The same line again, with a later time stamp (a restarted worker writing what it had written): no-op.
    expect(await store.appendLine('s', { ...end(2), at: '2026-01-01T00:00:09.000Z' })).toBe('already');
    await expect(store.appendLine('s', end(2, 'OTHER'))).rejects.toMatchObject({ code: 'BOOK_CONFLICT' });
    expect((await store.lines('s')).map((l) => l.seq)).toEqual([1, 2]);
    expect(await store.countLines('s')).toBe(2);
    expect(await store.lines('other')).toEqual([]);
  });

  it('replaces a session\'s whole book (a clerk\'s edit, re-sealed) and leaves other sessions\' books alone; a line that does not parse changes nothing', async () => {
    const store = await fresh();
    for (const l of [start(1), end(2), end(3)]) await store.appendLine('s', l);
    await store.appendLine('t', start(1));
    await store.replaceLines('s', [start(1), end(2, 'EDITED')]);
    expect(await store.lines('s')).toEqual([start(1), end(2, 'EDITED')]);
    expect(await store.lines('t')).toEqual([start(1)]);
    await expect(store.replaceLines('s', [{ ...start(1), kind: 'nonsense' } as unknown as TraceLine])).rejects.toThrow();
    expect(await store.lines('s')).toEqual([start(1), end(2, 'EDITED')]);
  });

  it('parses every line on the way out: a corrupted record is a typed error, not a bad book', async () => {
    const name = `handrail-test-${n++}`;
    const store = await BookStore.open(name);
    await store.appendLine('s', start(1));
    store.close();
    const raw = await openDB(name);
    await raw.put('lines', { session: 's', seq: 2, line: { seq: 2, kind: 'act' } });
    raw.close();
    const again = await BookStore.open(name);
    const err: unknown = await again.lines('s').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('BAD_RECORD');
  });

  it('deletes a session with its book', async () => {
    const store = await fresh();
    await store.putSession(session('a'));
    await store.appendLine('a', start(1));
    await store.appendLine('b', start(1));
    await store.deleteSession('a');
    expect(await store.getSession('a')).toBeNull();
    expect(await store.lines('a')).toEqual([]);
    expect(await store.lines('b')).toHaveLength(1);
  });

  it('exports JSONL that reads back as the same lines', async () => {
    const lines = [start(1), end(2)];
    const text = toJsonl(lines);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.trim().split('\n').map((l) => TraceLine.parse(JSON.parse(l)))).toEqual(lines);
  });
});
