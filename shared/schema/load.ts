// Loading a card: every way in is parsed, and every problem is reported with the JSON path a reviewer edits.
import type { z } from 'zod';
import { Capability } from './capability.ts';

export interface SchemaIssue {
  /** JSON path in the file, e.g. `steps[3].effect`; `(root)` for the whole document. */
  path: string;
  message: string;
}

export type LoadResult<T> = { ok: true; value: T } | { ok: false; issues: SchemaIssue[] };

export function jsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (typeof part === 'string' && /^[A-Za-z_$][\w$]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(String(part))}]`;
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
      out.push({ path: jsonPath(path), message: describe(issue) });
    }
  };
  walk(error.issues, []);
  return out;
}

export function formatIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((i) => `  ${i.path}: ${i.message}`).join('\n');
}

export function parseJsonText(text: string): LoadResult<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, issues: [{ path: '(root)', message: `not valid JSON: ${(e as Error).message}` }] };
  }
}

/** Parse a capability from JSON text or an already-parsed value. Never throws. */
export function loadCapability(source: string | unknown): LoadResult<Capability> {
  const raw = typeof source === 'string' ? parseJsonText(source) : ({ ok: true, value: source } as const);
  if (!raw.ok) return raw;
  const parsed = Capability.safeParse(raw.value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: issuesOf(parsed.error) };
}
