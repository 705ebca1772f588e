// One authoring evening: observe → menu → prompt → model → each tool call through the guard, one at a time,
// book line written before the next — until the model finishes on a labelled screen, stops, or runs out of
// turns. Every ending is a typed value and the book is kept, closed by an `end` line.
import { WALKER_VERSION } from '../dom/version.ts';
import { TRACE_SCHEMA_ID } from '../schema/trace.ts';
import { Masker } from '../secrets.ts';
import type { Surface } from '../surface.ts';
import { Guard } from './guard.ts';
import type { Book, EveningInput, Model, Owner, ToolOutcome } from './ports.ts';
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
}

/** What one turn's prompt cost: the figure the issue asks us to report (tokens ≈ characters / 4). */
export interface TurnCost {
  turn: number;
  system_chars: number;
  screen_chars: number;
  result_chars: number;
  approx_tokens: number;
}

export type EveningCode = 'NO_FINISH' | 'OVER_BUDGET' | 'MODEL_FAILED' | 'SURFACE_FAILED' | 'OWNER_FAILED';

export type EveningResult =
  | { ok: true; finished: string; turns: number; lines: number; costs: TurnCost[] }
  | { ok: false; code: EveningCode; message: string; turns: number; lines: number; costs: TurnCost[] };

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0] ?? m;
}

export async function runEvening(o: EveningOptions): Promise<EveningResult> {
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
  });
  const say = (line: string): void => o.progress?.(masker.mask(line));
  const maxTurns = o.maxTurns ?? DEFAULT_MAX_TURNS;
  const costs: TurnCost[] = [];
  let turns = 0;
  const end = async (code: EveningCode, message: string): Promise<EveningResult> => {
    const masked = masker.mask(message);
    await guard.write({ kind: 'end', outcome: 'failed', code, message: masked });
    say(`evening failed: ${code}: ${masked}`);
    return { ok: false, code, message: masked, turns, lines: guard.lines, costs };
  };

  await guard.write({
    kind: 'start',
    schema: TRACE_SCHEMA_ID,
    goal: o.goal,
    entry: o.entry,
    inputs: o.inputs.map((i) => (i.secret ? { name: i.name, secret: true } : { name: i.name, secret: false, value: i.value })),
    walker: WALKER_VERSION,
    author: { kind: 'model', model: o.model.name },
  });
  try {
    await o.surface.open(o.entry);
  } catch (e) {
    return end('SURFACE_FAILED', `opening ${o.entry}: ${firstLine(e)}`);
  }
  const system = systemText(o.goal, o.inputs);
  let results: ToolOutcome[] = [];
  for (;;) {
    if (turns >= maxTurns) return end('OVER_BUDGET', `no finish within ${maxTurns} turns`);
    turns++;
    let screen: string;
    try {
      const shown = await guard.show();
      screen = screenText(shown.obs, shown.menu, shown.label, (s) => masker.mask(s));
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
    for (const call of calls) {
      let outcome: ToolOutcome;
      try {
        outcome = await guard.handle(call);
      } catch (e) {
        const code: EveningCode = e instanceof Error && e.name === 'OwnerError' ? 'OWNER_FAILED' : 'SURFACE_FAILED';
        return end(code, firstLine(e));
      }
      say(`turn ${turns}: ${call.name} → ${outcome.text}`);
      results.push(outcome);
      if (guard.finished) {
        await guard.write({ kind: 'end', outcome: 'finished' });
        return { ok: true, finished: guard.finished, turns, lines: guard.lines, costs };
      }
    }
  }
}
