// Where journals are kept, chosen in one place (docs/design/journal.md, "Never twice" → "The journal port"):
// HANDRAIL_JOURNAL_URL=postgres://… selects the shared PostgreSQL journal for `replay`, `journal` and `serve`;
// absent, each command keeps its file journal under $HANDRAIL_HOME. The URL is never echoed: it may hold a password.
import { HandrailError } from '../shared/errors.ts';
import { DEFAULT_LEASE_MS, PgJournalStore } from './engine/journal-pg.ts';
import { JournalStoreError, type JournalStore } from './engine/journal-store.ts';

export const JOURNAL_URL_ENV = 'HANDRAIL_JOURNAL_URL';
/** How long a shared lease lasts without renewal, in ms (default 30 000): how soon a frozen or cut-off holder's key is taken over. */
export const JOURNAL_LEASE_ENV = 'HANDRAIL_JOURNAL_LEASE_MS';

/** The shared journal HANDRAIL_JOURNAL_URL names, connected and its tables ready; null when the variable is unset. */
export async function openSharedJournal(env: Readonly<Record<string, string | undefined>>): Promise<JournalStore | null> {
  const url = env[JOURNAL_URL_ENV]?.trim();
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new JournalStoreError('JOURNAL_URL_UNSUPPORTED', `${JOURNAL_URL_ENV} is not a URL (expected postgres://user:password@host:port/database)`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new JournalStoreError(
      'JOURNAL_URL_UNSUPPORTED',
      `${JOURNAL_URL_ENV} uses the scheme "${parsed.protocol.replace(/:$/, '')}", which no journal store speaks: use postgres://… (or unset it for the file journal under $HANDRAIL_HOME)`,
    );
  }
  const raw = env[JOURNAL_LEASE_ENV];
  const leaseMs = raw === undefined || raw === '' ? DEFAULT_LEASE_MS : Number(raw);
  if (!(Number.isInteger(leaseMs) && leaseMs >= 300)) throw new HandrailError('USAGE', `${JOURNAL_LEASE_ENV} expects milliseconds of at least 300, got "${raw}"`);
  return PgJournalStore.open(url, { leaseMs });
}

/** The shared journal when HANDRAIL_JOURNAL_URL is set, else the command's own file journal. */
export async function journalStoreFor(env: Readonly<Record<string, string | undefined>>, fallback: () => JournalStore): Promise<JournalStore> {
  return (await openSharedJournal(env)) ?? fallback();
}
