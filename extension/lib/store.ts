// The book and the sessions in IndexedDB (via idb). An MV3 worker may be killed at any moment, so everything a
// session needs to go on lives here, and every record is parsed with zod on the way in and on the way out.
// Secret values are never stored here: they live in storage.session (memory only) for the session's length.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { z } from 'zod';
import { EveningState } from '../../shared/author/evening.ts';
import { Dispatch } from '../../shared/author/guard.ts';
import { TraceLine } from '../../shared/schema/trace.ts';
import { Mode } from './messages.ts';
import { HandrailError } from '../../shared/errors.ts';

export const DB_NAME = 'handrail';
const DB_VERSION = 1;

export const SessionState = z.enum(['running', 'finished', 'failed', 'stopped']);
export type SessionState = z.infer<typeof SessionState>;

export const Question = z.strictObject({ id: z.string(), control: z.string(), screen: z.string().nullable(), goal: z.string() });
export type Question = z.infer<typeof Question>;

/** What the panel shows of the live screen: its label and the numbered menu, already masked. */
export const ScreenView = z.strictObject({
  url: z.string(),
  signature: z.string(),
  label: z.string().nullable(),
  menu: z.array(z.string()),
});
export type ScreenView = z.infer<typeof ScreenView>;

export const SessionRecord = z.strictObject({
  id: z.string(),
  tabId: z.number().int(),
  mode: Mode,
  goal: z.string(),
  entry: z.string(),
  owner: z.string(),
  /** Inputs by name; `value` only for non-secret ones (a secret's value is never written to disk). */
  inputs: z.array(z.strictObject({ name: z.string(), secret: z.boolean(), value: z.string().optional() })),
  state: SessionState,
  created: z.string(),
  updated: z.string(),
  /** The owner question waiting for an answer in the panel. */
  question: Question.nullable(),
  view: ScreenView.nullable(),
  /** The last thing that happened, for people (masked): a refusal, a failure, "labelled hold_form". */
  note: z.string().nullable(),
  /** Clerk events already written (record mode), so a re-sent message is not written twice. */
  events: z.array(z.string()),
  model: z.string().optional(),
  /** Model mode: where the evening is (turns taken, the model's conversation, this turn's calls), secrets masked. */
  evening: EveningState.optional(),
  /**
   * Record mode: the clerk's action the guard was doing (`call` is the clerk's event id), kept just before it
   * did it, with the number of book lines then: a worker stopped before the line was written settles it.
   */
  dispatched: Dispatch.extend({ lines: z.number().int().nonnegative() }).optional(),
  /** Record mode: the origins the session records on — where it started, plus those the clerk added. Absent: the entry's. */
  origins: z.array(z.string()).optional(),
  /** Record mode: where the tab is while it is on a site the session is not bound to (recording is paused there). */
  paused: z.string().nullable().optional(),
});
export type SessionRecord = z.infer<typeof SessionRecord>;

const StoredLine = z.strictObject({ session: z.string(), seq: z.number().int().positive(), line: TraceLine });
type StoredLine = z.infer<typeof StoredLine>;

interface HandrailDB extends DBSchema {
  sessions: { key: string; value: SessionRecord };
  lines: { key: [string, number]; value: StoredLine; indexes: { by_session: string } };
}

/** A typed failure of the store: a caller decides from `code`. */
export class StoreError extends HandrailError<'NO_SESSION' | 'BOOK_CONFLICT' | 'BAD_RECORD'> {
  override readonly name = 'StoreError';
  constructor(code: 'NO_SESSION' | 'BOOK_CONFLICT' | 'BAD_RECORD', message: string) {
    super(code, message);
  }
}

function parseOr<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new StoreError('BAD_RECORD', `${what} in IndexedDB does not parse: ${r.error.issues[0]?.message ?? ''}`);
  return r.data;
}

const sameLine = (a: TraceLine, b: TraceLine): boolean => JSON.stringify({ ...a, at: '' }) === JSON.stringify({ ...b, at: '' });

export class BookStore {
  private constructor(private readonly db: IDBPDatabase<HandrailDB>) {}

