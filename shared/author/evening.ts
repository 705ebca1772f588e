// One authoring evening: observe → menu → prompt → model → each tool call through the guard, one at a time,
// book line written before the next — until the model finishes on a labelled screen, stops, or runs out of
// turns. Every ending is a typed value and the book is kept, closed by an `end` line.
// A host whose process may die mid-evening (an MV3 worker) keeps the EveningState it is handed after each model
// answer and each call, and calls resumeEvening with it and the book: the evening goes on from there.
import { z } from 'zod';
import { WALKER_VERSION } from '../dom/version.ts';
import { labelOf, renderRow, type MenuRow } from '../menu.ts';
import { TRACE_SCHEMA_ID, type TraceLine } from '../schema/trace.ts';
import { Masker } from '../secrets.ts';
import type { Surface } from '../surface.ts';
import { BookResumeError, Dispatch, Guard } from './guard.ts';
import type { Book, EveningInput, Model, Owner, ToolCall, ToolOutcome } from './ports.ts';
import { approxTokens, screenText, systemText } from './prompt.ts';
import type { SettleOptions } from './settle.ts';

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
}

const Outcome = z.strictObject({ id: z.string(), ok: z.boolean(), text: z.string() });

/** An evening's place between two steps, as a host keeps it (plain JSON; parse it on the way back in). */
export const EveningState = z.strictObject({
  /** Turns taken: how many times the model was asked. The budget counts them after a resume too. */
  turns: z.number().int().nonnegative(),
  /** Book lines when this was taken. A line beyond them answers the next call: written just before a stop. */
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
  | { ok: true; finished: string; turns: number; lines: number; costs: TurnCost[] }
  | { ok: false; code: EveningCode; message: string; turns: number; lines: number; costs: TurnCost[] };

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

async function evening(o: EveningOptions, from: EveningResume | null): Promise<EveningResult> {
  /** This turn as last kept: the guard's dispatch hook keeps it again with the action about to be done. */
  let cur: { shown: EveningState['shown']; calls: readonly ToolCall[]; results: readonly ToolOutcome[] } | null = null;
  const masker = new Masker(o.inputs.filter((i) => i.secret).map((i) => ({ name: i.name, value: i.value })));
  const guard = new Guard({
    surface: o.surface,
    owner: o.owner,
    book: o.book,
    masker,
    goal: o.goal,
    inputs: o.inputs,
    ...(o.settle ? { settle: o.settle } : {}),
    ...(o.selectorsFor ? { selectorsFor: o.selectorsFor } : {}),
    ...(o.now ? { now: o.now } : {}),
    ...(from ? { resume: from.lines } : {}),
    ...(o.checkpoint ? { dispatching: (d: Dispatch) => (cur ? keep(cur.shown, cur.calls, cur.results, d) : Promise.resolve()) } : {}),
  });
  const say = (line: string): void => o.progress?.(masker.mask(line));
  const maxTurns = o.maxTurns ?? DEFAULT_MAX_TURNS;
  const costs: TurnCost[] = [];
  let turns = from?.state?.turns ?? 0;
  const end = async (code: EveningCode, message: string): Promise<EveningResult> => {
    const masked = masker.mask(message);
    await guard.write({ kind: 'end', outcome: 'failed', code, message: masked });
    say(`evening failed: ${code}: ${masked}`);
    return { ok: false, code, message: masked, turns, lines: guard.lines, costs };
  };
  const finished = async (): Promise<EveningResult> => {
    await guard.write({ kind: 'end', outcome: 'finished' });
    return { ok: true, finished: guard.finished as string, turns, lines: guard.lines, costs };
  };
  const rendered = (menu: readonly MenuRow[]): string[] => menu.map((r) => masker.mask(renderRow(r)));

  /** Keeps the evening's place for a host that may be stopped. */
  const keep = async (
    shown: EveningState['shown'],
    calls: readonly ToolCall[],
    results: readonly ToolOutcome[],
    dispatched: Dispatch | null = null,
  ): Promise<void> => {
    cur = { shown, calls, results };
    await o.checkpoint?.({
      turns,
      lines: guard.lines,
      model: o.model.save?.() ?? null,
      shown,
      calls: calls.map((c) => ({ id: c.id, name: c.name, input: c.input })),
      results: [...results],
      changed: guard.screenChanged,
      dispatched,
    });
  };

  /** Runs calls[from…] of this turn through the guard, one at a time; an ending, or null to go on. */
  const run = async (shown: EveningState['shown'], calls: readonly ToolCall[], results: ToolOutcome[]): Promise<EveningResult | null> => {
    for (const call of calls.slice(results.length)) {
      let outcome: ToolOutcome;
      try {
        outcome = await guard.handle(call);
      } catch (e) {
        const code: EveningCode = e instanceof Error && e.name === 'OwnerError' ? 'OWNER_FAILED' : 'SURFACE_FAILED';
        return end(code, firstLine(e));
      }
      say(`turn ${turns}: ${call.name} → ${outcome.text}`);
      results.push(outcome);
      if (guard.finished) return finished();
      try {
        await keep(shown, calls, results);
      } catch (e) {
        return end('HOST_FAILED', `keeping the evening's place: ${firstLine(e)}`);
      }
    }
    return null;
  };

  let results: ToolOutcome[] = [];
  if (from === null) {
    await guard.write({
      kind: 'start',
      schema: TRACE_SCHEMA_ID,
      goal: o.goal,
      entry: o.entry,
      inputs: o.inputs.map((i) => (i.secret ? { name: i.name, secret: true } : { name: i.name, secret: false, value: i.value })),
      walker: WALKER_VERSION,
      author: { kind: 'model', model: o.model.name },
    });
  }
  const last = from?.lines.at(-1);
  if (last?.kind === 'end') {
    // The book was closed before the stop; only the host's record of it was not.
    const finishedOn = last.outcome === 'finished' ? guard.finished : null;
    if (finishedOn) return { ok: true, finished: finishedOn, turns, lines: guard.lines, costs };
    return { ok: false, code: (last.code as EveningCode | undefined) ?? 'NO_FINISH', message: last.message ?? '', turns, lines: guard.lines, costs };
  }
  if (guard.finished) return finished();
  const state = from?.state ?? null;
  if (state === null) {
    // Nothing has been done on the screen yet (no model answer was kept): opening the entry (again) is safe.
    try {
      await o.surface.open(o.entry);
    } catch (e) {
      return end('SURFACE_FAILED', `opening ${o.entry}: ${firstLine(e)}`);
    }
  } else {
    const written = from?.lines.length ?? 0;
    if (written < state.lines) throw new BookResumeError(`the book has ${written} lines but ${state.lines} were written before the stop`);
    results = [...state.results];
    let changed = state.changed;
    // A line written after the state was kept answers the next call: it ran, and must not run again.
    for (const line of from?.lines.slice(state.lines) ?? []) {
      const call = state.calls[results.length];
      if (!call) throw new BookResumeError(`book line ${line.seq} answers no call of the interrupted turn`);
      results.push({ id: call.id, ok: true, text: `done (book line ${line.seq}, written before the evening was interrupted)` });
      if (line.kind === 'act' && line.after.signature !== line.before.signature) changed = true;
    }
    if (guard.finished) return finished();
    // The next call's action was being done when the process stopped, and left no line: what became of it?
    const d = state.dispatched;
    if (d && written === state.lines && state.calls[results.length]?.id === d.call) {
      let recovery;
      try {
        recovery = await guard.recover(d);
      } catch (e) {
        return end('SURFACE_FAILED', `observing the screen: ${firstLine(e)}`);
      }
      const what = `${d.line.verb} on ${d.line.control.role} '${labelOf(d.line.control)}'`;
      if (recovery === 'uncertain') {
        // Never made twice: a commit pressed again could post twice. The person checks the application.
        return end('PRESS_UNCERTAIN', `the evening was interrupted during ${what}, and the screen does not show whether it happened; check the application before starting again`);
      }
      if (recovery === 'written') {
        results.push({ id: d.call, ok: true, text: `done: ${what} (the evening was interrupted; the screen had moved on)` });
        changed = true;
      }
    }
    const rest = state.calls.slice(results.length);
    if (rest.length) {
      let shown;
      try {
        shown = await guard.show();
      } catch (e) {
        return end('SURFACE_FAILED', `observing the screen: ${firstLine(e)}`);
      }
      const same = !changed && shown.obs.signature === state.shown.signature && rendered(shown.menu).join('\n') === state.shown.menu.join('\n');
      if (same) {
        say(`turn ${turns}: resumed; ${rest.length} call(s) of this turn still to run on the same screen`);
        const ending = await run(state.shown, state.calls, results);
        if (ending) return ending;
      } else {
        for (const call of rest) results.push({ id: call.id, ok: false, text: RESUMED_CHANGED });
      }
    }
  }

  const system = systemText(o.goal, o.inputs);
  for (;;) {
    if (turns >= maxTurns) return end('OVER_BUDGET', `no finish within ${maxTurns} turns`);
    turns++;
    let screen: string;
    let shown: EveningState['shown'];
    try {
      const look = await guard.show();
      screen = screenText(look.obs, look.menu, look.label, (s) => masker.mask(s));
      shown = { signature: look.obs.signature, menu: rendered(look.menu) };
    } catch (e) {
      return end('SURFACE_FAILED', `observing the screen: ${firstLine(e)}`);
    }
    const resultChars = results.reduce((n, r) => n + r.text.length, 0);
    const cost = {
      turn: turns,
      system_chars: system.length,
      screen_chars: screen.length,
      result_chars: resultChars,
      approx_tokens: 0,
    };
    cost.approx_tokens = approxTokens(cost.system_chars + cost.screen_chars + cost.result_chars);
    costs.push(cost);
    let calls;
    try {
      calls = await o.model.next({ turn: turns, system, screen, results });
    } catch (e) {
      return end('MODEL_FAILED', `the model did not answer: ${firstLine(e)}`);
    }
    if (calls.length === 0) return end('NO_FINISH', 'the model stopped without finishing on a labelled screen');
    results = [];
    try {
      await keep(shown, calls, results);
    } catch (e) {
      return end('HOST_FAILED', `keeping the evening's place: ${firstLine(e)}`);
    }
    const ending = await run(shown, calls, results);
    if (ending) return ending;
  }
}
