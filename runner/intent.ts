// The idempotency key is the intent: which card (id and the sha-256 of its approved content) was asked to do
// what to which record (the canonical values of the inputs the card declares as identifying the effect).
// Two requests with the same key are the same intent and are pressed at most once; two different keys never
// answer for each other. And where the journals and leases of those keys live: one state directory.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { canonicalJson } from '../shared/schema/canonical.ts';
import { identityInputs, type Capability } from '../shared/schema/capability.ts';
import { contentHash } from './approval.ts';

export interface Intent {
  /** `<card id>.<32 hex>`: safe as a file name, readable in a listing, 128 bits of the intent's hash. */
  key: string;
  card: string;
  content_hash: string;
  /** The identifying inputs and their canonical values (never a secret: the schema forbids it). */
  identity: Record<string, string>;
}

/** An input's value as the key sees it: integers lose leading zeros and a plus sign; everything else is as validated. */
function canonicalValue(type: string, value: string): string {
  if (type === 'integer' && /^[-+]?\d+$/.test(value)) return BigInt(value).toString();
  return value;
}

/** The key of running `card` with these (validated) input values. */
export function intentOf(card: Capability, values: Readonly<Record<string, string>>): Intent {
  const identity: Record<string, string> = {};
  for (const name of identityInputs(card)) {
    const spec = card.inputs[name];
    const v = values[name];
    if (spec && v !== undefined) identity[name] = canonicalValue(spec.type, v);
  }
  const content = contentHash(card);
  const digest = createHash('sha256').update(canonicalJson({ card: card.id, content_hash: content, identity })).digest('hex');
  return { key: `${card.id}.${digest.slice(0, 32)}`, card: card.id, content_hash: content, identity };
}

export const KEY_RE = /^[a-z][a-z0-9_]*\.[0-9a-f]{32}$/;

/**
 * `$HANDRAIL_HOME`, else `$XDG_STATE_HOME/handrail`, else `~/.local/state/handrail` (XDG Base Directory spec:
 * state that should persist between restarts but is not worth backing up like user data — journals qualify
 * because losing them loses the "never twice" promise, so operators should still back the directory up).
 */
export function stateHome(env: Readonly<Record<string, string | undefined>>): string {
  const own = env['HANDRAIL_HOME'];
  if (own) return resolve(own);
  const xdg = env['XDG_STATE_HOME'];
  if (xdg && xdg.startsWith('/')) return join(xdg, 'handrail');
  return join(env['HOME'] || homedir(), '.local', 'state', 'handrail');
}

/** Where one store keeps its journals and leases. */
export interface Store {
  journals: string;
  locks: string;
}

export function storeIn(home: string): Store {
  return { journals: join(home, 'journals'), locks: join(home, 'locks') };
}

export const journalFile = (store: Store, key: string): string => join(store.journals, `${key}.jsonl`);
export const leaseFile = (store: Store, key: string): string => join(store.locks, `${key}.lock`);
