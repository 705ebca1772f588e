// One run of a capability, wired: preflight of the request, then the key's lease and journal (which may answer
// at once), then reachability, then the engine over a surface, with journal, evidence and masking.
// The CLI, `verify`, the MCP server and the demo all come through here.
import { writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { validateInputs } from '../shared/inputs.ts';
import { ALLOW_ENV_VAR, blanksIn, envForCard, fillBlanks, UnboundBlankError } from '../shared/schema/blanks.ts';
import type { Capability, Probe } from '../shared/schema/capability.ts';
import { RETRYABLE, RunResult, type Word } from '../shared/schema/result.ts';
import { Masker, SecretError } from '../shared/secrets.ts';
import { SurfaceError, type Surface } from '../shared/surface.ts';
import { wordOf } from '../shared/errors.ts';
import { templateScreen } from '../shared/screens.ts';
import { surfaces, unreachable, type OpenOptions, type SurfaceDriver, type SurfaceRegistry } from './surfaces.ts';
import { approvalStatus } from './approval.ts';
import { Replay, type CallCounter, type StepEvent } from './engine/engine.ts';
import { Evidence, EVIDENCE_KEY_ENV } from './evidence.ts';
import { JournalError } from './engine/journal.ts';
import { FileJournalStore, JournalStoreError, type JournalStore, type KeyJournal } from './engine/journal-store.ts';
import { intentOf, type Intent, type Store } from './intent.ts';
import { LeaseError } from './lease.ts';
import type { Referee } from './escalate/referee.ts';
import type { Scout } from './escalate/scout.ts';
import type { Person } from './escalate/console.ts';
import type { Phases } from './profile.ts';

export interface RunRequest {
  card: Capability;
  inputs: Readonly<Record<string, string>>;
  /** Where blanks like {{env.BASE_URL}} and HANDRAIL_SECRET_* come from. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Opens the surface instead of the registry's driver (a test's fake, a caller's own browser); called only after
   * preflight passes. The registry still decides whether the card's surface may run and how it is checked reachable.
   */
  surface?: () => Promise<Surface>;
  /** Where the card's surface is chosen (default: the product's, runner/surfaces.ts). */
  registry?: SurfaceRegistry;
  /** How the registry's driver opens the surface (headed, a shared browser). */
  open?: OpenOptions;
  /** One journal file for this run's key (overrides the state dir's journal; the lease still lives in the state dir). */
  journalPath?: string;
  /** Where journals/<key>.jsonl and locks/<key>.lock live (`storeIn($HANDRAIL_HOME)`). Neither this nor journalPath: no journal. */
  store?: Store;
  /**
   * Where every key's journal and lease are kept, behind the port (runner/engine/journal-store.ts): the shared
   * PostgreSQL journal of HANDRAIL_JOURNAL_URL, say. Wins over `store` and `journalPath`; the caller closes it.
   */
  journalStore?: JournalStore;
  /** How long to wait for another process holding the same key before answering BUSY (default 0). */
  lockWaitMs?: number;
  /** Default: runs/<run id> under the working directory. */
  evidenceDir?: string;
  /** Serve only cards approved for exactly this content, whether or not they commit (serve, demo). */
  requireApproved?: boolean;
  /**
   * Run a card that commits without an approval bound to its content (`--allow-unapproved`, and `verify` inside
   * its isolation). The receipt and the evidence say so. Without it such a card is REFUSED NOT_APPROVED.
   */
  allowUnapproved?: boolean;
  /** The ports whose calls the receipt counts (the escalation ladder's model and classifier). */
  model?: CallCounter;
  classifier?: CallCounter;
  /** The escalation ladder's referee (runner/escalate/): asked about a page no tier could name. */
  referee?: Referee;
  /** The escalation ladder's scout (runner/escalate/scout.ts). */
  scout?: Scout;
  /** The escalation ladder's person: a console on 127.0.0.1 (runner/escalate/console.ts, `--console`). */
  person?: Person;
  /**
   * Run history (runner/notebook.ts): every run that comes through here — a CLI replay, an MCP call, a verify plate —
   * is recorded once it has its receipt. History, not safety: a notebook that fails is said and the word stands.
   */
  notebook?: RunNotebook;
  quietMs?: number;
  /** With `--probe`: the read-only probe that may settle an in-doubt commit of this card by itself. */
  probe?: ProbeRunner;
  progress?: (line: string) => void;
  /** Each step as it starts and each journalled act as it is dispatched (the MCP server's progress notifications). */
  onStep?: (e: StepEvent) => void;
  /**
   * Cancels the run while no commit has been dispatched (RECOVERABLE / CANCELLED, nothing pressed, evidence sealed);
   * after a commit's dispatch the run finishes and its receipt is journalled (docs/design/journal.md, "Cancelling a run").
   */
  signal?: AbortSignal;
  settleTimeoutMs?: number;
  runId?: string;
  /**
   * The masker every writer of this run uses (evidence, journal, receipt, progress): a caller that shows more of
   * the run (verify, with its judge's output) hands its own, so one masker covers all of it. The run's bound
   * secrets are added to it. Default: a new one with the bound secrets only.
   */
  masker?: Masker;
  /** Where each phase's time is added (`HANDRAIL_PROFILE=1`; docs/design/profiling.md, "Profiling a replay"). Absent: nothing is timed. */
  profile?: Phases;
  /**
   * A rehearsal (docs/design/replay.md, "Rehearsal"): up to the first commit with every write held, the commit's
   * request shown and not sent, word REHEARSED. The journal is read (a real run's first answer), never claimed or written.
   */
  rehearse?: boolean;
}

/** `fn`, its time added to `phase` when the request is profiled; otherwise just the call. */
function timed<T>(req: RunRequest, phase: string, fn: () => Promise<T>): Promise<T> {
  return req.profile ? req.profile.time(phase, fn) : fn();
}

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `run-${stamp}-${randomBytes(3).toString('hex')}`;
}

