// The shared PostgreSQL journal as an operator meets it: its tables made on first use and versioned, a holder whose
// lease expired fenced out of the key, a clear refusal naming host and database (never the password) for a wrong or
// unreachable HANDRAIL_JOURNAL_URL, and `handrail journal list|show|settle` working on the database.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_SCHEMA_VERSION, PgJournalStore } from '../../runner/engine/journal-pg.ts';
import { openSharedJournal } from '../../runner/journals.ts';
import { handrail } from '../e2e/support/cli.ts';
import { NO_POSTGRES, postgresBin, startPostgres, type Postgres } from '../fixtures/postgres.ts';

const HAVE_PG = postgresBin() !== null;
if (!HAVE_PG) console.warn(`journal-pg: skipped: ${NO_POSTGRES}`);

let cluster: Postgres;
beforeAll(async () => {
  if (HAVE_PG) cluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

const newKey = (): string => `plumbline_place_hold.${randomBytes(16).toString('hex')}`;
const intentOf = (key: string) => ({ key, card: 'plumbline_place_hold', content_hash: 'sha256:pg' });

async function sql<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** The error a promise must end in (a store that opened is a test failure). */
async function refusal(p: Promise<unknown>): Promise<Error & { code: string }> {
  const outcome = await p.then(
    (v) => ({ opened: v }),
    (e: unknown) => ({ error: e as Error & { code: string } }),
  );
  if ('opened' in outcome) throw new Error('the journal store opened; a refusal was expected');
  return outcome.error;
}

describe.skipIf(!HAVE_PG)('the PostgreSQL journal', () => {
  it('makes its tables on first use, once, even when two servers start on an empty database together, and records their version', async () => {
    const url = await cluster.newDatabase();
    const [a, b] = await Promise.all([PgJournalStore.open(url), PgJournalStore.open(url)]);
    await a.close();
    await b.close();
    const tables = await sql<{ tablename: string }>(url, `SELECT tablename FROM pg_tables WHERE tablename LIKE 'handrail_journal%' ORDER BY tablename`);
    expect(tables.map((t) => t.tablename)).toEqual(['handrail_journal_keys', 'handrail_journal_records', 'handrail_journal_schema']);
    expect(await sql(url, 'SELECT version FROM handrail_journal_schema')).toEqual([{ version: PG_SCHEMA_VERSION }]);
    // A database a newer handrail has already upgraded is refused rather than misread.
    await sql(url, 'UPDATE handrail_journal_schema SET version = $1', [PG_SCHEMA_VERSION + 1]);
    await expect(PgJournalStore.open(url)).rejects.toMatchObject({ code: 'JOURNAL_SCHEMA_NEWER', message: expect.stringContaining(`version ${PG_SCHEMA_VERSION + 1}`) });
  });

  it('a holder whose lease expired and was taken can write nothing more: its dispatch is refused, so it never presses', async () => {
    const url = await cluster.newDatabase();
    const [a, b] = [await PgJournalStore.open(url), await PgJournalStore.open(url)];
    try {
      const key = newKey();
      const first = await a.claim(intentOf(key), { waitMs: 0, what: 'runner-a' });
      if (!first.ok) throw new Error('a must hold the key');
      await first.journal.dispatched('run-a', 'open_member', 'stage');
      // Runner A stalls (a long GC, a cut network) past its lease; the server's clock says it expired.
      await sql(url, `UPDATE handrail_journal_keys SET lease_expires = now() - interval '1 second' WHERE key = $1`, [key]);
      const logged: string[] = [];
      const second = await b.claim(intentOf(key), { waitMs: 0, what: 'runner-b', log: (l) => logged.push(l) });
      if (!second.ok) throw new Error('b must take over the expired lease');
      expect(logged.join('\n')).toMatch(/runner-a.*lease expired/);
      await expect(first.journal.dispatched('run-a', 'post_hold', 'commit')).rejects.toMatchObject({ code: 'JOURNAL_LEASE_LOST', message: expect.stringContaining('runner-b') });
      expect(first.journal.state('post_hold')).toBe('none');
      await second.journal.dispatched('run-b', 'post_hold', 'commit');
      await second.journal.observed('run-b', 'post_hold', 'commit');
      // A's late release does not free B's lease.
      await first.release();
      expect((await a.claim(intentOf(key), { waitMs: 0, what: 'runner-a again' })).ok).toBe(false);
      await second.journal.close();
      await second.release();
      const read = await a.read(key);
      expect(read?.records.map((r) => `${r.phase}${'run' in r ? ` ${r.run}` : ''}`)).toEqual(['header', 'dispatched run-a', 'dispatched run-b', 'observed run-b']);
      expect(read?.state.status()).toBe('committed');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses a URL no store speaks, and names only host and database when the server cannot be reached', async () => {
    await expect(openSharedJournal({ HANDRAIL_JOURNAL_URL: 'mysql://u:p@127.0.0.1/x' })).rejects.toMatchObject({ code: 'JOURNAL_URL_UNSUPPORTED', message: expect.stringContaining('"mysql"') });
    await expect(openSharedJournal({ HANDRAIL_JOURNAL_URL: 'not a url' })).rejects.toMatchObject({ code: 'JOURNAL_URL_UNSUPPORTED' });
    await expect(openSharedJournal({ HANDRAIL_JOURNAL_URL: '' })).resolves.toBeNull();
    const secret = `pw-${randomBytes(8).toString('hex')}`;
    // The cluster's port with the server stopped would race other tests: port 9 (discard) is closed on 127.0.0.1.
    const err = await refusal(openSharedJournal({ HANDRAIL_JOURNAL_URL: `postgres://handrail:${secret}@127.0.0.1:9/bank` }));
    expect(err).toMatchObject({ code: 'JOURNAL_UNREACHABLE', word: 'RECOVERABLE' });
    expect(err.message).toContain('postgres://127.0.0.1:9/bank');
    expect(err.message).not.toContain(secret);
    // A wrong password reaches the server and is refused by it: still no password in what we say.
    const wrong = await refusal(openSharedJournal({ HANDRAIL_JOURNAL_URL: cluster.url.replace(cluster.password, secret) }));
    expect(wrong).toMatchObject({ code: 'JOURNAL_UNREACHABLE', message: expect.stringMatching(/password authentication failed/) });
    expect(wrong.message).not.toContain(secret);
  });

  it('handrail journal list, show and settle, and doctor, read and settle a key in the database; replay refuses a bad URL before anything', async () => {
    const url = await cluster.newDatabase();
    const key = newKey();
    const store = await PgJournalStore.open(url);
    try {
      const got = await store.claim(intentOf(key), { waitMs: 0, what: 'crashed run' });
      if (!got.ok) throw new Error('must claim');
      await got.journal.dispatched('run-x', 'post_hold', 'commit');
      await got.journal.close();
      await got.release(); // as if the holder had died: the commit stays in doubt
    } finally {
      await store.close();
    }
    const env = { ...process.env, HANDRAIL_JOURNAL_URL: url };
    const list = await handrail(['journal', 'list'], env);
    expect(list.stderr).toContain(`journals in postgres://127.0.0.1:${cluster.port}/`);
    expect(list.stdout).toMatch(new RegExp(`^${key}\\tin_doubt\\t2 records`, 'm'));
    const show = await handrail(['journal', 'show', key], env);
    expect(show.stdout).toContain('dispatched commit post_hold (run run-x)');
    expect(show.stdout).toContain('status: in_doubt (post_hold dispatched, never observed)');
    // `handrail doctor` reads the same journals, and a shared journal out of reach makes the machine not ready.
    const doctor = await handrail(['doctor', '--json'], env);
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; ok: boolean; summary: string; details: string[] }[] }).checks;
    expect(checks.find((c) => c.name === 'journals')).toMatchObject({ ok: false, summary: expect.stringMatching(/^1 in postgres:\/\/127\.0\.0\.1:\d+\/\w+ · open 0 · committed 0 · in doubt 1/) });
    const cut = await handrail(['doctor', '--json'], { ...env, HANDRAIL_JOURNAL_URL: `postgres://handrail:${cluster.password}@127.0.0.1:9/gone` });
    const cutReport = JSON.parse(cut.stdout) as { ready: boolean; checks: { name: string; ok: boolean; summary: string }[] };
    expect(cutReport.ready).toBe(false);
    expect(cutReport.checks.find((c) => c.name === 'journals')?.summary).toContain('cannot use the journal database postgres://127.0.0.1:9/gone');
    expect(`${doctor.stdout}${cut.stdout}${cut.stderr}`).not.toContain(cluster.password);
    const settled = await handrail(['journal', 'settle', key, '--as', 'not-committed', '--by', 'Pat Operator', '--note', 'no hold in the core'], env);
    expect(settled.code).toBe(0);
    expect(JSON.parse(settled.stdout)).toMatchObject({ phase: 'settled', as: 'not_committed', steps: ['post_hold'], via: 'person' });
    expect((await handrail(['journal', 'show', key], env)).stdout).toContain('status: open');
    for (const r of [list, show, settled]) expect(`${r.stdout}${r.stderr}`).not.toContain(cluster.password);

    const bad = await handrail(['replay', 'capabilities/plumbline-place-hold.json', '--input', 'operator_id=OP1001', '--input', 'member_number=400118', '--input', 'share_id=400118-S0005', '--input', 'reason=LEGAL'], {
      ...process.env,
      HANDRAIL_SECRET_PASSWORD: 'not-used-here',
      HANDRAIL_JOURNAL_URL: 'redis://127.0.0.1:6379',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/JOURNAL_URL_UNSUPPORTED: HANDRAIL_JOURNAL_URL uses the scheme "redis"/);
  });
});
