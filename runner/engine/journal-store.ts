// The journal behind a port (docs/design/journal.md, "Never twice" → "The journal port"): what a run needs from the
// place its keys are kept — claim a key (its lease, then its journal, created on first use), write ahead, read a
// key for an answer or a person, list the keys, let go. The file journal (runner/engine/journal.ts with the
// O_EXCL leases of runner/lease.ts) is the embedded default; PostgreSQL (runner/engine/journal-pg.ts) is the
// second implementation, for many machines sharing one journal. Both keep the same sealed, chained records, so
// the rules of what a record means (JournalState) are written once.
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { HandrailError } from '../../shared/errors.ts';
import { journalFile, leaseFile, type Store } from '../intent.ts';
import { Lease, type LeaseInfo } from '../lease.ts';
import {
  Journal,
  readJournal,
  type HeldWrite,
  type JournalEffect,
  type JournalIntent,
  type JournalState,
  type KeyStatus,
  type Settlement,
  type SettledRecord,
  type StepState,
  type Verified,
} from './journal.ts';

/** The store itself cannot be used: a journal URL no store speaks, a database that cannot be reached, a newer schema. */
export class JournalStoreError extends HandrailError<'JOURNAL_URL_UNSUPPORTED' | 'JOURNAL_UNREACHABLE' | 'JOURNAL_SCHEMA_NEWER'> {
  override readonly name = 'JournalStoreError';
}

/** The open journal of one key, held under the key's lease: what the engine and a run write and read. */
export interface KeyJournal {
  readonly key: string;
  /** Where it is kept, for messages and receipts: a file, or `postgres://user@host:port/db` (never a password). */
  readonly where: string;
  readonly view: JournalState;
  state(step: string): StepState;
  inDoubt(): string[];
  status(): KeyStatus;
  lastReceipt(): unknown;
  /** Resolves only once the record is kept: the caller acts after this, never before. */
  dispatched(run: string, step: string, effect: JournalEffect): Promise<void>;
  observed(run: string, step: string, effect: JournalEffect): Promise<void>;
  /** A non-commit step's writes, held before they left: a record of their own that puts nothing in doubt. */
  held(run: string, step: string, writes: readonly HeldWrite[]): Promise<void>;
  receipt(run: string, receipt: unknown): Promise<void>;
  settle(as: Settlement, by: string, note: string, via: 'person' | 'probe'): Promise<SettledRecord>;
  close(): Promise<void>;
}

/** A key claimed: its journal, and the lease to give back when done (after closing the journal). */
export type Claim = { ok: true; journal: KeyJournal; release: () => Promise<void> } | { ok: false; holder: LeaseInfo | null };

export interface ClaimOptions {
  /** How long to wait for a live holder to let go (0: one attempt). */
  waitMs: number;
  /** What holds it: a run id, `settle by …` (shown to whoever finds the key busy). */
  what: string;
  /** Where a broken stale or expired lease is reported. */
  log?: (line: string) => void;
}

/** A key's journal read without claiming it (`journal list|show`, a settlement's first look). */
export type KeyRead = Verified & { state: JournalState };

export interface JournalStore {
  /** Where the journals are, for messages: a directory, or `postgres://user@host:port/db`. */
  readonly where: string;
  /** Where the journal of `key` is, for messages and the receipt's `journal`. */
  whereOf(key: string): string;
  /**
   * Takes the key's lease (waiting up to `waitMs`), then opens its journal, creating it when the key never started.
   * Throws JournalError JOURNAL_DAMAGED / JOURNAL_KEY_MISMATCH (the lease is given back first), LeaseError or
   * JournalStoreError when the store itself cannot be used.
   */
  claim(intent: JournalIntent, opts: ClaimOptions): Promise<Claim>;
  /** The verified records of one key, or null when it never started. Throws JOURNAL_DAMAGED. */
  read(key: string): Promise<KeyRead | null>;
  /** Every key the store holds a journal for, sorted. */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The embedded default: `<journals>/<key>.jsonl` and `<locks>/<key>.lock` (runner/intent.ts), or one named journal
 * file (`--journal FILE`) whose lease is in the store's locks when there is a store, else beside the file.
 */
export class FileJournalStore implements JournalStore {
  readonly #store: Store | undefined;
  readonly #file: string | undefined;

  constructor(place: { store?: Store; file?: string }) {
    if (!place.store && !place.file) throw new RangeError('a file journal store needs a state directory or a journal file');
    this.#store = place.store;
    this.#file = place.file === undefined ? undefined : resolve(place.file);
  }

  get where(): string {
    return this.#file ?? (this.#store as Store).journals;
  }

  whereOf(key: string): string {
    return this.#file ?? resolve(journalFile(this.#store as Store, key));
  }

  #leaseOf(key: string): string {
    return this.#store ? leaseFile(this.#store, key) : `${this.whereOf(key)}.${key}.lock`;
  }

  async claim(intent: JournalIntent, opts: ClaimOptions): Promise<Claim> {
    const got = await Lease.acquire(this.#leaseOf(intent.key), { waitMs: opts.waitMs, what: opts.what, ...(opts.log ? { log: opts.log } : {}) });
    if (!got.ok) return { ok: false, holder: got.holder };
    let journal: Journal;
    try {
      journal = await Journal.open(this.whereOf(intent.key), intent);
    } catch (e) {
      await got.lease.release();
      throw e;
    }
    return { ok: true, journal, release: () => got.lease.release() };
  }

  read(key: string): Promise<KeyRead | null> {
    return readJournal(this.whereOf(key));
  }

  async keys(): Promise<string[]> {
    if (this.#file) {
      const found = await readJournal(this.#file);
      return found ? [found.header.key] : [];
    }
    let names: string[];
    try {
      names = await readdir((this.#store as Store).journals);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    return names
      .filter((n) => n.endsWith('.jsonl'))
      .map((n) => n.slice(0, -'.jsonl'.length))
      .sort();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
