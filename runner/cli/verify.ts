// `handrail verify <card> --inputs plates.csv --judge <cmd|url> [--change FILE] [--judge-env NAME…]`: one cold
// replay per plate, the system of record asked before and after each. A per-plate table on stderr, a JSON
// summary on stdout; exit 0 only when the card is verified.
import { readFile } from 'node:fs/promises';
import { ExpectedChange } from '../../shared/schema/capability.ts';
import { boundInputs, envWithConfig, loadConfig } from '../config.ts';
import { judgeFrom, JudgeSpecError } from '../judge.ts';
import { Progress } from '../progress.ts';
import { parsePlatesCsv, verify, VerifyError, writeLifecycle, type PlateReport } from '../verify.ts';
import { UsageError } from './errors.ts';
import { openNotebook } from './notebook.ts';
import { parseInputs, readCard, withAllowedEnv } from './replay.ts';

export interface VerifyFlags {
  /** CSV: a header of input names, one plate per row. */
  inputs: string;
  /** A URL template (`http://…/_judge/holds/{{share_id}}`) or a shell command (default: the config's `judge`). */
  judge?: string;
  /** handrail.config.json to read (default: the one in the working directory, if any). */
  config?: string;
  /** A JSON file `{"before": {...}, "after": {...}}`: the expected change, instead of the card's `judge.change`. */
  change?: string;
  /** Environment variables a command judge may see besides PATH, HOME and LANG (never secrets or keys). */
  judgeEnv?: string[];
  /** Environment variables the card's entry may read besides BASE_URL (`{{env.NAME}}`). */
  allowEnv?: string[];
  baseUrl?: string;
  /** name=value inputs shared by every plate (e.g. operator_id=OP1001). */
  input?: string[];
  /** Plates' evidence under <dir>/plate-<n> (default runs/verify-<run id>). */
  evidence?: string;
  settleTimeout?: string;
  headed?: boolean;
}

/** Exit codes: 0 verified, 1 not verified (the card is written back either way), 2 usage. */
export const EXIT_NOT_VERIFIED = 1;

function table(plates: readonly PlateReport[]): string {
  const rows = plates.map((p) => [
    String(p.n),
    Object.values(p.plate).join(' '),
    p.word ? `${p.word} ${p.code ?? ''}` : 'not run',
    p.word ? `${p.llm_calls}/${p.classifier_calls}` : '-',
    p.judge.changed === null ? '-' : p.judge.changed ? 'changed' : 'no change',
    p.clean ? 'CLEAN' : p.status === 'refused' ? `REFUSED ${p.why}` : `FAILED ${p.why}`,
  ]);
  const head = ['#', 'plate', 'result', 'llm/clf', 'judge', 'verdict'];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.slice().map((r) => (c === 5 ? 0 : (r[c] ?? '').length))));
  const fmt = (r: readonly string[]): string => r.map((cell, c) => (c === 5 ? cell : cell.padEnd(widths[c] ?? 0))).join('  ');
  return [fmt(head), ...rows.map(fmt)].join('\n');
}

export async function verifyCommand(cardPath: string, flags: VerifyFlags): Promise<number> {
  if (!flags.inputs) throw new UsageError('verify needs --inputs plates.csv');
  const { config } = await loadConfig(flags.config);
  const judgeSpec = flags.judge ?? config.judge;
  if (!judgeSpec) throw new UsageError('verify needs --judge <command|url> (or "judge" in handrail.config.json)');
  const settle = flags.settleTimeout === undefined ? undefined : Number(flags.settleTimeout);
  if (settle !== undefined && !(Number.isInteger(settle) && settle > 0)) {
    throw new UsageError(`--settle-timeout expects milliseconds, got "${flags.settleTimeout}"`);
  }
  const given = parseInputs(flags.input);
  let judge;
  try {
    judge = judgeFrom(judgeSpec, flags.judgeEnv ?? []);
  } catch (e) {
    if (e instanceof JudgeSpecError) throw new UsageError(e.message, e.code);
    throw e;
  }
  const change = flags.change === undefined ? undefined : await readChange(flags.change);
  let csv: string;
  try {
    csv = await readFile(flags.inputs, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${flags.inputs}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const loaded = await readCard(cardPath);
  if (!loaded.ok) throw new UsageError(loaded.message, 'CARD_INVALID');
  // Flags win over the config file: --input name by name, --base-url, --allow-env as a whole.
  const fixed = boundInputs(config, loaded.card.inputs, given);
  const baseUrl = flags.baseUrl ?? config.base_url;
  const env = withAllowedEnv({ ...envWithConfig(process.env, config), ...(baseUrl ? { BASE_URL: baseUrl.replace(/\/+$/, '') } : {}) }, flags.allowEnv ?? config.allow_env);
  let bar: Progress | undefined;
  const err = (line: string): void => (bar ? bar.log(line) : void process.stderr.write(`${line}\n`));
  // Each plate's run goes into the notebook, as a CLI replay's does.
  const notebook = await openNotebook(err);
  try {
    const plates = parsePlatesCsv(csv, flags.inputs);
    bar = new Progress({ total: plates.length, label: 'plates' });
    const report = await verify(loaded.card, {
      plates,
      judge,
      ...(change ? { change } : {}),
      env,
      fixedInputs: fixed,
      open: { headed: Boolean(flags.headed) },
      progress: err,
      plateDone: (p) => bar?.tick(p.clean ? 'CLEAN' : p.status === 'refused' ? 'REFUSED' : 'FAILED'),
      ...(flags.evidence ? { evidenceRoot: flags.evidence } : {}),
      ...(settle ? { settleTimeoutMs: settle } : {}),
      ...(notebook ? { notebook } : {}),
    });
    bar.finish();
    await writeLifecycle(cardPath, report.lifecycle);
    err('');
    err(table(report.plates));
    err('');
    err(`${report.summary}; ${cardPath} now says lifecycle.state = ${report.lifecycle.state}`);
    process.stdout.write(`${JSON.stringify({ card: report.card, verified: report.verified, k: report.k, n: report.n, state: report.lifecycle.state, unconfirmed_commits: report.unconfirmed_commits, summary: report.summary, plates: report.plates }, null, 2)}\n`);
    return report.verified ? 0 : EXIT_NOT_VERIFIED;
  } catch (e) {
    bar?.finish();
    if (e instanceof VerifyError) throw new UsageError(e.message, e.code);
    throw e;
  } finally {
    notebook?.close();
  }
}

async function readChange(file: string): Promise<ExpectedChange> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`cannot read --change ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const r = ExpectedChange.safeParse(raw);
  if (!r.success) {
    throw new UsageError(`--change ${file}: expected {"before": {field: value}, "after": {field: value}}: ${r.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ')}`, 'BAD_CHANGE');
  }
  return r.data;
}
