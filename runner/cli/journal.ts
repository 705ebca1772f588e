// `handrail journal list|show|settle`: what the journals under $HANDRAIL_HOME say, and the way out of
// UNSAFE_TO_RETRY — a person's decision, recorded as a chained record with their name, the time and why.
// Exit codes: 0 done, 1 the journal is damaged (nothing written), 2 usage, 15 another process holds the key.
import { isAbsolute, resolve } from 'node:path';
import { EXIT_CODE } from '../../shared/schema/result.ts';
import { JournalError, type JournalRecord } from '../engine/journal.ts';
import { FileJournalStore, type JournalStore } from '../engine/journal-store.ts';
import { KEY_RE, stateHome, storeIn } from '../intent.ts';
import { journalStoreFor } from '../journals.ts';
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

/** The shared journal of HANDRAIL_JOURNAL_URL, else the file journals under $HANDRAIL_HOME (runner/journals.ts). */
function journals(): Promise<JournalStore> {
  return journalStoreFor(process.env, () => new FileJournalStore({ store: store() }));
}

/**
 * The store and key a `show`/`settle` argument names: a key (<card>.<32 hex>) in the journals, or — for the file
 * journal only — a journal file (anything with a slash or a .jsonl ending), whose key is read from its header.
 */
async function target(keyOrFile: string): Promise<{ journals: JournalStore; key: string | null }> {
  if (KEY_RE.test(keyOrFile)) return { journals: await journals(), key: keyOrFile };
  if (keyOrFile.includes('/') || keyOrFile.endsWith('.jsonl') || isAbsolute(keyOrFile)) {
    if (process.env['HANDRAIL_JOURNAL_URL']) throw new UsageError(`"${keyOrFile}" is a file, but HANDRAIL_JOURNAL_URL keeps the journals in a database: name the key (see handrail journal list)`);
    return { journals: new FileJournalStore({ store: store(), file: resolve(keyOrFile) }), key: null };
  }
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
    case 'held':
      return `held ${r.code} ${r.step}: ${r.writes.map((w) => `${w.method} ${w.path}`).join(', ')} stopped before it left (run ${r.run})`;
  }
}

export async function journalList(): Promise<number> {
  const j = await journals();
  try {
    const keys = await j.keys();
    err(`journals in ${j.where}: ${keys.length}`);
    for (const key of keys) {
      try {
        const read = await j.read(key);
        if (!read) continue;
        const last = read.records[read.records.length - 1];
        out(`${key}\t${read.state.status()}\t${read.records.length} records\t${last?.at ?? ''}`);
      } catch (e) {
        if (!(e instanceof JournalError)) throw e;
        out(`${key}\tdamaged\tline ${e.line ?? '?'}`);
      }
    }
    return 0;
  } finally {
    await j.close();
  }
}

export async function journalShow(keyOrFile: string): Promise<number> {
  const t = await target(keyOrFile);
  try {
    // A file store named by its file reads that file whatever the key.
    const where = t.journals.whereOf(t.key ?? '');
    let j;
    try {
      j = await t.journals.read(t.key ?? '');
    } catch (e) {
      if (!(e instanceof JournalError)) throw e;
      out(`damaged: ${e.message}`);
      return 1;
    }
    if (!j) throw new UsageError(`no journal for ${t.key ?? keyOrFile} in ${where}: this key never started`);
    out(`journal ${where}${where.endsWith('.jsonl') ? '' : ` key ${j.header.key}`}`);
    for (const r of j.records) out(`${String(r.n).padStart(4)} ${r.at} ${describe(r)}`);
    if (j.tornTail) out(`     (line ${j.tornTail.line}: a torn tail of ${j.tornTail.bytes} bytes, an append that never finished)`);
    const inDoubt = j.state.inDoubt();
    out(`status: ${j.state.status()}${inDoubt.length ? ` (${inDoubt.join(', ')} dispatched, never observed)` : ''}`);
    return 0;
  } finally {
    await t.journals.close();
  }
}

export async function journalSettle(keyOrFile: string, flags: SettleFlags): Promise<number> {
  const as = flags.as === 'committed' ? 'committed' : flags.as === 'not-committed' ? 'not_committed' : null;
  if (!as) throw new UsageError(`--as expects committed or not-committed, got "${flags.as}"`);
  if (flags.by.trim() === '') throw new UsageError('--by needs the name of the person deciding');
  if (flags.note.trim() === '') throw new UsageError('--note needs what was checked');
  const wait = flags.wait === undefined ? 0 : Number(flags.wait);
  if (!(Number.isInteger(wait) && wait >= 0)) throw new UsageError(`--wait expects milliseconds, got "${flags.wait}"`);
  const t = await target(keyOrFile);
  try {
    return await settleIn(t.journals, t.key ?? '', as, flags, wait);
  } finally {
    await t.journals.close();
  }
}

async function settleIn(journals: JournalStore, key: string, as: 'committed' | 'not_committed', flags: SettleFlags, wait: number): Promise<number> {
  const where = journals.whereOf(key);
  let before;
  try {
    before = await journals.read(key);
  } catch (e) {
    if (!(e instanceof JournalError)) throw e;
    out(`damaged: ${e.message}`);
    err('a damaged journal cannot take a settlement: check the application, then move the file (and its .head) aside; the next run starts the key afresh');
    return 1;
  }
  if (!before) throw new UsageError(`no journal for ${key || where} in ${where}: this key never started, there is nothing to settle`);
  const { header } = before;
  // The same lease a run takes: a settlement never races a run of the key.
  let got;
  try {
    got = await journals.claim({ key: header.key, card: header.card, content_hash: header.content_hash }, { waitMs: wait, what: `settle by ${flags.by}`, log: err });
  } catch (e) {
    if (!(e instanceof JournalError)) throw e;
    out(`${e.code}: ${e.message}`);
    return 1;
  }
  if (!got.ok) {
    err(`key ${header.key} is being run by pid ${got.holder?.pid ?? '?'} on ${got.holder?.host ?? '?'}; try again when it ends`);
    return EXIT_CODE.BUSY;
  }
  try {
    const rec = await got.journal.settle(as, flags.by, flags.note, 'person');
    out(JSON.stringify(rec));
    err(`settled ${header.key} as ${flags.as} (${rec.steps.join(', ')}); the next run ${as === 'committed' ? 'answers SUCCESS from the journal' : 'may press again'}`);
    return 0;
  } catch (e) {
    if (!(e instanceof JournalError)) throw e;
    if (e.code === 'JOURNAL_NOT_IN_DOUBT') throw new UsageError(e.message, e.code);
    out(`${e.code}: ${e.message}`);
    return 1;
  } finally {
    await got.journal.close();
    await got.release();
  }
}