/** The receipt of a run that ended before any step ran (refused in preflight, or no browser). */
export function resultBeforeRun(cardId: string, runId: string, word: Word, code: string, message: string): RunResult {
  return RunResult.parse({
    word,
    code,
    retryable: RETRYABLE.has(word),
    message,
    card: cardId,
    run_id: runId,
    outputs: {},
    llm_calls: 0,
    classifier_calls: 0,
    rungs: {},
    screen: null,
    steps_done: 0,
    evidence: null,
    duration_ms: 0,
  });
}

/** Everything about the request itself that dooms a run: no file, no network, no browser touched. */
export async function preflight(
  req: RunRequest,
  runId: string,
): Promise<RunResult | { masker: Masker; values: Record<string, string>; entry: string; env: Record<string, string | undefined> }> {
  const { card } = req;
  const commits = card.steps.some((s) => s.effect.kind === 'commit');
  // A rehearsal presses nothing, so a reviewer may rehearse a card before approving it.
  if (req.requireApproved || (commits && !req.allowUnapproved && !req.rehearse)) {
    const status = approvalStatus(card);
    if (!status.servable) {
      const why = req.requireApproved ? status.reason : `${status.reason}; this card commits, so it runs only when approved (or with --allow-unapproved, which the receipt records)`;
      return resultBeforeRun(card.id, runId, 'REFUSED', 'NOT_APPROVED', why);
    }
  }
  const inputs = validateInputs(card, req.inputs, req.env);
  if (!inputs.ok) {
    const first = inputs.problems[0];
    return resultBeforeRun(card.id, runId, 'REFUSED', first?.code ?? 'INVALID_INPUT', inputs.problems.map((p) => p.message).join('; '));
  }
  let masker: Masker;
  try {
    masker = req.masker ?? new Masker();
    for (const s of inputs.secrets) masker.add(s.name, s.value);
  } catch (e) {
    // A secret too short to mask is refused: masking "ab" everywhere would hide a misconfiguration, not a secret.
    if (!(e instanceof SecretError)) throw e;
    return resultBeforeRun(card.id, runId, 'REFUSED', 'INVALID_INPUT', e.message);
  }
  // {{env.X}} reads only BASE_URL and names the operator allowed (shared/schema/blanks.ts); never a value in the message.
  const cardEnv = envForCard(card.entry, req.env);
  if (cardEnv.refused.length) {
    const names = cardEnv.refused.map((n) => `{{env.${n}}}`).join(', ');
    return resultBeforeRun(card.id, runId, 'REFUSED', 'ENV_NOT_ALLOWED', `the entry reads ${names}, which nobody allowed: a card reads the environment only through BASE_URL (--base-url), declared secret inputs (HANDRAIL_SECRET_<NAME>) and names allowed with --allow-env or ${ALLOW_ENV_VAR}`);
  }
  let entry: string;
  try {
    entry = fillBlanks(card.entry, { input: inputs.values, env: cardEnv.env });
  } catch (e) {
    if (!(e instanceof UnboundBlankError)) throw e;
    const envs = blanksIn(card.entry).filter((b) => b.source === 'env').map((b) => b.name);
    return resultBeforeRun(card.id, runId, 'REFUSED', 'MISSING_INPUT', `the entry needs ${envs.join(', ')}: pass --base-url or set it in the environment`);
  }
  return { masker, values: inputs.values, entry, env: cardEnv.env };
}

