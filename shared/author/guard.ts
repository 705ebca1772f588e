// The guard between the model and the surface (docs/design/authoring.md, "Authoring"). For each call it checks what the model
// asked against the menu it was shown, probes the rungs, fingerprints the control, classifies the risk (asking
// the owner about buttons), acts, observes, and writes the book line — secrets masked — before it answers.
// A refusal goes back to the model as a tool error that names what was wrong and never echoes a secret.
import { fingerprint } from '../fingerprint.ts';
import { buildMenu, heldPart, labelOf, renderRow, type MenuRow } from '../menu.ts';
import { outsideValues, takesValue, VERBS } from '../operations.ts';
import { blankFor, blanksIn, fillBlanks } from '../schema/blanks.ts';
import type { EffectKind, FingerprintField } from '../schema/capability.ts';
import { Control as ControlSchema, type Control, type Observation } from '../schema/observation.ts';
import { z } from 'zod';
import { lineHash, TraceAct, TraceLine, type ScreenSeen } from '../schema/trace.ts';
type ActLine = z.infer<typeof TraceAct>;
import { labelledAs, labelledScreen, type KnownScreen } from '../screens.ts';
import type { Masker } from '../secrets.ts';
import { sameNamedControl } from '../ref.ts';
import { SurfaceError, type Surface } from '../surface.ts';
import { riskOf } from '../surfaces.ts';
import { Lock } from '../lock.ts';
import { ActInput, AssertScreenInput, FinishInput, ReadRowsInput, type Book, type EveningInput, type Owner, type OwnerAnswer, type ToolCall, type ToolOutcome } from './ports.ts';
import { probeRungs } from './probe.ts';
import { locate, rowSources, type RowSource } from './rows.ts';
import { look, settleAfter, type SettleOptions } from './settle.ts';
import { notAtRestWhy, REST_QUIET_MS, untilAtRest } from '../rest.ts';
import { HandrailError } from '../errors.ts';
import { menuItemKeys, optionKeys } from '../dom/options.ts';
import { menuLevels, menuPathValue } from '../menu-path.ts';
import type { MenuPick } from '../surface.ts';
import { describeWrite, type Request, type SeenWrite, type WriteScope } from '../writes.ts';

export type RefusalCode =
  | 'BAD_CALL'
  | 'UNKNOWN_TOOL'
  | 'NO_SUCH_ROW'
  | 'WRONG_VERB'
  | 'VALUE_REQUIRED'
  | 'VALUE_NOT_ALLOWED'
  | 'VALUE_NOT_IN_SET'
  | 'SECRET_LITERAL'
  | 'SECRET_FIELD'
  | 'INPUT_LITERAL'
  | 'UNKNOWN_BLANK'
  | 'SCREEN_CHANGED'
  | 'LABEL_INVALID'
  | 'LABEL_TAKEN'
  | 'ALREADY_LABELLED'
  | 'NOT_LABELLED'
  | 'UNLABELLED_SCREEN'
  | 'NOT_SHOWING'
  | 'ACTION_FAILED'
  | 'CANCELLED'
  | 'WRITE_REFUSED'
  | 'FINISHED'
  // read_rows (docs/design/authoring.md, "Authoring rows")
  | 'NO_SUCH_TABLE'
  | 'UNKNOWN_HEADER'
  | 'NO_HEADERS'
  | 'COLUMNS_REQUIRED'
  | 'OUTPUT_INVALID'
  | 'OUTPUT_TAKEN';

/**
 * The keys that open a combobox's list (WAI-ARIA APG combobox pattern: Down Arrow, Up Arrow, Alt+Down Arrow). Only a
 * press of one of them may be joined with the option pressed next into one `choose`: another key (Enter fetching
 * suggestions) is a step of its own, and folding it away would leave it out of the card.
 */
const LIST_OPENING_KEYS: ReadonlySet<string> = new Set(['ArrowDown', 'ArrowUp', 'Alt+ArrowDown']);

/** Lines as the guard builds them; `seq`, `at` and `prev` are added when written. */
type Unnumbered<T> = T extends unknown ? Omit<T, 'seq' | 'at' | 'prev'> : never;
export type DraftLine = Unnumbered<TraceLine>;

export interface GuardOptions {
  surface: Surface;
  owner: Owner;
  book: Book;
  masker: Masker;
  goal: string;
  inputs: readonly EveningInput[];
  settle?: SettleOptions;
  /** Host hook: CSS selectors that might find the control of a ref (the browser derives them from the element). */
  selectorsFor?: (ref: string) => Promise<string[]>;
  now?: () => Date;
  /** Who does the acts this guard writes: the model (the default), or a clerk recording by hand. */
  actor?: 'model' | 'human';
  /**
   * The book so far, when a host picks up a session another process started (an MV3 worker that was stopped):
   * the guard numbers on after its last line and knows the labels it pinned and whether it finished.
   */
  resume?: readonly TraceLine[];
  /** With `resume`: presses held back when the host last kept the evening's place, none of them written since (see Held). */
  held?: Held | null;
  /**
   * Called, and awaited, just before an action is done on the surface, with its book line but for the screen
   * after: a host that may be stopped between the action and its line keeps it, to `recover` it on resume.
   */
  dispatching?: (d: Dispatch) => Promise<void>;
  /**
   * Called, and awaited, when a press just done is kept with the held presses and its call refused (a submenu item
   * that showed no submenu), before the refusal line is written: a host that may be stopped keeps the held presses
   * as they now are, with the action and its answer (`refused`), so a stop in between loses no press (`recover`
   * writes the line). Such a host keeps the held presses with its place, so a press that may open a menu or a list
   * is dispatched with what `recover` needs to hold it again (`Dispatch.opening`). docs/design/authoring.md, "A menu
   * opened and picked in" (A host that may be stopped).
   */
  holding?: (d: Dispatch) => Promise<void>;
  /**
   * Side-effect detection: the app's origins and ignorable endpoints. When the surface can watch writes, every
   * write an action sends is held while the owner is asked (a button is then asked about only if it writes).
   */
  writes?: WriteScope;
  /** How long the owner has to answer before the answer is a "no", recorded as such (default 5 minutes). */
  ownerTimeoutMs?: number;
}

export const DEFAULT_OWNER_TIMEOUT_MS = 5 * 60_000;

type Asked = NonNullable<ActLine['asked']>[number];
type Classified = { kind: EffectKind; by: 'rule' | 'owner' | 'effects'; owner?: string; unasked?: true };

/** An act line before the action: everything but the screen it led to. */
export const DispatchedLine = TraceAct.omit({ seq: true, at: true, prev: true, after: true });
export type DispatchedLine = z.infer<typeof DispatchedLine>;

/** An action the guard was about to do (or did) when the host last heard from it; `call` is the model's call id. */
export const Dispatch = z.strictObject({
  call: z.string(),
  line: DispatchedLine,
  /**
   * The action was done and its press kept with the held presses (see Held), its call refused: this is the answer
   * (masked), whose refusal line is the next line (GuardOptions.holding).
   */
  refused: z.string().optional(),
  /**
   * A press that may open a menu or a list to pick in (see Held), as the guard saw its screen before it (masked): the
   * popup items showing then, the press's menu row as rendered, the button's `choose` row, and for a submenu item
   * where it is reached from. A press cut off after the screen moved is then held again on resume as the lost process
   * would have held it (`recover`).
   */
  opening: z
    .strictObject({
      popups: z.strictObject({ items: z.array(z.string()), options: z.array(z.string()) }),
      row: z.string(),
      chooseRow: z.number().int().positive(),
      submenu: z.strictObject({ name: z.string(), value: z.string() }).optional(),
    })
    .optional(),
});
export type Dispatch = z.infer<typeof Dispatch>;

