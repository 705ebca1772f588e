// A person's changes to a book after the fact (docs/design/capability.md, "Editing a book"): undo the last step, remove a
// step, change a typed value's blank/literal choice, rename a label. The book stays one unbroken account the
// compiler accepts: the lines from the changed one on are renumbered and their `prev` hashes recomputed (re-sealed),
// and an `edit` line appended last says who changed which line (by its old number and hash), what, and when. The
// continuity check (shared/compile/continuity.ts) then still finds every real gap: a line lost or changed outside
// an edit breaks the re-sealed chain like any other, and an edit that would leave a screen change unexplained is
// refused here rather than written.
import { z } from 'zod';
import { HandrailError } from '../errors.ts';
import { lineHash, lostAction, TraceLine, type ScreenSeen, type TraceAct, type TraceEdit, type TraceLost } from '../schema/trace.ts';
import type { Masker } from '../secrets.ts';
import { LABEL_RE, titleOf, typesSecret, valueProblem } from './guard.ts';
import type { EveningInput } from './ports.ts';

/** What a person asks to change; `line` is the number (`seq`) the line has in the book now. */
export const BookEdit = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('undo') }),
  z.strictObject({ op: z.literal('remove'), line: z.number().int().positive() }),
  z.strictObject({ op: z.literal('value'), line: z.number().int().positive(), value: z.string().max(10_000) }),
  z.strictObject({ op: z.literal('label'), line: z.number().int().positive(), label: z.string().max(200), title: z.string().max(200).optional() }),
]);
export type BookEdit = z.infer<typeof BookEdit>;

export type BookEditCode = 'NOTHING_TO_UNDO' | 'NO_SUCH_LINE' | 'EDIT_REFUSED';

/** An edit that cannot be made; nothing was changed. */
export class BookEditError extends HandrailError<BookEditCode> {
  override readonly name = 'BookEditError';
  constructor(code: BookEditCode, message: string) {
    super(code, message);
  }
}

export interface EditContext {
  /** Who makes the change (the clerk's name), written into the edit line. */
  by: string;
  at: Date;
  /** The task's inputs with their values, and the session's masker: a new value is held to the guard's rules. */
  inputs: readonly EveningInput[];
  masker: Masker;
}

/**
 * Renumbers the lines from index `from` (0-based) on and recomputes their `prev` hashes, each from the line
 * before as it now stands. Lines before `from` are returned as they are.
 */
export function reseal(lines: readonly TraceLine[], from = 0): TraceLine[] {
  const out = lines.slice(0, from);
  for (let i = from; i < lines.length; i++) {
    const { prev: _old, ...rest } = lines[i] as TraceLine;
    const before = out[i - 1];
    out.push(TraceLine.parse({ ...rest, seq: i + 1, ...(before ? { prev: lineHash(before) } : {}) }));
  }
  return out;
}

const say = (l: TraceAct): string => `${l.verb} ${l.control.role} '${l.control.name || l.control.hint || ''}'${l.value !== undefined ? ` = ${l.value}` : ''}`;

function lineAt(lines: readonly TraceLine[], seq: number): number {
  const i = lines.findIndex((l) => l.seq === seq);
  if (i < 0) throw new BookEditError('NO_SUCH_LINE', `the book has no line ${seq}`);
  return i;
}

/** Where a line shows a screen (the one it starts from), if it says. */
function startsOn(l: TraceLine): ScreenSeen | null {
  return l.kind === 'act' ? l.before : l.kind === 'label' || l.kind === 'finish' ? l.screen : null;
}

/**
 * Removing an act that moved the screen would leave the lines after it starting from a screen nothing led to:
 * refused unless no later line shows a screen (the last step: the person then goes back in the application).
 */
function checkRemovable(lines: readonly TraceLine[], i: number, op: 'undo' | 'remove'): TraceAct | TraceLost {
  const l = lines[i] as TraceLine;
  // An action the recorder could not book is removed once the clerk has done it again (or found it was not wanted).
  if (l.kind === 'lost' && op === 'remove') return l;
  if (l.kind !== 'act') throw new BookEditError('EDIT_REFUSED', `line ${l.seq} is a ${l.kind} line; only a step (an action) can be undone or removed`);
  const moved = l.after.signature !== l.before.signature;
  if (moved && lines.slice(i + 1).some((x) => startsOn(x) !== null)) {
    throw new BookEditError(
      'EDIT_REFUSED',
      `line ${l.seq} moved the application to another screen, and later lines start there: without it the book would not say how the task got there; record this part again instead`,
    );
  }
  return l;
}

