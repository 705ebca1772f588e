// The write-ahead journal of one intent (one idempotency key): `dispatched` is on disk (fsync) before a stage
// or commit acts, `observed` after. A commit dispatched and never observed is in doubt and is never pressed
// again until a person (or a read-only probe) settles it (docs/design/replay.md, "Replay"; docs/guide/never-twice.md, "Never twice").
//
// Format v2, one JSON line per record, never rewritten or erased:
//   line 1     {"v":2,"n":1,"phase":"header","key":…,"card":…,"content_hash":…,"prev":null,"hash":…}
//   line k     {"v":2,"n":k,"phase":"dispatched|observed|receipt|settled|torn|held",…,"prev":<hash of record k-1>,"hash":…}
// `hash` is the sha-256 of the record's canonical JSON without `hash`, so an edited line no longer matches its
// hash, a deleted or reordered line breaks the `n`/`prev` chain, and `<file>.head` (the count and hash of the
// last record, rewritten in place after each append) catches a deleted tail, which the chain alone cannot see.
// This detects damage (truncation, NUL blocks, stray edits, a file restored from the wrong backup); it is not a
// signature: someone who recomputes every hash can forge a journal.
import { createHash, randomBytes } from 'node:crypto';
import { constants as fsc, promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { Lock } from '../../shared/lock.ts';
import { canonicalJson } from '../../shared/schema/canonical.ts';
import { HandrailError } from '../../shared/errors.ts';
import type { KeyJournal } from './journal-store.ts';

export const JOURNAL_VERSION = 2;

export const JournalEffect = z.enum(['stage', 'commit']);
export type JournalEffect = z.infer<typeof JournalEffect>;

const Id = z.string().min(1);
const Hash = z.string().regex(/^[0-9a-f]{64}$/);
const Base = { v: z.literal(JOURNAL_VERSION), n: z.number().int().positive(), at: z.iso.datetime(), hash: Hash };
const Chained = { ...Base, prev: Hash };

export const HeaderRecord = z.strictObject({
  ...Base,
  phase: z.literal('header'),
  key: Id,
  card: Id,
  content_hash: Id,
  prev: z.null(),
});
export const StepRecord = z.strictObject({
  ...Chained,
  phase: z.enum(['dispatched', 'observed']),
  run: Id,
  step: Id,
  effect: JournalEffect,
});
export const ReceiptRecord = z.strictObject({ ...Chained, phase: z.literal('receipt'), run: Id, receipt: z.unknown() });
export const Settlement = z.enum(['committed', 'not_committed']);
export type Settlement = z.infer<typeof Settlement>;
export const SettledRecord = z.strictObject({
  ...Chained,
  phase: z.literal('settled'),
  as: Settlement,
  /** The commit steps that were in doubt and are settled by this record. */
  steps: z.array(Id).min(1),
  by: Id,
  note: z.string(),
  /** A person at the console, or a read-only probe card run (then `by` names the probe run). */
  via: z.enum(['person', 'probe']),
});
/**
 * Written in the same write as the record after it when a crash left a torn last line: it excuses exactly
 * that line number, so the fragment stays on disk as a record and the next open does not call it damage.
 */
export const TornRecord = z.strictObject({ ...Chained, phase: z.literal('torn'), line: z.number().int().positive() });
/**
 * A write a step that is no commit tried to send, held and stopped before it left (docs/design/writes.md, "Writes"):
 * the run ended FAILED UNDECLARED_WRITE. It changes no step's state — nothing reached the app, so nothing is in doubt
 * and a later run may press — and names each write by method and path only (no query, no body: no value is kept).
 * Added beside the format's other kinds; journals written before it read as they did.
 */
export const HeldRecord = z.strictObject({
  ...Chained,
  phase: z.literal('held'),
  run: Id,
  step: Id,
  code: z.literal('UNDECLARED_WRITE'),
  writes: z.array(z.strictObject({ method: z.string().min(1), path: z.string(), via: z.enum(['request', 'form', 'beacon', 'websocket']) })).min(1),
});
export type HeldWrite = z.infer<typeof HeldRecord>['writes'][number];

export const JournalRecord = z.discriminatedUnion('phase', [HeaderRecord, StepRecord, ReceiptRecord, SettledRecord, TornRecord, HeldRecord]);
export type JournalRecord = z.infer<typeof JournalRecord>;
export type HeaderRecord = z.infer<typeof HeaderRecord>;
export type StepRecord = z.infer<typeof StepRecord>;
export type SettledRecord = z.infer<typeof SettledRecord>;

type Unsealed<T> = T extends unknown ? Omit<T, 'v' | 'n' | 'at' | 'prev' | 'hash'> : never;
export type Body = Unsealed<Exclude<JournalRecord, HeaderRecord>>;

const Head = z.strictObject({ n: z.number().int().positive(), hash: Hash });
const HEAD_WIDTH = 96;

export type JournalErrorCode =
  | 'JOURNAL_DAMAGED'
  | 'JOURNAL_KEY_MISMATCH'
  | 'JOURNAL_IO'
  | 'JOURNAL_CLOSED'
  | 'JOURNAL_RECEIPT_NOT_JSON'
  | 'JOURNAL_NOT_IN_DOUBT'
  | 'JOURNAL_LEASE_LOST';

export class JournalError extends HandrailError<JournalErrorCode> {
  override readonly name = 'JournalError';
  constructor(
    code: JournalErrorCode,
    message: string,
    /** The 1-based line of the journal file the problem is on, when there is one. */
    readonly line?: number,
  ) {
    super(code, message);
  }
}

/** Who the journal belongs to. A journal answers only for the intent in its header. */
export interface JournalIntent {
  key: string;
  card: string;
  content_hash: string;
}

export type StepState = 'none' | 'dispatched' | 'observed';
/** `open`: nothing in doubt, no commit seen (a run may press). `committed`: the commit landed. `in_doubt`: never press. */
export type KeyStatus = 'open' | 'committed' | 'in_doubt';

export interface TornTail {
  line: number;
  bytes: number;
}

export interface Verified {
  header: HeaderRecord;
  records: JournalRecord[];
  tornTail: TornTail | undefined;
  /** The head witness is one record behind (a crash between the append and the head update); repaired on open. */
  headLags: boolean;
}

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const sealOf = (r: Record<string, unknown>): string => {
  const { hash: _h, ...rest } = r;
  return sha(canonicalJson(rest));
};

const damaged = (file: string, line: number, why: string): JournalError =>
  new JournalError('JOURNAL_DAMAGED', `journal ${file} is damaged at line ${line}: ${why}; nothing was pressed. A person checks the application, then restores the journal or moves it aside (see handrail journal show)`, line);

/**
 * Reads a whole journal text and its head witness and proves the chain, or throws JOURNAL_DAMAGED naming the
 * first bad line. The one thing tolerated is a torn tail (a last line without its newline) when the head names
 * the complete record before it: that write never finished its fsync, so the step it would have protected was
 * never acted on (the engine acts only after the append resolves).
 */
export function verifyJournal(text: string, headText: string | null, file = 'journal'): Verified {
  if (text.length === 0) throw damaged(file, 1, 'the file is empty (an absent journal means "never started"; an empty one means it was cut)');
  const raw = text.split('\n');
  const fragment = raw.pop() ?? '';
  const records: JournalRecord[] = [];
  let pendingBad: { line: number; why: string } | undefined;
  let header: HeaderRecord | undefined;
  for (const [i, s] of raw.entries()) {
    const line = i + 1;
    const rec = parseRecord(s);
    if (!rec.ok) {
      if (line === 1) throw damaged(file, 1, rec.why);
      if (pendingBad) throw damaged(file, pendingBad.line, pendingBad.why);
      pendingBad = { line, why: rec.why };
      continue;
    }
    const r = rec.record;
    if (line === 1) {
      if (r.phase !== 'header') throw damaged(file, 1, 'the first line is not a journal header');
      header = r;
    } else if (r.phase === 'header') {
      throw damaged(file, line, 'a second header');
    }
    if (pendingBad) {
      // A bad line is forgiven only when the very next record excuses it by number (see TornRecord).
      if (!(r.phase === 'torn' && r.line === pendingBad.line)) throw damaged(file, pendingBad.line, pendingBad.why);
      pendingBad = undefined;
    }
    if (sealOf(r as unknown as Record<string, unknown>) !== r.hash) throw damaged(file, line, 'the record does not match its own hash (edited)');
    const before = records[records.length - 1];
    const wantN = (before?.n ?? 0) + 1;
    if (r.n !== wantN) throw damaged(file, line, `record ${r.n} where record ${wantN} belongs (a record is missing or out of order)`);
    if (before && r.prev !== before.hash) throw damaged(file, line, 'the chain to the previous record is broken (a record is missing, edited or out of order)');
    records.push(r);
  }
  if (pendingBad) throw damaged(file, pendingBad.line, pendingBad.why);
  if (!header) throw damaged(file, 1, 'no complete header line');
  const last = records[records.length - 1] as JournalRecord;
  const tail = fragment === '' ? undefined : { line: raw.length + 1, bytes: Buffer.byteLength(fragment) };
  let headLags = false;
  if (headText === null) {
    // Created, crash before the head was first written: only possible while the header is all there is.
    if (records.length !== 1 || tail) throw damaged(file, records.length, `the head witness ${file}.head is missing`);
    headLags = true;
  } else {
    const head = parseHead(headText);
    if (!head) throw damaged(file, records.length, `the head witness ${file}.head is unreadable`);
    const prior = records[records.length - 2];
    if (head.n === last.n && head.hash === last.hash) {
      // in step
    } else if (!tail && prior && head.n === prior.n && head.hash === prior.hash) {
      headLags = true;
    } else if (head.n > last.n) {
      throw damaged(file, tail?.line ?? raw.length + 1, `the head witness says ${head.n} records but only ${last.n} are whole: record ${last.n + 1} is missing (the end was cut or deleted)`);
    } else {
      throw damaged(file, raw.length, `the head witness (record ${head.n}) does not match the last record (${last.n})`);
    }
  }
  return { header, records, tornTail: tail, headLags };
}

function parseRecord(s: string): { ok: true; record: JournalRecord } | { ok: false; why: string } {
  if (s.includes('\u0000')) return { ok: false, why: 'NUL bytes (a block of the file was zeroed)' };
  let json: unknown;
  try {
    json = JSON.parse(s);
  } catch {
    return { ok: false, why: 'not a JSON line' };
  }
  const v = (json as { v?: unknown } | null)?.v;
  if (v !== JOURNAL_VERSION) return { ok: false, why: `unknown journal format version ${JSON.stringify(v ?? null)} (this handrail reads version ${JOURNAL_VERSION})` };
  const r = JournalRecord.safeParse(json);
  if (!r.success) return { ok: false, why: r.error.issues.map((x) => `${x.path.join('.') || '(line)'}: ${x.message}`).join('; ') };
  return { ok: true, record: r.data };
}

function parseHead(text: string): z.infer<typeof Head> | null {
  try {
    const r = Head.safeParse(JSON.parse(text.trim()));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/** What a journal says about its key, computed from verified records only. */
export class JournalState {
  readonly #latest = new Map<string, StepRecord>();
  readonly #commitOrder: string[] = [];
  readonly #receipts: z.infer<typeof ReceiptRecord>[] = [];
  readonly #settled: SettledRecord[] = [];
  /** Commit steps a person or probe settled since they were last dispatched, and how. */
  readonly #settledAs = new Map<string, SettledRecord>();
  #last: JournalRecord;

  constructor(readonly header: HeaderRecord, records: readonly JournalRecord[]) {
    this.#last = header;
    for (const r of records) this.apply(r);
  }

  apply(r: JournalRecord): void {
    this.#last = r;
    if (r.phase === 'dispatched' || r.phase === 'observed') {
      this.#latest.set(r.step, r);
      this.#settledAs.delete(r.step);
      if (r.effect === 'commit' && !this.#commitOrder.includes(r.step)) this.#commitOrder.push(r.step);
    } else if (r.phase === 'receipt') {
      this.#receipts.push(r);
    } else if (r.phase === 'settled') {
      this.#settled.push(r);
      for (const s of r.steps) this.#settledAs.set(s, r);
    }
  }

  get last(): JournalRecord {
    return this.#last;
  }

  /** A commit settled as not committed reads as never pressed; one settled as committed reads as observed. */
  state(step: string): StepState {
    const l = this.#latest.get(step);
    if (!l) return 'none';
    const settled = this.#settledAs.get(step);
    if (l.phase === 'dispatched' && settled) return settled.as === 'committed' ? 'observed' : 'none';
    return l.phase;
  }

  inDoubt(): string[] {
    return this.#commitOrder.filter((s) => this.#latest.get(s)?.effect === 'commit' && this.state(s) === 'dispatched');
  }

  status(): KeyStatus {
    if (this.inDoubt().length > 0) return 'in_doubt';
    return this.#commitOrder.some((s) => this.state(s) === 'observed') ? 'committed' : 'open';
  }

  /** The latest receipt of a run that observed a commit here: what an "already done" run hands back. */
  lastReceipt(): unknown {
    const committers = new Set<string>();
    for (const l of this.#latest.values()) if (l.effect === 'commit' && l.phase === 'observed') committers.add(l.run);
    for (let i = this.#receipts.length - 1; i >= 0; i--) {
      const r = this.#receipts[i];
      if (r && committers.has(r.run)) return r.receipt;
    }
    return undefined;
  }

  /** The settlement that made the latest commit count as committed, if a person or probe decided it. */
  committedBySettlement(): { record: SettledRecord; run: string } | undefined {
    for (const step of [...this.#commitOrder].reverse()) {
      const s = this.#settledAs.get(step);
      const l = this.#latest.get(step);
      if (s && l && s.as === 'committed') return { record: s, run: l.run };
    }
    return undefined;
  }

  settlements(): readonly SettledRecord[] {
    return this.#settled;
  }

  /** Did this run see one of the key's commits land (so its result is the key's receipt)? */
  committedBy(run: string): boolean {
    return [...this.#latest.values()].some((l) => l.run === run && l.effect === 'commit' && l.phase === 'observed');
  }

  /** The run that dispatched a step (for messages). */
  dispatcherOf(step: string): string | undefined {
    return this.#latest.get(step)?.run;
  }
}

/** Reads and verifies a journal without opening it for writing. `null` when there is no journal (never started). */
export async function readJournal(file: string): Promise<(Verified & { state: JournalState }) | null> {
  const abs = path.resolve(file);
  const text = await readOrNull(abs);
  const headText = await readOrNull(`${abs}.head`);
  if (text === null) {
    if (headText !== null) throw damaged(abs, 1, 'the journal file is gone but its head witness is still there (the journal was deleted)');
    return null;
  }
  const v = verifyJournal(text, headText, abs);
  return { ...v, state: new JournalState(v.header, v.records) };
}

/**
 * What every journal of one key does with its records, wherever they are kept: the state of a step, the key's
 * status, and the five kinds of record a run or a person writes. A store appends one sealed record at a time
 * (`append`) and says where it keeps them; the rules of what may be written live here once (docs/design/journal.md,
 * "Never twice").
 */
export abstract class SealedJournal implements KeyJournal {
  constructor(readonly view: JournalState) {}

  abstract readonly where: string;
  /** Writes one record durably and applies it to `view`; resolves only once it is kept. */
  protected abstract append(body: Body): Promise<JournalRecord>;
  abstract close(): Promise<void>;

  get key(): string {
    return this.view.header.key;
  }

  state(step: string): StepState {
    return this.view.state(step);
  }

  inDoubt(): string[] {
    return this.view.inDoubt();
  }

  status(): KeyStatus {
    return this.view.status();
  }

  lastReceipt(): unknown {
    return this.view.lastReceipt();
  }

  /** Resolves only once the record is kept (on disk, or committed in the database): the caller acts after this, never before. */
  async dispatched(run: string, step: string, effect: JournalEffect): Promise<void> {
    await this.append({ phase: 'dispatched', run, step, effect });
  }

  async observed(run: string, step: string, effect: JournalEffect): Promise<void> {
    await this.append({ phase: 'observed', run, step, effect });
  }

  /** Records writes a step that is no commit tried to send and that were held before they left (HeldRecord). */
  async held(run: string, step: string, writes: readonly HeldWrite[]): Promise<void> {
    await this.append({ phase: 'held', run, step, code: 'UNDECLARED_WRITE', writes: [...writes] });
  }

  /** Stores a run's final result as given: the caller passes it already masked (Masker.maskDeep). */
  async receipt(run: string, receipt: unknown): Promise<void> {
    try {
      JSON.stringify(receipt);
    } catch (e) {
      throw new JournalError('JOURNAL_RECEIPT_NOT_JSON', `receipt for key ${this.key} cannot be written as JSON: ${(e as Error).message}`);
    }
    await this.append({ phase: 'receipt', run, receipt });
  }

  /** Records a decision about the commits now in doubt. Refuses when nothing is in doubt. */
  async settle(as: Settlement, by: string, note: string, via: 'person' | 'probe'): Promise<SettledRecord> {
    const steps = this.view.inDoubt();
    if (steps.length === 0) {
      throw new JournalError('JOURNAL_NOT_IN_DOUBT', `key ${this.key} has nothing in doubt (it is ${this.view.status()}); there is nothing to settle`);
    }
    const rec = await this.append({ phase: 'settled', as, steps, by, note, via });
    return rec as SettledRecord;
  }
}

/** The embedded journal: one append-only file per key (the format above), written by the process holding its lease. */
export class Journal extends SealedJournal {
  /** Appends one at a time, in call order. */
  readonly #appends = new Lock();
  #closed = false;
  /**
   * This instance's own last write went out whole, so the file ends in a newline: the next append need not read the
   * file's last byte to look for a torn line (it does on its first append, and after any failed write).
   */
  #endsClean = false;

  private constructor(
    readonly path: string,
    private readonly handle: fs.FileHandle,
    private readonly head: fs.FileHandle,
    view: JournalState,
    /** Set when the file ended in a torn line at open time (a crash mid-write). Reported, tolerated. */
    readonly tornTail: TornTail | undefined,
    /** Whether this open created the journal (the key had never started). */
    readonly created: boolean,
  ) {
    super(view);
  }

  /** Where this journal is kept, for messages and receipts: its file. */
  get where(): string {
    return this.path;
  }

  /**
   * Opens the journal of `intent` at `file`, creating it (header and head, atomically) when absent. Throws
   * JOURNAL_DAMAGED when the file fails verification and JOURNAL_KEY_MISMATCH when it belongs to another intent.
   * Call it only while holding the key's lease: a journal is written by one process at a time.
   */
  static async open(file: string, intent: JournalIntent): Promise<Journal> {
    const abs = path.resolve(file);
    const dir = path.dirname(abs);
    await io(`create ${dir}`, () => fs.mkdir(dir, { recursive: true }));
    const created = await createIfAbsent(abs, intent);
    const found = await readJournal(abs);
    if (!found) throw damaged(abs, 1, 'the journal vanished while it was being opened');
    if (found.header.key !== intent.key) {
      throw new JournalError(
        'JOURNAL_KEY_MISMATCH',
        `journal ${abs} belongs to key ${found.header.key}, not ${intent.key}: one journal answers for one intent (another share, reason or card version); use another file or none`,
        1,
      );
    }
    const handle = await io(`open ${abs}`, () => fs.open(abs, fsc.O_RDWR | fsc.O_APPEND));
    let head: fs.FileHandle;
    try {
      head = await io(`open ${abs}.head`, () => fs.open(`${abs}.head`, fsc.O_RDWR | fsc.O_CREAT, 0o600));
    } catch (e) {
      await handle.close();
      throw e;
    }
    const j = new Journal(abs, handle, head, found.state, found.tornTail, created);
    if (found.headLags) await j.#writeHead(found.state.last);
    return j;
  }

  /**
   * One `write` per record on an O_APPEND descriptor, then fsync, then the head witness (pwrite in place +
   * fsync). Appends from this instance are chained so their order on disk is their call order.
   */
  protected append(body: Body): Promise<JournalRecord> {
    const run = async (): Promise<JournalRecord> => {
      if (this.#closed) throw new JournalError('JOURNAL_CLOSED', `journal ${this.path} is closed`);
      let text = '';
      let prev = this.view.last;
      const torn = this.#endsClean ? 0 : await this.#tornLine();
      this.#endsClean = false;
      if (torn) {
        // Start a fresh line and excuse the fragment, so what we write is never glued to it.
        const marker = seal({ phase: 'torn', line: torn }, prev);
        text += '\n' + JSON.stringify(marker) + '\n';
        prev = marker;
      }
      const rec = seal(body, prev);
      text += JSON.stringify(rec) + '\n';
      const buf = Buffer.from(text, 'utf8');
      const { bytesWritten } = await io(`write ${this.path}`, () => this.handle.write(buf, 0, buf.length, null));
      if (bytesWritten !== buf.length) {
        throw new JournalError('JOURNAL_IO', `short write to ${this.path} (${bytesWritten} of ${buf.length} bytes); the journal needs a look before the next run`);
      }
      this.#endsClean = true;
      await io(`fsync ${this.path}`, () => this.handle.sync());
      if (prev !== this.view.last) this.view.apply(prev);
      this.view.apply(rec);
      await this.#writeHead(rec);
      return rec;
    };
    return this.#appends.run(run);
  }

  async #writeHead(rec: JournalRecord): Promise<void> {
    const buf = Buffer.from(headText(rec), 'utf8');
    await io(`write ${this.path}.head`, () => this.head.write(buf, 0, buf.length, 0));
    await io(`fsync ${this.path}.head`, () => this.head.sync());
  }

  /** The 1-based number of a torn last line, or 0 when the file ends cleanly. */
  async #tornLine(): Promise<number> {
    const { size } = await io(`stat ${this.path}`, () => this.handle.stat());
    if (size === 0) return 0;
    const b = Buffer.alloc(1);
    await io(`read ${this.path}`, () => this.handle.read(b, 0, 1, size - 1));
    if (b[0] === 0x0a) return 0;
    const text = await io(`read ${this.path}`, () => fs.readFile(this.path, 'utf8'));
    return text.split('\n').length;
  }

  /** Waits for pending appends, then closes. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#appends.idle();
    this.#closed = true;
    await this.handle.close();
    await this.head.close();
  }
}

/** A record numbered, chained to `prev` and hashed: the one way records are made, in a file or in a database. */
export function seal(body: Body | { phase: 'header'; key: string; card: string; content_hash: string }, prev: JournalRecord | null): JournalRecord {
  const unsealed = { v: JOURNAL_VERSION, n: (prev?.n ?? 0) + 1, at: new Date().toISOString(), ...body, prev: prev?.hash ?? null };
  return JournalRecord.parse({ ...unsealed, hash: sealOf(unsealed) });
}

function headText(rec: JournalRecord): string {
  return JSON.stringify({ n: rec.n, hash: rec.hash }).padEnd(HEAD_WIDTH - 1, ' ') + '\n';
}

/**
 * Creates the journal with its header in one step: the header is written to a private temp file, fsynced, and
 * hard-linked to the final name (link fails if the name exists, so two creators cannot both win), then the head.
 */
async function createIfAbsent(abs: string, intent: JournalIntent): Promise<boolean> {
  try {
    await fs.access(abs);
    return false;
  } catch {
    // absent: create below
  }
  if ((await readOrNull(`${abs}.head`)) !== null) return false; // a head without a journal: readJournal reports it
  const header = seal({ phase: 'header', key: intent.key, card: intent.card, content_hash: intent.content_hash }, null);
  const tmp = `${abs}.new-${process.pid}-${randomBytes(4).toString('hex')}`;
  const h = await io(`create ${tmp}`, () => fs.open(tmp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, 0o600));
  try {
    await h.writeFile(JSON.stringify(header) + '\n');
    await h.sync();
  } finally {
    await h.close();
  }
  let won = true;
  try {
    await fs.link(tmp, abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError(`create ${abs}`, e);
    won = false;
  } finally {
    await fs.unlink(tmp).catch(() => undefined);
  }
  if (!won) return false;
  await syncDir(path.dirname(abs));
  const head = await io(`create ${abs}.head`, () => fs.open(`${abs}.head`, fsc.O_WRONLY | fsc.O_CREAT, 0o600));
  try {
    await head.writeFile(headText(header));
    await head.sync();
  } finally {
    await head.close();
  }
  await syncDir(path.dirname(abs));
  return true;
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw ioError(`read ${file}`, e);
  }
}

function ioError(what: string, e: unknown): JournalError {
  const err = e as NodeJS.ErrnoException;
  return new JournalError('JOURNAL_IO', `cannot ${what}: ${err.code ?? err.message}`);
}

async function io<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof JournalError) throw e;
    throw ioError(what, e);
  }
}

async function syncDir(dir: string): Promise<void> {
  const d = await io(`open ${dir}`, () => fs.open(dir, 'r'));
  try {
    await io(`fsync ${dir}`, () => d.sync());
  } finally {
    await d.close();
  }
}