/**
 * A card's read-only probe, ready to run: the caller (CLI, MCP) loads the probe card and wires its surface. Its
 * answer settles an in-doubt commit only when conclusive: the probe ended on the outcome the card names for
 * "committed" or for "not committed". Anything else leaves the commit in doubt.
 */
export interface ProbeRunner {
  decl: Probe;
  card: Capability;
  run(): Promise<RunResult>;
}

/** Runs the probe under the key's lease and records its conclusion in the journal; returns why it settled nothing. */
async function settleByProbe(journal: KeyJournal, probe: ProbeRunner, progress?: (line: string) => void): Promise<string | null> {
  progress?.(`commit in doubt: running the read-only probe ${probe.card.id}`);
  const r = await probe.run();
  const seen = `${r.word} ${r.code}${r.outcome ? ` (${r.outcome})` : ''}`;
  const as = r.word === 'BUSINESS_OUTCOME' && r.outcome === probe.decl.committed ? 'committed'
    : r.word === 'BUSINESS_OUTCOME' && r.outcome === probe.decl.not_committed ? 'not_committed' : null;
  if (!as) return `the probe ${probe.card.id} was inconclusive: it ended ${seen} (run ${r.run_id}); the commit stays in doubt`;
  await journal.settle(as, `probe ${probe.card.id}`, `probe run ${r.run_id} ended ${seen}`, 'probe');
  progress?.(`the probe settled the commit as ${as.replace('_', ' ')}`);
  return null;
}

/** Where a run keeps its journals and leases; undefined when the request asked for none (no journal). */
function journalStoreOf(req: RunRequest): JournalStore | undefined {
  if (req.journalStore) return req.journalStore;
  if (!req.journalPath && !req.store) return undefined;
  return new FileJournalStore({ ...(req.store ? { store: req.store } : {}), ...(req.journalPath ? { file: req.journalPath } : {}) });
}

type Opened = { journal: KeyJournal; release: () => Promise<void> } | { answer: RunResult };

/**
 * The journal answers first: claim the key (its lease, then its journal, created on first use), and answer at once
 * when the key is committed (the recorded receipt), in doubt, damaged or busy — before any network or browser is touched.
 */
