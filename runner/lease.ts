// One process per idempotency key, enforced by the file system: an O_EXCL lease file per key.
// Node 20 has no flock without a native addon; `open(O_CREAT|O_EXCL)` is atomic on every local POSIX file
// system, so exactly one process creates the lease and the others see EEXIST.
//
// The lease holds {pid, host, proc_start, started, nonce}. It is stale — and may be broken — only when its
// holder is provably gone: same host and the pid no longer exists, or the pid exists but is another process
// (its kernel start time differs: the pid was reused), or the file is empty/unreadable and older than
// UNREADABLE_GRACE_MS (a holder killed between create and write). A lease from another host is never broken
// automatically: a person checks that host and removes the file. Breaking happens under a second O_EXCL file
// (`<lease>.break`) and re-reads the lease first, so two waiters that both saw the same dead holder cannot
// delete a live lease taken in between; a `.break` file older than BREAK_GRACE_MS is itself stale.
import { HandrailError } from '../shared/errors.ts';
import { randomBytes } from 'node:crypto';
import { constants as fsc, promises as fs, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { z } from 'zod';

export const UNREADABLE_GRACE_MS = 5_000;
export const BREAK_GRACE_MS = 10_000;
const POLL_MS = 50;

export const LeaseInfo = z.strictObject({
  pid: z.number().int().positive(),
  host: z.string(),
  /** The holder's start time as the kernel counts it (/proc/<pid>/stat field 22), or null off Linux. */
  proc_start: z.string().nullable(),
  started: z.iso.datetime(),
  nonce: z.string(),
  /** What holds it: a run id, `settle`, … (for people reading the file). */
  what: z.string(),
});
export type LeaseInfo = z.infer<typeof LeaseInfo>;

export class LeaseError extends HandrailError<'LEASE_IO'> {
  override readonly name = 'LeaseError';
}

export type Acquired = { ok: true; lease: Lease } | { ok: false; holder: LeaseInfo | null; file: string };

/** The kernel's start time of a process, used to tell a live holder from a new process that got its pid. */
export function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: count fields after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19] ?? null; // field 22 overall = index 19 after pid and comm
  } catch {
    return null;
  }
}

/** Who holds a lease taken now by this process (a fresh nonce each time): the file lease and the PostgreSQL one alike. */
export function leaseInfoOfThisProcess(what: string): LeaseInfo {
  return {
    pid: process.pid,
    host: hostname(),
    proc_start: procStart(process.pid),
    started: new Date().toISOString(),
    nonce: randomBytes(8).toString('hex'),
    what,
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why a lease is stale, or null when its holder may still be alive. Exported for the tests and `journal show`. */
export function staleReason(info: LeaseInfo | null, ageMs: number, host = hostname()): string | null {
  if (!info) return ageMs > UNREADABLE_GRACE_MS ? `unreadable lease older than ${UNREADABLE_GRACE_MS}ms` : null;
  if (info.host !== host) return null;
  if (!alive(info.pid)) return `holder pid ${info.pid} is dead`;
  const now = procStart(info.pid);
  if (info.proc_start !== null && now !== null && now !== info.proc_start) return `pid ${info.pid} now belongs to another process`;
  return null;
}

async function readLease(file: string): Promise<{ info: LeaseInfo | null; ageMs: number } | null> {
  try {
    const [text, st] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
    let info: LeaseInfo | null = null;
    try {
      const r = LeaseInfo.safeParse(JSON.parse(text));
      info = r.success ? r.data : null;
    } catch {
      info = null;
    }
    return { info, ageMs: Date.now() - st.mtimeMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new LeaseError('LEASE_IO', `cannot read lease ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export class Lease {
  #released = false;
  private constructor(
    readonly file: string,
    readonly info: LeaseInfo,
  ) {}

  /**
   * Takes the lease at `file`, waiting up to `waitMs` for a live holder to let go (0: one attempt).
   * Breaks a stale lease (see the rules above) and says so through `log`.
   */
  static async acquire(file: string, opts: { waitMs?: number; what: string; log?: (line: string) => void }): Promise<Acquired> {
    const abs = path.resolve(file);
    try {
      await fs.mkdir(path.dirname(abs), { recursive: true });
    } catch (e) {
      throw new LeaseError('LEASE_IO', `cannot create ${path.dirname(abs)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const deadline = Date.now() + Math.max(0, opts.waitMs ?? 0);
    for (;;) {
      const info = leaseInfoOfThisProcess(opts.what);
      if (await createExclusive(abs, JSON.stringify(info) + '\n')) return { ok: true, lease: new Lease(abs, info) };
      const seen = await readLease(abs);
      if (seen) {
        const why = staleReason(seen.info, seen.ageMs);
        if (why && (await breakIfStill(abs, seen.info, opts.log, why))) continue;
      } else {
        continue; // released between our attempt and the read: try again at once
      }
      if (Date.now() >= deadline) return { ok: false, holder: seen.info, file: abs };
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Removes the lease if it is still ours (a lease broken by someone else is not theirs to lose twice). */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    const seen = await readLease(this.file).catch(() => null);
    if (seen?.info?.nonce === this.info.nonce) await fs.unlink(this.file).catch(() => undefined);
  }
}

async function createExclusive(file: string, text: string): Promise<boolean> {
  let h: fs.FileHandle;
  try {
    h = await fs.open(file, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new LeaseError('LEASE_IO', `cannot create lease ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    await h.writeFile(text);
    await h.sync();
  } finally {
    await h.close();
  }
  return true;
}

/** Deletes the lease only if, under the break lock, it is still the very lease judged stale. */
async function breakIfStill(file: string, judged: LeaseInfo | null, log: ((line: string) => void) | undefined, why: string): Promise<boolean> {
  const breaker = `${file}.break`;
  if (!(await createExclusive(breaker, `${process.pid}\n`))) {
    const st = await fs.stat(breaker).catch(() => null);
    if (st && Date.now() - st.mtimeMs > BREAK_GRACE_MS) await fs.unlink(breaker).catch(() => undefined);
    return false;
  }
  try {
    const now = await readLease(file);
    if (!now) return true;
    const same = judged === null ? now.info === null : now.info?.nonce === judged.nonce;
    if (!same) return false;
    await fs.unlink(file).catch(() => undefined);
    log?.(`broke a stale lease ${file}: ${why}`);
    return true;
  } finally {
    await fs.unlink(breaker).catch(() => undefined);
  }
}
