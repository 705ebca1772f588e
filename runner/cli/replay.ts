// `handrail replay <card>`: one run, receipt as JSON on stdout, progress on stderr, exit code from the word.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import { ALLOW_ENV_VAR, envAllowProblem, formatIssues, INPUT_NAME_RE, loadCapability, type Capability } from '../../shared/schema/index.ts';
import { EXIT_CODE, RunResult, type Rehearsal } from '../../shared/schema/result.ts';
import { Batch, batchExitCode, readRows, summaryTable } from '../batch.ts';
import { startBrowser } from '../browser/remote.ts';
import { Progress } from '../progress.ts';
import { loadFailpoint } from '../engine/failpoint.ts';
import { boundInputs, envWithConfig, loadConfig } from '../config.ts';
import { stateHome, storeIn } from '../intent.ts';
import { openSharedJournal } from '../journals.ts';
import { newRunId, resultBeforeRun, runCapability, type ProbeRunner, type RunRequest } from '../run.ts';
import { UsageError } from './errors.ts';
import { openNotebook } from './notebook.ts';
import { AnthropicModel, anthropicOptionsFromEnv } from '../author/anthropic.ts';
import { CountedModel, Scout } from '../escalate/scout.ts';
import { ClaudeReferee } from '../escalate/claude.ts';
import { ConsolePerson } from '../escalate/console.ts';
import { LocalReferee } from '../escalate/local.ts';
import type { Referee } from '../escalate/referee.ts';
import { phasesFromEnv } from '../profile.ts';

export interface ReplayFlags {
  input?: string[];
  baseUrl?: string;
  journal?: string;
  evidence?: string;
  headed?: boolean;
  settleTimeout?: string;
  allowUnapproved?: boolean;
  wait?: string;
  probe?: boolean;
  /** Environment variables the card's entry may read besides BASE_URL (`{{env.NAME}}`). */
  allowEnv?: string[];
  /** Record a Playwright trace of the run into this zip (refused for a card with secret inputs). */
  trace?: string;
  /** handrail.config.json to read (default: the one in the working directory, if any). */
  config?: string;
  /** The escalation ladder's referee: `local` (no network), `claude` (ANTHROPIC_API_KEY) or `none` (the default). */
  referee?: string;
  /** The escalation ladder's scout: `claude` (ANTHROPIC_API_KEY) or `none` (the default). */
  scout?: string;
  /** A CSV file whose header names inputs: one run per row (runner/batch.ts). */
  inputs?: string;
  /** With --inputs: how many rows run at once (default 1). */
  parallel?: string;
  /** On the first SIGINT/SIGTERM of a batch, how long running rows may take before they are cancelled (default 30000). */
  drainMs?: string;
  /** A Playwright browser server to open contexts in instead of launching Chromium (runner/browser/remote.ts). */
  browserWs?: string;
  /** The escalation ladder's person: a console on 127.0.0.1, its one-time URL on stderr. */
  console?: boolean;
  /** How long the console waits for a person before the climb goes on without one (ms). */
  consoleTimeout?: string;
  /** Run up to the first commit, show the request it would send, press nothing (word REHEARSED). */
  rehearse?: boolean;
}

/**
 * `--trace` is refused for a card with any secret input, rather than masked: a Playwright trace keeps each `fill`
 * value in its action log, every input's value in its DOM snapshots, the typed text in its screencast frames and
 * form posts in its network log. Masking would mean rewriting a zip whose formats Playwright owns and changes, and
 * a picture cannot be masked by text at all; a refusal is the only answer that cannot leak.
 */
export function traceRefusal(card: Capability): UsageError | null {
  const secrets = Object.entries(card.inputs).filter(([, spec]) => spec.secret).map(([name]) => name);
  if (secrets.length === 0) return null;
  return new UsageError(
    `--trace: card ${card.id} has secret input${secrets.length === 1 ? '' : 's'} ${secrets.join(', ')}, and a Playwright trace records typed values (actions, DOM snapshots, screenshots, network) unmasked; trace only cards without secrets, or read the run's evidence (handrail report)`,
    'TRACE_WOULD_RECORD_SECRET',
  );
}

