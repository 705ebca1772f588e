// The evidence log of one run: append-only JSON lines, each carrying the sha256 of the previous
// line's exact bytes (`prev`) and of its own bytes (`hash`), plus screenshots and screen text whose
// sha256 the log records. The log ends with a sealed closing line (`seal`): the line count, the head
// hash before it and the run's typed word, with an HMAC when HANDRAIL_EVIDENCE_KEY is set. The hash of
// that closing line is the anchor the receipt carries (`evidence_head`). `verifyEvidence` names the
// first line that does not hold up, and says whether the log's end was checked against an anchor.
// Every string written goes through the run's Masker: secret values never reach a file here.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { constants as fsc, promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { Lock } from '../shared/lock.ts';
import type { Masker } from '../shared/secrets.ts';
import { readJournal } from './engine/journal.ts';
import { HandrailError } from '../shared/errors.ts';

export const LOG_FILE = 'evidence.jsonl';
export const GENESIS = '0'.repeat(64);

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** One log line. `hash` is the sha256 of the line's bytes up to (not including) `,"hash":`, closed with `}`. */
export const EvidenceLine = z.strictObject({
  seq: z.number().int().positive(),
  at: z.iso.datetime(),
  run: z.string().min(1),
  kind: z.string().min(1),
  data: z.record(z.string(), z.unknown()),
  prev: Hex64,
  hash: Hex64,
});
export type EvidenceLine = z.infer<typeof EvidenceLine>;

/** What a `screenshot` or `text` line's data says about its file (a path relative to the evidence dir). */
export const EvidenceFile = z.looseObject({
  file: z.string().regex(/^(shots|text)\/[A-Za-z0-9_-][A-Za-z0-9._-]*$/),
  sha256: Hex64,
  bytes: z.number().int().nonnegative(),
});
export type EvidenceFile = z.infer<typeof EvidenceFile>;

const FILE_KINDS = new Set(['screenshot', 'text']);

export type EvidenceErrorCode = 'EVIDENCE_OTHER_RUN' | 'EVIDENCE_CORRUPT' | 'EVIDENCE_CLOSED' | 'EVIDENCE_SEALED' | 'EVIDENCE_IO';

/** The kind of the closing line. Nothing may follow it. */
export const SEAL_KIND = 'seal';
/** The environment variable holding the HMAC key of closing lines; its value is never printed or written. */
export const EVIDENCE_KEY_ENV = 'HANDRAIL_EVIDENCE_KEY';

/** The data of the closing line. `lines` counts the lines it closes (all before it); `head` is the hash of the last of them. */
export const SealData = z.strictObject({
  lines: z.number().int().nonnegative(),
  head: Hex64,
  word: z.string().min(1),
  /** HMAC-SHA256 over sealMessage(): present when the run had HANDRAIL_EVIDENCE_KEY. */
  hmac: Hex64.optional(),
  /** Stamped on every line of a run whose card had no approval bound to its content. */
  unapproved: z.literal(true).optional(),
});
export type SealData = z.infer<typeof SealData>;

/** What the HMAC covers: a fixed label, the run, the line count, the head and the word, one per line. */
function sealMessage(run: string, d: Pick<SealData, 'lines' | 'head' | 'word'>): string {
  return ['handrail.evidence.seal/v1', run, String(d.lines), d.head, d.word].join('\n');
}

const hmacOf = (key: string, run: string, d: Pick<SealData, 'lines' | 'head' | 'word'>): string =>
  createHmac('sha256', key).update(sealMessage(run, d)).digest('hex');

export class EvidenceError extends HandrailError<EvidenceErrorCode> {
  override readonly name = 'EvidenceError';
  constructor(code: EvidenceErrorCode, message: string) {
    super(code, message);
  }
}

const sha256 = (b: string | Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Serialises a line with its own hash appended as the last key. */
function seal(body: Omit<EvidenceLine, 'hash'>): string {
  const text = JSON.stringify(body);
  return `${text.slice(0, -1)},"hash":"${sha256(text)}"}`;
}

/** The bytes `hash` covers, recovered from a written line; undefined if the line does not end as seal() writes. */
function unseal(line: string): { body: string; hash: string } | undefined {
  const m = /,"hash":"([0-9a-f]{64})"\}$/.exec(line);
  if (!m?.[1]) return undefined;
  return { body: line.slice(0, m.index) + '}', hash: m[1] };
}

