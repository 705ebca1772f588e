// The shared journal: the same sealed, chained records as the file journal (runner/engine/journal.ts), kept in
// PostgreSQL so runners and MCP servers on many machines answer for one key together (docs/design/journal.md,
// "Never twice" → "A shared journal in PostgreSQL"). Selected by HANDRAIL_JOURNAL_URL (runner/journals.ts).
//
// Two tables, created on first use under an advisory lock and versioned in a third:
//   handrail_journal_keys     one row per key: its header facts, its head (the count and hash of its last record),
//                             and its lease (the holder's LeaseInfo and when the lease expires, by the server's clock)
//   handrail_journal_records  one row per record, PRIMARY KEY (key, n): a record number is written once, ever
//
// The guarantee: every append is one transaction that first locks the key's row (SELECT … FOR UPDATE), checks the
// lease is still this holder's (its nonce) and the head is the record this holder last wrote, then inserts record
// n+1 and moves the head. A holder whose lease expired and was taken can therefore never write a `dispatched`
// again — and the engine presses only after `dispatched` is committed — so two runners never both press a commit.
// What a holder dispatched before losing its lease is in the table, and the next holder reads it as in doubt.
// A lease is renewed every third of its length while held. It is taken over when it has expired (the holder froze,
// crashed on another machine or lost the network), or at once when its holder is provably gone on this same host
// (runner/lease.ts `staleReason`: the pid is dead or reused), exactly as a file lease is broken.
import pg from 'pg';
import { Lock } from '../../shared/lock.ts';
import { leaseInfoOfThisProcess, LeaseInfo, staleReason } from '../lease.ts';
import { JournalError, JournalState, SealedJournal, seal, verifyJournal, type Body, type JournalIntent, type JournalRecord } from './journal.ts';
import { JournalStoreError, type Claim, type ClaimOptions, type JournalStore, type KeyRead } from './journal-store.ts';

