// One authoring evening: observe → menu → prompt → model → each tool call through the guard, one at a time,
// book line written before the next — until the model finishes on a labelled screen, stops, or runs out of
// turns. Every ending is a typed value and the book is kept, closed by an `end` line.
// A host whose process may die mid-evening (an MV3 worker) keeps the EveningState it is handed after each model
// answer and each call, and calls resumeEvening with it and the book: the evening goes on from there.
import { z } from 'zod';
import { labelOf, renderRow, type MenuRow } from '../menu.ts';
import { TRACE_SCHEMA_ID, type TraceLine } from '../schema/trace.ts';
import { Masker } from '../secrets.ts';
import type { Surface } from '../surface.ts';
import { BookResumeError, Dispatch, Guard, Held, isPageLine } from './guard.ts';
import type { Book, EveningInput, Model, Owner, ToolCall, ToolOutcome } from './ports.ts';
import type { ModelUsage } from './models.ts';
import { approxTokens, screenText, systemText } from './prompt.ts';
import type { SettleOptions } from './settle.ts';
import { describeWrite, scopeOf, type WriteScope } from '../writes.ts';

export const DEFAULT_MAX_TURNS = 30;

export interface EveningOptions {
  surface: Surface;
  model: Model;
  owner: Owner;
  book: Book;
  goal: string;
  entry: string;
  inputs: readonly EveningInput[];
  maxTurns?: number;
  settle?: SettleOptions;
  selectorsFor?: (ref: string) => Promise<string[]>;
  now?: () => Date;
  /** Progress for people (already masked). */
  progress?: (line: string) => void;
  /**
   * Where the evening is, after each model answer and after each call (book line written): a host that may be
   * stopped keeps it, with secret values masked, and hands it back to resumeEvening. Awaited before going on.
   */
  checkpoint?: (state: EveningState) => Promise<void>;
  /** The app's origins (default: the entry's) and ignorable endpoints, for side-effect detection. */
  writes?: { origins?: string[]; ignore?: string[] };
  /** How long the owner has to answer before it counts as a "no" (see GuardOptions). */
  ownerTimeoutMs?: number;
}

const Outcome = z.strictObject({ id: z.string(), ok: z.boolean(), text: z.string() });

/** An evening's place between two steps, as a host keeps it (plain JSON; parse it on the way back in). */
export const EveningState = z.strictObject({
  /** Turns taken: how many times the model was asked. The budget counts them after a resume too. */
  turns: z.number().int().nonnegative(),
  /**
   * Book lines when this was taken. A line beyond them answers the next call: written just before a stop. Not one the
   * page wrote (shared/author/guard.ts isPageLine), nor held presses written as they were.
   */
  lines: z.number().int().nonnegative(),
  /** The model's own place (`Model.save()`); the host's adapter restores it. */
  model: z.unknown(),
  /** What the model was shown this turn: the screen's signature and its menu rows as rendered (masked). */
  shown: z.strictObject({ signature: z.string(), menu: z.array(z.string()) }),
  /** This turn's calls, in the model's order, and the answers to those already run, in the same order. */
  calls: z.array(z.strictObject({ id: z.string(), name: z.string(), input: z.unknown() })),
  results: z.array(Outcome),
  /** A call already run this turn changed the screen: the rest of the turn is refused. */
  changed: z.boolean(),
  /** The action of the next call, kept just before it was done; its book line, if any, is beyond `lines`. */
  dispatched: Dispatch.nullable(),
  /**
   * Presses that opened a menu, held back from the book until the model picks in it or does something else (see
   * Held in shared/author/guard.ts). Written first when they are written, so they come first beyond `lines`.
   */
  held: Held.nullable().optional(),
});
export type EveningState = z.infer<typeof EveningState>;

/** What a resumed evening starts from: its book as written, and the last state its host kept (null: none yet). */
export interface EveningResume {
  lines: readonly TraceLine[];
  state: EveningState | null;
}

/** What one turn's prompt cost: the figure the issue asks us to report (tokens ≈ characters / 4). */
export interface TurnCost {
  turn: number;
  system_chars: number;
  screen_chars: number;
  result_chars: number;
  approx_tokens: number;
}

