// Inputs are validated against the card before anything is touched; secrets are set aside for masking.
import { compileSafe, PatternError, quotePattern } from './regex.ts';
import type { Capability, Input } from './schema/index.ts';

export interface InputProblem {
  input: string;
  code: 'UNKNOWN_INPUT' | 'MISSING_INPUT' | 'MISSING_SECRET' | 'INVALID_INPUT';
  message: string;
}

export type InputCheck =
  | { ok: true; values: Record<string, string>; secrets: { name: string; value: string }[] }
  | { ok: false; problems: InputProblem[] };

/** The environment variable a secret input is read from when it is not given directly. */
export function secretEnvName(input: string): string {
  return `HANDRAIL_SECRET_${input.toUpperCase()}`;
}

function checkOne(name: string, spec: Input, value: string): string | null {
  if (value.length > spec.max_length) return `is ${value.length} characters long; at most ${spec.max_length} allowed`;
  if (spec.type === 'integer' && !/^-?\d+$/.test(value)) return 'expected an integer';
  if (spec.type === 'enum' && spec.values && !spec.values.includes(value)) {
    return `expected one of ${spec.values.join(', ')}`;
  }
  if (spec.pattern !== undefined) {
    // Linear time whatever the pattern (shared/regex.ts); a card that loaded has a pattern that compiles.
    let matches: boolean;
    try {
      matches = compileSafe(spec.pattern, { full: true }).test(value);
    } catch (e) {
      if (!(e instanceof PatternError)) throw e;
      return `cannot be checked: the card's pattern ${quotePattern(spec.pattern)} is invalid (${e.message})`;
    }
    // A secret's value is never echoed; a public one is (shortened), so the caller sees what they sent.
    if (!matches) return spec.secret ? `does not match the pattern ${quotePattern(spec.pattern)}` : `${quotePattern(value, 40)} does not match the pattern ${quotePattern(spec.pattern)}`;
  }
  return null;
}

/**
 * Check `given` against the card's declared inputs. Secrets missing from `given` are taken from
 * `env` (HANDRAIL_SECRET_<NAME>). Every problem is reported, not only the first.
 */
export function validateInputs(
  card: Pick<Capability, 'inputs'>,
  given: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>> = {},
): InputCheck {
  const problems: InputProblem[] = [];
  const values: Record<string, string> = {};
  const secrets: { name: string; value: string }[] = [];
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(card.inputs, name)) {
      // Named, never its value: a misspelt secret (`passwrd=…`) is not registered for masking.
      const near = Object.keys(card.inputs).find((k) => editDistance(k, name) <= 2);
      const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
      problems.push({
        input: name.slice(0, 64),
        code: 'UNKNOWN_INPUT',
        message: `unknown input ${shown}${near ? ` (did you mean "${near}"?)` : ''} (this card takes: ${Object.keys(card.inputs).join(', ') || 'nothing'}); its value is not shown`,
      });
    }
  }
  for (const [name, spec] of Object.entries(card.inputs)) {
    const value = given[name] ?? (spec.secret ? env[secretEnvName(name)] : undefined);
    if (value === undefined || value === '') {
      problems.push(
        spec.secret
          ? { input: name, code: 'MISSING_SECRET', message: `secret input "${name}" is missing: set ${secretEnvName(name)}` }
          : { input: name, code: 'MISSING_INPUT', message: `input "${name}" is required` },
      );
      continue;
    }
    const wrong = checkOne(name, spec, value);
    if (wrong) {
      problems.push({ input: name, code: 'INVALID_INPUT', message: `input "${name}" ${wrong}` });
      continue;
    }
    values[name] = value;
    if (spec.secret) secrets.push({ name, value });
  }
  return problems.length ? { ok: false, problems } : { ok: true, values, secrets };
}

/**
 * The values a step types or picks (docs/design/capability.md, "Value maps"): each input with a value map gives its map's
 * entry for the caller's word (reason LEGAL types 1), every other input its own value. Only `op.value` is filled from
 * these; names, scopes, proofs, the judge and the journal key keep the caller's word.
 */
export function typedInputs(card: Pick<Capability, 'inputs'>, values: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = { ...values };
  for (const [name, value] of Object.entries(values)) {
    const map = card.inputs[name]?.map;
    if (map && Object.hasOwn(map, value)) out[name] = map[value] as string;
  }
  return out;
}

/** Levenshtein distance, for "did you mean" on a misspelt input name (short names only). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || a.length > 64 || b.length > 64) return 99;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    prev = row;
  }
  return prev[b.length] ?? 99;
}
