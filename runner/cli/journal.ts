// `handrail journal list|show|settle`: what the journals under $HANDRAIL_HOME say, and the way out of
// UNSAFE_TO_RETRY — a person's decision, recorded as a chained record with their name, the time and why.
// Exit codes: 0 done, 1 the journal is damaged (nothing written), 2 usage, 15 another process holds the key.
import { readdir } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { EXIT_CODE } from '../../shared/schema/result.ts';
import { Journal, JournalError, readJournal, type JournalRecord } from '../engine/journal.ts';
import { journalFile, KEY_RE, leaseFile, stateHome, storeIn } from '../intent.ts';
import { Lease } from '../lease.ts';
import { UsageError } from './errors.ts';

export interface SettleFlags {
  as: string;
  by: string;
  note: string;
  wait?: string;
}

const out = (line: string): boolean => process.stdout.write(`${line}\n`);
const err = (line: string): boolean => process.stderr.write(`${line}\n`);

function store(): ReturnType<typeof storeIn> {
  return storeIn(stateHome(process.env));
}

/** A key names $HANDRAIL_HOME/journals/<key>.jsonl; anything with a slash or a .jsonl ending is a file. */
function fileFor(keyOrFile: string): string {
  if (KEY_RE.test(keyOrFile)) return journalFile(store(), keyOrFile);
  if (keyOrFile.includes('/') || keyOrFile.endsWith('.jsonl') || isAbsolute(keyOrFile)) return resolve(keyOrFile);
  throw new UsageError(`"${keyOrFile}" is neither a key (<card>.<32 hex>, see handrail journal list) nor a journal file`);
}

function describe(r: JournalRecord): string {
  switch (r.phase) {
    case 'header':
      return `header key=${r.key} card=${r.card} content=${r.content_hash}`;
    case 'dispatched':
    case 'observed':
      return `${r.phase} ${r.effect} ${r.step} (run ${r.run})`;
    case 'receipt': {
      const rec = r.receipt as { word?: string; code?: string; outputs?: Record<string, string> };
      return `receipt ${rec.word ?? '?'} ${rec.code ?? ''} ${JSON.stringify(rec.outputs ?? {})} (run ${r.run})`;
    }
    case 'settled':
      return `settled ${r.as} ${r.steps.join(',')} by ${r.by} via ${r.via}: ${r.note}`;
    case 'torn':
      return `torn line ${r.line} excused (a crash mid-append)`;
  }
}

export async function journalList(): Promise<number> {
  const dir = store().journals;
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    names = [];
  }
  err(`journals in ${dir}: ${names.length}`);
  for (const name of names) {
    const file = join(dir, name);
    const key = name.slice(0, -'.jsonl'.length);
    try {
      const j = await readJournal(file);
      if (!j) continue;
      const last = j.records[j.records.length - 1];
      out(`${key}\t${j.state.status()}\t${j.records.length} records\t${last?.at ?? ''}`);
    } catch (e) {
      if (!(e instanceof JournalError)) throw e;
      out(`${key}\tdamaged\tline ${e.line ?? '?'}`);
    }
  }
  return 0;
}

export async function journalShow(keyOrFile: string): Promise<number> {
  const file = fileFor(keyOrFile);
  let j;
  try {
    j = await readJournal(file);
  } catch (e) {
    if (!(e instanceof JournalError)) throw e;
    out(`damaged: ${e.message}`);
    return 1;
  }
  if (!j) throw new UsageError(`no journal at ${file}: this key never started`);
  out(`journal ${file}`);
  for (const r of j.records) out(`${String(r.n).padStart(4)} ${r.at} ${describe(r)}`);
  if (j.tornTail) out(`     (line ${j.tornTail.line}: a torn tail of ${j.tornTail.bytes} bytes, an append that never finished)`);
  const inDoubt = j.state.inDoubt();
  out(`status: ${j.state.status()}${inDoubt.length ? ` (${inDoubt.join(', ')} dispatched, never observed)` : ''}`);
  return 0;
}

export async function journalSettle(keyOrFile: string, flags: SettleFlags): Promise<number> {
  const as = flags.as === 'committed' ? 'committed' : flags.as === 'not-committed' ? 'not_committed' : null;
  if (!as) throw new UsageError(`--as expects committed or not-committed, got "${flags.as}"`);
  if (flags.by.trim() === '') throw new UsageError('--by needs the name of the person deciding');
  if (flags.note.trim() === '') throw new UsageError('--note needs what was checked');
  const wait = flags.wait === undefined ? 0 : Number(flags.wait);
  if (!(Number.isInteger(wait) && wait >= 0)) throw new UsageError(`--wait expects milliseconds, got "${flags.wait}"`);
  const file = fileFor(keyOrFile);
  let before;
  try {
    before = await readJournal(file);
  } catch (e) {
    if (!(e instanceof JournalError)) throw e;
    out(`damaged: ${e.message}`);
    err('a damaged journal cannot take a settlement: check the application, then move the file (and its .head) aside; the next run starts the key afresh');
    return 1;
  }
  if (!before) throw new UsageError(`no journal at ${file}: this key never started, there is nothing to settle`);
  const { header } = before;
  // The same lease a run takes: a settlement never races a run of the key.
  const got = await Lease.acquire(leaseFile(store(), header.key), { waitMs: wait, what: `settle by ${flags.by}`, log: err });
  if (!got.ok) {
    err(`key ${header.key} is being run by pid ${got.holder?.pid ?? '?'} on ${got.holder?.host ?? '?'}; try again when it ends`);
    return EXIT_CODE.BUSY;
  }
  try {
    const j = await Journal.open(file, { key: header.key, card: header.card, content_hash: header.content_hash });
    try {
      const rec = await j.settle(as, flags.by, flags.note, 'person');
      out(JSON.stringify(rec));
      err(`settled ${header.key} as ${flags.as} (${rec.steps.join(', ')}); the next run ${as === 'committed' ? 'answers SUCCESS from the journal' : 'may press again'}`);
      return 0;
    } finally {
      await j.close();
    }
  } catch (e) {
    if (!(e instanceof JournalError)) throw e;
    if (e.code === 'JOURNAL_NOT_IN_DOUBT') throw new UsageError(e.message, e.code);
    out(`${e.code}: ${e.message}`);
    return 1;
  } finally {
    await got.lease.release();
  }
}
