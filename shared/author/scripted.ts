// The scripted model: a file of turns, each a list of tool calls, for tests and demos. A call may name its row
// by number or by the menu line it wants ("button 'F5=Sign On'", "link 'Hold' in row '400118-S0001'"), looked
// up in the menu of the screen the model is shown — so a script survives a menu that gained a row.
import { z } from 'zod';
import type { Model, ModelTurn, ToolCall } from './ports.ts';

export const ScriptCall = z.strictObject({
  tool: z.enum(['act', 'assert_screen', 'finish', 'read_rows']),
  row: z.number().int().optional(),
  /** A menu line without its number, with or without the verb: "button 'F5=Sign On'". */
  match: z.string().optional(),
  verb: z.string().optional(),
  value: z.string().optional(),
  label: z.string().optional(),
  title: z.string().optional(),
  /** read_rows: the table's id on the screen (`T1`), the output's name, columns by header, the whole-text column. */
  table: z.string().optional(),
  output: z.string().optional(),
  columns: z.record(z.string(), z.string()).optional(),
  text: z.string().optional(),
});
export type ScriptCall = z.infer<typeof ScriptCall>;

export const Script = z.union([
  z.strictObject({ turns: z.array(z.array(ScriptCall)) }),
  z.array(z.array(ScriptCall)).transform((turns) => ({ turns })),
]);
export type Script = z.infer<typeof Script>;

/** Parses a script: one JSON document ({turns} or an array of turns), or JSONL with one turn per line. */
export function parseScript(text: string): Script {
  const trimmed = text.trim();
  try {
    return Script.parse(JSON.parse(trimmed));
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
  }
  const turns = trimmed
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => z.array(ScriptCall).parse(JSON.parse(l)));
  return { turns };
}

/** A row that is on no menu: the guard refuses it as NO_SUCH_ROW, which is what a script that missed should see. */
export const NO_ROW = 9999;

/** The row number of the menu line matching `match` (with or without the verb) in a prompt's screen text. */
export function findRow(screen: string, match: string, verb?: string): number {
  for (const line of screen.split('\n')) {
    const m = /^(\d+): (.*)$/.exec(line);
    if (!m) continue;
    const rest = m[2] as string;
    if (rest === match || (verb !== undefined && rest === `${verb} ${match}`)) return Number(m[1]);
  }
  return NO_ROW;
}

/** The tool-call input a scripted call stands for on this screen. */
export function scriptedInput(call: ScriptCall, screen: string): Record<string, unknown> {
  switch (call.tool) {
    case 'act': {
      const row = call.row ?? (call.match !== undefined ? findRow(screen, call.match, call.verb) : NO_ROW);
      return { row, verb: call.verb ?? 'invoke', ...(call.value !== undefined ? { value: call.value } : {}) };
    }
    case 'assert_screen':
      return { label: call.label ?? '', ...(call.title !== undefined ? { title: call.title } : {}) };
    case 'finish':
      return { label: call.label ?? '' };
    case 'read_rows':
      return {
        table: call.table ?? '',
        output: call.output ?? '',
        ...(call.columns !== undefined ? { columns: call.columns } : {}),
        ...(call.text !== undefined ? { text: call.text } : {}),
      };
  }
}

/** Where a scripted model is in its script, as `save()` gives it. */
export const ScriptedState = z.strictObject({ next: z.number().int().nonnegative() });

export class ScriptedModel implements Model {
  #next = 0;
  constructor(
    private readonly script: Script,
    readonly name = 'scripted',
    /** A saved place (from `save()`), to go on from there. */
    state?: unknown,
  ) {
    if (state !== undefined) this.#next = ScriptedState.parse(state).next;
  }

  save(): z.infer<typeof ScriptedState> {
    return { next: this.#next };
  }

  next(turn: ModelTurn): Promise<ToolCall[]> {
    const calls = this.script.turns[this.#next++] ?? [];
    return Promise.resolve(
      calls.map((c, i) => ({ id: `scripted_${turn.turn}_${i + 1}`, name: c.tool, input: scriptedInput(c, turn.screen) })),
    );
  }
}
