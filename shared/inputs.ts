// Inputs are validated against the card before anything is touched; secrets are set aside for masking.
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
  if (spec.pattern !== undefined && !new RegExp(`^(?:${spec.pattern})$`).test(value)) {
    // A secret's value is never echoed; a public one is, so the caller sees what they sent.
    return spec.secret ? `does not match the pattern ${spec.pattern}` : `"${value}" does not match the pattern ${spec.pattern}`;
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
    if (!(name in card.inputs)) {
      problems.push({
        input: name,
        code: 'UNKNOWN_INPUT',
        message: `unknown input "${name}" (this card takes: ${Object.keys(card.inputs).join(', ') || 'nothing'})`,
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
