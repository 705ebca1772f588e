// The book: one JSON line per thing that happened while a task was worked out (by a model or a clerk).
// The compiler reads only this. Secret values never appear in it: a secret is always its blank.
import { z } from 'zod';
import { EffectKind, FingerprintField, Rung, RowsColumn } from './capability.ts';
import { Control, Locus, ScopeLink, Verb } from './observation.ts';
import { SurfaceName } from '../surfaces.ts';
import { hashStrings } from '../hash.ts';
import { canonicalJson } from './canonical.ts';

export const TRACE_SCHEMA_ID = 'handrail.trace/v1';

/**
 * Every line is numbered (1, 2, 3…) and carries the hash of the line before it (`prev`, absent on line 1), so a
 * book with a line missing, moved or changed does not compile (shared/compile/continuity.ts). Books written before
 * the chain have no `prev`; their numbering is still checked.
 * The chain finds accidents — a line lost when a worker stopped, lines moved, a line changed by hand — not forgery:
 * whoever can rewrite a book can recompute any unkeyed hash, so a cryptographic one would promise nothing more here.
 */
const Base = { seq: z.number().int().nonnegative(), at: z.string(), prev: z.string().regex(/^[0-9a-f]{16}$/).optional() };

/** Books written before observations were surface-neutral carry the browser's `url` where `locus` now stands. */
const locusFromUrl = (v: unknown): unknown => {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || 'locus' in v || !('url' in v)) return v;
  const { url, ...rest } = v as { url: unknown };
  return { ...rest, locus: typeof url === 'string' ? { url } : url };
};

export const ScreenSeen = z.preprocess(locusFromUrl, z.strictObject({
  /** Where on its surface the screen was (the browser: url and title); carried, never interpreted by the core. */
  locus: Locus,
  signature: z.string(),
  paths: z.array(z.string()),
  /** The label pinned to this signature earlier in the book, if any. */
  label: z.string().nullable(),
  /**
   * What the screen's live regions said (shared/schema/observation.ts Part.said), masked as every line is; absent when
   * they said nothing. A commit's landing words go into its card step (docs/design/replay.md, "What the app says").
   */
  said: z.array(z.string()).optional(),
}));
export type ScreenSeen = z.infer<typeof ScreenSeen>;

export const TraceStart = z.strictObject({
  ...Base,
  kind: z.literal('start'),
  schema: z.literal(TRACE_SCHEMA_ID),
  goal: z.string(),
  entry: z.string(),
  /** The surface the task was worked out on; the compiled card names it. Absent in books written before surfaces were declared: the browser. */
  surface: SurfaceName.optional(),
  inputs: z.array(
    z.strictObject({
      name: z.string(),
      secret: z.boolean(),
      /** Present only for non-secret inputs: the compiler needs it to turn literals back into blanks. */
      value: z.string().optional(),
    }),
  ),
  walker: z.string(),
  /**
   * The app's origins and ignorable endpoints the guard watched for writes (shared/writes.ts). Absent: the book
   * was written without side-effect detection (an older book, or a surface that cannot watch).
   */
  writes: z.strictObject({ origins: z.array(z.string()), ignore: z.array(z.string()) }).optional(),
  author: z.strictObject({ kind: z.enum(['model', 'human']), model: z.string().optional() }),
});

export const TraceWrite = z.strictObject({
  method: z.string(),
  url: z.string(),
  via: z.enum(['request', 'form', 'beacon', 'websocket']),
  fate: z.enum(['allowed', 'blocked', 'unasked']),
});

/** A call the guard refused (no such row, a secret literal, a write the owner declined…): kept so a reviewer sees it. */
export const TraceRefusal = z.strictObject({
  ...Base,
  kind: z.literal('refusal'),
  tool: z.string(),
  code: z.string(),
  message: z.string(),
});

export const TraceLabel = z.strictObject({
  ...Base,
  kind: z.literal('label'),
  label: z.string().regex(/^[a-z][a-z0-9_]*$/),
  title: z.string(),
  screen: ScreenSeen,
});

