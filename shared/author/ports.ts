// The authoring loop's ports (docs/design/authoring.md, "Authoring"): the same loop runs in Node and in the extension, so
// everything it touches arrives through these — a Surface, a Model, an Owner and a Book.
import { z } from 'zod';
import { EffectKind } from '../schema/capability.ts';
import type { TraceLine } from '../schema/trace.ts';
import { HandrailError } from '../errors.ts';
import type { ModelUsage } from './models.ts';

/** The tools on the card the model holds. Nothing a model says becomes a selector, a coordinate or code. */
export const ActInput = z.strictObject({
  row: z.number().int().positive(),
  verb: z.string(),
  value: z.string().optional(),
});
export const AssertScreenInput = z.strictObject({
  label: z.string(),
  title: z.string().optional(),
});
export const FinishInput = z.strictObject({ label: z.string() });
/**
 * Read a table, grid or list the screen offers (`T1`…) as a rows output: columns by header text, and/or one column
 * (`text`) holding each row's whole text (docs/design/authoring.md, "Authoring rows").
 */
export const ReadRowsInput = z.strictObject({
  table: z.string(),
  output: z.string(),
  columns: z.record(z.string(), z.string()).optional(),
  text: z.string().optional(),
});
export type ReadRowsInput = z.infer<typeof ReadRowsInput>;

export type ToolName = 'act' | 'assert_screen' | 'finish' | 'read_rows';

export interface ToolCall {
  /** The model's id for the call (Anthropic's tool_use id); the answer carries it back. */
  id: string;
  name: string;
  input: unknown;
}

/** The answer to one tool call: what the model reads back. Never carries a secret's value. */
export interface ToolOutcome {
  id: string;
  ok: boolean;
  text: string;
}

/** What the model is shown on one turn. */
export interface ModelTurn {
  turn: number;
  /** The fixed instructions (goal, rules, inputs by name). The same on every turn. */
  system: string;
  /** The current screen: its label if any, the numbered menu and the visible text. */
  screen: string;
  /** Answers to the calls the model made last turn, in the order it made them. */
  results: ToolOutcome[];
}

export interface Model {
  /** Recorded in the book's start line ("scripted:plumbline.json", "claude-…"). */
  readonly name: string;
  next(turn: ModelTurn): Promise<ToolCall[]>;
  /**
   * A model that can be resumed in another process says where it is (its conversation so far) as plain JSON,
   * which its own adapter restores. Never a key; the host masks secret values before it keeps it.
   */
  save?(): unknown;
  /** What the model API reported it counted so far (tokens, cache reads); absent for models that report nothing. */
  usage?(): ModelUsage;
  /**
   * The clerk stopped the session: an answer in flight is given up at once (its `next` rejects), and so is any later
   * call. Without it a Stop waits for the model's answer, which a real model may take a minute over.
   */
  stop?(): void;
}

/** The owner's answer to "is this button a commit?", in their name; `cancel`: do not press it at all. */
export const OwnerAnswer = z.strictObject({
  answer: z.union([EffectKind.exclude(['read']), z.literal('cancel')]),
  name: z.string().min(1),
});
export type OwnerAnswer = z.infer<typeof OwnerAnswer>;

export interface OwnerQuestion {
  /** The control's label as the menu shows it, e.g. "button 'F10=Post Hold'". */
  control: string;
  /** The label of the screen it is on, when the model has named it. */
  screen: string | null;
  goal: string;
  /**
   * The writes this action is sending, held until the answer ("POST http://…/post (form)", masked). Absent: the
   * question comes before the press, on a surface that cannot watch writes.
   */
  writes?: string[];
}

export interface Owner {
  ask(q: OwnerQuestion): Promise<OwnerAnswer>;
}

/** Where book lines go: IndexedDB in the extension, JSONL in Node. A line is durable when the promise resolves. */
export interface Book {
  append(line: TraceLine): Promise<void>;
}

/** The inputs of an evening. Secret values reach the surface and the masker, never the model or the book. */
export interface EveningInput {
  name: string;
  value: string;
  secret: boolean;
}

/** The owner could not answer (the terminal closed, the side panel went away): the evening ends, book kept. */
export class OwnerError extends HandrailError<'OWNER_FAILED'> {
  override readonly name = 'OwnerError';
  constructor(message: string) {
    super('OWNER_FAILED', message);
  }
}
