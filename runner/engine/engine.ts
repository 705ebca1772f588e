// The replay engine: follows an approved card step by step with no model in the loop.
// Each step passes six checkpoints: right screen? → resolve → journal → act → settle → expected screen?
// It never imports a model SDK and never sees the application: only the Surface port.
import { blanksIn, fillBlanks } from '../../shared/schema/blanks.ts';
import { typedInputs } from '../../shared/inputs.ts';
import { JOURNALLED } from '../../shared/operations.ts';

/** The stickers this engine journals: the operations table's, re-exported so a test can hold the engine to it. */
export { JOURNALLED };
import { type Capability, type OutcomeRule, type Postcondition, type Step } from '../../shared/schema/capability.ts';
import type { Observation, SurfaceRow } from '../../shared/schema/observation.ts';
import { Baton, RETRYABLE, RunResult, type OutputValue, type Rehearsal, type ResolvedBy, type Word } from '../../shared/schema/result.ts';
import type { Control } from '../../shared/schema/observation.ts';
import { afterCommitScreens } from '../../shared/marks.ts';
import { Lock } from '../../shared/lock.ts';
import { compileSafe } from '../../shared/regex.ts';
import { fingerprint } from '../../shared/fingerprint.ts';
import { inScope } from '../../shared/ladder.ts';
import { buildMenu, renderRow } from '../../shared/menu.ts';
import { jaccard, nameScreen, provable, publicValues, screenWords, type KnownScreen, type PublicValues } from '../../shared/screens.ts';
import { newSaid, quoteSaid, saysAsBefore } from '../../shared/said.ts';
import { notAtRestWhy, REST_QUIET_MS, untilAtRest } from '../../shared/rest.ts';
import type { Masker } from '../../shared/secrets.ts';
import { SurfaceError, type BoundTarget, type EvidenceKind, type Resolution, type Surface } from '../../shared/surface.ts';
import type { Evidence } from '../evidence.ts';
import type { Phases } from '../profile.ts';
import type { HumanStep, Person } from '../escalate/console.ts';
import { nextControl, nextRung, type AttemptOutcome, type Attempt, type RungName } from '../escalate/decide.ts';
import { judge, judgeControl, type ControlQuestion, type Judgement, type Referee, type RefereeQuestion, type ScreenOption } from '../escalate/referee.ts';
import type { Scout } from '../escalate/scout.ts';
import { failpoint } from './failpoint.ts';
import type { KeyJournal } from './journal-store.ts';
import { WriteCheck, type WriteEnding } from './writes.ts';

export interface ReplayContext {
  card: Capability;
  /** Validated input values, secrets included (they are registered with the masker). */
  inputs: Readonly<Record<string, string>>;
  /**
   * The entry, already filled by preflight ({{env.BASE_URL}} is the one environment blank a card may hold, and only
   * there). The engine is given no environment at all: a card's other blanks can only name its bound inputs.
   */
  entry: string;
  runId: string;
  /** The evidence the surface declares it can attach (shared/surfaces.ts); default a screenshot and the screen text. */
  attachments?: readonly EvidenceKind[];
  masker: Masker;
  evidence: Evidence;
  journal: KeyJournal | null;
  /** Progress for people (stderr in the CLI). Already masked when called. */
  progress?: (line: string) => void;
  settleTimeoutMs?: number;
  /** How long an unrecognised screen must stay unchanged before waiting for a declared one stops (default 1 s). */
  quietMs?: number;
  now?: () => number;
  /**
   * The model and classifier ports this run may consult (the escalation ladder's rungs). The receipt's
   * `llm_calls` and `classifier_calls` are read from them, never written as constants.
   */
  model?: CallCounter;
  classifier?: CallCounter;
  /**
   * The escalation ladder's first rung (runner/escalate/): asked which expected screen an unnamed page is, believed
   * only through `judge` (the acceptance bar and the furniture re-check). Absent: the ladder stops at the engine.
   */
  referee?: Referee;
  /** The escalation ladder's second rung: a model with commit struck off and a four-turn leash (runner/escalate/scout.ts). */
  scout?: Scout;
  /**
   * The escalation ladder's third rung: a person at a console (runner/escalate/console.ts, `--console`). Absent: the
   * climb ends before the person.
   */
  person?: Person;
  /** The wall-clock ceiling on all climbing in one run (default 60 s); a person's time at the console does not count. */
  ladderCeilingMs?: number;
  /**
   * The caller's cancellation (docs/design/journal.md, "Cancelling a run"). Honoured only while no commit has been
   * dispatched: it is read before each step and just before a commit's `dispatched` line. Once a commit is
   * dispatched the run goes on to the end, so its outcome is observed and journalled for the next identical call.
   */
  signal?: AbortSignal;
  /** Each step as it starts, and each stage or commit once its `dispatched` line is written (MCP progress). */
  onStep?: (e: StepEvent) => void;
  /** Where each phase's time is added (`HANDRAIL_PROFILE=1`; docs/design/profiling.md, "Profiling a replay"). Absent: nothing is timed. */
  profile?: Phases;
  /**
   * A rehearsal (docs/design/replay.md, "Rehearsal"): the steps up to the first commit run with every write held, the
   * commit's screen and target are checked, and the request it would send is found without sending it; the run ends
   * REHEARSED. Nothing is journalled (the journal is not used at all), so a real run after it is free to press.
   */
  rehearse?: boolean;
}

/** Where a run is: step `n` of `of` (1-based), on which declared screen; `dispatched` once a journalled act is written ahead. */
export interface StepEvent {
  phase: 'start' | 'dispatched';
  n: number;
  of: number;
  step: string;
  screen: string;
  effect: Step['effect']['kind'];
}

/** A port that counts its own calls: the receipt reports what was asked, not what was meant to be asked. */
export interface CallCounter {
  readonly calls: number;
}

interface Named {
  obs: Observation;
  label: string | null;
  /** The screen's content: its parts' text, without what their live regions say. */
  text: string;
  /** What the screen's live regions say (every part's `said`): never proof of a record (docs/design/replay.md, "What the app says"). */
  said: string[];
}

/** A target found by the control rung: the row the referee chose, whose fingerprint matched the card's. */
type Resolved = { ok: true; ref: string; rung: ResolvedBy; control: Control | null };

type Ending = { word: Word; code: string; message: string; outcome?: string; atStep?: string };

/**
 * Why a commit's landing does not prove its effect: a postcondition unmet, all of them held before the press, the app
 * not yet answered, or the app saying something new none of which the card's step said when it was made. `outcome`: a
 * declared outcome showed while the proof was waited for (the answer, not a shortfall).
 */
type Shortfall =
  | { kind: 'unmet'; unmet: Postcondition }
  | { kind: 'held_before' }
  | { kind: 'unanswered' }
  | { kind: 'said'; now: string[]; then: string[] }
  | { kind: 'outcome'; outcome: Declared };

/**
 * How a wait for a declared screen ended: the screen came, the page settled on something else, time ran out, or (for
 * a commit proven by its screen alone) time ran out while the app was still busy.
 */
type Waited =
  | { named: Named; settled: true; ms: number; /** Proven off a look with no write of the app's out before or after. */ atRest?: boolean }
  | { named: Named; settled: false; why: 'timeout' | 'stable' | 'busy'; ms: number };

const DEFAULT_SETTLE_TIMEOUT_MS = 10_000;
const DEFAULT_QUIET_MS = 1_000;
const DEFAULT_LADDER_CEILING_MS = 60_000;
/** The most page text a receipt carries: enough for a status line, never a whole document. */
const PAGE_TEXT_MAX = 1_500;
const POLL_STEPS_MS = [0, 10, 20, 40, 80, 120];

/** A declared outcome a screen shows; `undecided` when its text could be neither found nor ruled out (outcomeOf). */
interface Declared {
  kind: 'business' | 'failure' | 'recovery';
  name: string;
  rule: OutcomeRule;
  undecided?: { length: number; searched: number };
}

/** Unrecoverable when a commit's fate is unknown: the one thing a retry must never do is press again. */
class InDoubt extends Error {
  override readonly name = 'InDoubt';
  /** The commit in doubt, when it is not the one this run has in flight (a key an earlier run left in doubt). */
  constructor(
    message: string,
    readonly step?: string,
  ) {
    super(message);
  }
}


/**
 * Whether the screen is at rest: the same furniture and words since the last change (docs/design/replay.md,
 * "Settling"). Waiting for a screen and waiting for a commit's postconditions both stop on it.
 */
