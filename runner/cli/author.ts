// `handrail author`: one model-driven evening against a live application, written to a JSONL book.
// Wires the Node host into the authoring loop's ports: a browser Surface, the Anthropic or scripted Model,
// an Owner on the terminal (or a commit policy in the owner's name) and a JSONL Book.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { runEvening, type EveningResult } from '../../shared/author/evening.ts';
import type { EveningInput, Model, Owner } from '../../shared/author/ports.ts';
import { parseScript, ScriptedModel } from '../../shared/author/scripted.ts';
import { secretEnvName } from '../../shared/inputs.ts';
import { MIN_SECRET_LENGTH } from '../../shared/secrets.ts';
import { AnthropicModel, anthropicOptionsFromEnv } from '../author/anthropic.ts';
import { JsonlBook } from '../author/book.ts';
import { CommitPolicyOwner, TerminalOwner } from '../author/owner.ts';
import { surfaceOfEntry, surfaces } from '../surfaces.ts';
import type { Surface } from '../../shared/surface.ts';
import { UsageError } from './errors.ts';
import { parseInputs } from './replay.ts';

export interface AuthorFlags {
  url: string;
  goal: string;
  input?: string[];
  secret?: string[];
  owner?: string;
  ownerPolicy?: string;
  /** Seconds the owner has to answer before it counts as a no. */
  ownerTimeout?: string;
  /** A file of answers, one per line (c, n or s), read in order instead of the terminal. */
  ownerAnswers?: string;
  origin?: string[];
  ignoreWrite?: string[];
  /** `anthropic` (default) or `scripted:FILE`. */
  model?: string;
  out: string;
  headed?: boolean;
  maxTurns?: string;
  /** The surface to work on, chosen by the registry (default: tn3270 for a tn3270:// entry, else browser). */
  surface?: string;
}

export interface AuthorDeps {
  env?: Readonly<Record<string, string | undefined>>;
  stderr?: (line: string) => void;
}

/** An evening that did not finish is a failed run: the same exit code as replay's FAILED. */
export const EXIT_EVENING_FAILED = 14;

function inputsOf(flags: AuthorFlags, env: Readonly<Record<string, string | undefined>>): EveningInput[] {
  const given = parseInputs(flags.input);
  const secrets = new Set(flags.secret ?? []);
  for (const name of secrets) {
    if (!(name in given)) {
      const fromEnv = env[secretEnvName(name)];
      if (!fromEnv) throw new UsageError(`secret input "${name}" has no value: pass --input ${name}=… or set ${secretEnvName(name)}`, 'MISSING_SECRET');
      given[name] = fromEnv;
    }
    if ((given[name] ?? '').length < MIN_SECRET_LENGTH) {
      throw new UsageError(`secret input "${name}" is shorter than ${MIN_SECRET_LENGTH} characters; refusing to author with it`, 'SECRET_TOO_SHORT');
    }
  }
  return Object.entries(given).map(([name, value]) => ({ name, value, secret: secrets.has(name) }));
}

async function modelOf(spec: string, env: Readonly<Record<string, string | undefined>>): Promise<Model> {
  if (spec === 'anthropic') return new AnthropicModel(anthropicOptionsFromEnv(env));
  if (spec.startsWith('scripted:')) {
    const file = spec.slice('scripted:'.length);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read the script ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    try {
      return new ScriptedModel(parseScript(text), `scripted:${file.split('/').pop() ?? file}`);
    } catch (e) {
      throw new UsageError(`${file} is not a script of turns: ${(e as Error).message.split('\n')[0] ?? ''}`);
    }
  }
  throw new UsageError(`--model expects anthropic or scripted:FILE, got "${spec}"`);
}

function ownerOf(flags: AuthorFlags, env: Readonly<Record<string, string | undefined>>): Owner {
  const policy = flags.ownerPolicy ?? 'ask';
  if (policy === 'commit') {
    if (!flags.owner) throw new UsageError('--owner-policy commit answers in a person\'s name: pass --owner NAME');
    return new CommitPolicyOwner(flags.owner);
  }
  if (policy === 'ask') {
    const name = flags.owner ?? env['USER'] ?? 'owner';
    return flags.ownerAnswers ? TerminalOwner.fromFile(name, flags.ownerAnswers) : new TerminalOwner(name);
  }
  throw new UsageError(`--owner-policy expects ask or commit, got "${policy}"`);
}