async function openJournal(req: RunRequest, runId: string, intent: Intent, store: JournalStore, masker: Masker): Promise<Opened> {
  const card = req.card.id;
  const decorate = (r: RunResult): RunResult => RunResult.parse({ ...r, key: intent.key, journal: store.whereOf(intent.key) });
  let got: Awaited<ReturnType<JournalStore['claim']>>;
  try {
    got = await store.claim(intent, { waitMs: req.lockWaitMs ?? 0, what: runId, ...(req.progress ? { log: req.progress } : {}) });
  } catch (e) {
    // The state directory cannot be written, or the shared journal cannot be reached: nothing was read or pressed.
    if (e instanceof JournalStoreError) return { answer: decorate(resultBeforeRun(card, runId, e.word, e.code, masker.mask(e.message))) };
    if (e instanceof LeaseError) return { answer: decorate(resultBeforeRun(card, runId, 'FAILED', 'INTERNAL', masker.mask(e.message))) };
    if (!(e instanceof JournalError)) throw e;
    if (e.code === 'JOURNAL_DAMAGED') return { answer: decorate(resultBeforeRun(card, runId, 'UNSAFE_TO_RETRY', 'JOURNAL_DAMAGED', masker.mask(e.message))) };
    if (e.code === 'JOURNAL_KEY_MISMATCH') return { answer: decorate(resultBeforeRun(card, runId, 'REFUSED', 'JOURNAL_KEY_MISMATCH', masker.mask(e.message))) };
    return { answer: decorate(resultBeforeRun(card, runId, 'FAILED', 'INTERNAL', masker.mask(e.message))) };
  }
  if (!got.ok) {
    const who = got.holder ? `pid ${got.holder.pid} on ${got.holder.host} (${got.holder.what}, since ${got.holder.started})` : 'a process that has not written its lease yet';
    return {
      answer: decorate(resultBeforeRun(card, runId, 'BUSY', 'BUSY', `key ${intent.key} is being run by ${who}; try again later (or pass --wait <ms>)`)),
    };
  }
  const { journal, release } = got;
  let answer = journalAnswer(journal, runId, card);
  if (answer?.code === 'JOURNAL_IN_DOUBT' && journal.status() === 'in_doubt' && req.probe) {
    const inconclusive = await settleByProbe(journal, req.probe, req.progress);
    answer = inconclusive ? { ...answer, message: `${answer.message}. ${masker.mask(inconclusive)}` } : journalAnswer(journal, runId, card);
  }
  if (answer) {
    await journal.close();
    await release();
    return { answer: decorate(answer) };
  }
  return { journal, release };
}

/**
 * A rehearsal claims no key and writes nothing: the journal is only read, for the answer a real run would give before
 * driving the app (committed: the recorded receipt; in doubt; damaged). Null when a real run would go and drive it.
 */
async function rehearsalAnswer(req: RunRequest, runId: string, intent: Intent, store: JournalStore, masker: Masker): Promise<RunResult | null> {
  const card = req.card.id;
  const decorate = (r: RunResult): RunResult => RunResult.parse({ ...r, key: intent.key, journal: store.whereOf(intent.key) });
  try {
    const read = await store.read(intent.key);
    if (!read) return null;
    const view = read.state;
    const answer = journalAnswer({ key: intent.key, where: store.whereOf(intent.key), view, status: () => view.status(), inDoubt: () => view.inDoubt(), lastReceipt: () => view.lastReceipt() }, runId, card);
    return answer ? decorate(answer) : null;
  } catch (e) {
    if (e instanceof JournalStoreError) return decorate(resultBeforeRun(card, runId, e.word, e.code, masker.mask(e.message)));
    if (e instanceof JournalError && e.code === 'JOURNAL_DAMAGED') return decorate(resultBeforeRun(card, runId, 'UNSAFE_TO_RETRY', 'JOURNAL_DAMAGED', masker.mask(e.message)));
    throw e;
  }
}

