// Many runs of one card (`handrail replay <card> --inputs rows.csv --parallel N`, docs/design/scale.md, "Many runs"):
// a rows file read and checked whole before anything runs, then at most N runs at once, each its own run with its
// own key, journal, lease and evidence. Two rows of one intent (the same key) run one after the other in this
// process, so the second is answered from the journal; another process on the same key meets the lease (BUSY).
// A drain stops starting rows and lets those running finish, then cancels them the way `serve` does.
import { parse } from 'csv-parse/sync';
import { HandrailError } from '../shared/errors.ts';
import { validateInputs } from '../shared/inputs.ts';
import { KeyedLock, Semaphore } from '../shared/lock.ts';
import type { Capability } from '../shared/schema/capability.ts';
import { EXIT_CODE, type RunResult, type Word } from '../shared/schema/result.ts';
import { intentOf } from './intent.ts';
import { duration } from './progress.ts';
import { newRunId, resultBeforeRun } from './run.ts';

export class RowsError extends HandrailError<'BAD_ROWS'> {
  override readonly name = 'RowsError';
  constructor(message: string, path: string) {
    super('BAD_ROWS', message, path);
  }
}

/** One row to run: its number among the data rows (1 = the line after the header), its inputs, its intent's key. */
export interface BatchRow {
  row: number;
  /** The inputs as given: the row's cells over the defaults (`--input`, the config); secrets may still come from the environment. */
  inputs: Record<string, string>;
  key: string;
}

/** The p-th percentile by nearest rank (p in 0..100); NaN for no values. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length)));
  return s[rank - 1] as number;
}

/**
 * Reads a rows file (RFC 4180 CSV, the header naming the card's inputs) into rows ready to run, or refuses the whole
 * file naming the row and column at fault. A value is never quoted in an error when its column is a secret, and a
 * CSV syntax error is reported by line only (csv-parse's own message may quote the field).
 * An empty cell means "not given": the default (`--input`, the config) or, for a secret, HANDRAIL_SECRET_<NAME> fills it.
 */
export function readRows(
  text: string,
  file: string,
  card: Capability,
  defaults: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): BatchRow[] {
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, trim: true, relax_column_count: false }) as string[][];
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    const line = (e as { lines?: unknown }).lines;
    throw new RowsError(`${file}${typeof line === 'number' ? ` line ${line}` : ''}: not valid CSV (${typeof code === 'string' ? code : 'unreadable'}); the field is not shown: it may hold a secret`, file);
  }
  const [header, ...data] = records;
  if (!header) throw new RowsError(`${file} is empty: its first line names the card's inputs (${Object.keys(card.inputs).join(', ')})`, file);
  const takes = Object.keys(card.inputs).join(', ') || 'nothing';
  header.forEach((name, i) => {
    if (!Object.hasOwn(card.inputs, name)) {
      throw new RowsError(`${file} column ${i + 1} ${JSON.stringify(name.slice(0, 40))} is not an input of ${card.id} (it takes: ${takes})`, `${file}:1`);
    }
    if (header.indexOf(name) !== i) throw new RowsError(`${file} names column ${JSON.stringify(name)} twice (columns ${header.indexOf(name) + 1} and ${i + 1})`, `${file}:1`);
  });
  if (data.length === 0) throw new RowsError(`${file} has a header and no rows: nothing to run`, file);
  return data.map((cells, i) => {
    const row = i + 1;
    const inputs: Record<string, string> = { ...defaults };
    header.forEach((name, c) => {
      const v = cells[c] ?? '';
      if (v !== '') inputs[name] = v;
    });
    const checked = validateInputs(card, inputs, env);
    if (!checked.ok) {
      // validateInputs names the input and never echoes a secret's value (shared/inputs.ts).
      const first = checked.problems[0];
      const more = checked.problems.length > 1 ? ` (and ${checked.problems.length - 1} more problem${checked.problems.length > 2 ? 's' : ''} in this row)` : '';
      const column = first ? header.indexOf(first.input) : -1;
      const where = column >= 0 ? `column ${column + 1} (${first?.input})` : `column ${first?.input ?? '?'} (not in the file)`;
      throw new RowsError(`${file} row ${row} (line ${row + 1}), ${where}: ${first?.message ?? 'invalid'}${more}; nothing was run`, `${file}:${row + 1}`);
    }
    return { row, inputs, key: intentOf(card, checked.values).key };
  });
}

export interface BatchOptions {
  rows: readonly BatchRow[];
  /** How many rows run at once (≥ 1). */
  parallel: number;
  card: string;
  /** Runs one row; never throws for what a run can meet (runner/run.ts). Cancelled through `signal`. */
  run: (row: BatchRow, signal: AbortSignal) => Promise<RunResult>;
  /** Each row's receipt, as it is answered (stopped rows included). */
  onResult?: (row: BatchRow, result: RunResult) => void;
  log?: (line: string) => void;
}

export interface RowResult {
  row: BatchRow;
  result: RunResult;
}