export const TraceAct = z.strictObject({
  ...Base,
  kind: z.literal('act'),
  actor: z.enum(['model', 'human']),
  row: z.number().int().positive(),
  verb: Verb,
  /** A blank such as {{input.member_number}}, or a literal that is not any input's value. */
  value: z.string().optional(),
  control: Control,
  /** The rungs that found exactly this element on the live screen, cheapest first. */
  rungs: z.array(Rung),
  /** The scope the rungs were probed with (the frame, then only the in-frame links needed); absent: the control's own. */
  scope: z.array(ScopeLink).optional(),
  fingerprint: z.strictObject({ over: z.array(FingerprintField), value: z.string() }),
  effect: z.strictObject({
    kind: EffectKind,
    /**
     * Who classified it: the guard's rule, an owner's answer, or the effects seen (`effects`: no write left the
     * page, so it only moved; or a write left before anyone could be asked, an unasked commit).
     */
    by: z.enum(['rule', 'owner', 'effects']),
    owner: z.string().optional(),
    /** A write left the page before the owner was asked: the compiler refuses the book at this line. */
    unasked: z.literal(true).optional(),
  }),
  /** The writes this action sent (side-effect detection), each with its fate; absent when nothing watched. */
  writes: z.array(TraceWrite).optional(),
  /**
   * A `choose` a model made as presses (the menu button, any submenu items, then the item): the controls pressed, in
   * order, that this one step stands for (docs/design/authoring.md, "A menu opened and picked in").
   */
  presses: z.array(z.strictObject({ role: z.string(), name: z.string() })).optional(),
  /** What the owner was asked about this action's writes, and answered (`no_answer`: the time ran out, a no). */
  asked: z.array(z.strictObject({ write: z.string(), answer: z.enum(['commit', 'navigate', 'stage', 'no', 'no_answer']), owner: z.string().optional() })).optional(),
  /**
   * A `read_rows` act declares a rows output (docs/design/authoring.md, "Authoring rows"): its name, its columns (a header
   * the surface read, or the row's whole text), and what the surface read then (its headers; how many rows).
   */
  rows: z
    .strictObject({
      output: z.string().regex(/^[a-z][a-z0-9_]*$/),
      columns: z.record(z.string(), RowsColumn),
      headers: z.array(z.string()),
      count: z.number().int().nonnegative(),
    })
    .optional(),
  before: ScreenSeen,
  after: ScreenSeen,
});

export const TraceFinish = z.strictObject({ ...Base, kind: z.literal('finish'), label: z.string(), screen: ScreenSeen });

export const TraceEnd = z.strictObject({
  ...Base,
  kind: z.literal('end'),
  outcome: z.enum(['finished', 'failed']),
  code: z.string().optional(),
  message: z.string().optional(),
  /** What the model API said it counted over the evening (absent for a model that reports nothing, e.g. scripted). */
  usage: z
    .strictObject({
      requests: z.number().int().nonnegative(),
      input_tokens: z.number().int().nonnegative(),
      output_tokens: z.number().int().nonnegative(),
      cache_read_input_tokens: z.number().int().nonnegative(),
      cache_creation_input_tokens: z.number().int().nonnegative(),
    })
    .optional(),
});

/**
 * A change a person made to the book after the fact (shared/author/book-edit.ts): a step undone or removed, a typed
 * value's blank/literal choice, a label renamed. The lines from the changed one on are renumbered and re-chained,
 * and this line, appended last, says who changed what and when, naming the line by the number and hash it had.
 */
export const TraceEdit = z.strictObject({
  ...Base,
  kind: z.literal('edit'),
  op: z.enum(['undo', 'remove', 'value', 'label']),
  /** Who made the change (the clerk's name). */
  by: z.string().min(1),
  /** The number the changed line had before the change. */
  line: z.number().int().positive(),
  /** That line's hash before the change (lineHash), so the change names exactly the line it was made to. */
  was: z.string().regex(/^[0-9a-f]{16}$/),
  /** What changed, for a reviewer ("removed: Typed {{input.reason}} into Reason"). */
  what: z.string(),
});