/** What the journal alone says, or null when the run must go and drive the app. */
export function journalAnswer(journal: Pick<KeyJournal, 'key' | 'where' | 'view' | 'status' | 'inDoubt' | 'lastReceipt'>, runId: string, card: string): RunResult | null {
  const status = journal.status();
  if (status === 'in_doubt') {
    const steps = journal.inDoubt();
    return resultBeforeRun(
      card,
      runId,
      'UNSAFE_TO_RETRY',
      'JOURNAL_IN_DOUBT',
      `the journal ${journal.where} shows commit ${steps.join(', ')} dispatched and never observed: it will not be pressed again until a person (handrail journal settle ${journal.key}) or a read-only probe settles it`,
    );
  }
  if (status !== 'committed') return null;
  const settled = journal.view.committedBySettlement();
  if (settled) {
    const r = settled.record;
    return RunResult.parse({
      ...resultBeforeRun(card, settled.run, 'SUCCESS', 'OK', `settled as committed by ${r.by} (${r.via}) at ${r.at}: ${r.note}`),
      from_journal: true,
    });
  }
  const recorded = RunResult.safeParse(journal.lastReceipt());
  if (recorded.success) return { ...recorded.data, from_journal: true };
  return resultBeforeRun(
    card,
    runId,
    'UNSAFE_TO_RETRY',
    'JOURNAL_IN_DOUBT',
    `the journal ${journal.where} shows the commit observed, but the run ended before its receipt was written; a person checks the outcome and settles it (handrail journal settle ${journal.key} --as committed)`,
  );
}

/** Where finished runs are kept (runner/notebook.ts `Notebook`). */
export interface RunNotebook {
  record(card: Capability, result: RunResult): Promise<void>;
}

/** Run a capability once. Never throws for anything a run can meet: the answer is a typed result. */
export async function runCapability(req: RunRequest): Promise<RunResult> {
  const began = performance.now();
  const result = await runOnce(req);
  req.profile?.run(performance.now() - began);
  try {
    await req.notebook?.record(req.card, result);
  } catch (e) {
    req.progress?.(`note: the run was not written to the notebook: ${(e as Error).message.split('\n')[0] ?? ''}`);
  }
  return result;
}

async function runOnce(req: RunRequest): Promise<RunResult> {
  const runId = req.runId ?? newRunId();
  // The one place a run's surface is chosen: by the card's own `surface`, refused by name when it cannot run.
  const chosen = (req.registry ?? surfaces).choose(req.card.surface);
  if (!chosen.ok) return resultBeforeRun(req.card.id, runId, 'REFUSED', chosen.code, chosen.message);
  const ready = await preflight(req, runId);
  if ('word' in ready) return ready;
  const { masker } = ready;
  const intent = intentOf(req.card, ready.values);
  const store = journalStoreOf(req);
  let journal: KeyJournal | null = null;
  let release: (() => Promise<void>) | null = null;
  if (store && req.rehearse) {
    req.progress?.(`rehearsal: journal ${store.whereOf(intent.key)} read, not written · key ${intent.key}`);
    const answer = await rehearsalAnswer(req, runId, intent, store, masker);
    if (answer) return answer;
  } else if (store) {
    req.progress?.(`journal ${store.whereOf(intent.key)} · key ${intent.key}`);
    const opened = await timed(req, 'run: lease + journal open', () => openJournal(req, runId, intent, store, masker));
    if ('answer' in opened) return opened.answer;
    ({ journal, release } = opened);
  }
  const keyed = (r: RunResult): RunResult => (store ? RunResult.parse({ ...r, key: intent.key, journal: store.whereOf(intent.key) }) : r);
  try {
    // Cancelled while waiting for the lease or the journal: nothing opened, nothing pressed.
    if (req.signal?.aborted) {
      return keyed(resultBeforeRun(req.card.id, runId, 'RECOVERABLE', 'CANCELLED', 'cancelled before the run started; nothing was pressed, so trying again is safe'));
    }
    const down = await timed(req, 'run: reachability check', () => unreachable(chosen.driver.declaration, ready.entry));
    if (down) return keyed(resultBeforeRun(req.card.id, runId, 'RECOVERABLE', 'SURFACE_UNREACHABLE', `${ready.entry}: ${down}`));
    const began: { replay: Replay | null } = { replay: null };
    let result: RunResult;
    try {
      result = keyed(await drive(req, runId, ready, journal, chosen.driver, began));
    } catch (e) {
      return keyed(stoppedRun(req.card, runId, journal, began.replay?.pressed ?? false, masker, e));
    }
    // Kept after the evidence is sealed, so a later "already done" answer carries this run's evidence head. A receipt
    // the journal cannot keep changes nothing that happened: the key holds the commit observed, and a later call is
    // refused UNSAFE_TO_RETRY for want of it, never pressed again.
    const held = journal;
    if (held && held.view.committedBy(runId)) {
      try {
        await timed(req, 'run: journal receipt', () => held.receipt(runId, masker.maskDeep(result)));
      } catch (e) {
        req.progress?.(`note: the journal could not keep this run's receipt (${masker.mask(firstLine(e))}); a later call is refused until a person checks`);
      }
    }
    return result;
  } finally {
    await timed(req, 'run: journal close + lease release', async () => {
      await journal?.close();
      await release?.();
    });
  }
}

