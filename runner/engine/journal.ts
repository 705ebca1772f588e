// The write-ahead journal: `dispatched` is on disk (fsync) before a stage or commit acts, `observed`
// after. A commit dispatched and never observed is in doubt and is never pressed again (DESIGN.md,
// "Replay"). One JSON line per event, parsed with zod on the way in; lines are never rewritten or erased.
import { constants as fsc, promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

export const JournalEffect = z.enum(['stage', 'commit']);
export type JournalEffect = z.infer<typeof JournalEffect>;

const Id = z.string().min(1);

export const StepLine = z.strictObject({
  v: z.literal(1),
  at: z.iso.datetime(),
  run: Id,
  card: Id,
  step: Id,
  effect: JournalEffect,
  phase: z.enum(['dispatched', 'observed']),
});
export type StepLine = z.infer<typeof StepLine>;

export const ReceiptLine = z.strictObject({
  v: z.literal(1),
  at: z.iso.datetime(),
  run: Id,
  card: Id,
  phase: z.literal('receipt'),
  receipt: z.unknown(),
});
export type ReceiptLine = z.infer<typeof ReceiptLine>;

/**
 * Written (in the same write as the line that follows it) when a journal is appended to after a
 * crash left a torn last line: it excuses exactly that line number, so the fragment stays on disk
 * as a record and the next open does not mistake it for corruption.
 */
export const TornLine = z.strictObject({
  v: z.literal(1),
  at: z.iso.datetime(),
  phase: z.literal('torn'),
  line: z.number().int().positive(),
});
export type TornLine = z.infer<typeof TornLine>;

export const JournalLine = z.union([StepLine, ReceiptLine, TornLine]);
export type JournalLine = z.infer<typeof JournalLine>;

export type JournalErrorCode = 'JOURNAL_CORRUPT' | 'JOURNAL_IO' | 'JOURNAL_CLOSED' | 'JOURNAL_RECEIPT_NOT_JSON';

export class JournalError extends Error {
  override readonly name = 'JournalError';
  constructor(
    readonly code: JournalErrorCode,
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

export type StepState = 'none' | 'dispatched' | 'observed';

/** A torn tail: the last line of the file, not newline-terminated and not parseable (a crash mid-write). */
export interface TornTail {
  line: number;
  bytes: number;
}

interface Parsed {
  lines: JournalLine[];
  tornTail: TornTail | undefined;
}

/** Parses a whole journal text. Blank lines are skipped (they are what an excused torn line leaves). */
export function parseJournal(text: string, file = 'journal'): Parsed {
  const raw = text.split('\n');
  const endsClean = text.endsWith('\n') || text.length === 0;
  if (endsClean) raw.pop();
  const lines: JournalLine[] = [];
  const bad = new Map<number, string>();
  const excused = new Set<number>();
  let tornTail: TornTail | undefined;
  raw.forEach((s, i) => {
    const n = i + 1;
    if (s.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(s);
    } catch {
      bad.set(n, 'not JSON');
      return;
    }
    const r = JournalLine.safeParse(json);
    if (!r.success) {
      bad.set(n, r.error.issues.map((x) => `${x.path.join('.') || '(line)'}: ${x.message}`).join('; '));
      return;
    }
    if (r.data.phase === 'torn') excused.add(r.data.line);
    lines.push(r.data);
  });
  for (const [n, why] of bad) {
    if (excused.has(n)) continue;
    const isLast = n === raw.length && !endsClean;
    if (isLast) {
      tornTail = { line: n, bytes: Buffer.byteLength(raw[n - 1] ?? '') };
      continue;
    }
    throw new JournalError('JOURNAL_CORRUPT', `${file}: line ${n} is not a journal line (${why}); refusing to guess what it said`, n);
  }
  return { lines, tornTail };
}

type Key = `${string}\u0000${string}`;
const key = (card: string, step: string): Key => `${card}\u0000${step}`;

export class Journal {
  /** Latest step line per (card, step): a stage step is redone every run, so the latest phase is the state. */
  readonly #latest = new Map<Key, StepLine>();
  /** Commit steps per card in first-dispatch order, for a stable inDoubt() order. */
  readonly #order = new Map<string, string[]>();
  readonly #receipts: ReceiptLine[] = [];
  #queue: Promise<void> = Promise.resolve();
  #closed = false;

  private constructor(
    readonly path: string,
    private readonly handle: fs.FileHandle,
    parsed: Parsed,
    /** Set when the file ended in a torn line at open time (a crash mid-write). Reported, tolerated. */
    readonly tornTail: TornTail | undefined,
  ) {
    for (const l of parsed.lines) this.#apply(l);
  }

  /** Opens (creating parent dirs and the file if absent) and parses every line. */
  static async open(file: string): Promise<Journal> {
    const abs = path.resolve(file);
    const dir = path.dirname(abs);
    await io(`create ${dir}`, () => fs.mkdir(dir, { recursive: true }));
    let created = false;
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(abs, fsc.O_RDWR | fsc.O_APPEND | fsc.O_CREAT | fsc.O_EXCL, 0o600);
      created = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError(`create ${abs}`, e);
      handle = await io(`open ${abs}`, () => fs.open(abs, fsc.O_RDWR | fsc.O_APPEND));
    }
    try {
      if (created) {
        // A new file's directory entry is only durable once the directory itself is fsynced.
        await handle.sync();
        await syncDir(dir);
      }
      const text = await handle.readFile({ encoding: 'utf8' });
      const parsed = parseJournal(text, abs);
      return new Journal(abs, handle, parsed, parsed.tornTail);
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  #apply(l: JournalLine): void {
    if (l.phase === 'receipt') {
      this.#receipts.push(l);
      return;
    }
    if (l.phase === 'torn') return;
    const k = key(l.card, l.step);
    this.#latest.set(k, l);
    if (l.effect === 'commit') {
      const steps = this.#order.get(l.card) ?? [];
      if (!steps.includes(l.step)) steps.push(l.step);
      this.#order.set(l.card, steps);
    }
  }

  state(card: string, step: string): StepState {
    return this.#latest.get(key(card, step))?.phase ?? 'none';
  }

  /** Commit steps of this card whose latest line is `dispatched`: pressed, maybe, and never seen to land. */
  inDoubt(card: string): string[] {
    return (this.#order.get(card) ?? []).filter((step) => {
      const l = this.#latest.get(key(card, step));
      return l?.effect === 'commit' && l.phase === 'dispatched';
    });
  }

  /** Append + fsync. Resolves only once the line is on disk: the caller acts after this, never before. */
  async dispatched(run: string, card: string, step: string, effect: JournalEffect): Promise<void> {
    await this.#append(StepLine.parse({ v: 1, at: now(), run, card, step, effect, phase: 'dispatched' }));
  }

  async observed(run: string, card: string, step: string, effect: JournalEffect): Promise<void> {
    await this.#append(StepLine.parse({ v: 1, at: now(), run, card, step, effect, phase: 'observed' }));
  }

  /** Stores the run's final result as given: the caller passes it already masked (Masker.maskDeep). */
  async receipt(run: string, card: string, receipt: unknown): Promise<void> {
    try {
      JSON.stringify(receipt);
    } catch (e) {
      throw new JournalError('JOURNAL_RECEIPT_NOT_JSON', `receipt for card ${card} cannot be written as JSON: ${(e as Error).message}`);
    }
    await this.#append(ReceiptLine.parse({ v: 1, at: now(), run, card, phase: 'receipt', receipt }));
  }

  /** The latest receipt written by a run that observed one of this card's commits (what an "already done" run hands back). */
  lastReceipt(card: string): unknown {
    const committers = new Set<string>();
    for (const l of this.#latest.values()) {
      if (l.card === card && l.effect === 'commit' && l.phase === 'observed') committers.add(l.run);
    }
    for (let i = this.#receipts.length - 1; i >= 0; i--) {
      const r = this.#receipts[i];
      if (r && r.card === card && committers.has(r.run)) return r.receipt;
    }
    return undefined;
  }

  /**
   * One `write` per line on an O_APPEND descriptor, then fsync. On Linux a write to a regular file
   * on a local filesystem holds the inode lock for the whole write, so two processes appending
   * the same journal never interleave partial lines (not promised on NFS). Appends from this
   * instance are also chained so their order on disk is their call order.
   */
  #append(line: JournalLine): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.#closed) throw new JournalError('JOURNAL_CLOSED', `journal ${this.path} is closed`);
      let text = JSON.stringify(line) + '\n';
      // Another writer (or a crash before this open) may have left a fragment without a newline:
      // start a fresh line and excuse the fragment, so what we write is never glued to it.
      const torn = await this.#tailIsTorn();
      if (torn) {
        const marker: TornLine = { v: 1, at: now(), phase: 'torn', line: torn };
        text = '\n' + JSON.stringify(marker) + '\n' + text;
      }
      const buf = Buffer.from(text, 'utf8');
      const { bytesWritten } = await io(`write ${this.path}`, () => this.handle.write(buf, 0, buf.length, null));
      if (bytesWritten !== buf.length) {
        throw new JournalError('JOURNAL_IO', `short write to ${this.path} (${bytesWritten} of ${buf.length} bytes); the journal needs a look before the next run`);
      }
      await io(`fsync ${this.path}`, () => this.handle.sync());
      this.#apply(line);
    };
    const p = this.#queue.then(run);
    this.#queue = p.catch(() => undefined);
    return p;
  }

  /** The 1-based number of a torn last line, or 0 when the file ends cleanly. */
  async #tailIsTorn(): Promise<number> {
    const { size } = await io(`stat ${this.path}`, () => this.handle.stat());
    if (size === 0) return 0;
    const b = Buffer.alloc(1);
    await io(`read ${this.path}`, () => this.handle.read(b, 0, 1, size - 1));
    if (b[0] === 0x0a) return 0;
    // Rare path: count lines to name the fragment exactly.
    const text = await io(`read ${this.path}`, () => fs.readFile(this.path, 'utf8'));
    return text.split('\n').length;
  }

  /** Waits for pending appends, then closes. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#queue;
    this.#closed = true;
    await this.handle.close();
  }
}

export type PreflightJournal =
  | { ok: true }
  | { ok: false; code: 'JOURNAL_IN_DOUBT'; steps: string[] }
  | { ok: false; code: 'JOURNAL_CORRUPT'; line: number; message: string };

/**
 * Read-only check before a browser starts: refuses when a commit of this card is in doubt (or the
 * journal cannot be read as a journal). A journal that does not exist yet is fine and is not created.
 */
export async function preflightJournal(file: string, card: string): Promise<PreflightJournal> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true };
    throw ioError(`read ${file}`, e);
  }
  let parsed: Parsed;
  try {
    parsed = parseJournal(text, file);
  } catch (e) {
    if (e instanceof JournalError && e.code === 'JOURNAL_CORRUPT') return { ok: false, code: 'JOURNAL_CORRUPT', line: e.line ?? 0, message: e.message };
    throw e;
  }
  const latest = new Map<string, StepLine>();
  for (const l of parsed.lines) if (l.phase !== 'receipt' && l.phase !== 'torn' && l.card === card) latest.set(l.step, l);
  const steps = [...latest.values()].filter((l) => l.effect === 'commit' && l.phase === 'dispatched').map((l) => l.step);
  return steps.length > 0 ? { ok: false, code: 'JOURNAL_IN_DOUBT', steps } : { ok: true };
}

const now = (): string => new Date().toISOString();

function ioError(what: string, e: unknown): JournalError {
  const err = e as NodeJS.ErrnoException;
  return new JournalError('JOURNAL_IO', `cannot ${what}: ${err.code ?? err.message}`);
}

async function io<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
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