  /** Opens the global indexedDB (the extension's origin; fake-indexeddb in unit tests). */
  static async open(name = DB_NAME): Promise<BookStore> {
    const db = await openDB<HandrailDB>(name, DB_VERSION, {
      upgrade(d) {
        d.createObjectStore('sessions', { keyPath: 'id' });
        const lines = d.createObjectStore('lines', { keyPath: ['session', 'seq'] });
        lines.createIndex('by_session', 'session');
      },
    });
    return new BookStore(db);
  }

  close(): void {
    this.db.close();
  }

  async putSession(s: SessionRecord): Promise<void> {
    await this.db.put('sessions', SessionRecord.parse(s));
  }

  async getSession(id: string): Promise<SessionRecord | null> {
    const raw = await this.db.get('sessions', id);
    return raw === undefined ? null : parseOr(SessionRecord, raw, `session ${id}`);
  }

  /** Read-modify-write in one transaction, so two handlers never undo each other's change. */
  async updateSession(id: string, change: (s: SessionRecord) => SessionRecord): Promise<SessionRecord> {
    const tx = this.db.transaction('sessions', 'readwrite');
    const raw = await tx.store.get(id);
    if (raw === undefined) {
      tx.abort();
      await tx.done.catch(() => undefined);
      throw new StoreError('NO_SESSION', `no session ${id}`);
    }
    const next = SessionRecord.parse({ ...change(parseOr(SessionRecord, raw, `session ${id}`)), updated: new Date().toISOString() });
    await tx.store.put(next);
    await tx.done;
    return next;
  }

  async listSessions(): Promise<SessionRecord[]> {
    const all = await this.db.getAll('sessions');
    return all.map((s) => parseOr(SessionRecord, s, 'a session')).sort((a, b) => b.created.localeCompare(a.created));
  }

  /**
   * Appends one line, keyed by (session, seq). Idempotent: the same line written again (a worker that died after
   * the write but before it knew) is a no-op; a different line under a taken seq is a conflict, never an overwrite.
   */
  async appendLine(session: string, line: TraceLine): Promise<'written' | 'already'> {
    const checked = TraceLine.parse(line);
    const tx = this.db.transaction('lines', 'readwrite');
    const existing = await tx.store.get([session, checked.seq]);
    if (existing !== undefined) {
      await tx.done;
      const old = parseOr(StoredLine, existing, `line ${checked.seq}`).line;
      if (sameLine(old, checked)) return 'already';
      throw new StoreError('BOOK_CONFLICT', `line ${checked.seq} of session ${session} is already a different ${old.kind} line`);
    }
    await tx.store.add({ session, seq: checked.seq, line: checked });
    await tx.done;
    return 'written';
  }

  /**
   * Replaces a session's whole book in one transaction (a clerk's edit, shared/author/book-edit.ts: the lines from
   * the change on are renumbered and re-sealed). Every line is parsed first; a reader sees the old book or the new.
   */
  async replaceLines(session: string, lines: readonly TraceLine[]): Promise<void> {
    const checked = lines.map((l) => TraceLine.parse(l));
    const tx = this.db.transaction('lines', 'readwrite');
    for (const key of await tx.store.index('by_session').getAllKeys(session)) await tx.store.delete(key);
    for (const line of checked) await tx.store.add({ session, seq: line.seq, line });
    await tx.done;
  }

  async lines(session: string): Promise<TraceLine[]> {
    const all = await this.db.getAllFromIndex('lines', 'by_session', session);
    return all.map((r) => parseOr(StoredLine, r, 'a book line')).sort((a, b) => a.seq - b.seq).map((r) => r.line);
  }

  async countLines(session: string): Promise<number> {
    return this.db.countFromIndex('lines', 'by_session', session);
  }

  async deleteSession(id: string): Promise<void> {
    const tx = this.db.transaction(['sessions', 'lines'], 'readwrite');
    await tx.objectStore('sessions').delete(id);
    const lines = tx.objectStore('lines');
    for (const key of await lines.index('by_session').getAllKeys(id)) await lines.delete(key);
    await tx.done;
  }
}

/** The book as JSONL, the format `handrail compile` reads. */
export function toJsonl(lines: readonly TraceLine[]): string {
  return lines.map((l) => `${JSON.stringify(TraceLine.parse(l))}\n`).join('');
}
