// One run of a capability, wired: preflight (before any browser), then the engine over a surface,
// with journal, evidence and masking. The CLI, `verify`, the MCP server and the demo all come through here.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { validateInputs } from '../shared/inputs.ts';
import { blanksIn, fillBlanks, UnboundBlankError } from '../shared/schema/blanks.ts';
import type { Capability } from '../shared/schema/capability.ts';
import { RETRYABLE, RunResult, type Word } from '../shared/schema/result.ts';
import { Masker, SecretError } from '../shared/secrets.ts';
import type { Surface } from '../shared/surface.ts';
import { approvalStatus } from './approval.ts';
import { Replay, type CallCounter } from './engine/engine.ts';
import { Evidence, EVIDENCE_KEY_ENV } from './evidence.ts';
import { Journal, preflightJournal } from './engine/journal.ts';

export interface RunRequest {
  card: Capability;
  inputs: Readonly<Record<string, string>>;
  /** Where blanks like {{env.BASE_URL}} and HANDRAIL_SECRET_* come from. */
  env: Readonly<Record<string, string | undefined>>;
  /** Opens the surface; called only after preflight passes. */
  surface: () => Promise<Surface>;
  journalPath?: string;
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
  quietMs?: number;
  progress?: (line: string) => void;
  settleTimeoutMs?: number;
  runId?: string;
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

/** Is the entry's server there at all? A dead server is refused before a browser starts. */
async function reachable(url: string): Promise<string | null> {
  if (!/^https?:\/\//.test(url)) return null;
  try {
    const res = await fetch(url, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(5_000) });
    await res.body?.cancel();
    return res.status >= 500 ? `the server answered ${res.status}` : null;
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    return cause ? `cannot connect (${cause})` : `cannot connect (${(e as Error).message})`;
  }
}

/** Everything that can be known to doom the run, checked before a browser starts. */
export async function preflight(req: RunRequest, runId: string): Promise<RunResult | { masker: Masker; values: Record<string, string>; entry: string }> {
  const { card } = req;
  const commits = card.steps.some((s) => s.effect.kind === 'commit');
  if (req.requireApproved || (commits && !req.allowUnapproved)) {
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
    masker = new Masker(inputs.secrets);
  } catch (e) {
    // A secret too short to mask is refused: masking "ab" everywhere would hide a misconfiguration, not a secret.
    if (!(e instanceof SecretError)) throw e;
    return resultBeforeRun(card.id, runId, 'REFUSED', 'INVALID_INPUT', e.message);
  }
  let entry: string;
  try {
    entry = fillBlanks(card.entry, { input: inputs.values, env: req.env });
  } catch (e) {
    if (!(e instanceof UnboundBlankError)) throw e;
    const envs = blanksIn(card.entry).filter((b) => b.source === 'env').map((b) => b.name);
    return resultBeforeRun(card.id, runId, 'REFUSED', 'MISSING_INPUT', `the entry needs ${envs.join(', ')}: pass --base-url or set it in the environment`);
  }
  if (req.journalPath) {
    const j = await preflightJournal(req.journalPath, card.id);
    if (!j.ok && j.code === 'JOURNAL_IN_DOUBT') {
      return resultBeforeRun(
        card.id,
        runId,
        'UNSAFE_TO_RETRY',
        'JOURNAL_IN_DOUBT',
        `the journal ${req.journalPath} shows commit ${j.steps.join(', ')} dispatched and never observed: it will not be pressed again until a person or a read-only probe settles it`,
      );
    }
    if (!j.ok) return resultBeforeRun(card.id, runId, 'REFUSED', 'JOURNAL_CORRUPT', masker.mask(j.message));
  }
  const down = await reachable(entry);
  if (down) return resultBeforeRun(card.id, runId, 'RECOVERABLE', 'SURFACE_UNREACHABLE', `${entry}: ${down}`);
  return { masker, values: inputs.values, entry };
}

/** Run a capability once. Never throws for anything a run can meet: the answer is a typed result. */
export async function runCapability(req: RunRequest): Promise<RunResult> {
  const runId = req.runId ?? newRunId();
  const ready = await preflight(req, runId);
  if ('word' in ready) return ready;
  const { masker } = ready;
  // Ran although nothing binds an approval to this content: said in the receipt (and at the head of the evidence).
  const unapproved = !approvalStatus(req.card).servable;
  const evidence = await Evidence.create(resolve(req.evidenceDir ?? `runs/${runId}`), masker, runId, unapproved ? { stamp: { unapproved: true } } : {});
  const journal = req.journalPath ? await Journal.open(req.journalPath) : null;
  let surface: Surface | null = null;
  try {
    try {
      surface = await req.surface();
    } catch (e) {
      const code = (e as { code?: string }).code === 'NO_BROWSER' ? 'NO_BROWSER' : 'BROWSER_CRASHED';
      const result = RunResult.parse({
        ...resultBeforeRun(req.card.id, runId, 'FAILED', code, masker.mask((e as Error).message)),
        evidence: evidence.dir,
      });
      await evidence.append('run_end', result);
      return await sealRun(result, evidence, journal, masker, req);
    }
    const replay = new Replay(
      {
        card: req.card,
        inputs: ready.values,
        env: req.env,
        runId,
        masker,
        evidence,
        journal,
        ...(req.progress ? { progress: req.progress } : {}),
        ...(req.settleTimeoutMs ? { settleTimeoutMs: req.settleTimeoutMs } : {}),
        ...(req.quietMs ? { quietMs: req.quietMs } : {}),
        ...(req.model ? { model: req.model } : {}),
        ...(req.classifier ? { classifier: req.classifier } : {}),
      },
      surface,
    );
    const result = await replay.run();
    return await sealRun(unapproved ? { ...result, unapproved: true } : result, evidence, journal, masker, req);
  } finally {
    await surface?.close();
    await journal?.close();
    await evidence.close();
  }
}

/**
 * Ends the evidence log with its sealed closing line (the run's word; an HMAC when HANDRAIL_EVIDENCE_KEY
 * is set) and puts the head in the receipt. When the engine journalled a receipt for this run, the
 * anchored receipt is journalled after it, so the journal records the head too.
 */
async function sealRun(result: RunResult, evidence: Evidence, journal: Journal | null, masker: Masker, req: RunRequest): Promise<RunResult> {
  let head: string;
  try {
    head = await evidence.seal(result.word, req.env[EVIDENCE_KEY_ENV] || undefined);
  } catch (e) {
    // An unsealed log is reported "unanchored" by `evidence verify`; the run's word stands.
    req.progress?.(`evidence not sealed: ${masker.mask((e as Error).message)}`);
    return result;
  }
  const anchored = RunResult.parse({ ...result, evidence_head: head });
  const journalled = journal?.lastReceipt(req.card.id) as { run_id?: unknown } | undefined;
  if (journal && journalled?.run_id === result.run_id) await journal.receipt(result.run_id, req.card.id, masker.maskDeep(anchored));
  return anchored;
}
