// Loading a card: every way in is parsed, and every problem is reported with the JSON path a reviewer edits.
import type { z } from 'zod';
import { Capability } from './capability.ts';
import { checkTree, quoteKey, readJson, RESERVED_KEYS, type JsonFault } from './json.ts';

export interface SchemaIssue {
  /** JSON path in the file, e.g. `steps[3].effect`; `(root)` for the whole document. */
  path: string;
  message: string;
}

export type LoadResult<T> = { ok: true; value: T } | { ok: false; issues: SchemaIssue[] };

/** At most this many issues are listed, each message and path at most this long: errors quote, never flood. */
export const MAX_ISSUES = 50;
const MAX_MESSAGE = 300;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

export function jsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (typeof part === 'string' && part.length <= 64 && /^[A-Za-z_$][\w$]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${quoteKey(String(part))}]`;
  }
  return out || '(root)';
}

function describe(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_type':
      return issue.message.startsWith('Invalid input') ? `expected ${issue.expected}` : issue.message;
    default:
      return issue.message;
  }
}

export function issuesOf(error: z.ZodError): SchemaIssue[] {
  const out: SchemaIssue[] = [];
  const walk = (issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[]): void => {
    for (const issue of issues) {
      const path = [...prefix, ...issue.path];
      if (issue.code === 'invalid_union' && issue.errors.length > 0) {
        // Report the branch that got furthest rather than "invalid input".
        const best = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
        walk(best, path);
        continue;
      }
      out.push({ path: jsonPath(path), message: clip(describe(issue), MAX_MESSAGE) });
    }
  };
  walk(error.issues, []);
  return out;
}

export function formatIssues(issues: readonly SchemaIssue[]): string {
  const shown = issues.slice(0, MAX_ISSUES).map((i) => `  ${clip(i.path, 200)}: ${clip(i.message, MAX_MESSAGE)}`);
  if (issues.length > MAX_ISSUES) shown.push(`  … and ${issues.length - MAX_ISSUES} more`);
  return shown.join('\n');
}

const faultIssue = (f: JsonFault): LoadResult<never> => ({ ok: false, issues: [{ path: jsonPath(f.path), message: clip(f.message, MAX_MESSAGE) }] });

/** Strict JSON (shared/schema/json.ts): duplicate keys, prototype keys and oversized parts are refused. */
export function parseJsonText(text: string): LoadResult<unknown> {
  const read = readJson(text);
  return read.ok ? { ok: true, value: read.value } : faultIssue(read.fault);
}

/** Fields whose string value names another part of the card (a screen, a target, a step). */
const REF_FIELDS: ReadonlySet<string> = new Set(['id', 'screen', 'screens', 'screen_in', 'target', 'from_step']);

/**
 * A reference spelled like a prototype member (`"target": "constructor"`) would find `Object.prototype.constructor`
 * in a plain lookup instead of nothing. Refused wherever a card refers to one of its own parts.
 */
function reservedRef(value: unknown, path: PropertyKey[] = [], depth = 0): JsonFault | null {
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  for (const [k, v] of Object.entries(value)) {
    const here = [...path, Array.isArray(value) ? Number(k) : k];
    const field = typeof here.at(-1) === 'number' ? path.at(-1) : k;
    if (typeof v === 'string' && typeof field === 'string' && REF_FIELDS.has(field) && RESERVED_KEYS.has(v)) {
      return { path: here, message: `${quoteKey(v)} cannot name a part of a card (it names an object prototype member)` };
    }
    const inner = reservedRef(v, here, depth + 1);
    if (inner) return inner;
  }
  return null;
}

/** Parse a capability from JSON text or an already-parsed value. Never throws. */
export function loadCapability(source: string | unknown): LoadResult<Capability> {
  const raw = typeof source === 'string' ? parseJsonText(source) : ({ ok: true, value: source } as const);
  if (!raw.ok) return raw;
  const fault = (typeof source === 'string' ? null : checkTree(raw.value)) ?? reservedRef(raw.value);
  if (fault) return faultIssue(fault);
  const parsed = Capability.safeParse(raw.value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: issuesOf(parsed.error) };
}