export class Batch {
  readonly #opts: BatchOptions;
  readonly #slots: Semaphore;
  readonly #perKey = new KeyedLock();
  readonly #abort = new AbortController();
  readonly #running = new Set<Promise<RunResult>>();
  #draining = false;
  /** The most rows seen running at once (a test's witness that the bound holds). */
  peak = 0;

  constructor(opts: BatchOptions) {
    if (!(Number.isInteger(opts.parallel) && opts.parallel >= 1)) throw new RangeError(`parallel must be a whole number of at least 1, got ${opts.parallel}`);
    this.#opts = opts;
    this.#slots = new Semaphore(opts.parallel);
  }

  /** Every row's receipt, in row order. Rows not started when a drain began are answered SHUTTING_DOWN (nothing run). */
  async run(): Promise<RowResult[]> {
    return Promise.all(
      this.#opts.rows.map((row) =>
        this.#perKey.run(row.key, () =>
          this.#slots.run(async () => {
            const result = this.#draining ? this.#notStarted() : await this.#start(row);
            this.#opts.onResult?.(row, result);
            return { row, result };
          }),
        ),
      ),
    );
  }

  #notStarted(): RunResult {
    return resultBeforeRun(this.#opts.card, newRunId(), 'RECOVERABLE', 'SHUTTING_DOWN', 'the batch was stopped before this row started; nothing was run, so running it again is safe');
  }

  async #start(row: BatchRow): Promise<RunResult> {
    // What still escapes a run (a bug, not something a run can meet) is that row's typed receipt, never the batch's end.
    const p = this.#opts.run(row, this.#abort.signal).catch((e: unknown) =>
      resultBeforeRun(this.#opts.card, newRunId(), 'FAILED', 'INTERNAL', `row ${row.row}: ${(e instanceof Error ? e.message : String(e)).split('\n')[0] ?? ''}`),
    );
    this.#running.add(p);
    this.peak = Math.max(this.peak, this.#running.size);
    try {
      return await p;
    } finally {
      this.#running.delete(p);
    }
  }

  get running(): number {
    return this.#running.size;
  }

  /**
   * Graceful stop (the first SIGINT/SIGTERM): no row starts any more; those running get up to `boundMs` to finish,
   * then are cancelled — each stops before a commit it has not dispatched; one already dispatched finishes and is
   * journalled (docs/design/journal.md, "Cancelling a run").
   */
  async drain(boundMs: number): Promise<void> {
    this.#draining = true;
    const all = (): Promise<unknown> => Promise.allSettled([...this.#running]);
    if (this.#running.size === 0) return;
    this.#opts.log?.(`stopping: no new row starts; waiting for ${this.#running.size} run(s) (at most ${boundMs} ms before cancelling them)`);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all(), new Promise<void>((r) => (timer = setTimeout(r, boundMs)))]);
    clearTimeout(timer);
    if (this.#running.size > 0) this.abortAll(`stopped waiting after ${boundMs} ms`);
    await all();
  }

  /** Cancels every run now (a second signal). */
  abortAll(reason: string): void {
    this.#draining = true;
    if (this.#abort.signal.aborted) return;
    this.#opts.log?.(`cancelling ${this.#running.size} run(s): ${reason}`);
    this.#abort.abort(reason);
  }
}

/** The words from the most to the least in need of a person: a batch exits with the first one any row ended on. */
const SEVERITY: readonly Word[] = ['UNSAFE_TO_RETRY', 'FAILED', 'REFUSED', 'BUSY', 'RECOVERABLE', 'BUSINESS_OUTCOME', 'REHEARSED', 'SUCCESS'];

export function batchExitCode(results: readonly RowResult[]): number {
  const words = new Set(results.map((r) => r.result.word));
  const worst = SEVERITY.find((w) => words.has(w)) ?? 'SUCCESS';
  return EXIT_CODE[worst];
}

/** The table printed after a batch: rows per word with their p50/p95 duration, then the totals. */
export function summaryTable(results: readonly RowResult[], wallMs: number): string {
  const lines = [`${'word'.padEnd(18)}${'rows'.padStart(6)}${'p50'.padStart(9)}${'p95'.padStart(9)}`];
  const cell = (ms: number): string => (Number.isNaN(ms) ? '–' : duration(ms)).padStart(9);
  for (const word of SEVERITY.slice().reverse()) {
    const ms = results.filter((r) => r.result.word === word).map((r) => r.result.duration_ms);
    if (ms.length) lines.push(`${word.padEnd(18)}${String(ms.length).padStart(6)}${cell(percentile(ms, 50))}${cell(percentile(ms, 95))}`);
  }
  const all = results.map((r) => r.result.duration_ms);
  const fromJournal = results.filter((r) => r.result.from_journal).length;
  lines.push(`${'all'.padEnd(18)}${String(results.length).padStart(6)}${cell(percentile(all, 50))}${cell(percentile(all, 95))}`);
  lines.push(`wall ${duration(wallMs)}${fromJournal ? ` · ${fromJournal} answered from the journal` : ''}`);
  return lines.join('\n');
}