function renameScreen(s: ScreenSeen, from: string, to: string): ScreenSeen {
  return s.label === from ? { ...s, label: to } : s;
}

/** The label and every later mention of it (the screens lines show, the finish) under the new name. */
function renamed(l: TraceLine, from: string, to: string): TraceLine {
  switch (l.kind) {
    case 'act':
      return { ...l, before: renameScreen(l.before, from, to), after: renameScreen(l.after, from, to) };
    case 'label':
      return { ...l, label: l.label === from ? to : l.label, screen: renameScreen(l.screen, from, to) };
    case 'finish':
      return { ...l, label: l.label === from ? to : l.label, screen: renameScreen(l.screen, from, to) };
    default:
      return l;
  }
}

/**
 * The book with one edit made and re-sealed, the edit line last. Throws BookEditError (nothing changed) when the
 * edit cannot be made: no such line, a line of another kind, a value the guard would refuse, a label taken.
 */
export function editBook(lines: readonly TraceLine[], edit: BookEdit, ctx: EditContext): TraceLine[] {
  let changed: TraceLine[];
  let at: number;
  let what: string;
  switch (edit.op) {
    case 'undo':
    case 'remove': {
      at = edit.op === 'undo' ? lines.findLastIndex((l) => l.kind === 'act') : lineAt(lines, edit.line);
      if (at < 0) throw new BookEditError('NOTHING_TO_UNDO', 'the book has no step to undo');
      const act = checkRemovable(lines, at, edit.op);
      changed = [...lines.slice(0, at), ...lines.slice(at + 1)];
      what = `${edit.op === 'undo' ? 'undid' : 'removed'} line ${act.seq}: ${act.kind === 'lost' ? `not recorded, ${lostAction(act)}` : say(act)}`;
      break;
    }
    case 'value': {
      at = lineAt(lines, edit.line);
      const l = lines[at] as TraceLine;
      if (l.kind !== 'act' || (l.verb !== 'set_value' && l.verb !== 'select')) {
        throw new BookEditError('EDIT_REFUSED', `line ${edit.line} types or chooses no value`);
      }
      const bad = valueProblem(edit.value, ctx.inputs, ctx.masker);
      if (bad) throw new BookEditError('EDIT_REFUSED', `${bad.code}: ${bad.message}`);
      if (typesSecret(edit.value, ctx.inputs) && !l.control.secret) {
        throw new BookEditError('EDIT_REFUSED', `SECRET_FIELD: line ${edit.line} types into a field that shows its text: a secret typed there would show on the screen`);
      }
      changed = [...lines];
      changed[at] = { ...l, value: edit.value };
      what = `line ${l.seq}: ${l.control.name || l.control.hint || l.control.role} takes ${edit.value} (was ${l.value ?? 'nothing'})`;
      break;
    }
    case 'label': {
      at = lineAt(lines, edit.line);
      const l = lines[at] as TraceLine;
      if (l.kind !== 'label') throw new BookEditError('EDIT_REFUSED', `line ${edit.line} is not a label`);
      if (!LABEL_RE.test(edit.label)) throw new BookEditError('EDIT_REFUSED', 'LABEL_INVALID: a label is lower_snake_case, such as "hold_result"');
      if (edit.label !== l.label && lines.some((x) => x.kind === 'label' && x.label === edit.label)) {
        throw new BookEditError('EDIT_REFUSED', `LABEL_TAKEN: "${edit.label}" already names another screen; choose another label`);
      }
      const title = edit.title?.trim() || (edit.label === l.label ? l.title : titleOf(edit.label));
      changed = lines.map((x, i) => (i < at ? x : renamed(x, l.label, edit.label)));
      changed[at] = { ...(changed[at] as typeof l), title };
      what = `line ${l.seq}: the screen ${l.label} "${l.title}" is now ${edit.label} "${title}"`;
      break;
    }
  }
  const target = lines[at] as TraceLine;
  const sealed = reseal(changed, at);
  const last = sealed.at(-1);
  const line: TraceEdit = {
    seq: sealed.length + 1,
    at: ctx.at.toISOString(),
    ...(last ? { prev: lineHash(last) } : {}),
    kind: 'edit',
    op: edit.op,
    by: ctx.by,
    line: target.seq,
    was: lineHash(target),
    what,
  };
  return [...sealed, TraceLine.parse(ctx.masker.maskDeep(line))];
}