/**
 * Why a clerk's action was caught but could not be booked (docs/design/extension.md, "The extension's trusted input": no
 * silent loss): the page was being left before it was reported (`leaving`); no worker answered when the page started,
 * so it was let through unrecorded (`no_answer`); its control was gone by the time it could be reported (`gone`); the
 * extension could not be reached (`undelivered`); the screen the worker saw no longer had it (`not_on_screen`);
 * recording it failed (`failed`).
 */
export const LostWhy = z.enum(['leaving', 'no_answer', 'gone', 'undelivered', 'not_on_screen', 'failed']);
export type LostWhy = z.infer<typeof LostWhy>;

/**
 * A clerk's own action (a trusted key or click, a pick, a choice) the recorder caught and could not book. Never
 * silent: the compiler refuses the book at this line (INPUT_NOT_BOOKED) until the clerk has done the step again and
 * removed the line. It says what was done in the clerk's terms — the verb, the control as the page showed it, the
 * key or option (never a typed text) — and why it was not booked.
 */
export const TraceLost = z.strictObject({
  ...Base,
  kind: z.literal('lost'),
  actor: z.literal('human'),
  verb: Verb,
  control: z.strictObject({ role: z.string(), name: z.string() }).optional(),
  /** press: the key; select, choose: the option's name. */
  value: z.string().optional(),
  why: LostWhy,
});
export type TraceLost = z.infer<typeof TraceLost>;

/** The value a lost line keeps of an action: a key's or a pick's, never a typed text (which may be anything). */
export function lostValue(verb: Verb, value: string | undefined): { value?: string } {
  return (verb === 'press' || verb === 'select' || verb === 'choose') && value !== undefined ? { value: value.slice(0, 500) } : {};
}

/** What a lost action was, in the clerk's words: "your press of Enter in textbox 'New item'". */
export function lostAction(l: Pick<TraceLost, 'verb' | 'control' | 'value'>): string {
  const where = l.control ? `${l.control.role} '${l.control.name}'` : 'a control';
  const v = l.value ?? '';
  switch (l.verb) {
    case 'press':
      return `your press of ${v || 'a key'} in ${where}`;
    case 'select':
    case 'choose':
      return `your pick of "${v}" in ${where}`;
    case 'set_value':
      return `what you typed into ${where}`;
    case 'double_click':
      return `your double-click on ${where}`;
    case 'context_menu':
      return `your right-click on ${where}`;
    case 'toggle':
      return `your tick of ${where}`;
    default:
      return `your click on ${where}`;
  }
}

/** Why a lost action was not booked, in the clerk's words. */
export const LOST_WHY: Readonly<Record<LostWhy, string>> = {
  leaving: 'the page was being left before it could be recorded',
  no_answer: 'the extension did not answer as the page started, so it was not recorded',
  gone: 'its control was gone from the page before it could be recorded',
  undelivered: 'the extension could not be reached to record it',
  not_on_screen: 'the page had changed and the extension no longer found that control',
  failed: 'recording it failed',
};

/** How a lost action's words begin, in the book's list and in the panel's note. */
export const LOST_NOTE = 'Not recorded:';

/** What the clerk is told of an action the recorder could not book: which, and why. */
export function lostNote(l: Pick<TraceLost, 'verb' | 'control' | 'value' | 'why'>): string {
  const what = lostAction(l);
  return `${LOST_NOTE} ${what.charAt(0).toUpperCase()}${what.slice(1)} — ${LOST_WHY[l.why]}.`;
}

export const TraceLine = z.discriminatedUnion('kind', [TraceStart, TraceLabel, TraceAct, TraceRefusal, TraceFinish, TraceEnd, TraceEdit, TraceLost]);
export type TraceLine = z.infer<typeof TraceLine>;
export type TraceAct = z.infer<typeof TraceAct>;
export type TraceLabel = z.infer<typeof TraceLabel>;
export type TraceStart = z.infer<typeof TraceStart>;
export type TraceEdit = z.infer<typeof TraceEdit>;

/** What the next line's `prev` must be: the hash (shared/hash.ts) of this line's canonical JSON (sorted keys, as written). */
export function lineHash(line: TraceLine): string {
  return hashStrings([canonicalJson(line)]);
}
