// handrail.config.json: what a deployment sets once instead of on every command line — the application's base URL,
// the state directory, inputs bound for every run (`bind`, e.g. the operator id), the judge verify asks, the browser
// origins `serve --http` admits, the model authoring uses and the environment names a card's entry may read.
// Found in the working directory, or named with `--config FILE`. Flags always win over it; it never holds a secret
// (secrets come only from HANDRAIL_SECRET_<NAME>). The JSON Schema editors validate it with is generated from this
// zod source (`handrail.config.schema.json`, kept current by tests/unit/config.test.ts).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { HandrailError } from '../shared/errors.ts';
import { envAllowProblem, INPUT_NAME_RE } from '../shared/schema/index.ts';
import { readJson } from '../shared/schema/json.ts';

export const CONFIG_FILE = 'handrail.config.json';
export const CONFIG_SCHEMA_FILE = 'handrail.config.schema.json';

const InputName = z.string().regex(INPUT_NAME_RE, 'expected a lower_snake_case input name').max(64);
const EnvName = z.string().superRefine((name, ctx) => {
  const problem = envAllowProblem(name);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const HandrailConfig = z.strictObject({
  /** Where an editor finds this schema (ignored by handrail). */
  $schema: z.string().optional(),
  /** Fills {{env.BASE_URL}} in a card's entry (`--base-url`). */
  base_url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
  /** The state directory: journals and leases (`$HANDRAIL_HOME` wins). Relative to the config file. */
  state_dir: z.string().min(1).optional(),
  /**
   * Inputs bound for every run, by name (`--input` wins for a name it gives): values that belong to the deployment,
   * like the operator id. A card gets only the names it declares; a card's secret input is never bound here.
   */
  bind: z.record(InputName, z.string().max(65_536)).optional(),
  /** The judge `verify` asks (`--judge`): a URL template or a command. */
  judge: z.string().min(1).optional(),
  /** Browser origins (`scheme://host[:port]`) `serve --http` admits besides this machine's (`--allow-origin`). */
  origins: z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'expected scheme://host[:port], no path')).optional(),
  /** The model authoring uses (`HANDRAIL_MODEL`, default claude-sonnet-5-5). */
  model: z.string().min(1).optional(),
  /** Environment variables a card's entry may read as {{env.NAME}} besides BASE_URL (`--allow-env`). */
  allow_env: z.array(EnvName).optional(),
});
export type HandrailConfig = z.infer<typeof HandrailConfig>;

export class ConfigError extends HandrailError<'CONFIG_INVALID'> {
  override readonly name = 'ConfigError';
  constructor(message: string, where = '') {
    super('CONFIG_INVALID', message, where);
  }
}

export interface LoadedConfig {
  /** The file read, or null when none was found (then `config` is empty). */
  file: string | null;
  config: HandrailConfig;
}

/**
 * Reads `explicit` (from `--config`: it must exist) or `handrail.config.json` in `cwd` (optional). A file that does
 * not read, is not strict JSON (shared/schema/json.ts: no duplicate or prototype keys) or breaks the schema is a
 * ConfigError naming the file and the path inside it.
 */
export async function loadConfig(explicit: string | undefined, cwd = process.cwd()): Promise<LoadedConfig> {
  const file = explicit !== undefined ? path.resolve(cwd, explicit) : path.join(cwd, CONFIG_FILE);
  if (explicit === undefined && !existsSync(file)) return { file: null, config: {} };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read config ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, file);
  }
  const json = readJson(text);
  if (!json.ok) {
    const at = json.fault.path.map(String).join('.');
    throw new ConfigError(`config ${file}${at ? ` at ${at}` : ''}: ${json.fault.message}`, at);
  }
  const parsed = HandrailConfig.safeParse(json.value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    // A record key's own complaint is nested under zod's "Invalid key in record": say that one.
    const issue = first?.code === 'invalid_key' ? { ...first, message: first.issues[0]?.message ?? first.message } : first;
    const at = issue?.path.map(String).join('.') ?? '';
    const more = parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more)` : '';
    throw new ConfigError(`config ${file}${at ? ` at ${at}` : ''}: ${issue?.message ?? 'invalid'}${more}`, at);
  }
  const config = parsed.data;
  if (config.state_dir !== undefined) config.state_dir = path.resolve(path.dirname(file), config.state_dir);
  return { file, config };
}

/**
 * The environment a command runs with: `state_dir` becomes HANDRAIL_HOME and `model` HANDRAIL_MODEL, each unless the
 * environment already set it (a variable is as deliberate as a flag).
 */
export function envWithConfig(env: Readonly<Record<string, string | undefined>>, config: HandrailConfig): Record<string, string | undefined> {
  const out = { ...env };
  if (config.state_dir !== undefined && !env['HANDRAIL_HOME']) out['HANDRAIL_HOME'] = config.state_dir;
  if (config.model !== undefined && !env['HANDRAIL_MODEL']) out['HANDRAIL_MODEL'] = config.model;
  return out;
}

/**
 * The config's bound inputs a card takes: only names it declares and never a secret one (a config file is not a
 * place for secrets: that is refused, naming the input). `given` (from `--input`) wins name by name.
 */
export function boundInputs(
  config: HandrailConfig,
  cardInputs: Readonly<Record<string, { secret?: boolean | undefined }>>,
  given: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.bind ?? {})) {
    const spec = cardInputs[name];
    if (!spec) continue;
    if (spec.secret) throw new ConfigError(`config binds ${name}, a secret input: secrets come only from HANDRAIL_SECRET_${name.toUpperCase()}, never from a file`, `bind.${name}`);
    out[name] = value;
  }
  return { ...out, ...given };
}

export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(HandrailConfig, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
  return {
    ...schema,
    $id: 'https://handrail.dev/schema/handrail-config-v1.json',
    title: 'Handrail configuration (handrail.config.json)',
    description: 'Settings a deployment gives once instead of on every command line; flags always win, and it never holds a secret.',
  };
}

export function configSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