export type EveningCode = 'NO_FINISH' | 'OVER_BUDGET' | 'MODEL_FAILED' | 'SURFACE_FAILED' | 'OWNER_FAILED' | 'HOST_FAILED' | 'PRESS_UNCERTAIN';

export type EveningResult =
  | { ok: true; finished: string; turns: number; lines: number; costs: TurnCost[]; usage?: ModelUsage }
  | { ok: false; code: EveningCode; message: string; turns: number; lines: number; costs: TurnCost[]; usage?: ModelUsage };

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0] ?? m;
}

export function runEvening(o: EveningOptions): Promise<EveningResult> {
  return evening(o, null);
}

/**
 * Goes on with an evening another process began, from its book and the last state its host kept: no book line
 * written twice (the guard numbers on from the book), none lost (a call whose line was written just before the
 * stop counts as run), the model's own place restored by the host, and the turn budget counting turns taken.
 * The calls of the interrupted turn not yet run are run on the screen showing now if it is still the one the
 * model was shown (same signature, same menu); otherwise they are refused and the model is shown the screen.
 */
export function resumeEvening(o: EveningOptions, from: EveningResume): Promise<EveningResult> {
  return from.lines.length === 0 ? evening(o, null) : evening(o, from);
}

const RESUMED_CHANGED =
  'refused (SCREEN_CHANGED): the evening was interrupted and the screen is no longer the one you were shown; you will be shown it again';

function evening(o: EveningOptions, from: EveningResume | null): Promise<EveningResult> {
  return new Evening(o, from).run();
}

/** This turn as last kept: the screen the model was shown, its calls, and the answers to those already run. */
interface Turn {
  shown: EveningState['shown'];
  calls: readonly ToolCall[];
  results: readonly ToolOutcome[];
}

/** One evening, in named parts: start the book, close a book already closed, resume a turn, then model turns. */
class Evening {
  readonly #masker: Masker;
  readonly #guard: Guard;
  readonly #maxTurns: number;
  /** The writes watched, when the surface can watch them; written into the start line for the compiler. */
  readonly #writes: WriteScope | null;
  readonly #costs: TurnCost[] = [];
  /** This turn as last kept: the guard's dispatch hook keeps it again with the action about to be done. */
  #cur: Turn | null = null;
  #turns: number;
  /** The answers the model is shown at its next turn. */
  #results: ToolOutcome[] = [];