/** An act line as written, but for its number, time and chain. */
const ActDraft = TraceAct.omit({ seq: true, at: true, prev: true });
type ActDraft = z.infer<typeof ActDraft>;

/**
 * Presses that opened a menu (a menu button, then any submenu items) or a list (a list button, a key on a combobox),
 * held back from the book while the model may still pick in it (docs/design/authoring.md, "A menu opened and picked in",
 * lists too). A pick writes them as one `choose` on the button or combobox; anything else writes them as they were,
 * first. A host that may be stopped keeps them with the evening's place (shared/author/evening.ts EveningState).
 */
export const Held = z.strictObject({
  lines: z.array(ActDraft).min(1),
  /** The menu button (list button, combobox) as the screen before it showed it, and the `choose` row it had there. */
  button: ControlSchema,
  chooseRow: z.number().int().positive(),
  /** The item names pressed so far below the button (submenus opened). */
  levels: z.array(z.string()),
});
export type Held = z.infer<typeof Held>;

/** Whether two looks show the same control: role, name, scope and ancestors (refs last one observation). */
function sameControl(a: Control, b: Control): boolean {
  return a.role === b.role && a.name === b.name && JSON.stringify(a.scope) === JSON.stringify(b.scope) && JSON.stringify(a.ancestors) === JSON.stringify(b.ancestors);
}

type Popups = NonNullable<Dispatch['opening']>['popups'];

/** The menu items and options a screen shows (shared/dom/options.ts menuItemKeys, optionKeys), masked by `mask`. */
function popupsOf(obs: Observation, mask: (s: string) => string): Popups {
  const controls = obs.parts.flatMap((p) => p.controls);
  return { items: menuItemKeys(controls).map(mask), options: optionKeys(controls).map(mask) };
}

const asIs = (t: string): string => t;

/** What a press opened: `menu` when `after` shows a menu item `before` did not, `list` when it shows an option it did not; null when neither. */
function popupOpened(before: Popups, after: Popups): 'menu' | 'list' | null {
  const shows = (keys: 'items' | 'options'): boolean => {
    const was = new Set(before[keys]);
    return after[keys].some((k) => !was.has(k));
  };
  return shows('items') ? 'menu' : shows('options') ? 'list' : null;
}

/** The refusal of a submenu item whose press showed no submenu (its press kept with the held ones; see Held). */
function showedNoSubmenu(row: string): string {
  return `${row} showed no submenu; the press is kept with those that opened the menu. Press it again, press an item of the menu, or name this screen with assert_screen`;
}

/** The levels a pick names: an option's name whole (a list has no submenus), a menu item's path (shared/menu-path.ts). */
function pickLevels(item: Control, pick: MenuPick): string[] {
  return item.role === 'option' ? [pick.value] : menuLevels(pick.value);
}

/**
 * What became of an action dispatched before a stop that left no book line: `written` (the screen had moved
 * on, so it happened; its line is now in the book), `redo` (doing it again is harmless: typing the same value,
 * or a navigation that visibly did not happen), or `uncertain` (a press that may or may not have happened and
 * must not be made twice: a commit, or a toggle, on a screen that did not change), `held` (a press that opened a
 * menu or a list, held again as the lost process held it: see Held), or `refused` (a submenu item that showed no
 * submenu: its press is with the held presses, and the refusal line that answers its call is now the book's last).
 */
export type Recovery = 'written' | 'redo' | 'uncertain' | 'held' | 'refused';

/** The book handed to `resume` is not one this guard can carry on (lines missing or out of order). */
export class BookResumeError extends HandrailError<'BOOK_BROKEN'> {
  override readonly name = 'BookResumeError';
  constructor(message: string) {
    super('BOOK_BROKEN', message);
  }
}

interface Shown {
  obs: Observation;
  menu: MenuRow[];
  /** The tables and lists `read_rows` can read on this screen, as the model was shown them. */
  rows?: RowSource[];
}

export const LABEL_RE = /^[a-z][a-z0-9_]*$/;

export function titleOf(label: string): string {
  return label
    .split('_')
    .filter(Boolean)
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join(' ');
}

function refuse(id: string, code: RefusalCode, message: string): ToolOutcome {
  return { id, ok: false, text: `refused (${code}): ${message}` };
}

/**
 * Is the value a blank naming declared inputs, or a literal that is neither a secret (in any spelling the masker
 * knows) nor an input's value? The guard asks it of every typed value, and a clerk's edit of a value (book-edit.ts).
 */
export function valueProblem(value: string, inputs: readonly EveningInput[], masker: Masker): { code: RefusalCode; message: string } | null {
  const names = new Set(inputs.map((i) => i.name));
  for (const b of blanksIn(value)) {
    if (b.source !== 'input' || !names.has(b.name)) {
      return { code: 'UNKNOWN_BLANK', message: `{{${b.source}.${b.name}}} names no input of this task (inputs: ${[...names].join(', ') || 'none'})` };
    }
  }
  // Any spelling of a secret (base64, hex, URL-encoded, reversed, split by zero-width characters): the masker's.
  const held = masker.nameIn(value);
  if (held !== null) {
    const secret = inputs.find((s) => s.secret && s.name === held);
    const blank = secret ? blankFor(secret.name) : 'its blank';
    return { code: 'SECRET_LITERAL', message: `that value holds a secret${secret ? ` (the input "${secret.name}")` : ''}; type it as ${blank}` };
  }
  const bare = value.trim();
  for (const i of inputs) {
    if (!i.secret && i.value !== '' && bare === i.value) {
      return { code: 'INPUT_LITERAL', message: `that value is the input "${i.name}"; type it as ${blankFor(i.name)} so the card works for other values` };
    }
  }
  return null;
}

/** Whether a value types a secret input's blank (then only a field that hides its text may take it). */
export function typesSecret(value: string | undefined, inputs: readonly EveningInput[]): boolean {
  const secretNames = new Set(inputs.filter((i) => i.secret).map((i) => i.name));
  return value !== undefined && blanksIn(value).some((b) => secretNames.has(b.name));
}

const REFUSED_RE = /^refused \(([A-Z_]+)\): ([\s\S]*)$/;

/** The `tool` of the refusal lines the page's own writes make (see #reportStrays): no model call's, so no answer to one. */
const PAGE_TOOL = 'page';
const PAGE_CODES: ReadonlySet<string> = new Set(['UNASKED_WRITE', 'STRAY_WRITE']);

/**
 * Whether a book line is one the page wrote (a write it sent between actions, reported at the next call): it answers
 * no model call, so a resumed evening never matches it to one (docs/design/authoring.md, "A menu opened and picked in").
 * A model that calls a tool named `page` is refused UNKNOWN_TOOL, a code the page's lines never carry.
 */
export function isPageLine(line: TraceLine): boolean {
  return line.kind === 'refusal' && line.tool === PAGE_TOOL && PAGE_CODES.has(line.code);
}