/**
 * A run stopped by what none of its steps can meet (the disk full under its evidence, most often): a typed receipt,
 * never a rejected promise, with the word the journal proves. A commit this run dispatched and never saw land is in
 * doubt; one it saw land happened, but its evidence is incomplete, so the call must not be made blind again; with no
 * journal to ask, a run that dispatched a commit (`pressed`) cannot say whether it landed, and says so; one that
 * dispatched none committed nothing (docs/design/replay.md, "A run stopped from outside its steps").
 */
function stoppedRun(card: Capability, runId: string, journal: KeyJournal | null, pressed: boolean, masker: Masker, e: unknown): RunResult {
  const why = masker.mask(firstLine(e));
  const code = (e as { code?: unknown } | null | undefined)?.code === 'EVIDENCE_IO' ? 'EVIDENCE_UNWRITABLE' : 'INTERNAL';
  const inDoubt = journal?.inDoubt().filter((step) => journal.view.dispatcherOf(step) === runId) ?? [];
  if (inDoubt.length) {
    return resultBeforeRun(card.id, runId, 'UNSAFE_TO_RETRY', 'COMMIT_IN_DOUBT', `the run stopped after commit ${inDoubt.join(', ')} was dispatched, before its outcome was seen (${why}); the journal holds the key in doubt: do not retry until a person or a read-only probe settles it`);
  }
  if (journal?.view.committedBy(runId)) {
    return resultBeforeRun(card.id, runId, 'UNSAFE_TO_RETRY', code, `the commit landed (the journal saw it), but the run could not finish (${why}): its evidence is incomplete; do not run it again before checking`);
  }
  if (pressed) {
    return resultBeforeRun(card.id, runId, 'UNSAFE_TO_RETRY', code, `the run stopped (${why}) after it dispatched a commit, which no journal holds: check before running it again`);
  }
  return resultBeforeRun(card.id, runId, 'FAILED', code, `the run stopped (${why}); nothing was committed`);
}

