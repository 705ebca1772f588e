// `handrail replay <card>`: one run, receipt as JSON on stdout, progress on stderr, exit code from the word.
import { readFile } from 'node:fs/promises';
import { formatIssues, loadCapability, type Capability } from '../../shared/schema/index.ts';
import { EXIT_CODE, RunResult } from '../../shared/schema/result.ts';
import { loadFailpoint } from '../engine/failpoint.ts';
import { stateHome, storeIn } from '../intent.ts';
import { resultBeforeRun, runCapability } from '../run.ts';
import { UsageError } from './errors.ts';

export interface ReplayFlags {
  input?: string[];
  baseUrl?: string;
  journal?: string;
  evidence?: string;
  headed?: boolean;
  settleTimeout?: string;
  allowUnapproved?: boolean;
  wait?: string;
}

export function parseInputs(pairs: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--input expects name=value, got "${pair.length > 40 ? `${pair.slice(0, 40)}…` : pair}"`);
    const name = pair.slice(0, eq);
    if (name in out) throw new UsageError(`--input ${name} given twice`);
    out[name] = pair.slice(eq + 1);
  }
  return out;
}

export async function readCard(path: string): Promise<{ ok: true; card: Capability } | { ok: false; message: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    return { ok: false, message: `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  const loaded = loadCapability(text);
  if (!loaded.ok) return { ok: false, message: `${path} is not a valid capability:\n${formatIssues(loaded.issues)}` };
  return { ok: true, card: loaded.value };
}

export function printResult(result: RunResult): number {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return EXIT_CODE[result.word];
}

export async function replayCommand(cardPath: string, flags: ReplayFlags): Promise<number> {
  loadFailpoint();
  const inputs = parseInputs(flags.input);
  const settle = flags.settleTimeout === undefined ? undefined : Number(flags.settleTimeout);
  if (settle !== undefined && !(Number.isInteger(settle) && settle > 0)) {
    throw new UsageError(`--settle-timeout expects milliseconds, got "${flags.settleTimeout}"`);
  }
  const wait = flags.wait === undefined ? 0 : Number(flags.wait);
  if (!(Number.isInteger(wait) && wait >= 0)) throw new UsageError(`--wait expects milliseconds, got "${flags.wait}"`);
  const loaded = await readCard(cardPath);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.message}\n`);
    return printResult(resultBeforeRun(cardPath, 'none', 'REFUSED', 'CARD_INVALID', loaded.message.split('\n')[0] ?? ''));
  }
  const env = { ...process.env, ...(flags.baseUrl ? { BASE_URL: flags.baseUrl.replace(/\/+$/, '') } : {}) };
  const result = await runCapability({
    card: loaded.card,
    inputs,
    env,
    open: { headed: Boolean(flags.headed) },
    progress: (line) => process.stderr.write(`${line}\n`),
    // Every replay is journalled: under $HANDRAIL_HOME by key, or in the file --journal names.
    store: storeIn(stateHome(process.env)),
    lockWaitMs: wait,
    ...(flags.journal ? { journalPath: flags.journal } : {}),
    ...(flags.evidence ? { evidenceDir: flags.evidence } : {}),
    ...(settle ? { settleTimeoutMs: settle } : {}),
    ...(flags.allowUnapproved ? { allowUnapproved: true } : {}),
  });
  if (result.unapproved) process.stderr.write('warning: this card ran without an approval bound to its content (--allow-unapproved)\n');
  const fromJournal = result.from_journal ? ' · answered from the journal' : '';
  process.stderr.write(`${result.word} ${result.code}${fromJournal}${result.evidence ? ` · evidence ${result.evidence}` : ''}\n`);
  return printResult(result);
}