/** A file-name part: masked first, then reduced to a safe alphabet (no path separators, no dots-only). */
function safeName(masker: Masker, name: string): string {
  const s = masker
    .mask(name)
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 80);
  return s === '' ? 'unnamed' : s;
}

export class Evidence {
  #seq: number;
  #prev: string;
  readonly #appends = new Lock();
  #closed = false;
  /** Facts every line of this run carries (e.g. `unapproved: true`), so no line can be read without them. */
  #stamp: Readonly<Record<string, unknown>> = {};

  private constructor(
    readonly dir: string,
    private readonly masker: Masker,
    readonly runId: string,
    private readonly handle: fs.FileHandle,
    seq: number,
    prev: string,
  ) {
    this.#seq = seq;
    this.#prev = prev;
  }

  /**
   * Creates the directory (mkdir -p) and its log. A log already there from the same run is
   * continued (a resumed run); one from another run is refused: two runs never share a chain.
   */
  static async create(dir: string, masker: Masker, runId: string, opts: { stamp?: Readonly<Record<string, unknown>> } = {}): Promise<Evidence> {
    const made = await Evidence.#open(dir, masker, runId);
    made.#stamp = opts.stamp ?? {};
    return made;
  }

  static async #open(dir: string, masker: Masker, runId: string): Promise<Evidence> {
    const abs = path.resolve(dir);
    const logPath = path.join(abs, LOG_FILE);
    try {
      await fs.mkdir(path.join(abs, 'shots'), { recursive: true });
      await fs.mkdir(path.join(abs, 'text'), { recursive: true });
    } catch (e) {
      throw new EvidenceError('EVIDENCE_IO', `cannot create evidence directory ${abs}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(logPath, fsc.O_RDWR | fsc.O_APPEND | fsc.O_CREAT, 0o600);
    } catch (e) {
      throw new EvidenceError('EVIDENCE_IO', `cannot open ${logPath}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
    try {
      const text = await handle.readFile({ encoding: 'utf8' });
      if (text === '') return new Evidence(abs, masker, runId, handle, 0, GENESIS);
      const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : undefined;
      const last = lines?.at(-1);
      const first = parseLine(lines?.[0] ?? '');
      const tail = parseLine(last ?? '');
      if (!lines || !last || !first || !tail) {
        throw new EvidenceError('EVIDENCE_CORRUPT', `${logPath} exists but is not a readable evidence log; use a fresh directory`);
      }
      if (first.run !== runId) {
        throw new EvidenceError('EVIDENCE_OTHER_RUN', `${abs} already holds evidence of run ${first.run}; each run needs its own directory`);
      }
      if (tail.kind === SEAL_KIND) {
        throw new EvidenceError('EVIDENCE_SEALED', `${abs} holds a sealed log of run ${runId}; a sealed log is never continued`);
      }
      return new Evidence(abs, masker, runId, handle, tail.seq, sha256(last));
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  /** sha256 of the last line written (GENESIS before any): put it in the run's result to anchor the chain's end. */
  get head(): string {
    return this.#prev;
  }

  get lines(): number {
    return this.#seq;
  }

  append(kind: string, data: Record<string, unknown>): Promise<void> {
    return this.#enqueue(async (seq) => {
      await this.#write(seq, kind, data);
    });
  }

  /** Writes the PNG as given (no text chunks are added) and logs its file name and sha256. */
  screenshot(name: string, png: Uint8Array): Promise<string> {
    return this.#enqueue(async (seq) => {
      const rel = `shots/${seq}-${safeName(this.masker, name)}.png`;
      const abs = path.join(this.dir, rel);
      await writeNew(abs, png);
      await this.#write(seq, 'screenshot', { name: this.masker.mask(name), file: rel, sha256: sha256(png), bytes: png.byteLength });
      return abs;
    });
  }

  /** Writes the screen text masked, and logs its file name and the sha256 of the bytes written. */
  text(name: string, text: string): Promise<string> {
    return this.#enqueue(async (seq) => {
      const rel = `text/${seq}-${safeName(this.masker, name)}.txt`;
      const abs = path.join(this.dir, rel);
      const bytes = Buffer.from(this.masker.mask(text), 'utf8');
      await writeNew(abs, bytes);
      await this.#write(seq, 'text', { name: this.masker.mask(name), file: rel, sha256: sha256(bytes), bytes: bytes.byteLength });
      return abs;
    });
  }

  /**
   * Appends run one at a time, in call order: each takes the next seq and the previous line's hash
   * only when its turn comes, so concurrent callers never fork or break the chain.
   */
  #enqueue<T>(fn: (seq: number) => Promise<T>): Promise<T> {
    return this.#appends.run(async () => {
      if (this.#closed) throw new EvidenceError('EVIDENCE_CLOSED', `evidence log in ${this.dir} is closed`);
      return fn(this.#seq + 1);
    });
  }

  async #write(seq: number, kind: string, data: Record<string, unknown>): Promise<void> {
    const stamped = Object.keys(this.#stamp).length ? { ...data, ...this.#stamp } : data;
    const line = seal({ seq, at: new Date().toISOString(), run: this.runId, kind: this.masker.mask(kind), data: this.masker.maskDeep(stamped), prev: this.#prev });
    const buf = Buffer.from(line + '\n', 'utf8');
    // One write per line on an O_APPEND descriptor; not fsynced per line (a killed process loses
    // nothing the kernel already has; only a power cut can drop the tail, which verify then reports).
    const { bytesWritten } = await this.handle.write(buf, 0, buf.length, null);
    if (bytesWritten !== buf.length) throw new EvidenceError('EVIDENCE_IO', `short write to ${path.join(this.dir, LOG_FILE)}`);
    this.#seq = seq;
    this.#prev = sha256(line);
  }

  /**
   * Appends the closing line (line count, head before it, the run's typed word, and an HMAC of those
   * when `key` is given), then fsyncs and closes. Returns the hash of the closing line: the anchor to
   * put in the receipt. Nothing may be appended after it.
   */
  async seal(word: string, key?: string): Promise<string> {
    await this.#enqueue(async (seq) => {
      const d = { lines: seq - 1, head: this.#prev, word };
      await this.#write(seq, SEAL_KIND, key ? { ...d, hmac: hmacOf(key, this.runId, d) } : d);
    });
    const head = this.#prev;
    await this.close();
    return head;
  }

  /** Waits for pending appends, fsyncs and closes. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#appends.idle();
    this.#closed = true;
    await this.handle.sync();
    await this.handle.close();
  }
}

async function writeNew(file: string, bytes: Uint8Array): Promise<void> {
  // 'wx': an evidence file is written once; an existing one means two writers, which is a bug.
  await fs.writeFile(file, bytes, { flag: 'wx', mode: 0o600 });
}

function parseLine(s: string): EvidenceLine | undefined {
  try {
    const r = EvidenceLine.safeParse(JSON.parse(s));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** What the log's end is checked against: the head a receipt or journal recorded, and/or the HMAC key. */
export interface Anchor {
  head?: string;
  key?: string;
}

export type EvidenceVerdict =
  | {
      ok: true;
      lines: number;
      /** sha256 of the last line (the closing line when sealed): compare with the receipt's `evidence_head`. */
      head: string;
      run: string;
      /** The closing line's data, when the log ends with one. */
      seal: SealData | null;
      /** What the end was checked against; empty means unanchored (a whole-log rewrite would not be seen). */
      anchored_by: ('head' | 'hmac')[];
    }
  | { ok: false; line: number; reason: string };

const sameHex = (a: string, b: string): boolean => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Recomputes the chain from the first line and re-hashes every screenshot and text file. Reports
 * the first line (1-based) that fails: bad JSON, not an evidence line, own hash wrong, seq gap,
 * chain broken, another run's line, missing file, file hash mismatch, a closing line that does not
 * close what precedes it, a line after the closing line. An empty or absent log fails.
 * The chain alone is unkeyed: a forger who rewrites every line (or cuts the tail, or re-seals after
 * appending) leaves an intact chain. So the end is checked against `anchor`: `head` must be the hash
 * of the last line, and with `key` the log must end in a closing line whose HMAC the key reproduces.
 * With neither, an intact log comes back with `anchored_by: []` — "unanchored".
 */
export async function verifyEvidence(dir: string, anchor: Anchor = {}): Promise<EvidenceVerdict> {
  const logPath = path.join(dir, LOG_FILE);
  let text: string;
  try {
    text = await fs.readFile(logPath, 'utf8');
  } catch (e) {
    return { ok: false, line: 0, reason: `cannot read ${LOG_FILE}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` };
  }
  if (text === '') return { ok: false, line: 0, reason: 'the log is empty' };
  const raw = text.split('\n');
  if (raw.at(-1) === '') raw.pop();
  else return { ok: false, line: raw.length, reason: 'the last line is not terminated (torn write or truncation)' };

  let prev = GENESIS;
  let run: string | undefined;
  let seal: SealData | null = null;
  for (let i = 0; i < raw.length; i++) {
    const n = i + 1;
    const s = raw[i] ?? '';
    const fail = (reason: string): EvidenceVerdict => ({ ok: false, line: n, reason });
    let json: unknown;
    try {
      json = JSON.parse(s);
    } catch {
      return fail('bad JSON');
    }
    const parsed = EvidenceLine.safeParse(json);
    if (!parsed.success) return fail(`not an evidence line (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''})`);
    const l = parsed.data;
    const sealed = unseal(s);
    if (!sealed || sha256(sealed.body) !== sealed.hash) return fail('line hash mismatch (the line was edited)');
    if (l.seq !== n) return fail(`seq gap: expected ${n}, found ${l.seq} (a line was deleted, inserted or moved)`);
    if (l.prev !== prev) return fail('broken chain: prev is not the hash of the line before');
    run ??= l.run;
    if (l.run !== run) return fail(`line of another run (${l.run}, log is ${run})`);
    if (seal) return fail('a line after the closing line (appended after the run was sealed)');
    if (FILE_KINDS.has(l.kind)) {
      const f = EvidenceFile.safeParse(l.data);
      if (!f.success) return fail(`${l.kind} line does not name its file properly`);
      let bytes: Buffer;
      try {
        bytes = await fs.readFile(path.join(dir, f.data.file));
      } catch {
        return fail(`missing file ${f.data.file}`);
      }
      if (sha256(bytes) !== f.data.sha256) return fail(`file hash mismatch for ${f.data.file}`);
    }
    if (l.kind === SEAL_KIND) {
      const d = SealData.safeParse(l.data);
      if (!d.success) return fail('closing line does not say lines, head and word properly');
      if (d.data.lines !== n - 1 || d.data.head !== prev) return fail(`closing line does not close this log (it says ${d.data.lines} lines)`);
      seal = d.data;
    }
    prev = sha256(s);
  }
  const last = raw.length;
  const anchoredBy: ('head' | 'hmac')[] = [];
  if (anchor.head !== undefined) {
    if (!sameHex(anchor.head.toLowerCase(), prev)) {
      return { ok: false, line: last, reason: `the log ends at head ${prev}, but the anchor says ${anchor.head} (rewritten, truncated or appended to)` };
    }
    anchoredBy.push('head');
  }
  if (anchor.key !== undefined) {
    if (!seal) return { ok: false, line: last, reason: 'a key was given but the log has no closing line (truncated, or the run never ended)' };
    if (!seal.hmac) return { ok: false, line: last, reason: 'a key was given but the closing line carries no HMAC' };
    if (!sameHex(seal.hmac, hmacOf(anchor.key, run ?? '', seal))) {
      return { ok: false, line: last, reason: 'the closing line\'s HMAC does not match the key (the log was rewritten, or another key sealed it)' };
    }
    anchoredBy.push('hmac');
  }
  return { ok: true, lines: last, head: prev, run: run ?? '', seal, anchored_by: anchoredBy };
}

/**
 * The evidence head a journal recorded for a run: the `evidence_head` of the last receipt line of
 * `runId` that carries one. Reading the journal's format lives here and only here.
 */
export async function headFromJournal(file: string, runId: string): Promise<string | undefined> {
  // The journal proves its own chain first: a damaged journal is no anchor (JOURNAL_DAMAGED is thrown).
  const read = await readJournal(file);
  if (!read) return undefined;
  let head: string | undefined;
  for (const r of read.records) {
    if (r.phase !== 'receipt' || r.run !== runId) continue;
    const h = (r.receipt as { evidence_head?: unknown } | null)?.evidence_head;
    if (typeof h === 'string') head = h;
  }
  return head;
}