export class Guard {
  readonly #o: GuardOptions;
  readonly #lock = new Lock();
  readonly #labels = new Map<string, KnownScreen & { title: string }>();
  #seq = 0;
  /** The last line written (or resumed from): the next line carries its hash. */
  #last: TraceLine | null = null;
  #shown: Shown | null = null;
  /** The latest look at the screen (after the last action); equal in signature to `shown` until something changes it. */
  #current: Shown | null = null;
  #changed = false;
  #finished: string | null = null;
  /** Rows outputs declared so far (read_rows lines): a name is one output. */
  readonly #outputs = new Set<string>();
  /** The act line already says why this call was refused (a write the owner declined): no refusal line too. */
  #wroteRefusal = false;
  /** A watch that stops writes is on between actions (see #watchBetween). */
  #between = false;
  /** Presses that opened a menu, not written yet: a pick in it may still make them one `choose` (see Held). */
  #held: Held | null = null;
  /** A first look at rest was taken (see show). */
  #atRestOnce = false;

  constructor(opts: GuardOptions) {
    this.#o = opts;
    for (const [i, l] of (opts.resume ?? []).entries()) {
      if (l.seq !== i + 1) throw new BookResumeError(`the book cannot be resumed: line ${i + 1} is numbered ${l.seq}`);
      if (l.kind === 'label') this.#labels.set(l.label, { ...labelledScreen(l.label, l.screen, opts.inputs), title: l.title });
      if (l.kind === 'finish') this.#finished = l.label;
      if (l.kind === 'act' && l.rows) this.#outputs.add(l.rows.output);
      this.#seq = l.seq;
      this.#last = l;
    }
    this.#held = opts.held ?? null;
  }

  /** Presses that opened a menu and are not written yet (see Held), for a host that keeps the evening's place. */
  get held(): Held | null {
    return this.#held && this.#o.masker.maskDeep(this.#held);
  }

  get finished(): string | null {
    return this.#finished;
  }

  get lines(): number {
    return this.#seq;
  }

  /** The last line written (or resumed from). */
  get lastLine(): TraceLine | null {
    return this.#last;
  }

  /** The screen and menu the last `show` fixed, unless a call has changed the screen since; null before any. */
  get lastShown(): { obs: Observation; menu: MenuRow[] } | null {
    return this.#changed || !this.#shown ? null : { obs: this.#shown.obs, menu: this.#shown.menu };
  }

  /** Whether a call since the last `show` changed the screen (the rest of that message is then refused). */
  get screenChanged(): boolean {
    return this.#changed;
  }

  /**
   * Write one book line: numbered, stamped, masked, checked against the trace schema, awaited. Presses held back
   * (a menu opened) go first, as they were, unless the line is a refusal (nothing happened on the screen).
   */
  async write(line: DraftLine): Promise<void> {
    if (line.kind !== 'refusal') await this.#flushHeld();
    await this.#append(line);
  }