/** The scout `--scout` names: a model at the authoring card with commit struck off and a four-turn leash. */
export function scoutFor(name: string | undefined, env: Readonly<Record<string, string | undefined>>): Scout | undefined {
  if (name === undefined || name === 'none') return undefined;
  if (name === 'claude') return new Scout(new CountedModel(new AnthropicModel(anthropicOptionsFromEnv(env))));
  throw new UsageError(`--scout expects claude or none, got "${name.slice(0, 20)}"`);
}

/** The referee `--referee` names; `claude` reads its key, endpoint and model from the environment. */
export function refereeFor(name: string | undefined, env: Readonly<Record<string, string | undefined>>): Referee | undefined {
  if (name === undefined || name === 'none') return undefined;
  if (name === 'local') return new LocalReferee();
  if (name === 'claude') return new ClaudeReferee(anthropicOptionsFromEnv(env));
  throw new UsageError(`--referee expects local, claude or none, got "${name.slice(0, 20)}"`);
}

/**
 * Loads the probe a card declares (its path is relative to the card's file) and wires it to run with the same
 * inputs (those it declares), environment and browser. A probe that commits is no probe: refused.
 */
export async function probeFor(
  card: Capability,
  cardPath: string,
  inputs: Readonly<Record<string, string>>,
  base: Pick<RunRequest, 'env' | 'surface' | 'open' | 'progress' | 'settleTimeoutMs'>,
): Promise<ProbeRunner> {
  const decl = card.probe;
  if (!decl) throw new UsageError(`--probe: ${cardPath} declares no probe (add "probe": {"card": …, "committed": …, "not_committed": …})`);
  const file = resolvePath(dirname(cardPath), decl.card);
  const loaded = await readCard(file);
  if (!loaded.ok) throw new UsageError(`--probe: ${loaded.message.split('\n')[0] ?? ''}`);
  const probe = loaded.card;
  const commit = probe.steps.find((s) => s.effect.kind === 'commit');
  if (commit) throw new UsageError(`--probe: ${file} has a commit step (${commit.id}); a probe must be read-only`);
  for (const name of [decl.committed, decl.not_committed]) {
    if (!(name in probe.outcomes.business)) throw new UsageError(`--probe: ${file} declares no business outcome "${name}"`);
  }
  const own = Object.fromEntries(Object.entries(inputs).filter(([k]) => k in probe.inputs));
  return {
    decl,
    card: probe,
    run: () =>
      runCapability({
        ...base,
        card: probe,
        inputs: own,
        ...(base.progress ? { progress: (l: string) => base.progress?.(`probe: ${l}`) } : {}),
      }),
  };
}

/**
 * `--input name=value` pairs. A value is never shown in an error (it may be a secret typed in the wrong place):
 * a pair without `=` is described by its position, a bad name is quoted short. Unknown names are reported by
 * the run's preflight, by name only.
 */
export function parseInputs(pairs: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  pairs.forEach((pair, i) => {
    const eq = pair.indexOf('=');
    if (eq < 0) throw new UsageError(`--input expects name=value; input ${i + 1} has no "=" (not shown: it may hold a secret)`);
    const name = pair.slice(0, eq);
    if (!INPUT_NAME_RE.test(name) || name.length > 64) {
      throw new UsageError(`--input expects name=value with a lower_snake_case name; input ${i + 1} has ${name ? `the name ${JSON.stringify(name.slice(0, 40))}` : 'no name'}`);
    }
    if (Object.hasOwn(out, name)) throw new UsageError(`--input ${name} given twice`);
    out[name] = pair.slice(eq + 1);
  });
  return { ...out };
}