async function drive(
  req: RunRequest,
  runId: string,
  ready: { masker: Masker; values: Record<string, string>; entry: string },
  journal: KeyJournal | null,
  driver: SurfaceDriver,
  began: { replay: Replay | null },
): Promise<RunResult> {
  const { masker } = ready;
  // Ran although nothing binds an approval to this content: said in the receipt and on every evidence line.
  const unapproved = !approvalStatus(req.card).servable;
  const evidence = await timed(req, 'run: evidence open', () =>
    Evidence.create(resolve(req.evidenceDir ?? `runs/${runId}`), masker, runId, unapproved ? { stamp: { unapproved: true } } : {}),
  );
  let surface: Surface | null = null;
  let done: RunResult | null = null;
  try {
    try {
      const open = req.surface ?? (() => driver.open(req.open ?? {}));
      surface = await timed(req, 'run: surface open (browser context)', open);
    } catch (e) {
      // A surface's own word when it gave one it declares (the mac helper missing: SURFACE_UNREACHABLE); else the browser's.
      const declared = e instanceof SurfaceError && driver.declaration.errors.includes(e.code) ? e.code : null;
      const code = (e as { code?: string }).code === 'NO_BROWSER' ? 'NO_BROWSER' : (declared ?? 'BROWSER_CRASHED');
      const result = RunResult.parse({
        ...resultBeforeRun(req.card.id, runId, declared ? wordOf(declared) : 'FAILED', code, masker.mask((e as Error).message)),
        evidence: evidence.dir,
      });
      await evidence.append('run_end', result);
      return (done = await sealRun(result, evidence, masker, req));
    }
    const replay = new Replay(
      {
        card: req.card,
        inputs: ready.values,
        // Never the environment: only the bound inputs (secrets among them) and the entry preflight filled.
        entry: ready.entry,
        attachments: driver.declaration.evidence,
        runId,
        masker,
        evidence,
        journal,
        ...(req.progress ? { progress: req.progress } : {}),
        ...(req.onStep ? { onStep: req.onStep } : {}),
        ...(req.signal ? { signal: req.signal } : {}),
        ...(req.settleTimeoutMs ? { settleTimeoutMs: req.settleTimeoutMs } : {}),
        ...(req.quietMs ? { quietMs: req.quietMs } : {}),
        ...(req.model ? { model: req.model } : {}),
        ...(req.classifier ? { classifier: req.classifier } : {}),
        ...(req.referee ? { referee: req.referee } : {}),
        ...(req.scout ? { scout: req.scout } : {}),
        ...(req.person ? { person: req.person } : {}),
        ...(req.profile ? { profile: req.profile } : {}),
        ...(req.rehearse ? { rehearse: true } : {}),
      },
      surface,
    );
    began.replay = replay;
    const result = await replay.run();
    if (replay.repairs.length) await proposeRepair(req, runId, evidence.dir, replay.repairs, masker);
    const stamped = unapproved ? { ...result, unapproved: true } : result;
    try {
      if (replay.evidenceLost) throw replay.evidenceLost;
      done = await timed(req, 'run: evidence seal (fsync)', () => sealRun(stamped, evidence, masker, req));
    } catch (e) {
      done = unsealed(stamped, replay.pressed, masker.mask(firstLine(e)));
    }
    return done;
  } finally {
    const opened = surface;
    try {
      await timed(req, 'run: surface close (browser context)', async () => {
        await opened?.close();
        await evidence.close();
      });
    } catch (e) {
      // Once the run has its word, a close that fails (an fsync on a full disk) is said, never put in its place.
      if (!done) throw e;
      req.progress?.(`note: closing the run's surface or evidence failed: ${masker.mask(firstLine(e))}`);
    }
  }
}

/**
 * A run whose word is proven but whose evidence could not be written to its end (a full disk): a word that claims
 * something (SUCCESS, a business outcome) is not given without its evidence — UNSAFE_TO_RETRY when a commit was
 * pressed (it may have landed), else FAILED; any other word stands, with what is missing said.
 */