  /**
   * The rungs that find `control` again on the live screen. A clerk's change that sends the page away (a select that
   * submits its form) can take the document from under the probe: the rungs are then probed on the document that
   * replaced it, on the one control there with the same role, name and scope (the desk loaded again; an unnamed
   * control is not taken for another unnamed one). With none, the line has no rung and the compiler says so
   * (NO_RUNG): the action is still written, never lost unsaid.
   */
  async #probe(control: Control, clerkDidIt: boolean): Promise<{ probed: Awaited<ReturnType<typeof probeRungs>>; replaced: boolean }> {
    const css = async (ref: string): Promise<string[]> => (await this.#o.selectorsFor?.(ref).catch(() => [])) ?? [];
    try {
      return { probed: await probeRungs(this.#o.surface, control, await css(control.ref)), replaced: false };
    } catch (e) {
      if (!(clerkDidIt && e instanceof SurfaceError && e.code === 'STALE')) throw e;
    }
    const again = await settleAfter(this.#o.surface, '', this.#o.settle).catch(() => null);
    const twins = again && control.name ? buildMenu(again).map((r) => r.control).filter((c) => sameNamedControl(c, control)) : [];
    // A control has a menu row per verb: one control is one ref, however many rows.
    const twin = new Set(twins.map((c) => c.ref)).size === 1 ? twins[0] : undefined;
    const none = { rungs: [], scope: control.scope };
    return { probed: twin ? await probeRungs(this.#o.surface, twin, await css(twin.ref)).catch(() => none) : none, replaced: true };
  }

  /** Writes the presses held back (see Held) as they were: they happened, and nothing is lost. */
  async #flushHeld(): Promise<void> {
    const held = this.#held;
    this.#held = null;
    for (const l of held?.lines ?? []) await this.#append(l);
  }

  async #append(line: DraftLine): Promise<void> {
    const prev = this.#last ? { prev: lineHash(this.#last) } : {};
    const numbered = { seq: this.#seq + 1, at: (this.#o.now?.() ?? new Date()).toISOString(), ...prev, ...line };
    const parsed = TraceLine.parse(this.#o.masker.maskDeep(numbered));
    await this.#o.book.append(parsed);
    this.#seq++;
    this.#last = parsed;
  }

  #known(): KnownScreen[] {
    return [...this.#labels.values()];
  }

  #labelOf(obs: Observation): string | null {
    return labelledAs(obs, this.#known(), this.#o.inputs);
  }

  #seen(obs: Observation): ScreenSeen {
    const said = obs.parts.flatMap((p) => p.said ?? []);
    return { locus: obs.locus, signature: obs.signature, paths: obs.paths, label: this.#labelOf(obs), ...(said.length ? { said } : {}) };
  }

  /**
   * Look at the screen and fix the menu the model's next message refers to. Returns the label, if any. The first look
   * of an evening (no action in the book yet) waits for the screen to be at rest, as replay's first screen does
   * (`shared/rest.ts`): a booting app's loading screen is not its first screen. One never at rest within the settle
   * bound is shown as it is, unnamed, with `unsettled` saying why (docs/design/replay.md, "A first screen at rest").
   */
  async show(): Promise<{ obs: Observation; menu: MenuRow[]; label: string | null; rows: RowSource[]; unsettled?: string }> {
    return this.#lock.run(async () => {
      // A surface that cannot hold writes watches from the first look: a clerk's change can send one before the
      // guard hears of the change (see #act).
      if (this.#watching && this.#o.surface.writesUnheld && !this.#between) await this.#watchBetween();
      let unsettled: string | undefined;
      let obs: Observation;
      if (this.#firstLook()) {
        const surface = this.#o.surface;
        const loaded = surface.loaded?.bind(surface);
        const timeoutMs = this.#o.settle?.maxMs ?? 8_000;
        const rest = await untilAtRest({
          look: () => look(surface),
          observation: (o: Observation) => o,
          timeoutMs,
          quietMs: Math.min(REST_QUIET_MS, this.#o.settle?.quietMs ?? REST_QUIET_MS),
          ...(loaded ? { loaded } : {}),
        });
        obs = rest.look ?? (await look(surface));
        if (!rest.atRest) unsettled = `the screen was not at rest after ${timeoutMs} ms (${notAtRestWhy(rest.why)})`;
      } else obs = await look(this.#o.surface);
      const shown = { obs, menu: buildMenu(obs), rows: await rowSources(this.#o.surface, obs) };
      this.#shown = shown;
      this.#current = shown;
      this.#changed = false;
      if (unsettled !== undefined) return { ...shown, label: null, unsettled };
      this.#atRestOnce = true;
      return { ...shown, label: this.#labelOf(obs) };
    });
  }

  /** Whether a look is the evening's first: nothing acted on yet, and no look at rest taken by this guard. */
  #firstLook(): boolean {
    return !this.#atRestOnce && this.#last?.kind !== 'act' && !(this.#o.resume ?? []).some((l) => l.kind === 'act') && this.#seq === (this.#o.resume?.length ?? 0);
  }

  /**
   * After a resume, settles an action dispatched before the stop whose line is not in the book (see Recovery).
   * Call it after `show` and before any other call: it looks at the screen showing now.
   */
  recover(d: Dispatch): Promise<Recovery> {
    return this.#lock.run(async () => {
      // Its press was kept with the held presses, which the host kept with it: only its refusal line is missing.
      if (d.refused !== undefined) {
        await this.#writeRefusal('act', d.refused);
        return 'refused';
      }
      // A pick joined from presses (see Held) was, on the screen, a press on the item in the open menu: it is settled
      // as that press, from the screen the menu showed on.
      const pair = d.line.presses !== undefined;
      const redo = VERBS[pair ? 'invoke' : d.line.verb].redo;
      // A pick the owner called a commit (a menu item that saves) is never done twice, whatever its verb.
      if (redo === 'always' && d.line.effect.kind !== 'commit') return 'redo';
      const now = await look(this.#o.surface);
      const from = pair ? (this.#held?.lines.at(-1)?.after.signature ?? d.line.before.signature) : d.line.before.signature;
      if (now.signature === from) return redo === 'if_navigate' && d.line.effect.kind === 'navigate' ? 'redo' : 'uncertain';
      if (pair) this.#held = null;
      this.#current = { obs: now, menu: buildMenu(now) };
      this.#changed = true;
      const again = d.opening ? await this.#holdAgain(d, d.opening, now) : null;
      if (again) return again;
      await this.write({ ...d.line, after: this.#seen(now) });
      return 'written';
    });
  }

  /** One tool call, after every call before it has finished (book line written). */
  handle(call: ToolCall): Promise<ToolOutcome> {
    return this.#lock.run(async () => {
      const outcome = await this.#handle(call);
      if (!outcome.ok && !this.#wroteRefusal) await this.#writeRefusal(String(call.name), outcome.text);
      this.#wroteRefusal = false;
      // What the model reads is masked as its screens are, whichever path made the answer (a refusal quoting a control
      // named with a secret's value, a header the page sent): one place, not call by call.
      return { ...outcome, text: this.#o.masker.mask(outcome.text) };
    });
  }

  /** Every refusal is kept in the book (masked like every line), so a reviewer sees what the model tried. */
  async #writeRefusal(tool: string, text: string): Promise<void> {
    const m = REFUSED_RE.exec(text);
    if (m) await this.write({ kind: 'refusal', tool: tool.slice(0, 40), code: m[1] as string, message: m[2] as string });
  }

  async #handle(call: ToolCall): Promise<ToolOutcome> {
    if (this.#finished) return refuse(call.id, 'FINISHED', `the task already finished on ${this.#finished}`);
    if (!this.#shown || !this.#current) throw new Error('Guard.handle before Guard.show');
    if (this.#changed) {
      return refuse(
        call.id,
        'SCREEN_CHANGED',
        'an earlier call in this message changed the screen, so this call no longer refers to what you saw; you will be shown the new screen',
      );
    }
    switch (call.name) {
      case 'act':
        return this.#act(call);
      case 'assert_screen':
        return this.#assert(call);
      case 'finish':
        return this.#finish(call);
      case 'read_rows':
        return this.#readRows(call);
      default:
        return refuse(call.id, 'UNKNOWN_TOOL', `there is no tool "${String(call.name).slice(0, 40)}"; use act, assert_screen, read_rows or finish`);
    }
  }

  #checkValue(id: string, value: string): ToolOutcome | null {
    const bad = valueProblem(value, this.#o.inputs, this.#o.masker);
    return bad ? refuse(id, bad.code, bad.message) : null;
  }

  /** Whether writes are watched: the host gave a scope and the surface can hold and report them. */
  get #watching(): boolean {
    return this.#o.writes !== undefined && typeof this.#o.surface.watchWrites === 'function' && typeof this.#o.surface.takeWrites === 'function';
  }

  /** The owner's answer, or `null` when none came in time (a "no"). An OwnerError (nobody can be asked) propagates. */
  async #ask(row: MenuRow, screen: string | null, writes?: string[]): Promise<OwnerAnswer | null> {
    const ms = this.#o.ownerTimeoutMs ?? DEFAULT_OWNER_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
    try {
      return await Promise.race([
        this.#o.owner.ask({
          control: `${row.control.role} '${labelOf(row.control)}'${heldPart(row.control)}${row.where ? ` in ${row.where}` : ''}`,
          screen,
          goal: this.#o.goal,
          ...(writes ? { writes } : {}),
        }),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The press's effect sticker; null when the owner gave no answer in time (a no); `cancelled` when the owner cancelled it. */
  async #classify(row: MenuRow, screen: string | null): Promise<Classified | null | 'cancelled'> {
    const sticker = VERBS[row.verb].sticker;
    if (sticker !== 'by_risk') return { kind: sticker, by: 'rule' };
    // The surface's risk rules by role (a browser link navigates); anything else pressed is a commit until the
    // owner says otherwise.
    const ruled = riskOf(this.#o.surface.kind ?? 'browser', row.control.role);
    if (ruled) return { kind: ruled, by: 'rule' };
    // Watching writes, the owner is asked when the press sends one (held until the answer); none: it only moves.
    // A surface that cannot hold a write would ask only after it left: the owner is asked before the press.
    if (this.#watching && !this.#o.surface.writesUnheld) return { kind: 'navigate', by: 'effects' };
    const a = await this.#ask(row, screen);
    if (!a) return null;
    if (a.answer === 'cancel') return 'cancelled';
    return { kind: a.answer, by: 'owner', owner: a.name };
  }

  /**
   * Between actions nothing the model asked for is happening, so a write the page sends then (a delayed autosave,
   * a timer) is stopped where it can be held, and kept for the next call to report (`#strays`).
   */
  async #watchBetween(): Promise<void> {
    await this.#o.surface.watchWrites?.(this.#o.writes as WriteScope, () => Promise.resolve(false));
    this.#between = true;
  }

  /** What the between-actions watch saw; it stops. */
  async #takeBetween(): Promise<SeenWrite[]> {
    if (!this.#between) return [];
    this.#between = false;
    return (await this.#o.surface.takeWrites?.()) ?? [];
  }

  /**
   * Writes the page sent between actions go into the book as a refusal line; one that left unasked is a hole. With
   * `pickUnderWay`, the presses held are about to be written as the pick's one step, so they are not written again.
   */
  async #strays(pickUnderWay = false): Promise<void> {
    await this.#reportStrays(await this.#takeBetween(), pickUnderWay);
  }

  /**
   * `#strays`, and the watch between actions on again at once if it was on: a call refused after this must not leave
   * the page's writes unwatched while the model thinks.
   */
  async #straysWatchingOn(): Promise<void> {
    const watching = this.#between;
    await this.#strays();
    if (watching) await this.#watchBetween();
  }

  async #reportStrays(stray: readonly SeenWrite[], pickUnderWay = false): Promise<void> {
    if (stray.length === 0) return;
    // The page wrote while a menu was open: the presses that opened it are kept as they were, before this report —
    // unless the pick that makes them one step is being done (the write came just before its press; see #act).
    if (!pickUnderWay) await this.#flushHeld();
    const unasked = stray.some((w) => w.fate === 'unasked');
    await this.write({
      kind: 'refusal',
      tool: PAGE_TOOL,
      code: unasked ? 'UNASKED_WRITE' : 'STRAY_WRITE',
      message: this.#o.masker.mask(
        `between actions the page sent ${stray.map(describeWrite).join(', ')}: ${unasked ? 'it left before anyone could be asked' : 'it was stopped'}`,
      ),
    });
  }

  /**
   * Watches the action's writes: the first one is held while the owner is asked (unless the step is already a
   * commit the owner confirmed); the answer stands for the action's other writes. Returns what to read after.
   */
  async #watch(row: MenuRow, screen: string | null, effect: Classified): Promise<{ asked: Asked[]; failure: () => unknown }> {
    const asked: Asked[] = [];
    let failure: unknown = null;
    let decided: boolean | null = effect.kind === 'commit' && effect.by === 'owner' ? true : null;
    const gate = async (w: Request): Promise<boolean> => {
      if (decided !== null) return decided;
      const write = this.#o.masker.mask(describeWrite(w));
      try {
        const a = await this.#ask(row, screen, [write]);
        if (!a) {
          asked.push({ write, answer: 'no_answer' });
          decided = false;
        } else if (a.answer === 'cancel') {
          asked.push({ write, answer: 'no', owner: a.name });
          decided = false;
        } else {
          asked.push({ write, answer: a.answer, owner: a.name });
          Object.assign(effect, { kind: a.answer, by: 'owner', owner: a.name });
          decided = true;
        }
      } catch (e) {
        failure = e;
        decided = false;
      }
      return decided;
    };
    await this.#o.surface.watchWrites?.(this.#o.writes as WriteScope, gate);
    return { asked, failure: () => failure };
  }

  async #act(call: ToolCall): Promise<ToolOutcome> {
    const parsed = ActInput.safeParse(call.input);
    if (!parsed.success) return refuse(call.id, 'BAD_CALL', 'act takes {row: integer, verb: string, value?: string}');
    const { row: n, verb, value } = parsed.data;
    const shown = this.#shown as Shown;
    const row = shown.menu.find((r) => r.n === n);
    if (!row) return refuse(call.id, 'NO_SUCH_ROW', `there is no row ${n}; the menu has rows 1 to ${shown.menu.length}`);
    if (verb !== row.verb) return refuse(call.id, 'WRONG_VERB', `row ${n} takes "${row.verb}", not "${verb.slice(0, 20)}"`);
    const needsValue = takesValue(row.verb);
    if (needsValue && value === undefined) return refuse(call.id, 'VALUE_REQUIRED', `${verb} needs a value (a blank such as {{input.name}} or a literal)`);
    if (!needsValue && value !== undefined) return refuse(call.id, 'VALUE_NOT_ALLOWED', `${verb} takes no value`);
    const outside = value === undefined ? null : outsideValues(row.verb, value);
    if (outside) return refuse(call.id, 'VALUE_NOT_IN_SET', outside);
    if (value !== undefined) {
      const bad = this.#checkValue(call.id, value);
      if (bad) return bad;
    }
    const secretTyped = typesSecret(value, this.#o.inputs);
    if (secretTyped && !row.control.secret) {
      return refuse(call.id, 'SECRET_FIELD', `row ${n} is not a password field: a secret typed there would show on the screen and in screenshots`);
    }
    // The screen is unchanged since it was shown (else #changed would be set): the current menu is the shown one.
    const current = this.#current as Shown;
    const live = current.menu.find((r) => r.n === n);
    if (!live || renderRow(live) !== renderRow(row)) {
      return refuse(call.id, 'SCREEN_CHANGED', 'the menu changed since you saw it; you will be shown the new screen');
    }
    const before = current.obs;
    // A press on an item of the menu the held presses opened goes on from the screen before the menu button, which
    // is labelled (docs/design/authoring.md, "A menu opened and picked in").
    const pick = verb === 'invoke' ? await this.#pickIn(live.control) : null;
    const held = pick ? (this.#held as Held) : null;
    // An act on a screen nobody named could not compile (the card's step needs the screen it starts on).
    if (!pick && this.#labelOf(before) === null) {
      return refuse(call.id, 'UNLABELLED_SCREEN', 'this screen has no label yet; name it with assert_screen before acting on it');
    }
    // Anything but a pick in the open menu: the presses that opened it are written as they were, before this one.
    if (!pick) await this.#flushHeld();
    const leaf = pick && !pick.opens ? pick : null;
    // A press that may open something to pick in: a button offered `choose` (a menu button, a list button), a submenu
    // item, or a key on a combobox (its list: MUI's Select opens on ArrowDown).
    const mayOpen =
      row.verb === 'invoke'
        ? pick
          ? pick.opens
          : row.control.offers?.includes('choose') === true
        : row.verb === 'press' && row.control.verbs.includes('choose') && value !== undefined && LIST_OPENING_KEYS.has(value);
    const opening = this.#watching && this.#o.surface.menuPick !== undefined && mayOpen;
    const control = live.control;
    // A clerk's choice or typing has already happened in the page when the guard hears of it (only a press is held
    // for the guard).
    const clerkDidIt = this.#o.actor === 'human' && this.#o.surface.writesUnheld === true && (row.verb === 'select' || row.verb === 'set_value');
    const { probed, replaced } = leaf ? { probed: null, replaced: false } : await this.#probe(control, clerkDidIt);
    const over: FingerprintField[] = control.name ? ['role', 'name', 'supports', 'ancestor_roles'] : ['role', 'supports', 'ancestor_roles'];
    const fp = { over, value: fingerprint(control, over, before.observer) };
    const screenLabel = held ? (held.lines[0]?.before.label ?? null) : this.#labelOf(before);
    // Opening a menu writes nothing (as a right-click that opens one): whether the press wrote is what is watched,
    // so the owner is asked about a write it sends, not about a menu. A pick is asked about as its item.
    // Where writes cannot be held (the extension) a write the press sent would leave unasked: the owner is asked first.
    const watched = opening && !this.#o.surface.writesUnheld;
    const effect: Classified | null | 'cancelled' = watched ? { kind: 'navigate', by: 'effects' } : await this.#classify(live, screenLabel);
    if (effect === 'cancelled') return refuse(call.id, 'CANCELLED', `the owner cancelled pressing ${control.role} '${labelOf(control)}': nothing was pressed or written`);
    if (!effect) return refuse(call.id, 'WRITE_REFUSED', `the owner did not answer within ${Math.round((this.#o.ownerTimeoutMs ?? DEFAULT_OWNER_TIMEOUT_MS) / 1000)} s whether ${renderRow(live)} is a commit; it was not done`);
    // The page may have written while the owner was asked about the item (where writes cannot be held, before the
    // press): the menu was open, so the presses that opened it are written as they were, and this press, on the
    // menu's unnamed screen, is no pick (as in #pickIn).
    if (held) {
      await this.#straysWatchingOn();
      if (this.#held !== held) {
        return refuse(call.id, 'UNLABELLED_SCREEN', 'the page sent a write while the menu was open, so the presses that opened it were written on their own; name this screen with assert_screen before acting on it');
      }
    }
    // The pick's step is a choose, stickered as one (stage) unless the owner has said what the item is.
    if (leaf && effect.by !== 'owner') Object.assign(effect, { kind: VERBS.choose.sticker, by: 'rule' });
    const values = Object.fromEntries(this.#o.inputs.map((i) => [i.name, i.value]));
    const line: DispatchedLine =
      leaf && held
        ? this.#pickLine(held, leaf, live.control, effect)
        : {
            kind: 'act',
            actor: this.#o.actor ?? 'model',
            row: n,
            verb: verb as DispatchedLine['verb'],
            ...(value !== undefined ? { value } : {}),
            control,
            rungs: probed?.rungs ?? [],
            scope: probed?.scope,
            fingerprint: fp,
            effect,
            before: this.#seen(before),
          };
    const mask = (t: string): string => this.#o.masker.mask(t);
    // Only a host that keeps the held presses with its place (one that passes `holding`) can hold a press again.
    const opens: Dispatch['opening'] = opening && this.#o.holding
      ? {
          popups: popupsOf(before, mask),
          row: mask(renderRow(live)),
          chooseRow: this.#chooseRowOf(live),
          ...(pick ? { submenu: { name: mask(pick.name), value: mask(pick.value) } } : {}),
        }
      : undefined;
    await this.#o.dispatching?.({ call: call.id, line: this.#o.masker.maskDeep(line), ...(opens ? { opening: opens } : {}) });
    // Where writes are not held, what was sent since the last action is the clerk's action's.
    const early = clerkDidIt ? await this.#takeBetween() : [];
    // A write the page sent in the moment since the look above, during a pick, is written before the pick's one step
    // and does not write its presses again: they are in that step.
    await this.#strays(held !== null);
    const watch = this.#watching ? await this.#watch(live, screenLabel, effect) : null;
    // The document the clerk acted in is gone (see #probe): what they did happened there, and nothing is done again
    // on the one that replaced it — the control's ref there may be another control.
    if (!replaced) {
      try {
        await this.#o.surface.act(
          control.ref,
          value === undefined ? { verb } : { verb, value: fillBlanks(value, { input: values, env: {} }), ...(secretTyped ? { secret: true } : {}) },
        );
      } catch (e) {
        // The clerk's change sent the page away before the guard could confirm it (a select that submits): it
        // happened all the same, and its line is written as for any other action.
        const gone = clerkDidIt && e instanceof SurfaceError && e.code === 'STALE';
        if (!gone) {
          if (watch) {
            await this.#o.surface.takeWrites?.();
            await this.#watchBetween();
          }
          if (!(e instanceof SurfaceError)) throw e;
          // A press in an open menu that failed: the presses that opened it happened, and are written as they were.
          await this.#flushHeld();
          // The clerk's own change sent them, but its line is not written: they stay in the book as the page's.
          await this.#reportStrays(early);
          const after = await look(this.#o.surface);
          this.#current = { obs: after, menu: buildMenu(after) };
          this.#changed = after.signature !== before.signature;
          return refuse(call.id, 'ACTION_FAILED', this.#o.masker.mask(`${verb} on row ${n} failed: ${e.message}`));
        }
      }
    }
    let after =
      VERBS[row.verb].moves || watch ? await settleAfter(this.#o.surface, before.signature, this.#o.settle) : await look(this.#o.surface);
    let writes: SeenWrite[] = [];
    if (watch) {
      // Waits for the owner's answers to held writes; a write let go after the screen settled moves it again.
      writes = [...early, ...((await this.#o.surface.takeWrites?.()) ?? [])];
      await this.#watchBetween();
      if (writes.length) after = await settleAfter(this.#o.surface, before.signature, this.#o.settle);
      const failed = watch.failure();
      if (failed) throw failed;
      const confirmed = effect.kind === 'commit' && effect.by === 'owner';
      // Where writes are not held the owner was asked before the press: what they answered (a commit, or "it only
      // moves on", as for a sign-on's POST) covers the writes the press sent, so they went out allowed.
      if (effect.by === 'owner' && this.#o.surface.writesUnheld) writes = writes.map((w) => (w.fate === 'unasked' ? { ...w, fate: 'allowed' } : w));
      // A write that left before anyone could be asked, from a step not confirmed a commit: an unasked commit.
      if (writes.some((w) => w.fate === 'unasked') && !confirmed) {
        Object.assign(effect, { kind: 'commit', by: 'effects', unasked: true });
        delete effect.owner;
      }
    }
    this.#current = { obs: after, menu: buildMenu(after) };
    const written: ActDraft = {
      ...line,
      effect,
      ...(watch ? { writes: writes.map((w) => ({ method: w.method, url: w.url, via: w.via, fate: w.fate })) } : {}),
      ...(watch?.asked.length ? { asked: watch.asked } : {}),
      after: this.#seen(after),
    };
    const changed = after.signature !== before.signature;
    // A press that opened a menu or a list and wrote nothing is held: the model's next call may pick in it. A submenu
    // item the owner did not call a commit counts as opened when an item one level below it shows (opened on hover).
    const quiet = writes.length === 0 && !effect.unasked && !(effect.kind === 'commit' && effect.by === 'owner');
    const popup = opening && quiet ? popupOpened(popupsOf(before, asIs), popupsOf(after, asIs)) : null;
    const opened = pick ? (popup === 'menu' || (opening && quiet && (await this.#submenuShows(after, pick))) ? 'menu' : null) : popup;
    if (opened) {
      this.#changed = changed;
      return this.#hold(call.id, live, pick, written, opened);
    }
    // A submenu item that showed no submenu and wrote nothing, on the menu's unlabelled screen: kept with the presses
    // that opened the menu (a pick may still join them; anything else writes them as they were), never written alone.
    // A host that may be stopped keeps the press with the held ones before the refusal line is written: resumed from
    // the place kept before the press, only that refusal would lie beyond it, and the press would be in no line.
    if (pick?.opens && held && quiet) {
      this.#held = { ...held, lines: [...held.lines, written] };
      this.#changed = changed;
      const refused = refuse(call.id, 'UNLABELLED_SCREEN', this.#o.masker.mask(showedNoSubmenu(renderRow(live))));
      await this.#o.holding?.({ call: call.id, line: this.#o.masker.maskDeep(line), refused: refused.text });
      return refused;
    }
    // The pick: the presses that opened the menu are this one step, written instead of them.
    if (leaf) this.#held = null;
    await this.write(written);
    this.#changed = changed;
    const blocked = writes.filter((w) => w.fate === 'blocked');
    if (blocked.length) {
      this.#wroteRefusal = true;
      const why = watch?.asked.some((a) => a.answer === 'no_answer') ? 'the owner did not answer in time' : 'the owner said no';
      return refuse(call.id, 'WRITE_REFUSED', this.#o.masker.mask(`${renderRow(live)} sends ${describeWrite(blocked[0] as SeenWrite)}, and ${why}: the write was stopped`));
    }
    if (effect.unasked) {
      return { id: call.id, ok: true, text: this.#o.masker.mask(`done: ${renderRow(live)}, but it sent ${describeWrite(writes[0] as SeenWrite)} before the owner could be asked; the compiler will refuse this step`) };
    }
    const rungs = leaf ? line.rungs : (probed?.rungs ?? []);
    const found = rungs.length ? '' : ' (warning: no rung finds this control again; the compiler will refuse this step)';
    const did = leaf
      ? `${renderRow(live)}, written as one step with the presses that opened its ${live.control.role === 'option' ? 'list' : 'menu'}: choose ${line.control.role} '${labelOf(line.control)}' "${line.value ?? ''}"`
      : renderRow(live);
    // The model is shown screens masked; so are its answers (a control named with a secret's value).
    if (!changed) return { id: call.id, ok: true, text: this.#o.masker.mask(`done: ${did}${found}`) };
    const label = this.#labelOf(after);
    return {
      id: call.id,
      ok: true,
      text: this.#o.masker.mask(`done: ${did}${found}; the screen changed to ${label ?? 'an unlabelled screen (name it with assert_screen)'}`),
    };
  }

  /**
   * The item at `item` is in the menu the held presses opened, one level below the last of them (or is an option of
   * the list they opened): where it is reached from (the button is the one they pressed, as the screen shows it now);
   * else null. Asked of the surface (shared/dom/options.ts menuPathOf: when rows share one menu, the button that says
   * it is expanded; listPathOf for an option).
   */
  async #pickIn(item: Control): Promise<MenuPick | null> {
    const held = this.#held;
    if (!held || !this.#o.surface.menuPick || !(item.role.startsWith('menuitem') || item.role === 'option')) return null;
    // A checked menuitemcheckbox pressed is unchecked, and `choose` means "see it checked" (shared/dom/options.ts):
    // no pick; the presses are written as they were.
    if (item.role === 'menuitemcheckbox' && item.value === 'checked') return null;
    // A write the page sent while the menu was open is reported first, and the presses are kept as they were. The
    // watch between actions goes on again at once (an item on the unlabelled menu that is no pick is refused).
    await this.#straysWatchingOn();
    if (this.#held !== held) return null;
    const pick = await this.#o.surface.menuPick(item.ref).catch(() => null);
    if (!pick) return null;
    const button = (this.#current as Shown).obs.parts.flatMap((p) => p.controls).find((c) => c.ref === pick.button);
    // A modal menu hides the rest of the page, its button too (Radix, MUI: aria-hidden): it is then known by its name,
    // the page saying it opened this menu (for a menu rows share, the one that says it is expanded). Held presses a
    // host kept are masked (a button named with a secret's value): the live button is compared masked too.
    const mask = this.#o.masker;
    const same = button ? sameControl(mask.maskDeep(button), mask.maskDeep(held.button)) : held.button.name !== '' && mask.mask(pick.name) === mask.mask(held.button.name);
    if (!same) return null;
    const levels = pickLevels(item, pick);
    return levels.length === held.levels.length + 1 && held.levels.every((l, i) => levels[i] === l) ? pick : null;
  }

  /**
   * Whether the latest look shows an item one level below the submenu item `pick` (its submenu is open). Compared
   * masked: a pick a host kept is (a button named with a secret's value).
   */
  async #submenuShows(after: Observation, pick: Pick<MenuPick, 'name' | 'value'>): Promise<boolean> {
    const mask = (t: string): string => this.#o.masker.mask(t);
    const want = menuLevels(mask(pick.value));
    for (const c of after.parts.flatMap((p) => p.controls)) {
      if (!c.role.startsWith('menuitem')) continue;
      const below = await this.#o.surface.menuPick?.(c.ref).catch(() => null);
      const levels = below ? menuLevels(mask(below.value)) : [];
      if (below && mask(below.name) === mask(pick.name) && levels.length === want.length + 1 && want.every((l, i) => levels[i] === l)) return true;
    }
    return false;
  }

  /**
   * A press that may open a menu or a list, cut off by a stop after the screen moved (see Recovery): held again as
   * #act would have held it, or kept with the held presses and refused (a submenu item that showed none); null to
   * write it as it was. What the lost process saw the press send is gone: none is assumed, as the line written
   * otherwise would carry none either; a press the owner called a commit is never held.
   */
  async #holdAgain(d: Dispatch, o: NonNullable<Dispatch['opening']>, now: Observation): Promise<Recovery | null> {
    if (d.line.effect.kind === 'commit' && d.line.effect.by === 'owner') return null;
    const popup = popupOpened(o.popups, popupsOf(now, (t) => this.#o.masker.mask(t)));
    const written: ActDraft = { ...d.line, writes: [], after: this.#seen(now) };
    const held = this.#held;
    if (!o.submenu) {
      if (!popup) return null;
      this.#held = { lines: [written], button: d.line.control, chooseRow: o.chooseRow, levels: [] };
      return 'held';
    }
    if (!held) return null;
    if (popup === 'menu' || (await this.#submenuShows(now, o.submenu))) {
      this.#held = { ...held, lines: [...held.lines, written], levels: menuLevels(o.submenu.value) };
      return 'held';
    }
    this.#held = { ...held, lines: [...held.lines, written] };
    await this.#writeRefusal('act', refuse(d.call, 'UNLABELLED_SCREEN', showedNoSubmenu(o.row)).text);
    return 'refused';
  }

  /** The one `choose` step a pick makes of the presses that opened the menu and the item: on the button, from the screen before it. */
  #pickLine(held: Held, pick: MenuPick, item: Control, effect: Classified): DispatchedLine {
    const first = held.lines[0] as ActDraft;
    // An item named as an input's value is that input (a blank), as a clerk's pick is (extension/lib/record.ts).
    const levels = pickLevels(item, pick).map((l) => {
      const input = this.#o.inputs.find((i) => !i.secret && i.value !== '' && i.value === l);
      return input ? blankFor(input.name) : l;
    });
    return {
      kind: 'act',
      actor: first.actor,
      row: held.chooseRow,
      verb: 'choose',
      value: menuPathValue(levels),
      control: first.control,
      rungs: first.rungs,
      ...(first.scope ? { scope: first.scope } : {}),
      fingerprint: first.fingerprint,
      effect,
      before: first.before,
      presses: [...held.lines, { control: item }].map((l) => ({ role: l.control.role, name: l.control.name })),
    };
  }

  /** The row offering `choose` on the control of `row` (a menu button's pick is written on it), else `row`'s own. */
  #chooseRowOf(row: MenuRow): number {
    return (this.#shown as Shown).menu.find((r) => r.verb === 'choose' && r.control.ref === row.control.ref)?.n ?? row.n;
  }

  /** Holds a press that opened a menu or a list (see Held) and tells the model how to pick in it. */
  #hold(id: string, row: MenuRow, pick: MenuPick | null, line: ActDraft, opened: 'menu' | 'list'): ToolOutcome {
    const held = this.#held;
    if (pick && held) {
      this.#held = { ...held, lines: [...held.lines, line], levels: menuLevels(pick.value) };
    } else {
      this.#held = { lines: [line], button: row.control, chooseRow: this.#chooseRowOf(row), levels: [] };
    }
    const button = (this.#held as Held).button;
    const item = opened === 'list' ? 'option' : 'item';
    return {
      id,
      ok: true,
      text: this.#o.masker.mask(
        `done: ${renderRow(row)} opened ${pick ? 'its submenu' : `its ${opened}`}. Press the ${item} you want in it next (invoke): that press and this ` +
          `are written as one step, choose ${button.role} '${labelOf(button)}' with the ${item}'s name, as replay does it; this screen needs no label. ` +
          'Anything else writes this press on its own.',
      ),
    };
  }

  async #assert(call: ToolCall): Promise<ToolOutcome> {
    const parsed = AssertScreenInput.safeParse(call.input);
    if (!parsed.success) return refuse(call.id, 'BAD_CALL', 'assert_screen takes {label: string, title?: string}');
    const { label, title } = parsed.data;
    if (!LABEL_RE.test(label)) return refuse(call.id, 'LABEL_INVALID', 'a label is lower_snake_case, such as "hold_result"');
    const obs = (this.#current as Shown).obs;
    const pinned = this.#labels.get(label);
    const here = this.#labelOf(obs);
    if (pinned && here === label) return { id: call.id, ok: true, text: `this screen is already labelled ${label}` };
    if (pinned) return refuse(call.id, 'LABEL_TAKEN', `"${label}" already names another screen; choose another label`);
    if (here) return refuse(call.id, 'ALREADY_LABELLED', `this screen is already labelled ${here}`);
    const screen = this.#seen(obs);
    const t = title?.trim() || titleOf(label);
    this.#labels.set(label, { ...labelledScreen(label, obs, this.#o.inputs), title: t });
    // Presses held while a menu was open (docs/design/authoring.md, "A menu opened and picked in") are written as they
    // were, in the order a model naming each screen as it came would have written them: the press that led to this
    // screen, then the label line, then the presses made on it (a submenu item that showed nothing), which carry the
    // screen's new name — so the compiler, reading in order, leaves no step on an unnamed screen.
    const held = this.#held?.lines ?? [];
    this.#held = null;
    const named = (seen: ScreenSeen): ScreenSeen => (seen.signature === obs.signature ? { ...seen, label } : seen);
    const labelLine: DraftLine = { kind: 'label', label, title: t, screen: { ...screen, label } };
    let labelled = false;
    for (const l of held) {
      if (!labelled && l.before.signature === obs.signature) {
        await this.#append(labelLine);
        labelled = true;
      }
      // A press written before the label line landed on a screen not named yet, as in any evening; one after it was
      // made on the named screen.
      await this.#append(labelled ? { ...l, before: named(l.before), ...('after' in l && l.after ? { after: named(l.after) } : {}) } : l);
    }
    if (!labelled) await this.#append(labelLine);
    return { id: call.id, ok: true, text: `labelled this screen ${label}` };
  }

  /**
   * Declares a rows output from a table, grid or list the screen offers (docs/design/authoring.md, "Authoring rows"):
   * the columns are checked against the headers the surface reads now, the rows are read once as replay will, and
   * the act line (verb `read_rows`, sticker `read`) carries the output, its columns, the headers and the row count.
   */
  async #readRows(call: ToolCall): Promise<ToolOutcome> {
    const parsed = ReadRowsInput.safeParse(call.input);
    if (!parsed.success) return refuse(call.id, 'BAD_CALL', 'read_rows takes {table: "T1", output: name, columns?: {name: header}, text?: name}');
    const { table, output, columns = {}, text } = parsed.data;
    const shown = this.#shown as Shown;
    const source = shown.rows?.find((r) => r.id === table);
    if (!source) {
      const have = (shown.rows ?? []).map((r) => r.id).join(', ');
      return refuse(call.id, 'NO_SUCH_TABLE', `there is no table "${table.slice(0, 20)}" on this screen; ${have ? `the screen has ${have}` : 'it shows no table or list to read'}`);
    }
    const names = [...Object.keys(columns), ...(text !== undefined ? [text] : [])];
    const badName = [output, ...names].find((n) => !LABEL_RE.test(n));
    if (badName !== undefined) return refuse(call.id, 'OUTPUT_INVALID', `"${badName.slice(0, 40)}" is not a name: outputs and columns are lower_snake_case, such as "share_id"`);
    if (this.#outputs.has(output)) return refuse(call.id, 'OUTPUT_TAKEN', `an output called "${output}" was already declared; choose another name`);
    if (names.length === 0) return refuse(call.id, 'COLUMNS_REQUIRED', 'name at least one column: columns {name: header} or text: name');
    if (new Set(names).size !== names.length) return refuse(call.id, 'OUTPUT_INVALID', 'each column has its own name');
    const headers = Object.values(columns);
    if (headers.length && source.headers.length === 0) {
      return refuse(call.id, 'NO_HEADERS', `${table} has no column headers; use text: "<name>" for each row's whole text`);
    }
    const unknown = headers.find((h) => !source.headers.includes(h));
    if (unknown !== undefined) {
      return refuse(call.id, 'UNKNOWN_HEADER', `${table} has no column "${unknown.slice(0, 60)}"; its headers are ${source.headers.map((h) => `"${h}"`).join(', ')}`);
    }
    const before = (this.#current as Shown).obs;
    if (this.#labelOf(before) === null) {
      return refuse(call.id, 'UNLABELLED_SCREEN', 'this screen has no label yet; name it with assert_screen before reading from it');
    }
    let read;
    let control = source.control;
    try {
      const ref = await locate(this.#o.surface, control);
      if (ref === null) return refuse(call.id, 'SCREEN_CHANGED', `${table} is no longer on the screen as you saw it; you will be shown the new screen`);
      control = { ...control, ref };
      read = await this.#o.surface.act(ref, { verb: 'read_rows' });
    } catch (e) {
      if (!(e instanceof SurfaceError)) throw e;
      return refuse(call.id, 'ACTION_FAILED', this.#o.masker.mask(`read_rows on ${table} failed: ${e.message}`));
    }
    const css = (await this.#o.selectorsFor?.(control.ref).catch(() => [])) ?? [];
    const probed = await probeRungs(this.#o.surface, control, css);
    const over: FingerprintField[] = ['role', 'name'];
    const count = read.rows?.length ?? 0;
    await this.write({
      kind: 'act',
      actor: this.#o.actor ?? 'model',
      // A table is on no menu: `row` carries its number on the screen's Rows list (T1 → 1).
      row: Number(table.slice(1)) || 1,
      verb: 'read_rows',
      control,
      rungs: probed.rungs,
      scope: probed.scope,
      fingerprint: { over, value: fingerprint(control, over, before.observer) },
      effect: { kind: VERBS.read_rows.sticker as EffectKind, by: 'rule' },
      rows: {
        output,
        columns: Object.fromEntries([
          ...Object.entries(columns).map(([name, header]) => [name, { header }]),
          ...(text !== undefined ? [[text, { text: true as const }]] : []),
        ]),
        headers: read.headers ?? source.headers,
        count,
      },
      before: this.#seen(before),
      after: this.#seen(before),
    });
    this.#outputs.add(output);
    const found = probed.rungs.length ? '' : ' (warning: no rung finds this table again; the compiler will refuse this step)';
    return { id: call.id, ok: true, text: `done: output ${output} reads ${count} rows of ${table} (columns ${names.join(', ')})${found}` };
  }

  async #finish(call: ToolCall): Promise<ToolOutcome> {
    const parsed = FinishInput.safeParse(call.input);
    if (!parsed.success) return refuse(call.id, 'BAD_CALL', 'finish takes {label: string}');
    const { label } = parsed.data;
    if (!this.#labels.has(label)) {
      return refuse(call.id, 'NOT_LABELLED', `no screen is labelled "${label.slice(0, 40)}"; label the screen with assert_screen first`);
    }
    const obs = (this.#current as Shown).obs;
    const here = this.#labelOf(obs);
    if (here !== label) return refuse(call.id, 'NOT_SHOWING', `${label} is not the screen showing now (${here ?? 'an unlabelled screen'} is)`);
    await this.#strays();
    await this.write({ kind: 'finish', label, screen: this.#seen(obs) });
    this.#finished = label;
    return { id: call.id, ok: true, text: `finished on ${label}` };
  }
}
