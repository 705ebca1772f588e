// Blanks are the only way a value reaches a card: `{{input.member_number}}`, `{{env.BASE_URL}}`.
// They may stand in target names, scopes, op values, ladder values and the entry.

export const BLANK_RE = /\{\{\s*(input|env)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
export const INPUT_NAME_RE = /^[a-z][a-z0-9_]*$/;

export interface BlankRef {
  source: 'input' | 'env';
  name: string;
}

export function blanksIn(text: string): BlankRef[] {
  const found: BlankRef[] = [];
  for (const m of text.matchAll(BLANK_RE)) {
    found.push({ source: m[1] as 'input' | 'env', name: m[2] as string });
  }
  return found;
}

export function blankFor(input: string): string {
  return `{{input.${input}}}`;
}

export class UnboundBlankError extends Error {
  override readonly name = 'UnboundBlankError';
  readonly code = 'UNBOUND_BLANK';
  constructor(readonly blank: string) {
    super(`no value for ${blank}`);
  }
}

/** Fill every blank in `text`; a blank with no value is an error, never an empty string. */
export function fillBlanks(
  text: string,
  values: { input: Readonly<Record<string, string>>; env: Readonly<Record<string, string | undefined>> },
): string {
  return text.replace(BLANK_RE, (whole, source: 'input' | 'env', name: string) => {
    const v = source === 'input' ? values.input[name] : values.env[name];
    if (v === undefined) throw new UnboundBlankError(whole);
    return v;
  });
}

// ---- the environment a card may read ----
// A card reads the environment only where someone chose to let it: `{{env.BASE_URL}}` (filled from `--base-url`,
// not a secret), and names the operator allows (`--allow-env NAME`, or HANDRAIL_ALLOW_ENV=NAME,NAME). Secrets
// reach a card only as declared secret inputs (HANDRAIL_SECRET_<NAME>), never as `{{env.…}}`.

/** Always readable by `{{env.…}}`: where the application is, given with `--base-url`. */
export const ALWAYS_ALLOWED_ENV: readonly string[] = ['BASE_URL'];

/** The operator's allowlist in the environment: comma-separated names. The `--allow-env` flags add to it. */
export const ALLOW_ENV_VAR = 'HANDRAIL_ALLOW_ENV';

/** Never allowed, whoever asks: Handrail's own secrets and keys, and a model provider's. */
const NEVER_ENV = /^(HANDRAIL_|ANTHROPIC_|OPENAI_)/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Why `name` cannot be allowlisted, or null. */
export function envAllowProblem(name: string): string | null {
  if (!ENV_NAME.test(name)) return `${JSON.stringify(name.slice(0, 64))} is not an environment variable name`;
  if (NEVER_ENV.test(name)) return `${name} can never be read by a card (secrets reach a card only as declared secret inputs, HANDRAIL_SECRET_<NAME>)`;
  return null;
}

/** The allowlist in force: BASE_URL, the names in HANDRAIL_ALLOW_ENV, and `extra`; names that may never be read are dropped. */
export function allowedEnvNames(env: Readonly<Record<string, string | undefined>>, extra: readonly string[] = []): Set<string> {
  const listed = (env[ALLOW_ENV_VAR] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return new Set([...ALWAYS_ALLOWED_ENV, ...listed, ...extra].filter((n) => envAllowProblem(n) === null));
}

/** The `{{env.X}}` blanks in `text` whose names are not allowed, and the environment cut down to the allowed names. */
export function envForCard(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  extra: readonly string[] = [],
): { refused: string[]; env: Record<string, string | undefined> } {
  const allowed = allowedEnvNames(env, extra);
  const refused = [...new Set(blanksIn(text).filter((b) => b.source === 'env' && !allowed.has(b.name)).map((b) => b.name))];
  const out: Record<string, string | undefined> = {};
  for (const n of allowed) if (env[n] !== undefined) out[n] = env[n];
  return { refused, env: out };
}