function unsealed(result: RunResult, pressed: boolean, why: string): RunResult {
  if (result.word !== 'SUCCESS' && result.word !== 'BUSINESS_OUTCOME') {
    return RunResult.parse({ ...result, message: `${result.message}; its evidence could not be written to its end (${why})` });
  }
  const word = pressed ? 'UNSAFE_TO_RETRY' : 'FAILED';
  const said = result.word === 'SUCCESS' ? 'it ended as it should' : `it ended on ${result.outcome ?? result.code}`;
  return RunResult.parse({
    ...result,
    word,
    code: 'EVIDENCE_UNWRITABLE',
    retryable: RETRYABLE.has(word),
    message: `${said}, but its evidence could not be written (${why})${pressed ? ': a commit was pressed, so check before running it again' : '; nothing was committed'}`,
  });
}

/** The first line of an error's message (never its stack). */
function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
}

/**
 * Writes a proposed card beside the run's evidence (`<evidence dir>.proposed.json`): the card with each screen a
 * rung named re-recorded from the live page, as a draft with no approval and a review note saying who proposed what.
 * Never applied: a reviewer reads `handrail diff <card> <proposal>` and puts it through verify and approve
 * (docs/design/escalation.md, "The escalation ladder"). A proposal that cannot be written is said and the run's word stands.
 */
async function proposeRepair(req: RunRequest, runId: string, dir: string, repairs: Replay['repairs'], masker: Masker): Promise<void> {
  const card = structuredClone(req.card);
  for (const r of repairs) {
    const screen = card.screens[r.label];
    if (!screen) continue;
    // Re-recorded the way the compiler records a screen: paths that carry this run's record become templates again.
    const inputs = Object.entries(req.inputs).map(([name, value]) => ({ name, value, secret: card.inputs[name]?.secret !== false }));
    const t = templateScreen({ signature: r.signature, paths: r.paths.map((p) => masker.mask(p)) }, inputs);
    delete screen.record_paths;
    Object.assign(screen, { signature: t.signature, paths: t.paths, ...(t.record ? { record_paths: t.record } : {}) });
  }
  card.lifecycle = {
    state: 'draft',
    review_notes: [
      ...card.lifecycle.review_notes,
      ...repairs.flatMap((r) => [
        r.unproven
          ? `run ${runId}: the ${r.by} named screen ${r.label} after step ${r.step}, but ${r.label} follows a commit and its marks did not show, so the run did not believe it; re-recorded from the live page: set marks that prove the effect before approving`
          : `run ${runId}: the ${r.by} named screen ${r.label} after step ${r.step} on furniture the card did not hold; re-recorded from the live page`,
        // What the person did on the way: steps a reviewer may add to the card (each is in the evidence as `human_step`).
        ...(r.human ?? []).map((h, i) => `run ${runId}: the person ${h.by} did ${i + 1}. ${h.control}${h.effect ? ` (${h.effect})` : ''}: ${h.said}`),
      ]),
    ],
  };
  const file = `${dir}.proposed.json`;
  try {
    await writeFile(file, `${JSON.stringify(card, null, 2)}\n`, { flag: 'wx' });
    req.progress?.(`a repair is proposed: ${file} (review it: handrail diff <card> ${file})`);
  } catch (e) {
    req.progress?.(`the proposed repair was not written: ${(e as Error).message.split('\n')[0] ?? ''}`);
  }
}

/**
 * Ends the evidence log with its sealed closing line (the run's word; an HMAC when HANDRAIL_EVIDENCE_KEY is set) and
 * puts the head in the receipt. The receipt is journalled after this (in `runCapability`), so the journal records
 * the head too, and a later answer from the journal carries it.
 */
async function sealRun(result: RunResult, evidence: Evidence, masker: Masker, req: RunRequest): Promise<RunResult> {
  let head: string;
  try {
    head = await evidence.seal(result.word, req.env[EVIDENCE_KEY_ENV] || undefined);
  } catch (e) {
    // An unsealed log is reported "unanchored" by `evidence verify`; the run's word stands.
    req.progress?.(`evidence not sealed: ${masker.mask((e as Error).message)}`);
    return result;
  }
  return RunResult.parse({ ...result, evidence_head: head });
}