class Rest {
  #state: string | null = null;
  #since: number;
  constructor(private readonly now: () => number) {
    this.#since = now();
  }
  /** Records a look; true when the screen changed since the last one (the rest starts again). A busy screen never rests. */
  see(named: Named): boolean {
    if (named.obs.busy) {
      this.moved();
      return true;
    }
    const state = `${named.obs.signature}\n${named.text}\n${named.said.join('\n')}`;
    if (state === this.#state) return false;
    this.#state = state;
    this.#since = this.now();
    return true;
  }
  /** The screen moved under a question (STALE): not at rest. */
  moved(): void {
    this.#state = null;
    this.#since = this.now();
  }
  /** How long the screen has shown the same thing. */
  get ms(): number {
    return this.now() - this.#since;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export class Replay {
  private readonly card: Capability;
  private readonly screens: KnownScreen[];
  /** The run's non-secret inputs: what the screens' record paths are filled from (never a secret). */
  private readonly values: PublicValues;
  private readonly rungs: Record<string, ResolvedBy> = {};
  private readonly outputs: Record<string, OutputValue> = {};
  private readonly now: () => number;
  private readonly started: number;
  private stepsDone = 0;
  private lastSignature: string | null = null;
  private current: Named | null = null;
  private pressedCommit = false;
  /** Why the run's last evidence lines could not be written, when they could not (run() still returns its word). */
  evidenceLost: unknown = null;
  /** Whether this run dispatched a commit (pressed it, or was about to). */
  get pressed(): boolean {
    return this.pressedCommit;
  }
  /** The last look at each declared screen this run showed, by label (a commit's postconditions compare against it). */
  private readonly shown = new Map<string, Named>();
  /** The latest commit whose outcome this run proved (said when a later read misses an output). */
  private committed: string | null = null;
  /** When the last act was begun (ms since the epoch): writes sent before it are not that act's (`writing`). */
  private actedAt: number | null = null;
  private lastShotLabel: string | null = null;
  /** The latest queued evidence line (`note`); the log's lock writes them in call order. */
  private notes: Promise<void> = Promise.resolve();
  private noteFailed: unknown = null;
  /** The last stage's `observed` journal line, written without waiting for its fsync. */
  private stageObserved: Promise<void> = Promise.resolve();
  private journalFailed: unknown = null;
  private readonly writes: WriteCheck;
  /** Screenshots in the order screens were reached, detached from the steps that asked for them. */
  private readonly shots = new Lock();
  /** The escalation ladder's attempts in this run, and the time spent climbing (the facts `nextRung` decides from). */
  private readonly attempts: Attempt[] = [];
  private climbMs = 0;
  /**
   * Screens a rung named on furniture the card does not hold: the page as it is now, per label. After the run the
   * caller may write them into a proposed card (never applied to the card itself).
   */
  readonly repairs: { label: string; signature: string; paths: string[]; by: string; step: string; unproven?: boolean; human?: HumanStep[] }[] = [];
  /** A person was asked (the receipt's `escalated_to_human`). */
  private escalated = false;
  /** The run was told to stop while a person was asked: why (`SIGTERM`) and at which step. The receipt says so. */
  private stoppedAsking: { reason: string; step: string } | null = null;
  /** Signatures a rung named in this run, and the name: a later look at the same furniture is the same screen. */
  private readonly namedByRung = new Map<string, string>();
  /** What a rehearsal found at the commit (the receipt's `rehearsal`). */
  private rehearsal: Rehearsal | null = null;
  private readonly ctx: ReplayContext;
  /** What a step types or picks: the inputs with each value map applied (docs/design/capability.md, "Value maps"). */
  private readonly typed: Readonly<Record<string, string>>;

  constructor(
    ctx: ReplayContext,
    private readonly surface: Surface,
  ) {
    // A rehearsal writes nothing to the journal: not a stage, not a commit, not a held write.
    this.ctx = ctx.rehearse ? { ...ctx, journal: null } : ctx;
    this.card = ctx.card;
    const afterCommit = afterCommitScreens(ctx.card);
    this.screens = Object.entries(ctx.card.screens).map(([label, s]) => ({
      label,
      signature: s.signature,
      paths: s.paths,
      record: s.record_paths,
      marks: s.marks,
      afterCommit: afterCommit.has(label),
    }));
    this.values = publicValues(Object.entries(ctx.inputs).map(([name, value]) => ({ name, value, secret: ctx.card.inputs[name]?.secret !== false })));
    this.typed = typedInputs(ctx.card, ctx.inputs);
    this.writes = new WriteCheck(surface, ctx.card, ctx.entry, ctx.evidence, ctx.rehearse === true);
    this.now = ctx.now ?? Date.now;
    this.started = this.now();
  }

  private tell(phase: StepEvent['phase'], step: Step, index: number): void {
    this.ctx.onStep?.({ phase, n: index + 1, of: this.card.steps.length, step: step.id, screen: step.screen, effect: step.effect.kind });
  }

  /** Runs `fn`, adding its time to `phase` when the run is profiled; otherwise it is just the call. */
  private timed<T>(phase: string, fn: () => Promise<T>): Promise<T> {
    return this.ctx.profile ? this.ctx.profile.time(phase, fn) : fn();
  }

  private say(line: string): void {
    this.ctx.progress?.(this.ctx.masker.mask(line));
  }

  private fill(text: string): string {
    return fillBlanks(text, { input: this.ctx.inputs, env: {} });
  }

  bind(targetId: string): BoundTarget {
    const t = this.card.targets[targetId];
    if (!t) throw new Error(`card has no target ${targetId}`); // the schema makes this unreachable
    const bound: BoundTarget = {
      id: targetId,
      role: t.role,
      supports: t.supports,
      scope: t.scope.map((s) => ({ ...s, name: this.fill(s.name) })),
      ladder: t.ladder.map((r) => (r.value === undefined ? r : { ...r, value: this.fill(r.value) })),
      fingerprint: t.fingerprint,
    };
    if (t.name) bound.name = this.fill(t.name.eq);
    if (t.hint) bound.hint = this.fill(t.hint);
    return bound;
  }

  /** Whether the step's value names a secret input. */
  private typesSecret(step: Step): boolean {
    return blanksIn(step.op.value ?? '').some((b) => b.source === 'input' && this.card.inputs[b.name]?.secret === true);
  }

  /** Asks the surface what is showing now (one `evaluate`; settling polls this, the surface never waits). */
  private async look(): Promise<Named> {
    const answer = await this.timed('observe', () => this.surface.evaluate({ kind: 'observe' }));
    if (answer.kind !== 'observe') throw new Error('surface answered an observe query with something else');
    const obs = answer.observation;
    const name = () => {
      const text = screenWords(obs);
      return { text, named: nameScreen({ signature: obs.signature, paths: obs.paths, text }, this.screens, this.values) };
    };
    const { text, named } = this.ctx.profile ? this.ctx.profile.timeSync('name the screen', name) : name();
    // A page a rung named in this run (the furniture agreed) keeps that name while it shows the same furniture.
    const current = { obs, label: named?.label ?? this.namedByRung.get(obs.signature) ?? null, text, said: obs.parts.flatMap((p) => p.said ?? []) };
    this.current = current;
    if (current.label) this.shown.set(current.label, current);
    if (obs.signature !== this.lastSignature) {
      this.lastSignature = obs.signature;
      // The line is queued before the picture is asked for, so the log reads screen → screenshot.
      this.note('screen', { label: current.label, how: named?.how ?? null, signature: obs.signature, locus: obs.locus });
      // A screenshot per declared screen reached. Transient unnamed states (a frameset still loading) get a
      // line but no picture; a failure takes its own. The capture overlaps the next resolve and journal write,
      // and is awaited before anything acts on the page, so it always shows the screen the step acted on.
      if (current.label && current.label !== this.lastShotLabel) {
        this.lastShotLabel = current.label;
        const label = current.label;
        void this.shots.run(() => this.shot(label));
      }
    }
    return current;
  }

  /**
   * Queues one of a step's routine evidence lines (the screen seen, the resolution, the step's summary) without
   * waiting for its write: the log's own lock keeps the call order, so the chain is the one an awaited append makes.
   * `notesWritten` is awaited before a journalled step's `dispatched`, before every act and at the end of the run
   * (a refused line ends the run before the journal says a commit may be pressed), so every line up to a press is with the
   * kernel before the press, and a failed write still ends the run (docs/design/profiling.md, "Profiling a replay").
   */
  private note(kind: string, data: Record<string, unknown>): void {
    const began = this.ctx.profile ? performance.now() : 0;
    this.notes = this.ctx.evidence.append(kind, data).then(
      () => this.ctx.profile?.add('evidence line (queued)', performance.now() - began),
      (e: unknown) => {
        this.noteFailed ??= e;
      },
    );
  }

  /** Settles once the last stage's `observed` is on disk; throws when it could not be written. */
  private async journalWritten(): Promise<void> {
    await this.stageObserved;
    if (this.journalFailed !== null) throw this.journalFailed;
  }

  /** Settles once every queued line is written; throws the first write that failed. */
  private async notesWritten(): Promise<void> {
    await this.notes;
    if (this.noteFailed !== null) throw this.noteFailed;
  }

  private attaches(kind: EvidenceKind): boolean {
    return (this.ctx.attachments ?? ['screenshot', 'text']).includes(kind);
  }

  private shotsTaken(): Promise<void> {
    return this.shots.idle();
  }

  /** Never rejects: it runs detached from the step that asked for it, and a lost picture must not end a run. */
  private async shot(name: string): Promise<void> {
    if (!this.attaches('screenshot')) return;
    try {
      const png = await this.timed('screenshot: capture', () => this.surface.evidence('screenshot'));
      await this.timed('screenshot: write', () => this.ctx.evidence.screenshot(name, png));
      // Every screenshot masks the fields holding a secret; the evidence says how many it masked.
      const masked = this.surface.maskedLastShot ?? 0;
      if (masked > 0) await this.ctx.evidence.append('screenshot_masked', { name, secret_fields: masked });
    } catch (e) {
      await this.ctx.evidence.append('screenshot_failed', { reason: (e as Error).message }).catch(() => undefined);
    }
  }

  /**
   * The declared outcome (business, failure, recovery) the screen shows, if any, the first in that order. A rule whose
   * text was not found in the part of a very long screen a card regex searches is not known to be absent: it comes back
   * `undecided` when it or a rule before it cannot be ruled out, and the run then says it cannot tell
   * (docs/design/replay.md, "A declared text on a long screen").
   */
  private outcomeOf(named: Named): Declared | null {
    if (!named.label) return null;
    let undecided: Declared | null = null;
    for (const kind of ['business', 'failure', 'recovery'] as const) {
      for (const [name, rule] of Object.entries(this.card.outcomes[kind])) {
        if (rule.screen !== named.label) continue;
        if (rule.text === undefined) return undecided ?? { kind, name, rule };
        const matcher = compileSafe(this.fillPattern(rule.text));
        // A declared outcome's words may be what the app says (a refusal toast): they are its answer, not a record.
        if (matcher.test(named.text) || named.said.some((w) => matcher.test(w))) return undecided ?? { kind, name, rule };
        if (!matcher.covers(named.text)) undecided ??= { kind, name, rule, undecided: { length: named.text.length, searched: matcher.testWindow } };
      }
    }
    return undecided;
  }

  /** Why a declared outcome could be neither seen nor ruled out on the screen. */
  private static undecidedWhy(outcome: Declared, screen: string | null): string {
    const n = (v: number): string => v.toLocaleString('en-US');
    const u = outcome.undecided;
    return `the screen ${screen ?? ''} has ${n(u?.length ?? 0)} characters of text and the ${outcome.kind} outcome ${outcome.name}'s text was searched in the first ${n(u?.searched ?? 0)} only, so whether it shows cannot be told`;
  }

  /** An outcome's text pattern with its input blanks filled by the values, escaped: a value is text, never a pattern. */
  private fillPattern(pattern: string): string {
    const escape = (v: string): string => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const input = Object.fromEntries(Object.entries(this.ctx.inputs).map(([k, v]) => [k, escape(v)]));
    return fillBlanks(pattern, { input, env: {} });
  }

  private wanted(step: Step): string[] | null {
    if (step.settle.kind === 'screen_is') return [step.settle.screen];
    if (step.settle.kind === 'screen_in') return step.settle.screens;
    return null;
  }

  /** Poll `observe` until the settle condition holds, a declared outcome shows, or the page settles elsewhere. */
  private async settle(step: Step): Promise<Waited> {
    const wanted = this.wanted(step);
    if (!wanted) {
      const { timeout, quiet } = this.timing(step);
      await this.loadsEnded(Math.min(timeout, quiet));
      // A commit that stays on its screen is read, as any commit, off a look with its write answered.
      return step.effect.kind === 'commit' ? await this.lookAtRest(timeout) : { named: await this.look(), settled: true, ms: 0 };
    }
    // A commit's screen, and its postconditions, are read only once the app has answered its writes: a look taken
    // while one is out may be an optimistic screen the answer then replaces. Only writes count, not the wider `busy`
    // (a long poll, a progress bar or an `aria-busy` a library never clears would hold a good commit in doubt)
    // (docs/design/replay.md, "Settling").
    const atRest = step.effect.kind === 'commit';
    return this.waitFor(wanted, { ...this.timing(step), leaving: step.screen, atRest });
  }

  /** A look with no write of the app's out before or after it, or `busy` when none came before `timeout`. */
  private async lookAtRest(timeout: number): Promise<Waited> {
    const began = this.now();
    let attempt = 0;
    for (;;) {
      const writingBefore = this.writing();
      const named = await this.look();
      const ms = this.now() - began;
      if (!writingBefore && !this.writing()) return { named, settled: true, ms, atRest: true };
      if (ms >= timeout) return { named, settled: false, why: 'busy', ms };
      await sleep(POLL_STEPS_MS[Math.min(attempt++, POLL_STEPS_MS.length - 1)] ?? 100);
    }
  }

  /**
   * Whether the app has a write out and unanswered that it sent since the last act began (`Surface.writesOut`; none
   * when the surface cannot tell). One sent before the press is not the commit's: a stream the page opened on load
   * (a long-lived POST) would otherwise hold every commit in doubt.
   */
  private writing(): boolean {
    return (this.surface.writesOut?.(this.actedAt ?? undefined) ?? 0) > 0;
  }

  /**
   * Before a look while settling: a document on its way (a click's navigation, a frame's page) is waited for on the
   * surface's load events, for at most `ms`, instead of being looked at between two documents. It changes when the
   * engine looks, never what a look must show (docs/design/replay.md, "Settling").
   */
  private async loadsEnded(ms: number): Promise<void> {
    const loaded = this.surface.loaded?.bind(this.surface);
    if (!loaded || ms <= 0) return;
    await this.timed('settle: wait for loads', () => loaded(ms));
  }

  /** How long a step may wait for its screen, and how long a page must stay unchanged to count as at rest. */
  private timing(step: Step): { timeout: number; quiet: number } {
    return {
      timeout: ('timeout_ms' in step.settle ? step.settle.timeout_ms : undefined) ?? this.ctx.settleTimeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS,
      quiet: ('quiet_ms' in step.settle ? step.settle.quiet_ms : undefined) ?? this.ctx.quietMs ?? DEFAULT_QUIET_MS,
    };
  }

  /**
   * Polls until a wanted screen or a declared outcome shows. Stops early — without waiting out the deadline —
   * when the page has stayed unchanged for `quiet` ms on a screen that is neither wanted nor the one being left:
   * a page at rest on an unknown screen will not turn into a known one by waiting.
   */
  private async waitFor(
    wanted: readonly string[],
    opts: { timeout: number; quiet: number; leaving: string | null; atRest?: boolean },
  ): Promise<Waited> {
    const began = this.now();
    const deadline = began + opts.timeout;
    let attempt = 0;
    let last: Named | null = null;
    const rest = new Rest(this.now);
    for (;;) {
      try {
        // A load still on its way after `quiet` is left to the looks: a page that never finishes parsing is still seen.
        await this.loadsEnded(Math.min(opts.quiet, deadline - this.now()));
        // For a commit proven by its screen: no write of the app's out before the look nor after it (one answered
        // while the page was walked may have been drawn after the walk saw the old screen).
        const writingBefore = opts.atRest && this.writing();
        last = await this.look();
        const ms = this.now() - began;
        const proof = !(opts.atRest && (writingBefore || this.writing()));
        // An outcome that cannot be told on the screen being left is that screen still showing, not an answer.
        const outcome = this.outcomeOf(last);
        const known = (last.label !== null && wanted.includes(last.label)) || (outcome !== null && (!outcome.undecided || last.label !== opts.leaving));
        if (proof && known) return { named: last, settled: true, ms, atRest: opts.atRest === true };
        // A wanted screen or an outcome still waiting for its write's answer is not "at rest elsewhere": it is waited
        // on to the deadline (then `busy`), never taken for an unknown screen.
        if (!rest.see(last) && last.label !== opts.leaving && rest.ms >= opts.quiet && !(known && !proof)) {
          return { named: last, settled: false, why: 'stable', ms };
        }
      } catch (e) {
        // A part changing under the observer (a frame navigating) is the screen still settling; anything else is real.
        if (!(e instanceof SurfaceError && e.code === 'STALE')) throw e;
        rest.moved();
      }
      if (this.now() >= deadline) {
        const named = last ?? (await this.look());
        return { named, settled: false, why: opts.atRest && this.writing() ? 'busy' : 'timeout', ms: this.now() - began };
      }
      await this.timed('settle: pause between looks', () => sleep(POLL_STEPS_MS[Math.min(attempt++, POLL_STEPS_MS.length - 1)] ?? 100));
    }
  }

  /** Checks a commit's postconditions on the screen showing; returns the first that does not hold. */
  private unmetPostcondition(step: Step, named: Named): Postcondition | null {
    return this.unmet(step.post ?? [], named);
  }

  /** The first of `proofs` (a step's pre- or postconditions) that does not hold on the look, or null. */
  private unmet(proofs: readonly Postcondition[], named: Named): Postcondition | null {
    for (const p of proofs) {
      if (p.kind === 'text') {
        if (!named.text.includes(this.fill(p.contains))) return p;
        continue;
      }
      if (p.kind === 'row') {
        // Only the record's own row: another row naming the same record (or a toast repeating it) proves nothing.
        const key = this.fill(p.key);
        const words = this.fill(p.contains);
        if (!named.obs.parts.some((f) => f.rows?.some((r) => r.key === key && r.text.includes(words)))) return p;
        continue;
      }
      const name = this.fill(p.name);
      const scope = p.scope?.map((l) => ({ ...l, name: this.fill(l.name) }));
      const found = named.obs.parts.some((f) => f.controls.some((c) => c.role === p.role && c.name === name && (!scope || inScope(c.scope, scope))));
      if (!found) return p;
    }
    return null;
  }

  /**
   * Waits (under the step's settle rules) until every postcondition holds on the outcome screen, or the page rests
   * without them. A commit whose effect cannot be seen is in doubt, never a success: so is one that stayed on the
   * screen it was pressed on where every postcondition already held before the press (they cannot tell a press that
   * did something from one that did nothing: a typed comment, a value another row already shows). Null when they
   * prove the effect.
   */
  /**
   * `before`: the last look before the press at the screen the commit landed on — the screen it was pressed on, or one
   * the run showed earlier (the list a dialog was opened from) — or null when the run never showed it before. Every
   * postcondition holding there already proves nothing (docs/design/replay.md, "Postconditions").
   */
  /**
   * `pressedOn`: the last look before the press, whose sayings are no news of the commit. What the app says new on a
   * look taken with its writes answered is compared with what the card's step said (`saidShortfall`) before the
   * postconditions are, and a declared outcome showing on a later look is the answer (docs/design/replay.md, "What the
   * app says").
   */
  private async postconditions(step: Step, settled: Named, before: Named | null, settledAtRest: boolean, pressedOn: Named | null): Promise<Shortfall | null> {
    if (!step.post?.length && !step.said?.length) return null;
    // The settled look counts only if it was taken with no write out before and after (`Waited.atRest`: a rung's name
    // alone is not); each later look must have none out before and after it either.
    let answered = settledAtRest && !this.writing();
    // A refusal's own words are a truer account than postconditions that held before the press.
    const heard = answered ? this.saidShortfall(step, settled, pressedOn) : null;
    if (heard) return heard;
    if (step.post?.length && before && settled.label !== null && settled.label === before.label && !this.unmetPostcondition(step, before)) {
      return { kind: 'held_before' };
    }
    const { timeout, quiet } = this.timing(step);
    const began = this.now();
    let named = settled;
    const rest = new Rest(this.now);
    rest.see(named);
    let attempt = 0;
    for (;;) {
      if (answered && named !== settled) {
        // A toast or a page that arrived after the settled look: a declared outcome it shows is the run's answer.
        const outcome = this.outcomeOf(named);
        if (outcome && !outcome.undecided) return { kind: 'outcome', outcome };
        const said = this.saidShortfall(step, named, pressedOn);
        if (said) return said;
      }
      const unmet = this.unmetPostcondition(step, named);
      if (!unmet && answered) return null;
      // Postconditions that hold while a write is still out are waited on to the step's timeout: its answer may
      // replace them (an optimistic screen, then the refusal).
      if ((unmet && answered && rest.ms >= quiet) || this.now() - began >= timeout) return unmet ? { kind: 'unmet', unmet } : { kind: 'unanswered' };
      await sleep(POLL_STEPS_MS[Math.min(attempt++, POLL_STEPS_MS.length - 1)] ?? 100);
      try {
        await this.loadsEnded(Math.min(quiet, timeout - (this.now() - began)));
        const writingBefore = this.writing();
        named = await this.look();
        answered = !writingBefore && !this.writing();
        rest.see(named);
      } catch (e) {
        // A part changing under the observer (a form submitted) is the effect still arriving.
        if (!(e instanceof SurfaceError && e.code === 'STALE')) throw e;
        rest.moved();
      }
    }
  }

  /**
   * What the app says new on `named` since `pressedOn` (its live regions, shared/said.ts) when none of it is what the
   * card's step said when it was made, filled from the run's inputs; null when it said it, says nothing new (silence
   * proves nothing either way), or the step recorded nothing (docs/design/replay.md, "What the app says").
   */
  private saidShortfall(step: Step, named: Named, pressedOn: Named | null): Shortfall | null {
    if (!step.said?.length) return null;
    const now = newSaid(named.said, pressedOn?.said ?? []);
    if (!now.length) return null;
    const then = step.said.map((t) => this.fill(t));
    return saysAsBefore(now, then) ? null : { kind: 'said', now, then };
  }

  /**
   * Whether the screen a commit is about to be pressed on shows the record its inputs name (docs/design/replay.md, "The
   * right record"): every precondition must hold on the last look before the journal's `dispatched` and the press.
   * A look that lacks one is looked at again while the screen is still arriving (it changes, or has not rested for the
   * quiet time), never past the step's timeout; a screen at rest without it is the wrong record: FAILED WRONG_RECORD,
   * nothing journalled, nothing pressed. The screen's content is compared, as postconditions are: what a page
   * announces (alert, status, aria-live) is its `said`, never its text, so an announcement cannot prove a record it
   * only names (docs/design/replay.md, "What the app says").
   */
  private async preconditions(step: Step, here: Named): Promise<Ending | null> {
    const pre = step.pre ?? [];
    const { timeout, quiet } = this.timing(step);
    const began = this.now();
    const rest = new Rest(this.now);
    let named = here;
    rest.see(named);
    let attempt = 0;
    for (;;) {
      const unmet = this.unmet(pre, named);
      if (!unmet) {
        this.note('precondition', { step: step.id, held: pre.length, screen: named.label });
        return null;
      }
      if (named.label !== step.screen || rest.ms >= quiet || this.now() - began >= timeout) {
        await this.ctx.evidence.append('precondition_failed', { step: step.id, precondition: unmet, screen: named.label });
        return {
          word: 'FAILED',
          code: 'WRONG_RECORD',
          message: `${step.id} must act on the record its inputs name, but ${named.label ?? 'the screen'} does not show it (${this.describeFilled(unmet)} does not hold); nothing was pressed`,
          atStep: step.id,
        };
      }
      await sleep(POLL_STEPS_MS[Math.min(attempt++, POLL_STEPS_MS.length - 1)] ?? 100);
      named = (await this.lookAgain(rest)) ?? named;
    }
  }

  /** One more look while waiting, seen by `rest`; null when the screen moved under it (STALE: not at rest). */
  private async lookAgain(rest: Rest): Promise<Named | null> {
    try {
      const named = await this.look();
      rest.see(named);
      return named;
    } catch (e) {
      if (!(e instanceof SurfaceError && e.code === 'STALE')) throw e;
      rest.moved();
      return null;
    }
  }

  /**
   * Looks again for a target the right screen does not show yet (docs/design/replay.md, "A target not there yet"): a
   * list filtered by a search box 500 ms after the last key is the same screen before and after, so settling did not
   * wait for it. The target is resolved again after each look while the screen is still arriving — it changes, or has
   * not rested for the quiet time by the wall clock and by the page's own clock (`Surface.quiet`: the page's timers set
   * before the wait have run) — never past the step's timeout and never on another screen. What it found, and how long
   * it waited; the first answer when nothing came.
   */
  private async targetArriving(step: Step, target: BoundTarget, first: Resolution): Promise<{ resolution: Resolution; ms: number }> {
    const { timeout, quiet } = this.timing(step);
    const began = this.now();
    const rest = new Rest(this.now);
    let named = this.current;
    if (named) rest.see(named);
    let pageQuiet = this.surface.quiet === undefined;
    void this.surface.quiet?.(quiet).then(
      () => (pageQuiet = true),
      () => (pageQuiet = true),
    );
    let lookedAfterQuiet = pageQuiet;
    let resolution = first;
    for (let attempt = 1; ; attempt++) {
      if (resolution.ok || resolution.code !== 'TARGET_NOT_FOUND') break;
      if (!named || named.label !== step.screen || (rest.ms >= quiet && lookedAfterQuiet) || this.now() - began >= timeout) break;
      await sleep(POLL_STEPS_MS[Math.min(attempt, POLL_STEPS_MS.length - 1)] ?? 120);
      const quietBefore = pageQuiet;
      const seen = await this.lookAgain(rest);
      if (!seen) continue;
      named = seen;
      lookedAfterQuiet = quietBefore;
      if (named.label !== step.screen) break;
      resolution = await this.surface.resolve(target);
    }
    return { resolution, ms: this.now() - began };
  }

  /** A pre- or postcondition in words, its blanks filled from the run's inputs (never a secret: the card refuses those). */
  private describeFilled(p: Postcondition): string {
    if (p.kind === 'row') return `row ${JSON.stringify(this.fill(p.key))} showing ${JSON.stringify(this.fill(p.contains))} on the screen`;
    return p.kind === 'text'
      ? `text ${JSON.stringify(this.fill(p.contains))} on the screen`
      : `${p.role} ${JSON.stringify(this.fill(p.name))}${p.scope?.length ? ` in ${this.scopeWords(p.scope)}` : ''} on the screen`;
  }

  /** A scope chain in words, its blanks filled unless it is bound already: `row SHARE ID "400118-S0001"`. */
  private scopeWords(scope: readonly { role: string; name: string; column?: string | undefined }[], bound = false): string {
    return scope.map((l) => `${l.role}${l.column ? ` ${l.column}` : ''} ${JSON.stringify(bound ? l.name : this.fill(l.name))}`).join(' > ');
  }

  private result(end: Ending): RunResult {
    return RunResult.parse({
      word: end.word,
      code: end.code,
      retryable: RETRYABLE.has(end.word),
      message: this.ctx.masker.mask(end.message),
      card: this.card.id,
      run_id: this.ctx.runId,
      ...(end.outcome ? { outcome: end.outcome } : {}),
      outputs: this.ctx.masker.maskDeep(this.outputs),
      llm_calls: (this.ctx.model?.calls ?? 0) + (this.ctx.referee?.kind === 'model' ? this.ctx.referee.calls : 0) + (this.ctx.scout?.model.calls ?? 0),
      classifier_calls: (this.ctx.classifier?.calls ?? 0) + (this.ctx.referee?.kind === 'classifier' ? this.ctx.referee.calls : 0),
      rungs: this.rungs,
      ...(end.atStep ? { at_step: end.atStep } : {}),
      screen: this.current?.label ?? null,
      steps_done: this.stepsDone,
      from_journal: false,
      evidence: this.ctx.evidence.dir,
      ...(end.word !== 'SUCCESS' && this.current ? { page_text: this.pageText(this.current) } : {}),
      ...(this.escalated ? { escalated_to_human: true } : {}),
      ...(this.rehearsal ? { rehearsal: this.rehearsal } : {}),
      duration_ms: Math.max(0, this.now() - this.started),
    });
  }

  /** The screen's words for a receipt: masked, capped, so a caller reads what the page said without opening evidence. */
  private pageText(named: Named): string {
    // What the page shows, then what it says (its live regions), so a caller reads a refusal toast too.
    const text = this.ctx.masker.mask([named.text, ...named.said].join(' ').replace(/\s+/g, ' ').trim());
    return text.length > PAGE_TEXT_MAX ? `${text.slice(0, PAGE_TEXT_MAX)}…` : text;
  }

  private endingFor(outcome: Declared, step: Step): Ending {
    if (outcome.undecided) {
      const why = Replay.undecidedWhy(outcome, outcome.rule.screen);
      // A commit this run saw land happened (the journal holds it observed): the run cannot say how it ended, but
      // nothing is in doubt for a person to settle, and a second call is answered from the journal.
      if (this.committed) {
        return { word: 'UNSAFE_TO_RETRY', code: 'OUTCOME_UNDECIDED', message: `${why}; the commit ${this.committed} landed before it: do not run this again before checking`, atStep: step.id };
      }
      if (this.pressedCommit) {
        return { word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', message: `${why}; a commit was pressed this run: do not retry until a person settles it`, atStep: step.id };
      }
      return { word: 'FAILED', code: 'OUTCOME_UNDECIDED', message: `${why}; nothing was committed`, atStep: step.id };
    }
    const what = outcome.rule.description ?? outcome.name;
    if (outcome.kind === 'business') {
      return { word: 'BUSINESS_OUTCOME', code: outcome.rule.code, outcome: outcome.name, message: what, atStep: step.id };
    }
    if (outcome.kind === 'recovery' && !this.pressedCommit) {
      return { word: 'RECOVERABLE', code: outcome.rule.code, outcome: outcome.name, message: what, atStep: step.id };
    }
    return { word: 'FAILED', code: outcome.rule.code, outcome: outcome.name, message: what, atStep: step.id };
  }

  /**
   * The run was told to stop while a person was asked (docs/design/escalation.md, "The escalation ladder", "A person on the ladder"): the climb
   * ended at once and nothing was pressed after it. With no commit dispatched that is a cancellation (RECOVERABLE /
   * CANCELLED); with one in doubt the word stays what the journal proves, and the message says why the run ended.
   */
  private stoppedEnding(end: Ending): Ending {
    const stop = this.stoppedAsking;
    if (!stop || end.word === 'SUCCESS' || end.word === 'BUSINESS_OUTCOME') return end;
    const why = `stopped (${stop.reason}) while a person was asked at step ${stop.step}`;
    if (!this.pressedCommit && (end.word === 'FAILED' || end.word === 'RECOVERABLE')) {
      return { word: 'RECOVERABLE', code: 'CANCELLED', message: `${why}; no commit was dispatched, so trying again is safe`, atStep: stop.step };
    }
    return { ...end, message: `${why}: ${end.message}` };
  }

  /** Cancelled by the caller, and nothing has been pressed yet: the one time a cancellation is honoured. */
  private cancelled(step: Step): Ending | null {
    const signal = this.ctx.signal;
    if (!signal?.aborted || this.pressedCommit) return null;
    const why = typeof signal.reason === 'string' ? signal.reason : 'the caller cancelled';
    return {
      word: 'RECOVERABLE',
      code: 'CANCELLED',
      message: `stopped before step ${step.id} (${why}); no commit was dispatched, so trying again is safe`,
      atStep: step.id,
    };
  }

  /** Run every step. Never throws: every ending is a typed result, with evidence kept. */
  async run(): Promise<RunResult> {
    let end: Ending;
    let commitInFlight: string | null = null;
    /** The step being done when something threw: the receipt names it (`at_step`). */
    let current: string | null = null;
    try {
      await this.ctx.evidence.append('run_start', {
        card: this.card.id,
        version: this.card.version,
        inputs: Object.keys(this.ctx.inputs),
      });
      const { entry } = this.ctx;
      this.say(`open ${entry}`);
      await this.timed('open the entry', () => this.surface.open(entry));
      end = { word: 'SUCCESS', code: 'OK', message: 'all steps done' };
      for (const [i, step] of this.card.steps.entries()) {
        current = step.id;
        const stepEnd = this.cancelled(step) ?? (await this.step(step, i, (id) => (commitInFlight = id)));
        if (stepEnd) {
          end = stepEnd;
          break;
        }
        commitInFlight = null;
        this.stepsDone++;
      }
      current = null;
      end = this.stoppedEnding(end);
      await Promise.all([this.notesWritten(), this.journalWritten()]);
      // The last step's write window is judged on every ending: a stage that wrote and then a run stopped (a screen
      // mismatch, a cancellation that would say "safe to try again") is UNSAFE_TO_RETRY, never retried blind.
      const wrote = await this.heldInDoubt(await this.writes.end());
      if (end.word === 'SUCCESS') end = wrote ?? this.finalWord();
      else if (wrote && (end.word === 'FAILED' || end.word === 'RECOVERABLE' || end.word === 'REHEARSED')) end = wrote;
      // A rehearsal of a card without a commit ran every step (its writes held): there was nothing to press.
      if (this.ctx.rehearse && end.word === 'SUCCESS') end = { word: 'REHEARSED', code: 'NO_COMMIT', message: `the card has no commit: every step ran with its writes held (${end.message}); there was nothing to press` };
    } catch (e) {
      await this.shotsTaken();
      if (e instanceof JournalReceipt) return await this.replayedReceipt(e.step);
      end = this.stoppedEnding(this.crashEnding(e, commitInFlight, current));
      // The open window's writes go into the evidence whatever ended the run (a commit in doubt keeps what it sent);
      // one a step that is no commit sent is judged as above. A surface that died cannot say: nothing is added.
      const wrote = await this.heldInDoubt(await this.writes.end().catch(() => null));
      if (wrote && (end.word === 'FAILED' || end.word === 'RECOVERABLE')) end = wrote;
    }
    await this.shotsTaken();
    const result = this.result(end);
    try {
      if (end.word !== 'SUCCESS' && end.word !== 'BUSINESS_OUTCOME') await this.failureEvidence(end);
      await this.ctx.evidence.append('run_end', result);
    } catch (e) {
      // The evidence cannot be written (a full disk): the word this run proved stands, and the caller, which seals
      // the evidence, says what is missing (runner/run.ts, docs/design/replay.md, "A run stopped from outside its steps").
      this.evidenceLost = e;
    }
    // The receipt is journalled by the caller (runner/run.ts) once the evidence is sealed, with its head.
    return result;
  }

  /**
   * A write held before it left is recorded in the journal as such (`held`), and the key stays as it was.
   * A step that is no commit but wrote to the application changed it as a commit would: with a journal, that step is
   * journalled as a commit dispatched and never observed, so the key is in doubt and the same call again is refused
   * (JOURNAL_IN_DOUBT) instead of replayed and sending the write twice, until a person settles it (docs/design/journal.md,
   * "Never twice"). Without a journal the word alone says it.
   */
  private async heldInDoubt(end: WriteEnding | null): Promise<Ending | null> {
    const journal = this.ctx.journal;
    if (!end || !journal) return end;
    if (end.held) {
      // Held before it left: nothing reached the app, so nothing is in doubt. The journal says what was stopped in a
      // record of its own, which leaves the key free for a run of a corrected card.
      const held = end.held;
      try {
        await this.journalWritten();
        await journal.held(this.ctx.runId, end.atStep, held);
      } catch (e) {
        return { ...end, message: `${end.message}; the journal could not record the held write (${(e as Error).message})` };
      }
      return end;
    }
    try {
      await this.journalWritten();
      await journal.dispatched(this.ctx.runId, end.atStep, 'commit');
    } catch (e) {
      // The write went out whatever the journal could keep: the word stays UNSAFE_TO_RETRY and says what is missing.
      return { ...end, message: `${end.message}; the journal could not hold this key in doubt (${(e as Error).message}): do not run it again before checking` };
    }
    return { ...end, message: `${end.message}; the journal holds this key in doubt until a person settles it (handrail journal settle)` };
  }

  /**
   * The commit was already observed by an earlier run with this journal: it is not pressed again, and the
   * receipt recorded then is the answer (the journal works like an idempotency key).
   */
  private async replayedReceipt(step: string): Promise<RunResult> {
    const recorded = RunResult.safeParse(this.ctx.journal?.lastReceipt());
    const result = recorded.success
      ? { ...recorded.data, from_journal: true }
      : this.result({
          word: 'UNSAFE_TO_RETRY',
          code: 'RECEIPT_MISSING',
          message: `commit ${step} was already observed by an earlier run, but no receipt was recorded; a person must check the outcome`,
          atStep: step,
        });
    await this.ctx.evidence.append('run_end', { ...result, replayed_from_journal: true, this_run: this.ctx.runId });
    this.say(`${step}: already observed in the journal; not pressed again`);
    return result;
  }

  private crashEnding(e: unknown, commitInFlight: string | null, current: string | null): Ending {
    // The evidence's own failure (runner/evidence.ts EVIDENCE_IO, a full disk) is duck-typed: the engine does not import it.
    const evidenceIo = (e as { code?: unknown } | null | undefined)?.code === 'EVIDENCE_IO';
    const code = e instanceof SurfaceError ? e.code : evidenceIo ? 'EVIDENCE_UNWRITABLE' : 'INTERNAL';
    const detail = e instanceof Error ? e.message.split('\n')[0] ?? e.message : String(e);
    if (commitInFlight || e instanceof InDoubt) {
      const commit = commitInFlight ?? (e instanceof InDoubt ? e.step : undefined);
      const what = commitInFlight ? `commit step ${commitInFlight} was dispatched and its outcome was never observed (${detail})` : detail;
      return {
        word: 'UNSAFE_TO_RETRY',
        code: 'COMMIT_IN_DOUBT',
        message: `${what}; do not retry until a person or a read-only probe settles it`,
        ...(commit ? { atStep: commit } : {}),
      };
    }
    const word: Word = code === 'SURFACE_UNREACHABLE' && this.stepsDone === 0 ? 'RECOVERABLE' : 'FAILED';
    return { word, code: code === 'STALE' ? 'NAVIGATION_FAILED' : code, message: detail, ...(current ? { atStep: current } : {}) };
  }

  private async failureEvidence(end: Ending): Promise<void> {
    await this.shot(`failure-${end.code.toLowerCase()}`);
    if (!this.attaches('text')) return;
    try {
      await this.ctx.evidence.text('failure', await this.surface.evidence('text'));
    } catch (e) {
      await this.ctx.evidence.append('text_failed', { reason: (e as Error).message });
    }
  }

  private finalWord(): Ending {
    const named = this.current;
    if (!named) return { word: 'FAILED', code: 'SCREEN_MISMATCH', message: 'no screen was observed' };
    const outcome = this.outcomeOf(named);
    const last = this.card.steps[this.card.steps.length - 1] as Step;
    if (outcome) return this.endingFor(outcome, last);
    if (named.label && this.card.outcomes.success.screens.includes(named.label)) {
      return { word: 'SUCCESS', code: 'OK', message: `ended on ${named.label}` };
    }
    return {
      word: 'FAILED',
      code: 'UNDECLARED_OUTCOME',
      message: `the run ended on ${named.label ?? 'an unrecognised screen'}, which is no declared outcome`,
    };
  }

  /** One step through the six checkpoints. Returns an ending to stop the run, or null to go on. */
  private async step(step: Step, index: number, markCommit: (id: string) => void): Promise<Ending | null> {
    const tag = `step ${index + 1}/${this.card.steps.length} ${step.id}`;
    this.tell('start', step, index);
    // 1. Right screen? The observation that settled the previous step is the screen now showing; the first
    // screen is waited for until it is at rest (a page may render after its load event, through a loading screen).
    const first = index === 0 ? await this.firstScreen(step) : null;
    if (first && 'ending' in first) return first.ending;
    const here = first ? first.named : (this.current ?? (await this.look()));
    if (here.label !== step.screen) {
      const outcome = this.outcomeOf(here);
      if (outcome) return this.endingFor(outcome, step);
      return {
        word: 'FAILED',
        code: 'SCREEN_MISMATCH',
        message: `${step.id} runs on screen ${step.screen}, but ${here.label ?? 'an unrecognised screen'} is showing`,
        atStep: step.id,
      };
    }
    // The right record? A commit is pressed only on a screen that shows the record its inputs name.
    if (step.effect.kind === 'commit' && step.pre?.length) {
      const wrong = await this.timed('preconditions', () => this.preconditions(step, here));
      if (wrong) return wrong;
    }
    // 2. Resolve.
    const target = this.bind(step.target);
    const once = await this.timed('resolve (find + fingerprint)', () => this.surface.resolve(target));
    // A target not there yet on the right screen (a list a debounced search has not filtered) is waited for, bounded.
    const arrived = !once.ok && once.code === 'TARGET_NOT_FOUND' ? await this.timed('wait for the target', () => this.targetArriving(step, target, once)) : null;
    const resolution = arrived?.resolution ?? once;
    this.note('resolve', { step: step.id, target: step.target, ...resolution, ...(arrived ? { waited_ms: arrived.ms } : {}) });
    // The record is proven again on the look the target arrived on: the screen changed since it was first proven.
    if (arrived?.resolution.ok && step.effect.kind === 'commit' && step.pre?.length && this.current) {
      const wrong = await this.timed('preconditions', () => this.preconditions(step, this.current as Named));
      if (wrong) return wrong;
    }
    // The control rung, when the ladder found none or several: the referee proposes a row, the fingerprint disposes.
    const lost = !resolution.ok && (resolution.code === 'TARGET_NOT_FOUND' || resolution.code === 'AMBIGUOUS');
    const found: Resolution | Resolved = (lost ? await this.controlFor(step, target) : null) ?? resolution;
    if (!found.ok) {
      const tried = found.attempts.map((a) => `${a.rung}=${a.count}`).join(', ');
      return {
        word: 'FAILED',
        code: found.code,
        // The row or container it was looked for in is named: a share the list does not show is said as that share.
        message: `target ${step.target} (${target.role} ${JSON.stringify(target.name ?? target.hint ?? '')}${target.scope.some((l) => l.role !== 'frame') ? ` in ${this.scopeWords(target.scope.filter((l) => l.role !== 'frame'), true)}` : ''}): ${found.detail} [rungs tried: ${tried}]`,
        atStep: step.id,
      };
    }
    this.rungs[step.target] = found.rung;
    const secret = this.typesSecret(step);
    if (secret && !step.shows_secret && !found.control?.secret) {
      return { word: 'FAILED', code: 'SECRET_FIELD', message: `${step.id} would type a secret into ${step.target}, which the page does not report as a password field`, atStep: step.id };
    }
    // Side-effect detection: the previous step's writes are judged, this step's are watched from here.
    const wrote = await this.timed('write watch', () => this.writes.begin(step));
    if (wrote) return await this.heldInDoubt(wrote);
    // A rehearsal stops at its first commit: checked so far, and the request found without sending it.
    if (step.effect.kind === 'commit' && this.ctx.rehearse) return await this.rehearseAt(step, found.ref);
    // 3. Journal. The last moment a cancellation can stop a commit: after its `dispatched` line it may be pressed.
    if (step.effect.kind === 'commit') {
      const stop = this.cancelled(step);
      if (stop) return stop;
    }
    const journalled = JOURNALLED.has(step.effect.kind) && this.ctx.journal;
    const effect = step.effect.kind as 'stage' | 'commit';
    if (journalled && this.ctx.journal) {
      const state = this.ctx.journal.state(step.id);
      if (effect === 'commit' && state === 'dispatched') throw new InDoubt(`an earlier run pressed ${step.id} and its outcome was never observed; the journal holds the key in doubt`, step.id);
      if (effect === 'commit' && state === 'observed') throw new JournalReceipt(step.id);
      const journal = this.ctx.journal;
      // Every queued line is down before `dispatched`: a line the disk refused ends the run here, FAILED, and never
      // after the journal says this step may have been pressed (which would hold its key in doubt for nothing).
      await this.timed('wait for the screenshot and evidence', () => Promise.all([this.shotsTaken(), this.notesWritten(), this.journalWritten()]));
      await this.timed('journal: dispatched (fsync)', () => journal.dispatched(this.ctx.runId, step.id, effect));
    }
    if (step.effect.kind === 'commit') {
      markCommit(step.id);
      this.pressedCommit = true;
    }
    if (JOURNALLED.has(step.effect.kind)) this.tell('dispatched', step, index);
    // 4. Act. The screen it acts on, and the last showing of every screen before the press, kept for the commit's
    // postconditions (what held before the press proves nothing).
    const pressedOn = this.current;
    const shownBefore = new Map(this.shown);
    await this.timed('wait for the screenshot and evidence', () => Promise.all([this.shotsTaken(), this.notesWritten()]));
    failpoint(step.id, 'before_act');
    // What is typed is the application's code for a mapped input (reason LEGAL types 1); everything compared stays the word.
    const op = step.op.value === undefined
      ? { verb: step.op.verb }
      : { verb: step.op.verb, value: fillBlanks(step.op.value, { input: this.typed, env: {} }), ...(secret ? { secret: true } : {}) };
    this.actedAt = Date.now();
    const acted = await this.timed('act', () => this.surface.act(found.ref, op));
    failpoint(step.id, 'after_act');
    if (step.op.verb === 'read') {
      const missing = this.extract(step, acted.read ?? '');
      if (missing) return this.outputMissing(missing, step);
    }
    if (step.op.verb === 'read_rows') {
      const missing = this.extractRows(step, acted.rows ?? [], acted.headers);
      if (missing) return this.outputMissing(missing, step);
    }
    // 5. Settle.
    let settled = await this.timed('settle (looks included)', () => this.settle(step));
    this.say(
      `${tag}: screen ${step.screen} · rung ${found.rung} · ${step.op.verb}${step.effect.kind === 'read' ? '' : ` (${step.effect.kind})`} · ` +
        `settled ${settled.named.label ?? '?'} in ${settled.ms}ms`,
    );
    const done = settled;
    this.note('step', {
      step: step.id,
      effect: step.effect.kind,
      verb: step.op.verb,
      rung: found.rung,
      screen_after: done.named.label,
      settle_ms: done.ms,
      ...(done.named.said.length ? { said: done.named.said } : {}),
    });
    if (!settled.settled && settled.why !== 'busy') {
      await this.unknownScreen(step, settled.named);
      const named = settled.named.label ? null : await this.climb(step, settled.named, this.wanted(step) ?? [], step.effect.kind === 'commit');
      if (named) settled = { named, settled: true, ms: settled.ms };
      // A rung names the look it was shown, which may have been taken while the commit's write was out: the commit
      // counts once a look at rest shows that screen again (the rung's name is kept by its signature).
      if (named?.label && step.effect.kind === 'commit') settled = await this.waitFor([named.label], { ...this.timing(step), leaving: null, atRest: true });
    }
    if (!settled.settled) {
      const showing = settled.named.label ?? 'an unrecognised screen';
      if (step.effect.kind === 'commit') {
        throw new InDoubt(
          settled.why === 'stable'
            ? `after ${step.id} the page settled on ${showing}, which is none of the outcomes the card declares`
            : settled.why === 'busy'
              ? `after ${step.id} the app had still not answered its write when the wait ended, on ${showing}`
              : `after ${step.id} the screen never became ${this.wanted(step)?.join(' or ')}`,
        );
      }
      return settled.why === 'stable'
        ? {
            word: 'FAILED',
            code: 'SCREEN_MISMATCH',
            message: `after ${step.id}, expected ${this.wanted(step)?.join(' or ')}, but the page settled on ${showing}`,
            atStep: step.id,
          }
        : {
            word: 'FAILED',
            code: 'TIMEOUT',
            message: `after ${step.id}, waited for ${this.wanted(step)?.join(' or ')} but ${showing} is showing`,
            atStep: step.id,
          };
    }
    // A stage is observed once the page settled. A commit is observed only once its outcome is proven — a
    // declared outcome, or the expected screen with every postcondition holding — so a commit whose effect
    // cannot be shown stays in doubt in the journal, and no later run presses it again.
    const observed = async (): Promise<void> => {
      // The step is proven (settled, and for a commit its outcome shown): the act reached the app, and the journal
      // does not say so yet — a crash test's deterministic "pressed, then crashed" case.
      failpoint(step.id, 'after_settle');
      // Observed only with its evidence written: a step whose lines could not be kept is not called done.
      await this.notesWritten();
      if (effect === 'commit') this.committed = step.id;
      const journal = journalled ? this.ctx.journal : null;
      if (!journal) return;
      if (effect === 'commit') {
        await this.timed('journal: observed (fsync)', () => journal.observed(this.ctx.runId, step.id, effect));
        return;
      }
      // A stage's `observed` decides nothing (only a commit can be in doubt): its fsync is not waited for. The next
      // `dispatched` is appended after it in the same file and waits for it, so it is durable before anything else is
      // pressed (docs/design/journal.md, "Never twice").
      this.stageObserved = journal.observed(this.ctx.runId, step.id, effect).catch((e: unknown) => {
        this.journalFailed ??= e;
      });
    };
    if (effect !== 'commit') await observed();
    // 6. Expected screen? A declared outcome (already held, bad password) ends the run here.
    const outcome = this.outcomeOf(settled.named);
    if (outcome?.undecided && effect === 'commit') throw new InDoubt(`after ${step.id} ${Replay.undecidedWhy(outcome, settled.named.label)}`);
    if (outcome) {
      if (effect === 'commit') await observed();
      this.stepsDone++;
      return this.endingFor(outcome, step);
    }
    if (step.expect && !(settled.named.label && step.expect.screen_in.includes(settled.named.label))) {
      if (step.effect.kind === 'commit') throw new InDoubt(`after ${step.id} an unexpected screen is showing`);
      return {
        word: 'FAILED',
        code: 'SCREEN_MISMATCH',
        message: `after ${step.id} expected ${step.expect.screen_in.join(' or ')}, but ${settled.named.label ?? 'an unrecognised screen'} is showing`,
        atStep: step.id,
      };
    }
    // A commit must show its effect: when its screen cannot tell, its postconditions must hold.
    const shown = settled.named;
    const short = step.effect.kind === 'commit' ? await this.timed('postconditions', () => this.postconditions(step, shown, shown.label === pressedOn?.label ? pressedOn : shown.label ? (shownBefore.get(shown.label) ?? null) : null, settled.settled && settled.atRest === true, pressedOn)) : null;
    if (short?.kind === 'outcome') {
      await observed();
      this.stepsDone++;
      return this.endingFor(short.outcome, step);
    }
    if (short?.kind === 'said') {
      await this.ctx.evidence.append('said_unexpected', { step: step.id, said: short.now, card_said: short.then, screen: this.current?.label ?? null });
      throw new InDoubt(`after ${step.id} the app said ${quoteSaid(short.now)}; when the card was made it said ${quoteSaid(short.then)}, and no declared outcome's words are among them`);
    }
    if (short?.kind === 'unmet') {
      await this.ctx.evidence.append('postcondition_failed', { step: step.id, postcondition: short.unmet, screen: this.current?.label ?? null });
      throw new InDoubt(`after ${step.id} the screen shows no sign of its effect: ${describePost(short.unmet)} does not hold`);
    }
    if (short?.kind === 'held_before') {
      await this.ctx.evidence.append('postcondition_held_before', { step: step.id, postconditions: step.post ?? [], screen: shown.label });
      throw new InDoubt(
        shown.label === pressedOn?.label
          ? `after ${step.id} the page stayed on ${shown.label ?? 'its screen'} and every postcondition already held before the press, so none shows its effect`
          : `after ${step.id} the page went back to ${shown.label ?? 'a screen'}, which the run showed before the press, and every postcondition already held before the press there, so none shows its effect`,
      );
    }
    if (short?.kind === 'unanswered') {
      await this.ctx.evidence.append('postcondition_unanswered', { step: step.id, screen: shown.label });
      throw new InDoubt(`after ${step.id} its postconditions held only while the application had still not answered its write`);
    }
    if (effect === 'commit') await observed();
    return null;
  }

  /**
   * The rehearsal's end at the commit: the screen and the target (with its fingerprint, when the card holds one) were
   * checked by the checkpoints before this; the surface finds the request the press would send without letting it
   * reach the app. Every value is masked (a password field's whatever it holds). Nothing is journalled.
   */
  private async rehearseAt(step: Step, ref: string): Promise<Ending> {
    const fingerprinted = this.card.targets[step.target]?.fingerprint.value !== undefined;
    const checked: Rehearsal['checked'] = ['screen', 'target', ...(fingerprinted ? (['fingerprint'] as const) : [])];
    await this.timed('wait for the screenshot and evidence', () => Promise.all([this.shotsTaken(), this.notesWritten()]));
    const rehearse = this.surface.rehearse?.bind(this.surface);
    const press = rehearse
      ? await this.timed('rehearse', () => rehearse(ref))
      : { derived: 'none' as const, request: null, note: 'this surface cannot tell what a press would send without pressing it' };
    const mask = (t: string): string => this.ctx.masker.mask(t);
    const request = press.request
      ? {
          method: press.request.method.toUpperCase(),
          url: mask(press.request.url),
          fields: press.request.fields.map((f) => ({ name: mask(f.name), value: f.secret ? `[secret:${f.name}]` : mask(f.value), secret: f.secret || this.ctx.masker.has(f.value) })),
        }
      : null;
    this.rehearsal = { step: step.id, checked, derived: press.derived, request, ...(press.note !== undefined ? { note: mask(press.note) } : {}) };
    await this.ctx.evidence.append('rehearsal', this.rehearsal);
    const how = press.derived === 'form' ? 'read off its form' : press.derived === 'press' ? 'caught from a press with every request stopped' : 'not known';
    const sends = request ? `would send ${request.method} ${request.url} (${how})` : `would send what cannot be shown (${press.note ?? how})`;
    this.say(`${step.id}: rehearsed; ${sends}; nothing was pressed`);
    return { word: 'REHEARSED', code: 'REHEARSED', message: `rehearsed up to commit ${step.id}: ${checked.join(', ')} checked; it ${sends}; nothing was pressed`, atStep: step.id };
  }

  /**
   * Waits for the card's first screen to come to rest — no busy part (a progress bar, a busy region, a loading
   * message), unchanged for the rest window (`shared/rest.ts`) — and only then names it: an app's loading screen or
   * the shell it boots into is as still as any screen, and was named before the app had drawn its first screen
   * (docs/design/replay.md, "A first screen at rest"). A first screen never at rest within the step's timeout is
   * FAILED TIMEOUT, never a name; one at rest that is not the card's goes up the ladder as any unknown screen.
   */
  private async firstScreen(step: Step): Promise<{ named: Named } | { ending: Ending }> {
    const { timeout, quiet } = this.timing(step);
    const rest = await this.timed('settle: the first screen at rest', () =>
      untilAtRest({
        look: () => this.look(),
        observation: (n: Named) => n.obs,
        timeoutMs: timeout,
        // A step's timeout shorter than the rest window would make every first screen a timeout: the window is at most a third of it.
        quietMs: Math.min(REST_QUIET_MS, quiet, Math.floor(timeout / 3)),
        loaded: (ms) => this.loadsEnded(ms),
        loadedMs: quiet,
        now: this.now,
      }),
    );
    if (!rest.atRest) {
      const seen = rest.look ?? null;
      await this.ctx.evidence.append('first_screen_not_at_rest', { step: step.id, why: rest.why, ms: rest.ms, label: seen?.label ?? null, signature: seen?.obs.signature ?? null });
      return {
        ending: {
          word: 'FAILED',
          code: 'TIMEOUT',
          message: `the first screen was not at rest after ${timeout} ms (${notAtRestWhy(rest.why)}); ${step.id} runs on ${step.screen}, and nothing was named or done`,
          atStep: step.id,
        },
      };
    }
    let named = rest.look;
    if (named.label === step.screen) return { named };
    // At rest is not yet the card's screen: an app that draws it from a timer later than the rest window (a page still
    // blank at 300 ms, drawn at 600) is waited on as any step's screen is — until it shows, the page holds still for
    // the step's quiet time elsewhere, or the timeout — before the ladder is asked.
    const left = timeout - rest.ms;
    if (left > 0) named = (await this.waitFor([step.screen], { timeout: left, quiet, leaving: null })).named;
    if (named.label === step.screen) return { named };
    await this.unknownScreen(step, named);
    return { named: (await this.climb(step, named, [step.screen], false)) ?? named };
  }

  /**
   * Climbs the escalation ladder (docs/design/escalation.md, "The escalation ladder") for a page no tier could name:
   * `nextRung` decides from the attempts so far, each verdict is judged against the furniture, and every decision
   * and verdict goes into the evidence. Returns the page named, or null when the climb stops without a name.
   */
  private async climb(step: Step, page: Named, wanted: readonly string[], commitInFlight: boolean): Promise<Named | null> {
    const referee = this.ctx.referee;
    const scout = this.ctx.scout;
    const person = this.ctx.person;
    const onCall: RungName[] = [...(referee ? (['referee'] as const) : []), ...(scout ? (['scout'] as const) : []), ...(person ? (['person'] as const) : [])];
    const options = this.refereeOptions(wanted);
    for (;;) {
      const decision = nextRung({
        screen: page.obs.signature,
        onCall,
        attempts: this.attempts,
        elapsedMs: this.climbMs,
        ceilingMs: this.ctx.ladderCeilingMs ?? DEFAULT_LADDER_CEILING_MS,
        commitInFlight,
      });
      await this.ctx.evidence.append('ladder', { step: step.id, screen: page.obs.signature, decision });
      if ('stop' in decision) return null;
      if (decision.ask === 'scout' && scout) {
        const named = await this.scoutFor(step, page, options, scout, commitInFlight);
        if (named) return named;
        continue;
      }
      if (decision.ask === 'person' && person) {
        const named = await this.personFor(step, page, options, person, commitInFlight);
        if (named) return named;
        continue;
      }
      if (decision.ask !== 'referee' || !referee) return null;
      const began = this.now();
      const question: RefereeQuestion = { options, page: { paths: page.obs.paths, text: this.ctx.masker.mask(page.text) } };
      let outcome: AttemptOutcome;
      let label: string | null = null;
      try {
        const verdict = await referee.ask(question);
        const judged = this.proven(judge(verdict, question), page);
        await this.ctx.evidence.append('referee', { step: step.id, backend: verdict.backend, probabilities: verdict.probabilities, judgement: judged });
        outcome = judged.kind === 'unproven' ? 'refused' : judged.kind;
        if (judged.kind === 'unproven') this.proposeOnly(judged.label, page, `${referee.name} referee`, step.id);
        if (judged.kind === 'named') label = judged.label;
      } catch (e) {
        outcome = 'unavailable';
        await this.ctx.evidence.append('referee_unavailable', { step: step.id, backend: referee.name, reason: this.ctx.masker.mask((e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '') });
      }
      this.attempts.push({ rung: 'referee', screen: page.obs.signature, outcome });
      this.climbMs += this.now() - began;
      if (label) {
        this.say(`${step.id}: the referee named the page ${label} (furniture re-checked)`);
        if (!this.repairs.some((r) => r.label === label)) this.repairs.push({ label, signature: page.obs.signature, paths: [...page.obs.paths], by: `${referee.name} referee`, step: step.id });
        this.namedByRung.set(page.obs.signature, label);
        const named = { ...page, label };
        this.current = named;
        return named;
      }
    }
  }

  /**
   * Seats the scout, then believes it only as far as the furniture goes: the page is observed afresh and the name it
   * gave is judged like a referee's sure verdict (overlap ≥ 0.5, and no other expected screen fitting better).
   */
  private async scoutFor(step: Step, page: Named, options: ScreenOption[], scout: Scout, lookOnly: boolean): Promise<Named | null> {
    const began = this.now();
    let outcome: AttemptOutcome = 'none';
    let named: Named | null = null;
    try {
      const report = await scout.run(this.surface, options, lookOnly, (t) => this.ctx.masker.mask(t));
      await this.ctx.evidence.append('scout', { step: step.id, named: report.named, turns: report.turns, log: report.log.map((l) => this.ctx.masker.mask(l)) });
      if (report.named) {
        const now = await this.look();
        const question: RefereeQuestion = { options, page: { paths: now.obs.paths, text: '' } };
        const judged = this.proven(judge({ backend: 'scout', probabilities: { [report.named]: 1 } }, question), now);
        await this.ctx.evidence.append('scout_checked', { step: step.id, judgement: judged });
        outcome = judged.kind === 'named' ? 'named' : 'refused';
        if (judged.kind === 'unproven') this.proposeOnly(judged.label, now, 'scout', step.id);
        if (judged.kind === 'named') {
          named = { ...now, label: judged.label };
          this.current = named;
          if (!this.repairs.some((r) => r.label === judged.label)) this.repairs.push({ label: judged.label, signature: now.obs.signature, paths: [...now.obs.paths], by: 'scout', step: step.id });
          this.namedByRung.set(now.obs.signature, judged.label);
          this.say(`${step.id}: the scout named the page ${judged.label} (furniture re-checked)`);
        }
      }
    } catch (e) {
      outcome = 'unavailable';
      await this.ctx.evidence.append('scout_unavailable', { step: step.id, reason: this.ctx.masker.mask((e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '') });
    }
    this.attempts.push({ rung: 'scout', screen: page.obs.signature, outcome });
    this.climbMs += this.now() - began;
    return named;
  }

  /**
   * The person (rung 3): the baton moves to PAUSED, the page is recorded (screenshot and text), a person at the
   * console looks, may act through the guarded menu (each action a `human_step` line), and hands back naming a screen
   * or aborts; the page is recorded again. A handback is believed unless the page contradicts it — it matches another
   * declared screen exactly, a mismatch the run does not recover from — and, like every rung's naming, a screen that
   * follows a commit stands only on its marks (`proven`).
   */
  private async personFor(step: Step, page: Named, options: ScreenOption[], person: Person, commitInFlight: boolean): Promise<Named | null> {
    this.escalated = true;
    const record = (kind: string, data: Record<string, unknown>): Promise<void> => this.ctx.evidence.append(kind, data);
    await record('baton', { step: step.id, from: Baton.enum.RUNNING, to: Baton.enum.PAUSED, rung: person.name, commit_in_flight: commitInFlight });
    this.say(`${step.id}: the run is paused for a person (${person.name})`);
    await this.personEvidence('person-before');
    let outcome: AttemptOutcome = 'unavailable';
    let named: Named | null = null;
    try {
      const answer = await person.ask({
        step: step.id,
        options,
        commitInFlight,
        surface: this.surface,
        masker: this.ctx.masker,
        goal: this.card.intent,
        inputs: Object.entries(this.ctx.inputs).map(([name, value]) => ({ name, value, secret: this.card.inputs[name]?.secret === true })),
        record,
        ...(this.ctx.signal ? { signal: this.ctx.signal } : {}),
        // With a commit in flight nothing the person does may write (a link whose script posts): each of their acts
        // runs with every write stopped; between their acts the app's own writes (the commit's) go out as they would.
        ...(commitInFlight ? { refusingWrites: <T>(act: () => Promise<T>) => this.writes.refusing(act) } : {}),
      });
      await this.personEvidence('person-after');
      // The engine takes the run back whatever the answer: to go on, or to end it with the word it has.
      const held = answer.steps.some((h) => h.effect !== null) ? Baton.enum.HUMAN_CONTROL : Baton.enum.PAUSED;
      await record('baton', { step: step.id, from: held, to: Baton.enum.RUNNING, answer: answer.kind });
      if (answer.kind === 'stopped') {
        outcome = 'stopped';
        this.stoppedAsking = { reason: answer.reason, step: step.id };
        await record('person_stopped', { step: step.id, reason: answer.reason, human_steps: answer.steps.length });
        this.say(`${step.id}: stopped (${answer.reason}) while a person was asked`);
      } else if (answer.kind === 'timeout') {
        outcome = 'timeout';
        await record('person_timeout', { step: step.id, after_ms: answer.afterMs, human_steps: answer.steps.length });
      } else if (answer.kind === 'abort') {
        outcome = 'aborted';
        await record('person_abort', { step: step.id, by: answer.by, reason: answer.reason, human_steps: answer.steps.length });
      } else {
        const now = await this.look();
        const exact = nameScreen({ signature: now.obs.signature, paths: now.obs.paths, text: now.text }, this.screens, this.values);
        const by = `person ${answer.by}`;
        if (exact && exact.how === 'exact' && exact.label !== answer.label) {
          outcome = 'mismatch';
          await record('handback', { step: step.id, by: answer.by, label: answer.label, judgement: { kind: 'mismatch', showing: exact.label, why: `the page is ${exact.label} exactly, not ${answer.label}` } });
          this.say(`${step.id}: ${by} handed back ${answer.label}, but the page is ${exact.label}: refused`);
        } else {
          const overlap = jaccard(options.find((o) => o.label === answer.label)?.paths ?? [], now.obs.paths);
          const judged = this.proven({ kind: 'named', label: answer.label, confidence: 1, overlap }, now);
          await record('handback', { step: step.id, by: answer.by, label: answer.label, judgement: judged, human_steps: answer.steps.length });
          const repair = { label: answer.label, signature: now.obs.signature, paths: [...now.obs.paths], by, step: step.id, human: answer.steps };
          if (judged.kind === 'unproven') {
            outcome = 'refused';
            if (!this.repairs.some((r) => r.label === answer.label)) this.repairs.push({ ...repair, unproven: true });
          } else {
            outcome = 'named';
            if (!this.repairs.some((r) => r.label === answer.label)) this.repairs.push(repair);
            this.namedByRung.set(now.obs.signature, answer.label);
            named = { ...now, label: answer.label };
            this.current = named;
            this.say(`${step.id}: ${by} handed back ${answer.label}`);
          }
        }
      }
    } catch (e) {
      await record('person_unavailable', { step: step.id, reason: this.ctx.masker.mask((e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '') });
    }
    this.attempts.push({ rung: 'person', screen: page.obs.signature, outcome });
    // A person's time is theirs (the console's own timeout bounds it): the ceiling counts only the machines' climb.
    return named;
  }

  /** The page as a person saw it, before and after: a screenshot and the screen text, as the surface declares it can. */
  private async personEvidence(name: string): Promise<void> {
    await this.shot(name);
    if (!this.attaches('text')) return;
    try {
      await this.ctx.evidence.text(name, await this.surface.evidence('text'));
    } catch (e) {
      await this.ctx.evidence.append('text_failed', { reason: this.ctx.masker.mask((e as Error).message) });
    }
  }

  /**
   * The control rung: no rung of the target's ladder found exactly one element, so the referee is asked which row of
   * the current menu the target is. Its answer passes the acceptance bar and then is believed only when the row's
   * control has the fingerprint the card recorded (the same check a rung's find gets, shared/ladder.ts); a card
   * without a fingerprint value cannot be checked, so nothing is believed. Once per target per screen per run.
   */
  private async controlFor(step: Step, target: BoundTarget): Promise<Resolved | null> {
    const referee = this.ctx.referee;
    const here = await this.look();
    const decision = nextControl({
      screen: here.obs.signature,
      target: target.id,
      onCall: typeof referee?.askControl === 'function',
      attempts: this.attempts,
      elapsedMs: this.climbMs,
      ceilingMs: this.ctx.ladderCeilingMs ?? DEFAULT_LADDER_CEILING_MS,
    });
    await this.ctx.evidence.append('ladder', { step: step.id, target: target.id, screen: here.obs.signature, decision });
    if (!('ask' in decision) || !referee?.askControl) return null;
    const began = this.now();
    const menu = buildMenu(here.obs);
    const mask = (t: string): string => this.ctx.masker.mask(t);
    const question: ControlQuestion = {
      target: { id: target.id, role: target.role, name: target.name, hint: target.hint, scope: target.scope },
      rows: menu.map((r) => ({ n: r.n, text: mask(renderRow(r)), role: r.control.role, name: mask(r.control.name), hint: r.control.hint === undefined ? undefined : mask(r.control.hint), scope: r.control.scope })),
    };
    let outcome: AttemptOutcome = 'unavailable';
    let chosen: Resolved | null = null;
    try {
      const verdict = await referee.askControl(question);
      const judged = judgeControl(verdict, question);
      let line: Record<string, unknown> = { judgement: judged };
      if (judged.kind === 'chosen') {
        const row = menu.find((r) => r.n === judged.row);
        const fp = target.fingerprint;
        const seen = row ? fingerprint(row.control, fp.over, here.obs.observer) : null;
        const believed = row !== undefined && fp.value !== undefined && seen === fp.value;
        const why = !row
          ? `there is no row ${judged.row}`
          : fp.value === undefined
            ? 'the card recorded no fingerprint for this target, so no answer can be checked'
            : believed
              ? `its fingerprint over ${fp.over.join('+')} matches the card's`
              : `its fingerprint over ${fp.over.join('+')} is ${seen}, the card recorded ${fp.value}`;
        line = { judgement: judged, row: judged.row, row_text: row ? mask(renderRow(row)) : null, believed, why };
        outcome = believed ? 'named' : 'refused';
        if (believed && row) chosen = { ok: true, ref: row.control.ref, rung: 'control', control: row.control };
      } else {
        outcome = judged.kind;
      }
      await this.ctx.evidence.append('control', { step: step.id, target: target.id, backend: verdict.backend, probabilities: verdict.probabilities, ...line });
    } catch (e) {
      await this.ctx.evidence.append('referee_unavailable', { step: step.id, target: target.id, backend: referee.name, reason: mask((e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '') });
    }
    this.attempts.push({ rung: 'control', target: target.id, screen: here.obs.signature, outcome });
    this.climbMs += this.now() - began;
    if (chosen) this.say(`${step.id}: the referee chose a menu row for ${target.id}, and its fingerprint matches the card's`);
    return chosen;
  }

  /**
   * A rung's naming the furniture bore out still cannot stand for a screen that follows a commit unless that screen's
   * marks all show (shared/screens.ts `provable`): a success and a refusal can share furniture. Such a naming is
   * `unproven` — the run does not believe it — and is kept only as a proposal for a reviewer.
   */
  private proven(j: Judgement, page: Named): Judgement | { kind: 'unproven'; label: string; confidence: number; overlap: number; why: string } {
    if (j.kind !== 'named') return j;
    const known = this.screens.find((s) => s.label === j.label);
    if (!known || provable({ signature: page.obs.signature, paths: page.obs.paths, text: page.text }, known)) return j;
    return { kind: 'unproven', label: j.label, confidence: j.confidence, overlap: j.overlap, why: `${j.label} can follow a commit and its marks do not show: a rung's word proves no effect` };
  }

  /** Keeps a naming the run may not believe as a repair a reviewer can take up (with marks that prove the effect). */
  private proposeOnly(label: string, page: Named, by: string, step: string): void {
    if (!this.repairs.some((r) => r.label === label)) this.repairs.push({ label, signature: page.obs.signature, paths: [...page.obs.paths], by, step, unproven: true });
  }

  /** The screens a referee may choose among: the ones the step hoped for, then every declared outcome's screen. */
  private refereeOptions(wanted: readonly string[]): ScreenOption[] {
    const labels = new Set(wanted);
    for (const kind of ['business', 'failure', 'recovery'] as const) for (const rule of Object.values(this.card.outcomes[kind])) labels.add(rule.screen);
    return [...labels].flatMap((label) => {
      const s = this.card.screens[label];
      return s ? [{ label, title: s.title, paths: s.paths, marks: s.marks }] : [];
    });
  }

  /** Records the screen a wait gave up on: its label (if any), path set and words, so nobody has to open a picture. */
  private async unknownScreen(step: Step, named: Named): Promise<void> {
    await this.ctx.evidence.append('screen_unrecognised', {
      step: step.id,
      label: named.label,
      signature: named.obs.signature,
      paths: named.obs.paths,
      text: this.pageText(named),
    });
  }

  /**
   * An output the card promises that a read could not take. After a commit this run proved it has its own code: the
   * commit landed (the journal answers the same call with this receipt), so a caller must not treat it as "nothing was
   * done" and send the work again some other way.
   */
  private outputMissing(missing: string, step: Step): Ending {
    const code = this.committed ? 'OUTPUT_MISSING_AFTER_COMMIT' : 'OUTPUT_NOT_FOUND';
    return { word: 'FAILED', code, message: missing, atStep: step.id };
  }

  /**
   * Fills the text outputs a read step feeds; names the first whose pattern the text does not match (a SUCCESS
   * promises its outputs, as a rows output missing its column fails too), else null.
   */
  private extract(step: Step, text: string): string | null {
    for (const [name, out] of Object.entries(this.card.outputs)) {
      if (out.from_step !== step.id || out.kind === 'rows') continue;
      const m = compileSafe(out.regex).exec(text);
      if (!m) {
        const landed = this.committed ? `; the commit ${this.committed} was observed, so it landed: only this output is missing` : '';
        return `output ${name}: the text ${step.id} read has no match for its pattern${landed}`;
      }
      this.outputs[name] = m[1] ?? m[0];
    }
    return null;
  }

  /**
   * Fills the rows outputs a read_rows step feeds: each row's cells by the card's column names (docs/design/capability.md,
   * "Rows as outputs"). A column whose header the table does not have fails the run, naming it — also with no rows,
   * when the surface says which headers it has; no rows is an answer.
   */
  private extractRows(step: Step, rows: readonly SurfaceRow[], declared: readonly string[] | undefined): string | null {
    for (const [name, out] of Object.entries(this.card.outputs)) {
      if (out.from_step !== step.id || out.kind !== 'rows') continue;
      const headers = new Set([...(declared ?? []), ...rows.flatMap((r) => Object.keys(r.cells))]);
      const known = declared !== undefined || rows.length > 0;
      for (const [col, spec] of Object.entries(out.columns)) {
        if (spec.header !== undefined && known && !headers.has(spec.header)) {
          return `output ${name}: column ${col} reads the header ${JSON.stringify(spec.header)}, which the rows ${step.id} read do not have (they have ${[...headers].map((h) => JSON.stringify(h)).join(', ') || 'none'})`;
        }
      }
      this.outputs[name] = rows.map((r) =>
        Object.fromEntries(Object.entries(out.columns).map(([col, spec]) => [col, spec.header !== undefined ? (r.cells[spec.header] ?? '') : r.text])),
      );
    }
    return null;
  }
}

function describePost(p: Postcondition): string {
  if (p.kind === 'row') return `row ${JSON.stringify(p.key)} showing ${JSON.stringify(p.contains)} on the screen`;
  return p.kind === 'text' ? `text ${JSON.stringify(p.contains)} on the screen` : `${p.role} ${JSON.stringify(p.name)} on the screen`;
}

/** Thrown to end a run with the receipt the journal recorded when the commit was observed. */
export class JournalReceipt extends Error {
  override readonly name = 'JournalReceipt';
  constructor(readonly step: string) {
    super(`commit ${step} already observed`);
  }
}