  constructor(
    private readonly o: EveningOptions,
    private readonly from: EveningResume | null,
  ) {
    this.#masker = Masker.forInputs(o.inputs);
    const canWatch = typeof o.surface.watchWrites === 'function' && typeof o.surface.takeWrites === 'function';
    this.#writes = canWatch ? scopeOf(o.entry, o.writes) : null;
    this.#guard = new Guard({
      ...(this.#writes ? { writes: this.#writes } : {}),
      ...(o.ownerTimeoutMs !== undefined ? { ownerTimeoutMs: o.ownerTimeoutMs } : {}),
      surface: o.surface,
      owner: o.owner,
      book: o.book,
      masker: this.#masker,
      goal: o.goal,
      inputs: o.inputs,
      ...(o.settle ? { settle: o.settle } : {}),
      ...(o.selectorsFor ? { selectorsFor: o.selectorsFor } : {}),
      ...(o.now ? { now: o.now } : {}),
      ...(from ? { resume: from.lines } : {}),
      // Held presses go on being held only if none was written after the place was kept (a write flushes them first):
      // refusals may be (the item refused SCREEN_CHANGED in the turn that opened the menu), as they do not end a hold.
      // A line the page wrote is a refusal too: one that wrote the presses as they were is written after them (an act),
      // and one written as the pick began leaves them held (#reportStrays in guard.ts).
      ...(from?.state?.held && from.lines.slice(from.state.lines).every((l) => l.kind === 'refusal') ? { held: from.state.held } : {}),
      ...(o.checkpoint ? { dispatching: (d: Dispatch) => this.#keepWith(d), holding: (d: Dispatch) => this.#keepWith(d) } : {}),
    });
    this.#maxTurns = o.maxTurns ?? DEFAULT_MAX_TURNS;
    this.#turns = from?.state?.turns ?? 0;
  }

  async run(): Promise<EveningResult> {
    if (this.from === null) await this.#writeStart();
    const closed = this.#alreadyClosed();
    if (closed) return closed;
    if (this.#guard.finished) return this.#finished();
    const state = this.from?.state ?? null;
    const ending = state === null || this.from === null ? await this.#openEntry() : await this.#resume(this.from, state);
    return ending ?? this.#modelTurns();
  }

  #say(line: string): void {
    this.o.progress?.(this.#masker.mask(line));
  }

  #rendered(menu: readonly MenuRow[]): string[] {
    return menu.map((r) => this.#masker.mask(renderRow(r)));
  }

  /** Closes the book with a failed `end` line: the evening's typed failure. */
  async #end(code: EveningCode, message: string): Promise<EveningResult> {
    const masked = this.#masker.mask(message);
    const usage = this.#usage();
    await this.#guard.write({ kind: 'end', outcome: 'failed', code, message: masked, ...(usage ? { usage } : {}) });
    this.#say(`evening failed: ${code}: ${masked}`);
    return { ok: false, code, message: masked, turns: this.#turns, lines: this.#guard.lines, costs: this.#costs, ...(usage ? { usage } : {}) };
  }

  async #finished(): Promise<EveningResult> {
    const usage = this.#usage();
    await this.#guard.write({ kind: 'end', outcome: 'finished', ...(usage ? { usage } : {}) });
    return { ok: true, finished: this.#guard.finished as string, turns: this.#turns, lines: this.#guard.lines, costs: this.#costs, ...(usage ? { usage } : {}) };
  }

  /** The model API's own count of what this evening sent and got, when the model reports one. */
  #usage(): ModelUsage | undefined {
    const u = this.o.model.usage?.();
    return u && u.requests > 0 ? u : undefined;
  }

  /** Keeps the evening's place for a host that may be stopped. */
  async #keep(turn: Turn, dispatched: Dispatch | null = null): Promise<void> {
    this.#cur = turn;
    await this.o.checkpoint?.({
      turns: this.#turns,
      lines: this.#guard.lines,
      model: this.o.model.save?.() ?? null,
      shown: turn.shown,
      calls: turn.calls.map((c) => ({ id: c.id, name: c.name, input: c.input })),
      results: [...turn.results],
      changed: this.#guard.screenChanged,
      dispatched,
      held: this.#guard.held,
    });
  }

