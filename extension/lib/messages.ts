// Every message between the extension's realms (side panel, worker, content scripts) as a zod schema: each is
// parsed on the way in, and anything that does not parse is dropped. Page scripts cannot reach
// these channels at all (runtime messaging is extension-only); the sender is still checked by the receiver.
import { z } from 'zod';
import { Control, ScopeLink, SurfaceRow, Verb } from '../../shared/schema/observation.ts';
import { RungKind } from '../../shared/schema/capability.ts';
import { BookEdit } from '../../shared/author/book-edit.ts';
import { LostWhy } from '../../shared/schema/trace.ts';
import { Aim, PageQuestion } from '../../shared/gestures/port.ts';

export const Mode = z.enum(['record', 'model']);
export type Mode = z.infer<typeof Mode>;

export const SessionInput = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/, 'an input name is lower_snake_case'),
  value: z.string(),
  secret: z.boolean(),
});
export type SessionInput = z.infer<typeof SessionInput>;

export const OwnerName = z.string().trim().min(1, 'the owner (your name) is required');

/** Side panel → worker. */
export const PanelCommand = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('start'),
    tabId: z.number().int(),
    mode: Mode,
    goal: z.string().trim().min(1, 'a goal is required'),
    owner: OwnerName,
    inputs: z.array(SessionInput),
  }),
  z.strictObject({
    type: z.literal('answer'),
    session: z.string(),
    question: z.string(),
    /** `cancel`: do not press it; nothing is pressed or written. */
    answer: z.enum(['commit', 'navigate', 'stage', 'cancel']),
    owner: OwnerName,
  }),
  /** Labels the screen the panel showed, named by its signature: if the tab shows another screen now, nothing is labelled. */
  z.strictObject({ type: z.literal('label'), session: z.string(), label: z.string(), title: z.string().optional(), signature: z.string().min(1) }),
  z.strictObject({ type: z.literal('finish'), session: z.string(), label: z.string() }),
  z.strictObject({ type: z.literal('stop'), session: z.string() }),
  /** Record mode: the clerk lets the session record on this origin too (it was paused there). */
  z.strictObject({ type: z.literal('allow_origin'), session: z.string(), origin: z.string() }),
  /** A clerk's change to the book: undo the last step, remove a step, a value's blank or literal, a label (shared/author/book-edit.ts). */
  z.strictObject({ type: z.literal('edit'), session: z.string(), by: OwnerName, edit: BookEdit }),
  z.strictObject({ type: z.literal('ping') }),
]);
export type PanelCommand = z.infer<typeof PanelCommand>;

/** What the worker answers a panel command with. */
export const CommandReply = z.union([
  z.strictObject({ ok: z.literal(true), session: z.string().optional(), text: z.string().optional() }),
  /** A refusal as data (shared/errors.ts `Refusal`); the panel renders it with `refusalLine`. */
  z.strictObject({ ok: z.literal(false), code: z.string(), message: z.string(), path: z.string().optional() }),
]);
export type CommandReply = z.infer<typeof CommandReply>;

/** Content script → worker: the clerk touched a control (record mode). `event` makes a retried message idempotent. */
export const ClerkAct = z.strictObject({
  type: z.literal('clerk_act'),
  event: z.string().min(8),
  frame: z.array(z.string()),
  ref: z.string(),
  verb: Verb,
  /**
   * The control's role and name as the frame saw it, to check a menu row found on an earlier look is this control; and
   * its scope (its row, dialog, form…), to find it again if the page moved it between the two looks.
   */
  control: z.strictObject({ role: z.string(), name: z.string(), scope: z.array(ScopeLink).max(32).optional() }).optional(),
  /** set_value: the typed text; select: the chosen option's label; press: the key (KEYS); choose: the option's name. */
  value: z.string().optional(),
  /** select: the chosen option's value attribute, tried against inputs too. */
  optionValue: z.string().optional(),
  /**
   * invoke: the control was hidden until the pointer entered its row when the worker last looked (the walker
   * offered it to `hover`): the book gets the hover on it first, then the press (docs/design/extension.md, "The
   * extension's trusted input").
   */
  revealed: z.boolean().optional(),
});
export type ClerkAct = z.infer<typeof ClerkAct>;

/**
 * Content script → worker: something the clerk did that the frame held and could not report (a pick in a modal menu
 * whose button never showed again), told in the panel as not recorded — never dropped silently (docs/design/extension.md,
 * "The extension's trusted input": modal lists).
 */
export const ClerkUnrecorded = z.strictObject({
  type: z.literal('clerk_unrecorded'),
  event: z.string().min(8),
  message: z.string().min(1).max(500),
});
export type ClerkUnrecorded = z.infer<typeof ClerkUnrecorded>;

/**
 * Content script → worker: an action of the clerk's the frame caught and could not report as a `clerk_act` — the
 * document was being left with it still to send, no worker answered as the page started, its control was gone before
 * it could be reported, or the worker could not be reached. The worker writes it into the book as a `lost` line, a
 * hole the compiler refuses (docs/design/extension.md, "The extension's trusted input": no silent loss). `event` is the
 * act's own id where it had one (an act booked after all is not written as lost too). Never a typed text.
 */
