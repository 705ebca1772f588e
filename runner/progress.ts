// Progress of long work (verify over plates, many replays, a benchmark) on stderr, never on stdout, which carries only
// results. On a terminal one bar is redrawn in place — counts, percent, elapsed, ETA — and log lines scroll above it;
// anywhere else (CI, a pipe, a file) every line is plain text and each finished item adds one line with the same
// counts, so a log reads the same without a terminal's carriage returns.
export interface ProgressStream {
  write(s: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  total: number;
  /** What is being counted: "plates", "runs". */
  label: string;
  stream?: ProgressStream;
  /** Default: the stream's own isTTY (and NO_COLOR / TERM=dumb do not matter: the bar uses no colour). */
  tty?: boolean;
  /** Milliseconds, for tests; default Date.now. */
  now?: () => number;
}

/** `1m 05s`, `12.3s`, `0.4s`. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

export class Progress {
  readonly #stream: ProgressStream;
  readonly #tty: boolean;
  readonly #now: () => number;
  readonly #started: number;
  #done = 0;
  #drawn = false;
  #closed = false;

  constructor(private readonly opts: ProgressOptions) {
    this.#stream = opts.stream ?? process.stderr;
    this.#tty = opts.tty ?? Boolean(this.#stream.isTTY);
    this.#now = opts.now ?? Date.now;
    this.#started = this.#now();
    if (this.#tty) this.#draw();
  }

  get done(): number {
    return this.#done;
  }

  /** `3/10 plates (30%) · 12.3s · ETA 28.7s`: the ETA is the mean time per finished item times those left. */
  status(): string {
    const { total, label } = this.opts;
    const elapsed = this.#now() - this.#started;
    const pct = total > 0 ? Math.floor((this.#done / total) * 100) : 100;
    const eta = this.#done === 0 ? '–' : duration((elapsed / this.#done) * (total - this.#done));
    return `${this.#done}/${total} ${label} (${pct}%) · ${duration(elapsed)} · ETA ${eta}`;
  }

  /** A line of log: above the bar on a terminal, as it is elsewhere. */
  log(line: string): void {
    if (this.#closed) {
      this.#stream.write(`${line}\n`);
      return;
    }
    this.#clear();
    this.#stream.write(`${line}\n`);
    if (this.#tty) this.#draw();
  }

  /** One item finished (`note`: what it came to, e.g. "CLEAN"). */
  tick(note?: string): void {
    this.#done = Math.min(this.#done + 1, this.opts.total);
    if (this.#tty) this.#draw();
    else this.#stream.write(`${this.status()}${note ? ` · ${note}` : ''}\n`);
  }

  /** Stops drawing: the bar is left showing its final counts on a terminal, and later lines are plain. */
  finish(): void {
    if (this.#closed) return;
    if (this.#tty && this.#drawn) this.#stream.write('\n');
    this.#closed = true;
  }

  #bar(): string {
    const { total } = this.opts;
    const width = Math.max(10, Math.min(30, (this.#stream.columns ?? 80) - 60));
    const full = total > 0 ? Math.round((this.#done / total) * width) : width;
    return `[${'#'.repeat(full)}${'-'.repeat(width - full)}]`;
  }

  #clear(): void {
    // Carriage return, then erase the line (ECMA-48 EL, CSI 2 K): the bar's line is reused for the log line.
    if (this.#tty && this.#drawn) this.#stream.write('\r\u001b[2K');
    this.#drawn = false;
  }

  #draw(): void {
    this.#clear();
    this.#stream.write(`${this.#bar()} ${this.status()}`);
    this.#drawn = true;
  }
}