  /** Keeps the evening's place with an action about to be done, or done and its press held (the guard's hooks). */
  #keepWith(d: Dispatch): Promise<void> {
    return this.#cur ? this.#keep(this.#cur, d) : Promise.resolve();
  }

  /** A new evening's first book line: the goal, the entry, the inputs (no secret value), the author. */
  async #writeStart(): Promise<void> {
    const o = this.o;
    await this.#guard.write({
      kind: 'start',
      schema: TRACE_SCHEMA_ID,
      goal: o.goal,
      entry: o.entry,
      inputs: o.inputs.map((i) => (i.secret ? { name: i.name, secret: true } : { name: i.name, secret: false, value: i.value })),
      surface: this.o.surface.kind,
      walker: this.o.surface.observer,
      ...(this.#writes ? { writes: { origins: [...this.#writes.origins], ignore: [...this.#writes.ignore] } } : {}),
      author: { kind: 'model', model: o.model.name },
    });
  }

  /** The book was closed before the stop; only the host's record of it was not: its ending, as written. */
  #alreadyClosed(): EveningResult | null {
    const last = this.from?.lines.at(-1);
    if (last?.kind !== 'end') return null;
    const base = { turns: this.#turns, lines: this.#guard.lines, costs: this.#costs };
    const finishedOn = last.outcome === 'finished' ? this.#guard.finished : null;
    if (finishedOn) return { ok: true, finished: finishedOn, ...base };
    return { ok: false, code: (last.code as EveningCode | undefined) ?? 'NO_FINISH', message: last.message ?? '', ...base };
  }

  /** Nothing has been done on the screen yet (no model answer was kept): opening the entry (again) is safe. */
  async #openEntry(): Promise<EveningResult | null> {
    try {
      await this.o.surface.open(this.o.entry);
    } catch (e) {
      return this.#end('SURFACE_FAILED', `opening ${this.o.entry}: ${firstLine(e)}`);
    }
    return null;
  }

  /** Goes on with the interrupted turn from the book and the kept state; an ending, or null to go on with model turns. */
  async #resume(from: EveningResume, state: EveningState): Promise<EveningResult | null> {
    const guard = this.#guard;
    const written = from.lines.length;
    if (written < state.lines) throw new BookResumeError(`the book has ${written} lines but ${state.lines} were written before the stop`);
    const results = [...state.results];
    this.#results = results;
    let changed = state.changed;
    // Lines the page wrote (writes it sent between actions, reported when the next call began) answer no call: they
    // stay in the book as written and are passed over here, so the call they were written in is answered by its own
    // line, or settled below if it left none (docs/design/authoring.md, "A menu opened and picked in").
    // Held presses written after the state was kept come first, as they were (a write flushes them), after any
    // refusals (which do not end a hold): they answer no call either.
    let beyond = from.lines.slice(state.lines).filter((l) => !isPageLine(l));
    const at = beyond.findIndex((l) => l.kind !== 'refusal');
    for (const h of at < 0 ? [] : (state.held?.lines ?? [])) {
      const l = beyond[at];
      if (l?.kind !== 'act' || l.verb !== h.verb || l.before.signature !== h.before.signature || l.after.signature !== h.after.signature) break;
      beyond = [...beyond.slice(0, at), ...beyond.slice(at + 1)];
    }
    // A line written after the state was kept answers the next call: it ran, and must not run again.
    for (const line of beyond) {
      const call = state.calls[results.length];
      if (!call) throw new BookResumeError(`book line ${line.seq} answers no call of the interrupted turn`);
      if (line.kind === 'refusal') {
        results.push({ id: call.id, ok: false, text: `refused (${line.code}): ${line.message}` });
        continue;
      }
      // An act whose write the owner stopped was answered as a refusal (no line of its own): it still is.
      const stopped = line.kind === 'act' ? line.writes?.find((w) => w.fate === 'blocked') : undefined;
      if (line.kind === 'act' && stopped) {
        const why = line.asked?.some((a) => a.answer === 'no_answer') ? 'the owner did not answer in time' : 'the owner said no';
        results.push({
          id: call.id,
          ok: false,
          text: this.#masker.mask(`refused (WRITE_REFUSED): ${line.verb} on ${line.control.role} '${labelOf(line.control)}' sends ${describeWrite(stopped)}, and ${why}: the write was stopped (book line ${line.seq})`),
        });
        continue;
      }
      results.push({ id: call.id, ok: true, text: `done (book line ${line.seq}, written before the evening was interrupted)` });
      if (line.kind === 'act' && line.after.signature !== line.before.signature) changed = true;
    }
    if (guard.finished) return this.#finished();
    // The next call's action was being done when the process stopped, and left no line: what became of it?
    const d = state.dispatched;
    if (d && beyond.length === 0 && state.calls[results.length]?.id === d.call) {
      let recovery;
      try {
        recovery = await guard.recover(d);
      } catch (e) {
        return this.#end('SURFACE_FAILED', `observing the screen: ${firstLine(e)}`);
      }
      const what = `${d.line.verb} on ${d.line.control.role} '${labelOf(d.line.control)}'`;
      if (recovery === 'uncertain') {
        // Never made twice: a commit pressed again could post twice. The person checks the application.
        return this.#end('PRESS_UNCERTAIN', `the evening was interrupted during ${what}, and the screen does not show whether it happened; check the application before starting again`);
      }
      if (recovery === 'written') {
        results.push({ id: d.call, ok: true, text: `done: ${what} (the evening was interrupted; the screen had moved on)` });
        changed = true;
      }
      // A press that opened a menu or a list: held again, as the lost process held it (see Held in guard.ts).
      if (recovery === 'held') {
        results.push({ id: d.call, ok: true, text: `done: ${what} opened a menu or list (the evening was interrupted); press the item you want in it next: the two presses are written as one step` });
        changed = true;
      }
      // Its press is with the held presses: its refusal line, now the book's last, answers it. Settled from a screen
      // that moved on (no answer kept with it), the rest of the turn is refused as after any press that moved it.
      const last = guard.lastLine;
      if (recovery === 'refused' && last?.kind === 'refusal') {
        results.push({ id: d.call, ok: false, text: `refused (${last.code}): ${last.message}` });
        if (d.refused === undefined) changed = true;
      }
    }
    const rest = state.calls.slice(results.length);
    if (rest.length === 0) return null;
    let shown;
    try {
      shown = await guard.show();
    } catch (e) {
      return this.#end('SURFACE_FAILED', `observing the screen: ${firstLine(e)}`);
    }
    const same = !changed && shown.obs.signature === state.shown.signature && this.#rendered(shown.menu).join('\n') === state.shown.menu.join('\n');
    if (same) {
      this.#say(`turn ${this.#turns}: resumed; ${rest.length} call(s) of this turn still to run on the same screen`);
      return this.#runCalls(state.shown, state.calls, results);
    }
    for (const call of rest) results.push({ id: call.id, ok: false, text: RESUMED_CHANGED });
    return null;
  }

  /** Runs calls[results.length…] of this turn through the guard, one at a time; an ending, or null to go on. */
  async #runCalls(shown: EveningState['shown'], calls: readonly ToolCall[], results: ToolOutcome[]): Promise<EveningResult | null> {
    for (const call of calls.slice(results.length)) {
      let outcome: ToolOutcome;
      try {
        outcome = await this.#guard.handle(call);
      } catch (e) {
        const code: EveningCode = e instanceof Error && e.name === 'OwnerError' ? 'OWNER_FAILED' : 'SURFACE_FAILED';
        return this.#end(code, firstLine(e));
      }
      this.#say(`turn ${this.#turns}: ${call.name} → ${outcome.text}`);
      results.push(outcome);
      if (this.#guard.finished) return this.#finished();
      try {
        await this.#keep({ shown, calls, results });
      } catch (e) {
        return this.#end('HOST_FAILED', `keeping the evening's place: ${firstLine(e)}`);
      }
    }
    return null;
  }

  /** Turn after turn: show the screen, ask the model, run its calls; until an ending or the budget runs out. */
  async #modelTurns(): Promise<EveningResult> {
    const system = systemText(this.o.goal, this.o.inputs);
    for (;;) {
      if (this.#turns >= this.#maxTurns) return this.#end('OVER_BUDGET', `no finish within ${this.#maxTurns} turns`);
      this.#turns++;
      let screen: string;
      let shown: EveningState['shown'];
      try {
        const look = await this.#guard.show();
        if (look.unsettled) this.#say(`turn ${this.#turns}: ${look.unsettled}; it is shown unnamed`);
        screen = screenText(look.obs, look.menu, look.label, (s) => this.#masker.mask(s), look.rows);
        shown = { signature: look.obs.signature, menu: this.#rendered(look.menu) };
      } catch (e) {
        return this.#end('SURFACE_FAILED', `observing the screen: ${firstLine(e)}`);
      }
      this.#costs.push(turnCost(this.#turns, system, screen, this.#results));
      let calls;
      try {
        calls = await this.o.model.next({ turn: this.#turns, system, screen, results: this.#results });
      } catch (e) {
        return this.#end('MODEL_FAILED', `the model did not answer: ${firstLine(e)}`);
      }
      if (calls.length === 0) return this.#end('NO_FINISH', 'the model stopped without finishing on a labelled screen');
      const results: ToolOutcome[] = [];
      this.#results = results;
      try {
        await this.#keep({ shown, calls, results });
      } catch (e) {
        return this.#end('HOST_FAILED', `keeping the evening's place: ${firstLine(e)}`);
      }
      const ending = await this.#runCalls(shown, calls, results);
      if (ending) return ending;
    }
  }
}

/** What one turn's prompt cost, in characters and approximate tokens. */
function turnCost(turn: number, system: string, screen: string, results: readonly ToolOutcome[]): TurnCost {
  const resultChars = results.reduce((n, r) => n + r.text.length, 0);
  return {
    turn,
    system_chars: system.length,
    screen_chars: screen.length,
    result_chars: resultChars,
    approx_tokens: approxTokens(system.length + screen.length + resultChars),
  };
}