/** The version of the tables below; a database made by a newer handrail is refused (JOURNAL_SCHEMA_NEWER). */
export const PG_SCHEMA_VERSION = 1;
export const DEFAULT_LEASE_MS = 30_000;
const POLL_MS = 50;
/** pg_advisory_xact_lock's key for creating the tables: two first users of one database do not race. */
const SCHEMA_LOCK = 0x68616e64; // "hand"

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS handrail_journal_schema (version integer NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS handrail_journal_keys (
     key text PRIMARY KEY,
     card text NOT NULL,
     content_hash text NOT NULL,
     head_n integer NOT NULL CHECK (head_n > 0),
     head_hash text NOT NULL,
     lease jsonb,
     lease_expires timestamptz,
     CHECK ((lease IS NULL) = (lease_expires IS NULL)))`,
  `CREATE TABLE IF NOT EXISTS handrail_journal_records (
     key text NOT NULL REFERENCES handrail_journal_keys (key),
     n integer NOT NULL CHECK (n > 0),
     line text NOT NULL,
     PRIMARY KEY (key, n))`,
];

export interface PgJournalOptions {
  /** How long a lease lasts without renewal (default 30 s); renewed every third of it while held. */
  leaseMs?: number;
  /** Connections kept to the database (default 4). */
  poolSize?: number;
  /** How long to wait for the database to answer a connection (default 5 s). */
  connectTimeoutMs?: number;
}

type Queryable = Pick<pg.PoolClient, 'query'>;

/** `postgres://host:port/db`: what messages and receipts name — never the user's password (nor the user). */
export function describePgUrl(url: URL): string {
  const db = decodeURIComponent(url.pathname.replace(/^\//, '')) || '(default database)';
  return `postgres://${url.hostname || 'localhost'}${url.port ? `:${url.port}` : ''}/${db}`;
}

export class PgJournalStore implements JournalStore {
  readonly #pool: pg.Pool;
  readonly #leaseMs: number;
  readonly #secrets: string[];
  #ended = false;

  private constructor(
    readonly where: string,
    pool: pg.Pool,
    leaseMs: number,
    secrets: string[],
  ) {
    this.#pool = pool;
    this.#leaseMs = leaseMs;
    this.#secrets = secrets;
  }

  /**
   * Connects, creates the tables on first use (or checks their version) and returns the store. Throws
   * JournalStoreError JOURNAL_UNREACHABLE naming the host and database only, or JOURNAL_SCHEMA_NEWER.
   */
  static async open(url: string, opts: PgJournalOptions = {}): Promise<PgJournalStore> {
    const parsed = new URL(url);
    const where = describePgUrl(parsed);
    const secrets = [parsed.password, safeDecode(parsed.password)].filter((s) => s.length > 0);
    const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    if (!(Number.isInteger(leaseMs) && leaseMs >= 300)) throw new RangeError(`a lease must last at least 300 ms, got ${leaseMs}`);
    const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 4, connectionTimeoutMillis: opts.connectTimeoutMs ?? 5_000 });
    // An idle connection the server dropped: the pool replaces it, and the next query reports anything lasting.
    pool.on('error', () => undefined);
    const store = new PgJournalStore(where, pool, leaseMs, secrets);
    try {
      await store.#tx((c) => store.#ensureSchema(c));
    } catch (e) {
      await pool.end().catch(() => undefined);
      if (e instanceof JournalStoreError) throw e;
      throw new JournalStoreError('JOURNAL_UNREACHABLE', `cannot use the journal database ${where}: ${store.#say(e)}; nothing was read or pressed`);
    }
    return store;
  }

  whereOf(_key: string): string {
    return this.where;
  }

  /** An error as one line, with the password scrubbed should a driver ever echo it. */
  #say(e: unknown): string {
    const err = e as { code?: unknown; message?: unknown };
    let text = typeof err.message === 'string' && err.message ? err.message : String(err.code ?? e);
    if (typeof err.code === 'string' && !text.includes(err.code)) text = `${err.code}: ${text}`;
    for (const s of this.#secrets) text = text.split(s).join('***');
    return text.split('\n')[0] ?? '';
  }

  async #ensureSchema(c: Queryable): Promise<void> {
    await c.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    for (const sql of SCHEMA) await c.query(sql);
    const found = await c.query<{ version: number }>('SELECT max(version) AS version FROM handrail_journal_schema');
    const version = found.rows[0]?.version ?? null;
    if (version === null) {
      await c.query('INSERT INTO handrail_journal_schema (version) VALUES ($1)', [PG_SCHEMA_VERSION]);
    } else if (version > PG_SCHEMA_VERSION) {
      throw new JournalStoreError(
        'JOURNAL_SCHEMA_NEWER',
        `the journal tables in ${this.where} are version ${version}, made by a newer handrail (this one reads version ${PG_SCHEMA_VERSION}); upgrade handrail here`,
      );
    }
  }

  /** One transaction on one connection; rolled back on any error. */
  async #tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.#pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      c.release();
    }
  }

  async claim(intent: JournalIntent, opts: ClaimOptions): Promise<Claim> {
    const deadline = Date.now() + Math.max(0, opts.waitMs);
    for (;;) {
      const info = leaseInfoOfThisProcess(opts.what);
      let got: { ok: true; read: KeyRead } | { ok: false; holder: LeaseInfo | null };
      try {
        got = await this.#tx((c) => this.#take(c, intent, info, opts.log));
      } catch (e) {
        if (e instanceof JournalError || e instanceof JournalStoreError) throw e;
        throw new JournalStoreError('JOURNAL_UNREACHABLE', `cannot claim key ${intent.key} in the journal database ${this.where}: ${this.#say(e)}; nothing was pressed`);
      }
      if (got.ok) {
        const lease = new PgLease(this.#pool, intent.key, info.nonce, this.#leaseMs);
        return { ok: true, journal: new PgJournal(this, lease, got.read.state), release: () => lease.release() };
      }
      if (Date.now() >= deadline) return { ok: false, holder: got.holder };
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /**
   * Inside one transaction: create the key (header record and row) when it never started, lock its row, take the
   * lease when it is free, expired or provably abandoned on this host, and read the journal under that lock.
   */
  async #take(c: Queryable, intent: JournalIntent, info: LeaseInfo, log?: (line: string) => void): Promise<{ ok: true; read: KeyRead } | { ok: false; holder: LeaseInfo | null }> {
    const header = seal({ phase: 'header', key: intent.key, card: intent.card, content_hash: intent.content_hash }, null);
    const made = await c.query(
      `INSERT INTO handrail_journal_keys (key, card, content_hash, head_n, head_hash) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (key) DO NOTHING RETURNING key`,
      [intent.key, intent.card, intent.content_hash, header.n, header.hash],
    );
    if (made.rowCount === 1) await c.query('INSERT INTO handrail_journal_records (key, n, line) VALUES ($1, $2, $3)', [intent.key, header.n, JSON.stringify(header)]);
    const row = await c.query<{ lease: unknown; expired: boolean | null }>(
      'SELECT lease, lease_expires <= now() AS expired FROM handrail_journal_keys WHERE key = $1 FOR UPDATE',
      [intent.key],
    );
    const held = row.rows[0];
    if (held?.lease != null) {
      const parsed = LeaseInfo.safeParse(held.lease);
      const holder = parsed.success ? parsed.data : null;
      const why = held.expired ? `its lease expired (not renewed for ${this.#leaseMs} ms)` : holder ? staleReason(holder, 0) : 'its lease is unreadable';
      if (!why) return { ok: false, holder };
      log?.(`took over key ${intent.key} in ${this.where} from ${holder ? `pid ${holder.pid} on ${holder.host} (${holder.what})` : 'an unknown holder'}: ${why}`);
    }
    await c.query(`UPDATE handrail_journal_keys SET lease = $2, lease_expires = now() + $3 * interval '1 millisecond' WHERE key = $1`, [
      intent.key,
      JSON.stringify(info),
      this.#leaseMs,
    ]);
    const read = await this.#readWith(c, intent.key);
    if (!read) throw new JournalError('JOURNAL_DAMAGED', `the journal of key ${intent.key} in ${this.where} vanished while it was being opened; nothing was pressed`, 1);
    if (read.header.card !== intent.card || read.header.content_hash !== intent.content_hash) {
      throw new JournalError(
        'JOURNAL_KEY_MISMATCH',
        `the journal of key ${intent.key} in ${this.where} belongs to card ${read.header.card} (${read.header.content_hash}), not ${intent.card} (${intent.content_hash})`,
        1,
      );
    }
    return { ok: true, read };
  }

  /** The key's records as one consistent snapshot (one statement), verified like a file (chain, hashes, head). */
  async #readWith(c: Queryable, key: string): Promise<KeyRead | null> {
    const r = await c.query<{ head_n: number; head_hash: string; n: number | null; line: string | null }>(
      `SELECT k.head_n, k.head_hash, r.n, r.line FROM handrail_journal_keys k
       LEFT JOIN handrail_journal_records r ON r.key = k.key WHERE k.key = $1 ORDER BY r.n`,
      [key],
    );
    const first = r.rows[0];
    if (!first) return null;
    const lines = r.rows.flatMap((x) => (x.line === null ? [] : [x.line]));
    const text = lines.length ? `${lines.join('\n')}\n` : '';
    const v = verifyJournal(text, JSON.stringify({ n: first.head_n, hash: first.head_hash }), `${this.where} key ${key}`);
    return { ...v, state: new JournalState(v.header, v.records) };
  }

  async read(key: string): Promise<KeyRead | null> {
    try {
      return await this.#readWith(this.#pool, key);
    } catch (e) {
      if (e instanceof JournalError) throw e;
      throw new JournalStoreError('JOURNAL_UNREACHABLE', `cannot read key ${key} in the journal database ${this.where}: ${this.#say(e)}`);
    }
  }

  async keys(): Promise<string[]> {
    try {
      const r = await this.#pool.query<{ key: string }>('SELECT key FROM handrail_journal_keys ORDER BY key');
      return r.rows.map((x) => x.key);
    } catch (e) {
      throw new JournalStoreError('JOURNAL_UNREACHABLE', `cannot list the keys in the journal database ${this.where}: ${this.#say(e)}`);
    }
  }

  /**
   * Appends `body` after `last` for the holder of `nonce`, in one transaction under the key's row lock; refuses
   * (JOURNAL_LEASE_LOST) when the lease is no longer this holder's, so nothing more is written and nothing pressed.
   */
  async append(key: string, nonce: string, last: JournalRecord, body: Body): Promise<JournalRecord> {
    try {
      return await this.#tx(async (c) => {
        const row = await c.query<{ nonce: string | null; holder: unknown; head_n: number; head_hash: string }>(
          `SELECT lease->>'nonce' AS nonce, lease AS holder, head_n, head_hash FROM handrail_journal_keys WHERE key = $1 FOR UPDATE`,
          [key],
        );
        const now = row.rows[0];
        if (!now) throw new JournalError('JOURNAL_DAMAGED', `the journal of key ${key} in ${this.where} is gone; nothing was pressed`, 1);
        if (now.nonce !== nonce) {
          const h = LeaseInfo.safeParse(now.holder);
          const by = h.success ? `pid ${h.data.pid} on ${h.data.host} (${h.data.what})` : 'nobody';
          throw new JournalError(
            'JOURNAL_LEASE_LOST',
            `the lease on key ${key} in ${this.where} expired and is now held by ${by}: this run writes nothing more and presses nothing; what it dispatched stays in doubt`,
          );
        }
        if (now.head_n !== last.n || now.head_hash !== last.hash) {
          throw new JournalError('JOURNAL_DAMAGED', `the journal of key ${key} in ${this.where} moved under its lease holder (head ${now.head_n}, expected ${last.n}); nothing was pressed`, now.head_n);
        }
        const rec = seal(body, last);
        await c.query('INSERT INTO handrail_journal_records (key, n, line) VALUES ($1, $2, $3)', [key, rec.n, JSON.stringify(rec)]);
        await c.query(`UPDATE handrail_journal_keys SET head_n = $2, head_hash = $3, lease_expires = now() + $4 * interval '1 millisecond' WHERE key = $1`, [
          key,
          rec.n,
          rec.hash,
          this.#leaseMs,
        ]);
        return rec;
      });
    } catch (e) {
      if (e instanceof JournalError) throw e;
      throw new JournalError('JOURNAL_IO', `cannot write key ${key} in the journal database ${this.where}: ${this.#say(e)}; the step was not acted on`);
    }
  }

  /** Ends the pool once (the service and the command may both close it). */
  async close(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    await this.#pool.end();
  }
}

