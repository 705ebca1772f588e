// The journal port's contract, held by both implementations — the embedded file journal and the shared PostgreSQL
// journal (a real throwaway cluster): one holder per key, write-ahead records that answer the next run, a crash
// between dispatched and observed left in doubt for a person or a probe, damage refused, and one documented
// difference: a frozen holder keeps a file lease, while a shared lease expires and the frozen holder is fenced out.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JournalError } from '../../runner/engine/journal.ts';
import { PgJournalStore } from '../../runner/engine/journal-pg.ts';
import { FileJournalStore, type JournalStore } from '../../runner/engine/journal-store.ts';
import { journalFile, storeIn } from '../../runner/intent.ts';
import { journalAnswer, resultBeforeRun } from '../../runner/run.ts';
import { NO_POSTGRES, postgresBin, startPostgres, type Postgres } from '../fixtures/postgres.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CHILD = path.join(ROOT, 'tests/fixtures/journal-holder-child.ts');
const HAVE_PG = postgresBin() !== null;
if (!HAVE_PG) console.warn(`journal-store: the PostgreSQL half of the contract is skipped: ${NO_POSTGRES}`);

let cluster: Postgres | undefined;
let scratch: string;
beforeAll(async () => {
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-contract-'));
  if (HAVE_PG) cluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  await fs.rm(scratch, { recursive: true, force: true });
});

/** One empty place to keep journals, as each implementation makes it. */
interface Place {
  open(): Promise<JournalStore>;
  /** What a child process needs in its environment to reach the same place (the CLI's chooser reads it). */
  env: Record<string, string>;
  /** Edits record `n` of `key` where it is kept, as a stray hand or a bad restore would. */
  tamper(key: string, n: number): Promise<void>;
}

interface Impl {
  name: string;
  available: boolean;
  fresh(): Promise<Place>;
  /** What the next claimant meets while a holder is alive but silent (stopped, cut off). */
  frozenHolder: 'busy' | 'taken after expiry';
}

/** Short enough for a test to wait out, long enough for a renewal to land on a loaded machine. */
const SHORT_LEASE_MS = 900;

const IMPLS: Impl[] = [
  {
    name: 'file journal',
    available: true,
    frozenHolder: 'busy',
    async fresh() {
      const home = await fs.mkdtemp(path.join(scratch, 'home-'));
      const store = storeIn(home);
      return {
        open: () => Promise.resolve(new FileJournalStore({ store })),
        env: { HANDRAIL_HOME: home },
        async tamper(key, n) {
          const file = journalFile(store, key);
          const lines = (await fs.readFile(file, 'utf8')).split('\n');
          lines[n - 1] = (lines[n - 1] ?? '').replace('"r1"', '"r9"');
          await fs.writeFile(file, lines.join('\n'));
        },
      };
    },
  },
  {
    name: 'PostgreSQL journal',
    available: HAVE_PG,
    frozenHolder: 'taken after expiry',
    async fresh() {
      const url = await (cluster as Postgres).newDatabase();
      return {
        open: () => PgJournalStore.open(url),
        env: { HANDRAIL_JOURNAL_URL: url, HANDRAIL_JOURNAL_LEASE_MS: String(SHORT_LEASE_MS) },
        async tamper(key, n) {
          const c = new pg.Client({ connectionString: url });
          await c.connect();
          try {
            await c.query(`UPDATE handrail_journal_records SET line = replace(line, '"r1"', '"r9"') WHERE key = $1 AND n = $2`, [key, n]);
          } finally {
            await c.end();
          }
        },
      };
    },
  },
];

const newKey = (): string => `contract.${randomBytes(16).toString('hex')}`;
const intentOf = (key: string) => ({ key, card: 'contract', content_hash: 'sha256:contract' });
const claimOpts = { waitMs: 0, what: 'test' };