export function summary(result: EveningResult, book: string): Record<string, unknown> {
  const tokens = result.costs.map((c) => c.approx_tokens);
  const mean = tokens.length ? Math.round(tokens.reduce((a, b) => a + b, 0) / tokens.length) : 0;
  return {
    ...(result.ok ? { ok: true, finished: result.finished } : { ok: false, code: result.code, message: result.message }),
    turns: result.turns,
    lines: result.lines,
    book,
    approx_tokens_per_turn: { mean, max: Math.max(0, ...tokens) },
    // What the API itself counted (tokens in and out, cache reads), when the model reports it.
    ...(result.usage ? { usage: result.usage } : {}),
  };
}

export async function authorCommand(flags: AuthorFlags, deps: AuthorDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const say = deps.stderr ?? ((l: string) => process.stderr.write(`${l}\n`));
  if (!flags.url) throw new UsageError('--url is required (the entry, e.g. http://127.0.0.1:8080/signon)');
  if (!flags.goal) throw new UsageError('--goal is required');
  if (!flags.out) throw new UsageError('-o <trace.jsonl> is required');
  const maxTurns = flags.maxTurns === undefined ? undefined : Number(flags.maxTurns);
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && maxTurns > 0)) {
    throw new UsageError(`--max-turns expects a positive integer, got "${flags.maxTurns}"`);
  }
  const ownerTimeout = flags.ownerTimeout === undefined ? undefined : Number(flags.ownerTimeout);
  if (ownerTimeout !== undefined && !(Number.isFinite(ownerTimeout) && ownerTimeout > 0 && ownerTimeout <= 86_400)) {
    throw new UsageError(`--owner-timeout expects seconds between 1 and 86400, got "${String(flags.ownerTimeout).slice(0, 40)}"`);
  }
  for (const e of flags.ignoreWrite ?? []) {
    if (!/^(?:[A-Z]+ )?\/\S*$/.test(e)) throw new UsageError(`--ignore-write expects "METHOD /path" or "/path", got "${e.slice(0, 60)}"`);
  }
  const chosen = surfaces.choose(flags.surface ?? surfaceOfEntry(flags.url));
  if (!chosen.ok) throw new UsageError(chosen.message, chosen.code);
  const inputs = inputsOf(flags, env);
  const model = await modelOf(flags.model ?? 'anthropic', env);
  if (flags.ownerAnswers !== undefined) {
    if ((flags.ownerPolicy ?? 'ask') !== 'ask') throw new UsageError('--owner-answers gives the answers of --owner-policy ask; drop one of them');
    if (!existsSync(flags.ownerAnswers)) throw new UsageError(`--owner-answers: no file ${flags.ownerAnswers}`);
  }
  const owner = ownerOf(flags, env);
  let book: JsonlBook;
  try {
    book = await JsonlBook.create(flags.out);
  } catch (e) {
    if (owner instanceof TerminalOwner) owner.close();
    throw e;
  }
  let surface: Surface | null = null;
  try {
    surface = await chosen.driver.open({ headed: flags.headed ?? false });
    // A browser host may also offer CSS selectors as the last rung; loaded only for the browser, so a terminal or
    // mac evening never loads Playwright.
    const cssRung = chosen.driver.declaration.name === 'browser' ? await browserSelectors(surface) : undefined;
    const result = await runEvening({
      surface,
      model,
      owner,
      book,
      goal: flags.goal,
      entry: flags.url,
      inputs,
      ...(maxTurns !== undefined ? { maxTurns } : {}),
      ...(ownerTimeout !== undefined ? { ownerTimeoutMs: ownerTimeout * 1000 } : {}),
      ...(flags.origin || flags.ignoreWrite ? { writes: { ...(flags.origin ? { origins: flags.origin } : {}), ...(flags.ignoreWrite ? { ignore: flags.ignoreWrite } : {}) } } : {}),
      ...(cssRung ? { selectorsFor: cssRung } : {}),
      progress: say,
    });
    process.stdout.write(`${JSON.stringify(summary(result, flags.out), null, 2)}\n`);
    return result.ok ? 0 : EXIT_EVENING_FAILED;
  } finally {
    // The terminal owner holds one reader on stdin for the evening: let go of it, or the process would wait on input.
    if (owner instanceof TerminalOwner) owner.close();
    await surface?.close();
    await book.close();
  }
}

async function browserSelectors(surface: Surface): Promise<((ref: string) => Promise<string[]>) | undefined> {
  const [{ BrowserSurface }, { selectorsFor }] = await Promise.all([import('../browser/surface.ts'), import('../author/selectors.ts')]);
  return surface instanceof BrowserSurface ? selectorsFor(surface.page) : undefined;
}