/** The environment a run sees, with the `--allow-env` names added to the allowlist (HANDRAIL_ALLOW_ENV). */
export function withAllowedEnv(env: Readonly<Record<string, string | undefined>>, names: readonly string[] = []): Record<string, string | undefined> {
  for (const n of names) {
    const problem = envAllowProblem(n);
    if (problem) throw new UsageError(`--allow-env: ${problem}`, 'ENV_NOT_ALLOWED');
  }
  if (names.length === 0) return { ...env };
  const listed = (env[ALLOW_ENV_VAR] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return { ...env, [ALLOW_ENV_VAR]: [...listed, ...names].join(',') };
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

/** A rehearsal's finding for a person (stderr): the request the commit would send, one field a line, masked. */
export function rehearsalText(r: Rehearsal): string {
  const how = { form: 'read off its form, nothing pressed', press: 'caught from a press with every request stopped', none: 'not known' }[r.derived];
  const lines = [`rehearsal: commit ${r.step} (${r.checked.join(', ')} checked) would send${r.request ? ` ${r.request.method} ${r.request.url}` : ' nothing that can be shown'} (${how})`];
  for (const f of r.request?.fields ?? []) lines.push(`  ${f.name} = ${f.value}`);
  if (r.note) lines.push(`  note: ${r.note}`);
  return lines.join('\n');
}

export function printResult(result: RunResult): number {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return EXIT_CODE[result.word];
}

/** A whole number flag in [min, max], or a usage error naming the flag. */
function intFlag(flag: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!(Number.isInteger(n) && n >= min && n <= max)) throw new UsageError(`${flag} expects a whole number from ${min} to ${max}, got "${v.slice(0, 20)}"`);
  return n;
}

export async function replayCommand(cardPath: string, flags: ReplayFlags): Promise<number> {
  loadFailpoint();
  const { config } = await loadConfig(flags.config);
  const given = parseInputs(flags.input);
  // A Claude referee or scout takes its model from the config too (HANDRAIL_MODEL wins).
  const referee = refereeFor(flags.referee, envWithConfig(process.env, config));
  const scout = scoutFor(flags.scout, envWithConfig(process.env, config));
  const settle = intFlag('--settle-timeout', flags.settleTimeout, 1, 3_600_000);
  const wait = intFlag('--wait', flags.wait, 0, 3_600_000) ?? 0;
  const parallel = intFlag('--parallel', flags.parallel, 1, 64);
  const drainMs = intFlag('--drain-ms', flags.drainMs, 0, 3_600_000) ?? 30_000;
  const consoleTimeout = flags.consoleTimeout === undefined ? undefined : Number(flags.consoleTimeout);
  if (consoleTimeout !== undefined && !(Number.isInteger(consoleTimeout) && consoleTimeout > 0)) {
    throw new UsageError(`--console-timeout expects milliseconds, got "${String(flags.consoleTimeout).slice(0, 20)}"`);
  }
  if (consoleTimeout !== undefined && !flags.console) throw new UsageError('--console-timeout needs --console');
  // A probe's answer settles the journal; a rehearsal writes nothing to it.
  if (flags.rehearse && flags.probe) throw new UsageError('--rehearse writes nothing to the journal, and --probe settles it: use one of them');
  if (flags.inputs === undefined) {
    if (parallel !== undefined) throw new UsageError('--parallel runs the rows of --inputs <rows.csv> side by side; give the rows file');
  } else {
    // One journal file holds one intent, and one trace one run: a batch keeps a journal per key under $HANDRAIL_HOME.
    if (flags.journal) throw new UsageError('--journal names one intent\'s file; with --inputs every row keeps its own journal by key under $HANDRAIL_HOME');
    if (flags.trace) throw new UsageError('--trace records one run; it cannot be combined with --inputs');
    // One person cannot sit at a console for rows running side by side: a batch climbs no higher than the scout.
    if (flags.console) throw new UsageError('--console puts a person on one run\'s ladder; it cannot be combined with --inputs');
  }
  const loaded = await readCard(cardPath);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.message}\n`);
    return printResult(resultBeforeRun(cardPath, 'none', 'REFUSED', 'CARD_INVALID', loaded.message.split('\n')[0] ?? ''));
  }
  const card = loaded.card;
  if (flags.trace !== undefined) {
    const refused = traceRefusal(card);
    if (refused) throw refused;
  }
  // Flags win over the config file: --input name by name, --base-url, --allow-env as a whole.
  const inputs = boundInputs(config, card.inputs, given);
  const baseUrl = flags.baseUrl ?? config.base_url;
  const base = envWithConfig(process.env, config);
  const env = withAllowedEnv({ ...base, ...(baseUrl ? { BASE_URL: baseUrl.replace(/\/+$/, '') } : {}) }, flags.allowEnv ?? config.allow_env);
  // Every row is checked before a browser starts or anything is pressed.
  const rows = flags.inputs === undefined ? undefined : readRows(await readRowsFile(flags.inputs), flags.inputs, card, inputs, env);
  const progress = (line: string): void => void process.stderr.write(`${line}\n`);
  // HANDRAIL_JOURNAL_URL: the shared journal many machines answer from (runner/journals.ts); else the file journal.
  const shared = await openSharedJournal(base);
  if (shared && flags.journal) {
    await shared.close();
    throw new UsageError('--journal names a file, but HANDRAIL_JOURNAL_URL keeps the journals in a database: use one of them');
  }
  let browser;
  try {
    browser = flags.browserWs === undefined ? undefined : await startBrowser({ wsEndpoint: flags.browserWs });
  } catch (e) {
    await shared?.close();
    throw e;
  }
  const notebook = await openNotebook(progress, base);
  // HANDRAIL_PROFILE=1: every run of this command adds its phases to one table, printed on stderr at the end.
  const profile = phasesFromEnv(process.env);
  try {
    const drifting = notebook?.drifting(card.id) ?? [];
    if (drifting.length) {
      progress(`warning: the last run of ${card.id} found ${drifting.map((d) => `${d.target} on ${d.latest} (first choice ${d.first_choice})`).join(', ')}: the application may have changed (handrail drift ${cardPath})`);
    }
    // Every replay is journalled: under $HANDRAIL_HOME by key, or in the file --journal names.
    const common = {
      card,
      env,
      store: storeIn(stateHome(base)),
      lockWaitMs: wait,
      ...(settle ? { settleTimeoutMs: settle } : {}),
      ...(flags.allowUnapproved ? { allowUnapproved: true } : {}),
      ...(flags.rehearse ? { rehearse: true } : {}),
      ...(referee ? { referee } : {}),
      ...(scout ? { scout } : {}),
      ...(shared ? { journalStore: shared } : {}),
      // Every run is recorded in the notebook once it has its receipt (runCapability does it).
      ...(notebook ? { notebook } : {}),
      ...(profile ? { profile } : {}),
    } satisfies Partial<RunRequest>;
    if (rows) {
      const one = browser ?? (await startBrowser({ headed: Boolean(flags.headed) }));
      try {
        return await replayRows(cardPath, rows, parallel ?? 1, drainMs, flags, {
          ...common,
          open: { headed: Boolean(flags.headed), browser: () => Promise.resolve(one) },
        });
      } finally {
        await one.close().catch(() => undefined);
      }
    }
    // The one-time URL goes to stderr only: never into the evidence, the receipt or the notebook.
    const person = flags.console
      ? new ConsolePerson({ announce: (url) => progress(`a person is needed: open ${url}`), ...(consoleTimeout ? { timeoutMs: consoleTimeout } : {}) })
      : undefined;
    // SIGINT/SIGTERM (a CI job cancelled): the run stops before its next step unless a commit was dispatched, and a
    // person asked at the console is let go at once (docs/design/escalation.md, "The escalation ladder", "A person on the ladder"). The browser is
    // launched without Playwright's own signal handlers, so it outlives the signal until the run has written its
    // evidence and closes it; a second signal exits at once.
    const stopping = new AbortController();
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals): void => {
      if (++signals > 1) {
        progress(`${sig} again: exiting now`);
        process.exit(sig === 'SIGINT' ? 130 : 143);
      }
      progress(`${sig}: stopping (a commit already dispatched is seen through; a second signal exits at once)`);
      stopping.abort(sig);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let launched: ReturnType<typeof startBrowser> | undefined;
    const own = (): ReturnType<typeof startBrowser> => (launched ??= startBrowser({ headed: Boolean(flags.headed) }));
    const open = { headed: Boolean(flags.headed), browser: browser ? () => Promise.resolve(browser) : own };
    try {
      const probe = flags.probe ? await probeFor(card, cardPath, inputs, { env, open, progress, ...(settle ? { settleTimeoutMs: settle } : {}) }) : undefined;
      const trace = flags.trace === undefined ? undefined : resolvePath(flags.trace);
      const result = await runCapability({
        ...common,
        inputs,
        open: { ...open, ...(trace ? { trace } : {}) },
        progress,
        ...(flags.journal ? { journalPath: flags.journal } : {}),
        ...(flags.evidence ? { evidenceDir: flags.evidence } : {}),
        ...(probe ? { probe } : {}),
        ...(person ? { person } : {}),
        signal: stopping.signal,
      });
      if (result.unapproved && !flags.rehearse) process.stderr.write('warning: this card ran without an approval bound to its content (--allow-unapproved)\n');
      if (result.rehearsal) process.stderr.write(`${rehearsalText(result.rehearsal)}\n`);
      const fromJournal = result.from_journal ? ' · answered from the journal' : '';
      process.stderr.write(`${result.word} ${result.code}${fromJournal}${result.evidence ? ` · evidence ${result.evidence}` : ''}\n`);
      if (trace) process.stderr.write(existsSync(trace) ? `trace ${trace} (open it: npx playwright show-trace ${trace})\n` : `warning: no trace was written to ${trace} (the run opened no browser, or the trace could not be saved)\n`);
      return printResult(result);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      if (launched) await launched.then((b) => b.close(), () => undefined).catch(() => undefined);
    }
  } finally {
    if (profile) process.stderr.write(`${profile.table()}\n`);
    notebook?.close();
    if (browser && rows === undefined) await browser.close().catch(() => undefined);
    await shared?.close();
  }
}

async function readRowsFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new UsageError(`--inputs: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/**
 * `--inputs rows.csv [--parallel N]`: one run per row in the shared browser (a context each), one receipt per row as
 * a JSON line on stdout (`row` first), the bar and a summary table on stderr. SIGINT/SIGTERM drains: no row starts,
 * running rows get --drain-ms to finish and are then cancelled; a second signal cancels at once.
 */
async function replayRows(
  cardPath: string,
  rows: ReturnType<typeof readRows>,
  parallel: number,
  drainMs: number,
  flags: ReplayFlags,
  common: Omit<RunRequest, 'inputs'>,
): Promise<number> {
  const card = common.card;
  const bar = new Progress({ total: rows.length, label: 'runs' });
  const say = (line: string): void => bar.log(line);
  bar.log(`${card.id}: ${rows.length} row${rows.length === 1 ? '' : 's'} from ${flags.inputs ?? ''}, ${parallel} at a time`);
  const evidenceRoot = flags.evidence ?? 'runs';
  // A card without a usable probe is refused before any row runs, not once per row.
  const probeBase = { env: common.env, ...(common.open ? { open: common.open } : {}), ...(common.settleTimeoutMs ? { settleTimeoutMs: common.settleTimeoutMs } : {}) };
  if (flags.probe && rows[0]) await probeFor(card, cardPath, rows[0].inputs, probeBase);
  const batch = new Batch({
    rows,
    parallel,
    card: card.id,
    log: say,
    run: async (row, signal) => {
      const runId = newRunId();
      const probe = flags.probe ? await probeFor(card, cardPath, row.inputs, probeBase) : undefined;
      return runCapability({
        ...common,
        inputs: row.inputs,
        runId,
        evidenceDir: resolvePath(evidenceRoot, runId),
        signal,
        ...(probe ? { probe } : {}),
      });
    },
    onResult: (row, result) => {
      process.stdout.write(`${JSON.stringify({ row: row.row, ...result })}\n`);
      bar.tick(`row ${row.row} ${result.word} ${result.code}${result.from_journal ? ' (from the journal)' : ''}`);
    },
  });
  let signals = 0;
  let drained: Promise<void> = Promise.resolve();
  const onSignal = (sig: NodeJS.Signals): void => {
    signals++;
    if (signals === 1) {
      say(`${sig}: draining (a second signal cancels the running rows)`);
      drained = batch.drain(drainMs);
    } else batch.abortAll(`a second ${sig}`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const started = Date.now();
  try {
    const results = await batch.run();
    await drained;
    bar.finish();
    if (results.some((r) => r.result.unapproved)) say('warning: these runs ran without an approval bound to the card\'s content (--allow-unapproved)');
    process.stderr.write(`${summaryTable(results, Date.now() - started)}\n`);
    return batchExitCode(results);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