async function claimed(store: JournalStore, key: string, opts: { waitMs?: number; log?: (l: string) => void } = {}) {
  const got = await store.claim(intentOf(key), { ...claimOpts, ...opts });
  if (!got.ok) throw new Error(`expected to claim ${key}, held by ${JSON.stringify(got.holder)}`);
  return got;
}

/** The holder child, started and past its `dispatched` line. */
async function holder(env: Record<string, string>, key: string): Promise<{ child: ChildProcessWithoutNullStreams; lines: () => string[]; next: (want: string) => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, key], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const lines = (): string[] => out.split('\n').filter(Boolean);
  const next = async (want: string): Promise<void> => {
    const until = Date.now() + 20_000;
    while (!lines().includes(want)) {
      if (child.exitCode !== null || Date.now() > until) throw new Error(`the holder never said ${want}: ${out} ${err}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  await next('dispatched');
  return { child, lines, next };
}

const exited = (c: ChildProcessWithoutNullStreams): Promise<void> =>
  c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('close', () => r()));

describe.each(IMPLS)('$name', (impl) => {
  const test = it.skipIf(!impl.available);

  test('a key never started reads as nothing; the first claim creates it with its header, and it is listed', async () => {
    const place = await impl.fresh();
    const store = await place.open();
    try {
      const key = newKey();
      expect(await store.read(key)).toBeNull();
      const got = await claimed(store, key);
      expect(got.journal.status()).toBe('open');
      expect(got.journal.key).toBe(key);
      await got.journal.close();
      await got.release();
      const read = await store.read(key);
      expect(read?.header).toMatchObject({ phase: 'header', key, card: 'contract', content_hash: 'sha256:contract', n: 1 });
      expect(await store.keys()).toEqual([key]);
    } finally {
      await store.close();
    }
  });

  test('of eight claimants at once (each with its own store, as on eight machines) exactly one holds the key; after release the next gets it', async () => {
    const place = await impl.fresh();
    const stores = await Promise.all(Array.from({ length: 8 }, () => place.open()));
    try {
      const key = newKey();
      const all = await Promise.all(stores.map((s, i) => s.claim(intentOf(key), { waitMs: 0, what: `c${i}` })));
      const won = all.flatMap((g) => (g.ok ? [g] : []));
      expect(won).toHaveLength(1);
      const lost = all.find((g) => !g.ok);
      expect(lost).toMatchObject({ ok: false, holder: { pid: process.pid, what: expect.stringMatching(/^c\d$/) } });
      await won[0]?.journal.close();
      await won[0]?.release();
      const next = await claimed(stores[0] as JournalStore, key);
      await next.journal.close();
      await next.release();
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  test('a waiter gets the key once its holder lets go, within --wait', async () => {
    const place = await impl.fresh();
    const [a, b] = [await place.open(), await place.open()];
    try {
      const key = newKey();
      const first = await claimed(a, key);
      expect((await b.claim(intentOf(key), { waitMs: 150, what: 'impatient' })).ok).toBe(false);
      setTimeout(() => void first.journal.close().then(() => first.release()), 200);
      const patient = await claimed(b, key, { waitMs: 5_000 });
      await patient.journal.close();
      await patient.release();
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('dispatched, observed and the receipt answer the next claimant: committed, the same receipt, from the journal', async () => {
    const place = await impl.fresh();
    const store = await place.open();
    try {
      const key = newKey();
      const got = await claimed(store, key);
      await got.journal.dispatched('r1', 'post_hold', 'commit');
      expect(got.journal.state('post_hold')).toBe('dispatched');
      await got.journal.observed('r1', 'post_hold', 'commit');
      const receipt = { ...resultBeforeRun('contract', 'r1', 'SUCCESS', 'OK', 'held'), outputs: { confirmation: 'HX-1' } };
      await got.journal.receipt('r1', receipt);
      await got.journal.close();
      await got.release();

      const again = await claimed(store, key);
      expect(again.journal.status()).toBe('committed');
      expect(journalAnswer(again.journal, 'r2', 'contract')).toMatchObject({ word: 'SUCCESS', run_id: 'r1', from_journal: true, outputs: { confirmation: 'HX-1' } });
      await again.journal.close();
      await again.release();
      expect((await store.read(key))?.records.map((r) => r.phase)).toEqual(['header', 'dispatched', 'observed', 'receipt']);
    } finally {
      await store.close();
    }
  });

  test('a crash between dispatched and observed leaves the commit in doubt: UNSAFE_TO_RETRY until a person settles it', async () => {
    const place = await impl.fresh();
    const key = newKey();
    const h = await holder(place.env, key);
    h.child.kill('SIGKILL');
    await exited(h.child);
    const store = await place.open();
    try {
      const logged: string[] = [];
      // The holder is provably gone on this host (its pid is dead): its lease is broken at once, and said so.
      const got = await claimed(store, key, { log: (l) => logged.push(l) });
      expect(logged.join('\n')).toMatch(/dead/);
      expect(got.journal.status()).toBe('in_doubt');
      expect(got.journal.inDoubt()).toEqual(['post_hold']);
      expect(journalAnswer(got.journal, 'r2', 'contract')).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_IN_DOUBT' });
      await expect(got.journal.settle('not_committed', 'Pat Operator', 'no hold in the core', 'person')).resolves.toMatchObject({ phase: 'settled', steps: ['post_hold'] });
      expect(got.journal.status()).toBe('open');
      expect(got.journal.state('post_hold')).toBe('none');
      await expect(got.journal.settle('committed', 'Pat Operator', 'again', 'person')).rejects.toMatchObject({ code: 'JOURNAL_NOT_IN_DOUBT' });
      await got.journal.close();
      await got.release();
    } finally {
      await store.close();
    }
  });

  test(`a frozen holder (alive, silent): ${impl.frozenHolder}`, async () => {
    const place = await impl.fresh();
    const key = newKey();
    const h = await holder(place.env, key);
    const store = await place.open();
    try {
      h.child.kill('SIGSTOP');
      const got = await store.claim(intentOf(key), { waitMs: SHORT_LEASE_MS * 4, what: 'next' });
      h.child.kill('SIGCONT');
      if (impl.frozenHolder === 'busy') {
        expect(got).toMatchObject({ ok: false, holder: { what: 'holder-child' } });
        h.child.stdin.write('observe\n');
        await h.next('observed');
      } else {
        if (!got.ok) throw new Error('the expired lease must be taken over');
        expect(got.journal.status()).toBe('in_doubt');
        // Thawed, the old holder is fenced: its `observed` is refused, so it can never act on the key again.
        h.child.stdin.write('observe\n');
        await h.next('JOURNAL_LEASE_LOST');
        expect(got.journal.inDoubt()).toEqual(['post_hold']);
        await got.journal.close();
        await got.release();
        expect((await store.read(key))?.records.map((r) => r.phase)).toEqual(['header', 'dispatched']);
      }
      await exited(h.child);
    } finally {
      h.child.kill('SIGKILL');
      await store.close();
    }
  });

  test('an edited record is JOURNAL_DAMAGED naming its place, and the key is not claimed', async () => {
    const place = await impl.fresh();
    const store = await place.open();
    try {
      const key = newKey();
      const got = await claimed(store, key);
      await got.journal.dispatched('r1', 'post_hold', 'commit');
      await got.journal.observed('r1', 'post_hold', 'commit');
      await got.journal.close();
      await got.release();
      await place.tamper(key, 2);
      const err = await store.claim(intentOf(key), claimOpts).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(JournalError);
      expect(err).toMatchObject({ code: 'JOURNAL_DAMAGED', line: 2 });
      await expect(store.read(key)).rejects.toMatchObject({ code: 'JOURNAL_DAMAGED' });
      // Refused before anything was held: a second claimant meets the same refusal, not BUSY.
      await expect(store.claim(intentOf(key), claimOpts)).rejects.toMatchObject({ code: 'JOURNAL_DAMAGED' });
    } finally {
      await store.close();
    }
  });
});
