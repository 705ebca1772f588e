// The guard between the model and the surface (docs/ARCHITECTURE.md "Authoring"). For each call it checks what the model
// asked against the menu it was shown, probes the rungs, fingerprints the control, classifies the risk (asking
// the owner about buttons), acts, observes, and writes the book line — secrets masked — before it answers.
// A refusal goes back to the model as a tool error that names what was wrong and never echoes a secret.
import { fingerprint } from '../fingerprint.ts';
import { buildMenu, labelOf, renderRow, type MenuRow } from '../menu.ts';
import { takesValue, VERBS } from '../operations.ts';
import { blankFor, blanksIn, fillBlanks } from '../schema/blanks.ts';
import type { EffectKind, FingerprintField } from '../schema/capability.ts';
import type { Observation } from '../schema/observation.ts';
import { z } from 'zod';
import { TraceAct, TraceLine, type ScreenSeen } from '../schema/trace.ts';
import { labelledAs, type KnownScreen } from '../screens.ts';
import type { Masker } from '../secrets.ts';
import { SurfaceError, type Surface } from '../surface.ts';
import { riskOf } from '../surfaces.ts';
import { Lock } from '../lock.ts';
import { ActInput, AssertScreenInput, FinishInput, type Book, type EveningInput, type Owner, type OwnerAnswer, type ToolCall, type ToolOutcome } from './ports.ts';
import { probeRungs } from './probe.ts';
import { look, settleAfter, type SettleOptions } from './settle.ts';
import { HandrailError } from '../errors.ts';

export type RefusalCode =
  | 'BAD_CALL'
  | 'UNKNOWN_TOOL'
  | 'NO_SUCH_ROW'
  | 'WRONG_VERB'
  | 'VALUE_REQUIRED'
  | 'VALUE_NOT_ALLOWED'
  | 'SECRET_LITERAL'
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
  | 'FINISHED';

/** Lines as the guard builds them; `seq` and `at` are added when written. */
type Unnumbered<T> = T extends unknown ? Omit<T, 'seq' | 'at'> : never;
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
  /**
   * Called, and awaited, just before an action is done on the surface, with its book line but for the screen
   * after: a host that may be stopped between the action and its line keeps it, to `recover` it on resume.
   */
  dispatching?: (d: Dispatch) => Promise<void>;
}

/** An act line before the action: everything but the screen it led to. */
export const DispatchedLine = TraceAct.omit({ seq: true, at: true, after: true });
export type DispatchedLine = z.infer<typeof DispatchedLine>;

/** An action the guard was about to do (or did) when the host last heard from it; `call` is the model's call id. */
export const Dispatch = z.strictObject({ call: z.string(), line: DispatchedLine });
export type Dispatch = z.infer<typeof Dispatch>;

/**
 * What became of an action dispatched before a stop that left no book line: `written` (the screen had moved
 * on, so it happened; its line is now in the book), `redo` (doing it again is harmless: typing the same value,
 * or a navigation that visibly did not happen), or `uncertain` (a press that may or may not have happened and
 * must not be made twice: a commit, or a toggle, on a screen that did not change).
 */
export type Recovery = 'written' | 'redo' | 'uncertain';

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
}

const LABEL_RE = /^[a-z][a-z0-9_]*$/;

function titleOf(label: string): string {
  return label
    .split('_')
    .filter(Boolean)
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join(' ');
}

function refuse(id: string, code: RefusalCode, message: string): ToolOutcome {
  return { id, ok: false, text: `refused (${code}): ${message}` };
}

export class Guard {
  readonly #o: GuardOptions;
  readonly #lock = new Lock();
  readonly #labels = new Map<string, KnownScreen & { title: string }>();
  #seq = 0;
  #shown: Shown | null = null;
  /** The latest look at the screen (after the last action); equal in signature to `shown` until something changes it. */
  #current: Shown | null = null;
  #changed = false;
  #finished: string | null = null;

  constructor(opts: GuardOptions) {
    this.#o = opts;
    for (const [i, l] of (opts.resume ?? []).entries()) {
      if (l.seq !== i + 1) throw new BookResumeError(`the book cannot be resumed: line ${i + 1} is numbered ${l.seq}`);
      if (l.kind === 'label') this.#labels.set(l.label, { label: l.label, title: l.title, signature: l.screen.signature, paths: l.screen.paths });
      if (l.kind === 'finish') this.#finished = l.label;
      this.#seq = l.seq;
    }
  }