export const ClerkLost = z.strictObject({
  type: z.literal('clerk_lost'),
  event: z.string().min(8),
  verb: Verb,
  control: z.strictObject({ role: z.string().max(200), name: z.string().max(500) }).optional(),
  /** press: the key; select, choose: the option's name. */
  value: z.string().max(500).optional(),
  why: LostWhy.exclude(['not_on_screen', 'failed']),
});
export type ClerkLost = z.infer<typeof ClerkLost>;

/** Content script → worker, when a document starts: is this tab being recorded (should I catch the clerk)? */
export const AgentHello = z.strictObject({ type: z.literal('hello') });
export const HelloReply = z.strictObject({ recording: z.boolean() });
export type HelloReply = z.infer<typeof HelloReply>;

/** Worker → side panel: something in the store changed; re-read it. */
export const Changed = z.strictObject({ type: z.literal('changed'), session: z.string() });

/** One document as the walker in a frame sees it (shared/dom/api.ts DocumentObservation) with its frame path, parsed on the way in. */
export const FrameReport = z.strictObject({
  frame: z.array(z.string()),
  url: z.string(),
  title: z.string(),
  controls: z.array(Control),
  paths: z.array(z.string()),
  text: z.string(),
  said: z.array(z.string()).optional(),
  rows: z.array(z.strictObject({ key: z.string(), text: z.string() })).optional(),
  busy: z.boolean().default(false),
  moving: z.literal(true).optional(),
});
export type FrameReport = z.infer<typeof FrameReport>;

/** Worker → one frame's content script (through scripting.executeScript in the isolated world). */
export const FrameCall = z.discriminatedUnion('op', [
  z.strictObject({
    op: z.literal('find'),
    query: z.strictObject({
      rung: RungKind,
      role: z.string().optional(),
      name: z.string().optional(),
      value: z.string().optional(),
      scope: z.array(z.strictObject({ role: z.string(), name: z.string() })),
      /** A hover target is found while still hidden, by the name it will have once shown (shared/dom/api.ts). */
      reveal: z.boolean().optional(),
      /** A target that takes a gesture: one of role text is found among gesture-offered text only (shared/dom/api.ts). */
      gesture: z.boolean().optional(),
    }),
  }),
  z.strictObject({ op: z.literal('act'), ref: z.string(), verb: Verb, value: z.string().optional() }),
  z.strictObject({ op: z.literal('selectors'), ref: z.string() }),
  /**
   * Trusted input (docs/design/extension.md, "The extension's trusted input"): where in this frame's viewport to send the
   * pointer — scrolled into view, and checked to be what is there (not covered) — at what a gesture on the element is
   * aimed at (shared/gestures/port.ts Aim: the element, its row, the option or submenu item named `value`, its field);
   * `verb` press focuses it instead (a field: its text selected, for typing over). From now until `done`, this frame's
   * recorder lets the trusted input through as the extension's own.
   */
  z.strictObject({ op: z.literal('point'), ref: z.string(), verb: Verb, at: Aim, value: z.string().optional() }),
  /** The gesture engine's question about the element and `value` (shared/dom/gesture-answers.ts): `answer`. */
  z.strictObject({ op: z.literal('ask'), ref: z.string(), question: PageQuestion, value: z.string().optional() }),
  /** Answers once this frame's document changes (a MutationObserver), or after `ms` at the latest. */
  z.strictObject({ op: z.literal('changed'), ms: z.number().int().min(0).max(10_000) }),
  /** The worker's trusted input for this act is all sent: from now on trusted input is the clerk's again. */
  z.strictObject({ op: z.literal('done') }),
  /** Where the child frame spelled `child` (shared/ref.ts frameSegment) shows its content, in this frame's viewport. */
  z.strictObject({ op: z.literal('frame_box'), child: z.string() }),
  /** Where the menu item behind `ref` is reached from: its menu button's ref, the choose value, whether it opens a submenu (shared/surface.ts menuPick). */
  z.strictObject({ op: z.literal('menu_pick'), ref: z.string() }),
]);
export type FrameCall = z.infer<typeof FrameCall>;

export const FrameReply = z.union([
  z.strictObject({
    ok: z.literal(true),
    refs: z.array(z.string()).optional(),
    read: z.string().optional(),
    /** `act` read_rows: the rows and the column headers (none for a list), as shared/dom/rows.ts reads them. */
    rows: z.array(SurfaceRow).optional(),
    headers: z.array(z.string()).optional(),
    selectors: z.array(z.string()).optional(),
    /** `point`: CSS pixels in this frame's viewport; `frame_box`: the child frame's content origin. */
    point: z.strictObject({ x: z.number(), y: z.number() }).optional(),
    /** `ask`: the page's answer (shared/gestures/port.ts PageAnswers, parsed by the worker for the question it asked). */
    answer: z.unknown().optional(),
    /** `menu_pick`: where the item is reached from, or null (shared/dom/options.ts menuPathOf). */
    pick: z.strictObject({ button: z.string(), name: z.string(), value: z.string(), opens: z.boolean() }).nullable().optional(),
  }),
  z.strictObject({
    ok: z.literal(false),
    code: z.enum(['STALE', 'ACTION_FAILED']),
    message: z.string(),
  }),
]);
export type FrameReply = z.infer<typeof FrameReply>;