/** A held lease: renewed every third of its length until released; release frees it only if it is still ours. */
class PgLease {
  readonly #timer: NodeJS.Timeout;
  #released = false;

  constructor(
    private readonly pool: pg.Pool,
    readonly key: string,
    readonly nonce: string,
    leaseMs: number,
  ) {
    this.#timer = setInterval(() => {
      // A failed renewal is not fatal here: the next append checks the lease under the row lock and refuses.
      this.pool
        .query(`UPDATE handrail_journal_keys SET lease_expires = now() + $3 * interval '1 millisecond' WHERE key = $1 AND lease->>'nonce' = $2`, [key, nonce, leaseMs])
        .catch(() => undefined);
    }, Math.floor(leaseMs / 3));
    this.#timer.unref();
  }

  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    clearInterval(this.#timer);
    await this.pool
      .query(`UPDATE handrail_journal_keys SET lease = NULL, lease_expires = NULL WHERE key = $1 AND lease->>'nonce' = $2`, [this.key, this.nonce])
      .catch(() => undefined); // unreachable: the lease expires by itself
  }
}

/** One key's journal in the database, written only while its lease is this holder's. */
class PgJournal extends SealedJournal {
  readonly #appends = new Lock();
  #closed = false;

  constructor(
    private readonly store: PgJournalStore,
    private readonly lease: PgLease,
    view: JournalState,
  ) {
    super(view);
  }

  get where(): string {
    return this.store.where;
  }

  protected append(body: Body): Promise<JournalRecord> {
    return this.#appends.run(async () => {
      if (this.#closed) throw new JournalError('JOURNAL_CLOSED', `journal of key ${this.key} in ${this.where} is closed`);
      const rec = await this.store.append(this.key, this.lease.nonce, this.view.last, body);
      this.view.apply(rec);
      return rec;
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#appends.idle();
    this.#closed = true;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