  get finished(): string | null {
    return this.#finished;
  }

  get lines(): number {
    return this.#seq;
  }

  /** Whether a call since the last `show` changed the screen (the rest of that message is then refused). */
  get screenChanged(): boolean {
    return this.#changed;
  }

  /** Write one book line: numbered, stamped, masked, checked against the trace schema, awaited. */
  async write(line: DraftLine): Promise<void> {
    const numbered = { seq: this.#seq + 1, at: (this.#o.now?.() ?? new Date()).toISOString(), ...line };
    const parsed = TraceLine.parse(this.#o.masker.maskDeep(numbered));
    await this.#o.book.append(parsed);
    this.#seq++;
  }

  #known(): KnownScreen[] {
    return [...this.#labels.values()];
  }

  #labelOf(obs: Observation): string | null {
    return labelledAs(obs, this.#known());
  }

  #seen(obs: Observation): ScreenSeen {
    return { locus: obs.locus, signature: obs.signature, paths: obs.paths, label: this.#labelOf(obs) };
  }

  /** Look at the screen and fix the menu the model's next message refers to. Returns the label, if any. */
  async show(): Promise<{ obs: Observation; menu: MenuRow[]; label: string | null }> {
    return this.#lock.run(async () => {
      const obs = await look(this.#o.surface);
      const shown = { obs, menu: buildMenu(obs) };
      this.#shown = shown;
      this.#current = shown;
      this.#changed = false;
      return { ...shown, label: this.#labelOf(obs) };
    });
  }

  /**
   * After a resume, settles an action dispatched before the stop whose line is not in the book (see Recovery).
   * Call it after `show` and before any other call: it looks at the screen showing now.
   */
  recover(d: Dispatch): Promise<Recovery> {
    return this.#lock.run(async () => {
      const redo = VERBS[d.line.verb].redo;
      if (redo === 'always') return 'redo';
      const now = await look(this.#o.surface);
      if (now.signature === d.line.before.signature) return redo === 'if_navigate' && d.line.effect.kind === 'navigate' ? 'redo' : 'uncertain';
      await this.write({ ...d.line, after: this.#seen(now) });
      this.#current = { obs: now, menu: buildMenu(now) };
      this.#changed = true;
      return 'written';
    });
  }

  /** One tool call, after every call before it has finished (book line written). */
  handle(call: ToolCall): Promise<ToolOutcome> {
    return this.#lock.run(() => this.#handle(call));
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
      default:
        return refuse(call.id, 'UNKNOWN_TOOL', `there is no tool "${String(call.name).slice(0, 40)}"; use act, assert_screen or finish`);
    }
  }

  /** Is the value a blank naming declared inputs, or a literal that is neither a secret nor an input's value? */
  #checkValue(id: string, value: string): ToolOutcome | null {
    const names = new Set(this.#o.inputs.map((i) => i.name));
    for (const b of blanksIn(value)) {
      if (b.source !== 'input' || !names.has(b.name)) {
        return refuse(id, 'UNKNOWN_BLANK', `{{${b.source}.${b.name}}} names no input of this task (inputs: ${[...names].join(', ') || 'none'})`);
      }
    }
    // Any spelling of a secret (base64, hex, URL-encoded, reversed, split by zero-width characters): the masker's.
    const held = this.#o.masker.nameIn(value);
    if (held !== null) {
      const secret = this.#o.inputs.find((s) => s.secret && s.name === held);
      const blank = secret ? blankFor(secret.name) : 'its blank';
      return refuse(id, 'SECRET_LITERAL', `that value holds a secret${secret ? ` (the input "${secret.name}")` : ''}; type it as ${blank}`);
    }
    const bare = value.trim();
    for (const i of this.#o.inputs) {
      if (!i.secret && i.value !== '' && bare === i.value) {
        return refuse(id, 'INPUT_LITERAL', `that value is the input "${i.name}"; type it as ${blankFor(i.name)} so the card works for other values`);
      }
    }
    return null;
  }

  async #classify(row: MenuRow, screen: string | null): Promise<{ kind: EffectKind; by: 'rule' | 'owner'; owner?: string }> {
    const sticker = VERBS[row.verb].sticker;
    if (sticker !== 'by_risk') return { kind: sticker, by: 'rule' };
    // The surface's risk rules by role (a browser link navigates); anything else pressed is a commit until the
    // owner says otherwise.
    const ruled = riskOf(this.#o.surface.kind ?? 'browser', row.control.role);
    if (ruled) return { kind: ruled, by: 'rule' };
    const a: OwnerAnswer = await this.#o.owner.ask({
      control: `${row.control.role} '${labelOf(row.control)}'${row.where ? ` in ${row.where}` : ''}`,
      screen,
      goal: this.#o.goal,
    });
    return { kind: a.answer, by: 'owner', owner: a.name };
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
    if (value !== undefined) {
      const bad = this.#checkValue(call.id, value);
      if (bad) return bad;
    }
    // The screen is unchanged since it was shown (else #changed would be set): the current menu is the shown one.
    const current = this.#current as Shown;
    const live = current.menu.find((r) => r.n === n);
    if (!live || renderRow(live) !== renderRow(row)) {
      return refuse(call.id, 'SCREEN_CHANGED', 'the menu changed since you saw it; you will be shown the new screen');
    }
    const before = current.obs;
    // An act on a screen nobody named could not compile (the card's step needs the screen it starts on).
    if (this.#labelOf(before) === null) {
      return refuse(call.id, 'UNLABELLED_SCREEN', 'this screen has no label yet; name it with assert_screen before acting on it');
    }
    const control = live.control;
    const css = (await this.#o.selectorsFor?.(control.ref).catch(() => [])) ?? [];
    const probed = await probeRungs(this.#o.surface, control, css);
    const over: FingerprintField[] = control.name ? ['role', 'name', 'supports', 'ancestor_roles'] : ['role', 'supports', 'ancestor_roles'];
    const fp = { over, value: fingerprint(control, over, before.observer) };
    const effect = await this.#classify(live, this.#labelOf(before));
    const values = Object.fromEntries(this.#o.inputs.map((i) => [i.name, i.value]));
    const line: DispatchedLine = {
      kind: 'act',
      actor: this.#o.actor ?? 'model',
      row: n,
      verb: verb as DispatchedLine['verb'],
      ...(value !== undefined ? { value } : {}),
      control,
      rungs: probed.rungs,
      scope: probed.scope,
      fingerprint: fp,
      effect,
      before: this.#seen(before),
    };
    await this.#o.dispatching?.({ call: call.id, line: this.#o.masker.maskDeep(line) });
    try {
      await this.#o.surface.act(control.ref, value === undefined ? { verb } : { verb, value: fillBlanks(value, { input: values, env: {} }) });
    } catch (e) {
      if (!(e instanceof SurfaceError)) throw e;
      const after = await look(this.#o.surface);
      this.#current = { obs: after, menu: buildMenu(after) };
      this.#changed = after.signature !== before.signature;
      return refuse(call.id, 'ACTION_FAILED', this.#o.masker.mask(`${verb} on row ${n} failed: ${e.message}`));
    }
    const after =
      verb === 'invoke' ? await settleAfter(this.#o.surface, before.signature, this.#o.settle) : await look(this.#o.surface);
    this.#current = { obs: after, menu: buildMenu(after) };
    await this.write({ ...line, after: this.#seen(after) });
    const changed = after.signature !== before.signature;
    this.#changed = changed;
    const found = probed.rungs.length ? '' : ' (warning: no rung finds this control again; the compiler will refuse this step)';
    if (!changed) return { id: call.id, ok: true, text: `done: ${renderRow(live)}${found}` };
    const label = this.#labelOf(after);
    return {
      id: call.id,
      ok: true,
      text: `done: ${renderRow(live)}${found}; the screen changed to ${label ?? 'an unlabelled screen (name it with assert_screen)'}`,
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
    this.#labels.set(label, { label, title: t, signature: obs.signature, paths: obs.paths });
    await this.write({ kind: 'label', label, title: t, screen: { ...screen, label } });
    return { id: call.id, ok: true, text: `labelled this screen ${label}` };
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
    await this.write({ kind: 'finish', label, screen: this.#seen(obs) });
    this.#finished = label;
    return { id: call.id, ok: true, text: `finished on ${label}` };
  }
}
