// The compiler (docs/design/capability.md, "Compile"): a book of trace lines → a capability draft a reviewer reads. Every hole is
// reported at once, each naming its book line; a draft declares nothing the book never saw and says what a
// reviewer must add. Pure and deterministic: the same book always compiles to the same bytes.
import { fingerprint } from '../fingerprint.ts';
import { proposeMarks } from '../marks.ts';
import { intentText, VERBS } from '../operations.ts';
import { SURFACES, type SurfaceName } from '../surfaces.ts';
import { labelOf } from '../menu.ts';
import { blankFor, blanksIn } from '../schema/blanks.ts';
import { canonicalJson } from '../schema/canonical.ts';
import {
  Capability,
  CAPABILITY_SCHEMA_ID,
  ROWS_ROLES,
  type CapabilityInput,
  type Output,
  type FingerprintField,
  type Postcondition,
  type Precondition,
  type Rung,
  type Step,
  type Target,
  landingSeenBefore,
} from '../schema/capability.ts';
import type { ScopeLink } from '../schema/observation.ts';
import { continuityHoles } from './continuity.ts';
import { recordProof } from './identity.ts';
import { LOST_WHY, lostAction, type TraceAct, type TraceLabel, type TraceLine, type TraceStart } from '../schema/trace.ts';
import { describeWrite, endpointOf, originOf } from '../writes.ts';
import { newSaid, saidTemplate } from '../said.ts';
import { labelledAs, labelledScreen, publicValues, templateScreen, type KnownScreen, type PublicValues } from '../screens.ts';

export type HoleCode =
  | 'NO_START'
  | 'UNLABELLED_SCREEN'
  | 'UNLABELLED_LANDING'
  | 'NO_RUNG'
  | 'LITERAL_INPUT'
  | 'SECRET_IN_VALUE'
  | 'SECRET_IN_TARGET'
  | 'UNKNOWN_BLANK'
  | 'NO_FINISH'
  | 'COMMIT_WITHOUT_OUTCOME'
  | 'NO_VISIBLE_EFFECT'
  | 'UNKNOWN_POSTCONDITION_STEP'
  // A commit whose record the book cannot name, and a reviewer's answer for a step that is no commit (identity.ts).
  | 'NO_RECORD_IDENTITY'
  | 'UNKNOWN_PRECONDITION_STEP'
  | 'UNASKED_COMMIT'
  | 'WRITE_REFUSED'
  | 'INVALID_CARD'
  // A clerk's action the recorder caught and could not book (a `lost` line).
  | 'INPUT_NOT_BOOKED'
  // Rows outputs (docs/design/authoring.md, "Authoring rows").
  | 'ROWS_WITHOUT_OUTPUT'
  | 'ROWS_TARGET'
  | 'OUTPUT_TAKEN'
  | 'UNKNOWN_HEADER'
  | 'NO_COLUMNS'
  // The book is not one unbroken account (continuity.ts).
  | 'BOOK_GAP'
  | 'BOOK_ORDER'
  | 'BOOK_CHAIN'
  | 'UNEXPLAINED_CHANGE';

export interface Hole {
  /** The book line (1-based position in the book) the hole is on. */
  line: number;
  code: HoleCode;
  message: string;
  /** The compiled step the hole is about, where it is one a reviewer can act on by id (a commit wanting a postcondition). */
  step?: string;
}

export interface CompileOptions {
  /** The card id; default: from the goal's first words. */
  id?: string;
  /** Overrides the book's start line; a book that names none was written in the browser, the only surface then. */
  surface?: SurfaceName;
  /** Replace the entry URL's origin by {{env.BASE_URL}} so the card runs against any deployment (default true). */
  baseUrlBlank?: boolean;
  /**
   * Postconditions a reviewer supplies, by compiled step id: what must hold after a commit whose screen cannot
   * show its effect (it lands where it started). Without one such a commit does not compile.
   */
  post?: Readonly<Record<string, readonly Postcondition[]>>;
  /**
   * Preconditions a reviewer supplies, by compiled step id: what the screen shows of the record a commit acts on
   * before the press, in place of the ones the compiler derives (docs/design/replay.md, "The right record").
   */
  pre?: Readonly<Record<string, readonly Precondition[]>>;
  /** Commit steps a reviewer says choose no record (an add, a sign-on): written `no_record: true`. */
  noRecord?: readonly string[];
}

export type CompileResult = { ok: true; card: Capability; notes: string[] } | { ok: false; holes: Hole[] };

/** The bytes a compiled card is written as: canonical key order, two-space indent, one trailing newline. */
export function cardBytes(card: Capability): string {
  return `${JSON.stringify(JSON.parse(canonicalJson(card)), null, 2)}\n`;
}

const SECRET_MARK = /\[secret:[A-Za-z0-9_.-]+\]/;

function slug(text: string, max = 30): string {
  let s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, max)
    .replace(/_+$/, '');
  if (s && !/^[a-z]/.test(s)) s = `n_${s}`;
  return s;
}

const ROLE_WORD: Record<string, string> = {
  textbox: 'field',
  searchbox: 'field',
  spinbutton: 'field',
  combobox: 'list',
  listbox: 'list',
  button: 'button',
  link: 'link',
  checkbox: 'checkbox',
  radio: 'option',
  menuitem: 'item',
  tab: 'tab',
};

/** Picks ids in first-seen order: `base`, then `base_2`, `base_3`… */
class Ids {
  readonly #used = new Set<string>();
  take(base: string): string {
    let id = base;
    for (let n = 2; this.#used.has(id); n++) id = `${base}_${n}`;
    this.#used.add(id);
    return id;
  }
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Blanker {
  /** The blank when `text` is exactly an input's value, else null. */
  whole(text: string): string | null;
  /** Every input value standing as a token inside `text` replaced by its blank (longest values first). */
  within(text: string): string;
}

function blanker(inputs: readonly { name: string; value: string }[]): Blanker {
  // Longest first, so a share id "400118-S0001" becomes its blank before the member number "400118" inside it could.
  const byLength = [...inputs].filter((i) => i.value.length >= 3).sort((a, b) => b.value.length - a.value.length || a.name.localeCompare(b.name));
  return {
    whole: (text) => {
      const t = text.trim();
      const hit = inputs.find((i) => i.value !== '' && i.value === t);
      return hit ? blankFor(hit.name) : null;
    },
    within: (text) =>
      byLength.reduce(
        (acc, i) => acc.replace(new RegExp(`(?<![A-Za-z0-9])${escapeRe(i.value)}(?![A-Za-z0-9])`, 'g'), blankFor(i.name)),
        text,
      ),
  };
}

interface Built {
  id: string;
  key: string;
  target: Target;
  base: string;
}

function buildTarget(act: TraceAct, b: Blanker, walker: string): Omit<Built, 'id'> {
  const c = act.control;
  const nameBlank = c.name ? b.whole(c.name) : null;
  const hintBlank = c.hint ? b.whole(c.hint) : null;
  const scope: ScopeLink[] = (act.scope ?? c.scope).map((l) => (l.role === 'frame' ? l : { ...l, name: b.whole(l.name) ?? l.name }));
  const ladder: Rung[] = [...act.rungs]
    .sort((x, y) => x.cost - y.cost)
    .map((r) => (r.value === undefined ? r : { ...r, value: b.whole(r.value) ?? b.within(r.value) }));
  // A name that is an input's value says nothing about the control's identity: retake the fingerprint without it.
  const dropName = nameBlank !== null || (!c.name && hintBlank !== null);
  const over: FingerprintField[] = dropName ? act.fingerprint.over.filter((f) => f !== 'name') : act.fingerprint.over;
  const fpValue = dropName ? fingerprint(c, over, walker) : act.fingerprint.value;
  const target: Target = {
    role: c.role,
    // An unnamed control found by its role in its scope says so: its name is empty (docs/design/capability.md, "Rows as outputs").
    ...(c.name || ladder.some((r) => r.rung === 'role_name') ? { name: { eq: nameBlank ?? c.name } } : {}),
    ...(c.hint ? { hint: hintBlank ?? c.hint } : {}),
    supports: c.verbs,
    scope,
    ladder,
    fingerprint: { over: over.length ? over : ['role'], value: fpValue },
  };
  const shown = nameBlank ? (blanksIn(nameBlank)[0]?.name ?? '') : labelOf(c).replace(/^F\d+=/, '');
  const base = slug(`${slug(shown) || c.role}_${ROLE_WORD[c.role] ?? slug(c.role)}`, 40) || 'control';
  // Two controls read the same (a header's "Log in" and a dialog's) yet are different elements when their
  // fingerprints differ: one target each, so neither is replayed against the other's fingerprint.
  const key = canonicalJson({ role: target.role, name: target.name, hint: target.hint, scope: target.scope, fp: target.fingerprint });
  return { key, target, base };
}

/** What a rows target is called: a table found through its header is still the table. */
const ROWS_WORD: Record<string, string> = { table: 'table', columnheader: 'table', grid: 'grid', treegrid: 'grid', list: 'list' };

function stepBase(act: TraceAct, targetBase: string): string {
  // A read_rows step is named for the output it feeds (`read_shares`), as a reviewer asks for it.
  if (act.verb === 'read_rows' && act.rows) return `read_${act.rows.output}`;
  const word = ROLE_WORD[act.control.role] ?? '';
  const stem = word && targetBase.endsWith(`_${word}`) ? targetBase.slice(0, -word.length - 1) : targetBase;
  // A pressed button is named for what it says, a link for what it opens; the rest by the operations table.
  if (act.verb === 'invoke' && act.control.role === 'button') return stem;
  if (act.verb === 'invoke' && act.control.role === 'link') return `open_${stem}`;
  return `${VERBS[act.verb].compile.prefix}_${stem}`;
}

function intentOf(act: TraceAct, t: Target): string {
  return intentText(act.verb, `${t.role} '${t.name?.eq ?? t.hint ?? ''}'`, act.value);
}

/** Words a capability id does without: articles, most prepositions, quantities ("on" and "in" stay: sign on, log in). */
const STOPWORDS = new Set('a an the of into to for from with by at as and or one two some any this that these those its their my our your via'.split(' '));

/**
 * A capability id from the task's words, the way a person would name it: the first two content words, so "Place a
 * LEGAL hold on one share of a PLUMBLINE member" is `place_hold` and "Close the case through the confirm dialog" is
 * `close_case`. Words written in capitals (LEGAL, PLUMBLINE: values and names) and numbers are left out. The
 * reviewer can always give another (`--id`, or the side panel's field before download).
 */
export function idFromGoal(goal: string): string {
  const words = goal
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w && !/^[A-Z0-9]{2,}$/.test(w) && !/^\d/.test(w))
    .map((w) => w.toLowerCase())
    .filter((w) => !STOPWORDS.has(w));
  return slug(words.slice(0, 2).join(' '), 40) || slug(goal.split(/\s+/).slice(0, 5).join(' '), 40) || 'authored_capability';
}

/**
 * The card's network block from a watched book: the origins it watched (blanked like the entry), and as ignorable
 * every endpoint a step wrote to that the owner said was not a commit (a sign-on, a review page). Sorted, so a
 * book always compiles to the same bytes.
 */
function networkOf(watched: { origins: string[]; ignore: string[] }, acts: readonly TraceAct[], entry: string, blankOrigin: boolean): { origins: string[]; ignore: string[] } {
  const ignore = new Set(watched.ignore);
  for (const a of acts) {
    if (a.effect.kind === 'commit') continue;
    for (const w of a.writes ?? []) if (w.fate === 'allowed') ignore.add(endpointOf(w));
  }
  const home = originOf(entry);
  const origins = [...new Set(watched.origins.map((o) => {
    const origin = originOf(o) ?? o;
    return blankOrigin && origin === home ? '{{env.BASE_URL}}' : origin;
  }))];
  return { origins, ignore: [...ignore].sort() };
}

/** The entry with its deployment-specific part blanked, as the card's surface declares it (shared/surfaces.ts). */
export function entryOf(entry: string, surface: SurfaceName, blank: boolean): string {
  const base = SURFACES[surface].entryBase;
  if (!blank || base === 'none') return entry;
  if (base === 'whole') return '{{env.BASE_URL}}';
  if (!/^https?:\/\//.test(entry)) return entry;
  try {
    const u = new URL(entry);
    return `{{env.BASE_URL}}${u.pathname}${u.search}${u.hash}`;
  } catch {
    return entry;
  }
}

export function compile(lines: readonly TraceLine[], opts: CompileOptions = {}): CompileResult {
  const holes: Hole[] = continuityHoles(lines);
  const hole = (line: number, code: HoleCode, message: string, step?: string): void => {
    holes.push({ line, code, message, ...(step !== undefined ? { step } : {}) });
  };
  const startAt = lines.findIndex((l) => l.kind === 'start');
  const start = lines[startAt] as TraceStart | undefined;
  if (!start) hole(1, 'NO_START', 'the book has no start line: it does not say the goal, the entry or the inputs');
  const inputs = start?.inputs ?? [];
  const known = new Set(inputs.map((i) => i.name));
  const b = blanker(inputs.filter((i) => !i.secret && i.value !== undefined).map((i) => ({ name: i.name, value: i.value as string })));
  const walker = start?.walker ?? '';

  // The screens labelled so far, named by the guard's own rule (shared/screens.ts labelledAs).
  const labelled: KnownScreen[] = [];
  const labelOfScreen = (seen: TraceAct['before']): string | null => labelledAs(seen, labelled, inputs);
  const labels = new Map<string, TraceLabel>();
  const acts: { line: number; act: TraceAct; screen: string | null; after: string | null }[] = [];
  const stepLines = new Map<string, number>();
  const outputs = new Set<string>();
  let finish: { line: number; label: string } | null = null;

  lines.forEach((l, i) => {
    const line = i + 1;
    if (finish) return;
    if (l.kind === 'label') {
      if (!labels.has(l.label)) labels.set(l.label, l);
      labelled.push(labelledScreen(l.label, l.screen, inputs));
      return;
    }
    if (l.kind === 'finish') {
      finish = { line, label: l.label };
      return;
    }
    if (l.kind === 'refusal' && l.code === 'UNASKED_WRITE') {
      hole(line, 'UNASKED_COMMIT', `${l.message}: an unasked write between actions; work the task out again with the owner asked`);
      return;
    }
    if (l.kind === 'lost') {
      // The book does not say what the clerk did here: a card from it would replay a task without that step.
      hole(line, 'INPUT_NOT_BOOKED', `${lostAction(l)} was not recorded (${LOST_WHY[l.why]}): do that step again, then remove this line`);
      return;
    }
    if (l.kind !== 'act') return;
    const screen = labelOfScreen(l.before);
    if (!screen) {
      hole(line, 'UNLABELLED_SCREEN', `acts on a screen no label names (signature ${l.before.signature}); name it with assert_screen before acting on it`);
    }
    let after = labelOfScreen(l.after);
    if (l.after.signature !== l.before.signature && !after) {
      // Named as the guard names it when the model goes on: with the labels written before the next action or
      // finish, a refused call (a label already taken) may stand between (shared/screens.ts labelledAs).
      after = labelledAs(l.after, [...labelled, ...labelsBeforeNextAction(lines, i + 1, inputs)], inputs);
      if (!after) {
        hole(line, 'UNLABELLED_LANDING', `lands on a screen no label names (signature ${l.after.signature}); label it with assert_screen before the next action`);
      }
    }
    if (l.rungs.length === 0) {
      hole(line, 'NO_RUNG', `no rung found the ${l.control.role} '${labelOf(l.control)}' again on the live screen, so replay could not find it`);
    }
    if (l.value !== undefined) {
      if (SECRET_MARK.test(l.value)) {
        hole(line, 'SECRET_IN_VALUE', 'a secret was typed as a literal value; a secret may only be typed as its blank');
      } else {
        const lit = b.whole(l.value);
        if (lit) hole(line, 'LITERAL_INPUT', `the value is an input's value typed as a literal; type it as ${lit}`);
      }
      for (const blank of blanksIn(l.value)) {
        if (blank.source !== 'input' || !known.has(blank.name)) {
          hole(line, 'UNKNOWN_BLANK', `{{${blank.source}.${blank.name}}} names no input declared in the start line`);
        }
      }
    }
    // Side-effect detection: a write that left before the owner was asked, or one the owner stopped.
    if (l.effect.unasked) {
      const w = l.writes?.find((x) => x.fate === 'unasked');
      hole(line, 'UNASKED_COMMIT', `the ${l.control.role} '${labelOf(l.control)}' sent ${w ? describeWrite(w) : 'a write'} before the owner was asked: an unasked commit; work this step out again with the owner asked`);
    }
    const stopped = l.writes?.find((x) => x.fate === 'blocked');
    if (stopped) {
      hole(line, 'WRITE_REFUSED', `the ${l.control.role} '${labelOf(l.control)}' sends ${describeWrite(stopped)}, which the owner did not allow; a card cannot replay it`);
    }
    const c = l.control;
    if ([c.name, c.hint ?? '', ...c.scope.map((s) => s.name), ...l.rungs.map((r) => r.value ?? '')].some((t) => SECRET_MARK.test(t))) {
      hole(line, 'SECRET_IN_TARGET', 'the control is known by text that holds a secret; it cannot be written into a card');
    }
    rowsHoles(line, l, outputs, hole);
    acts.push({ line, act: l, screen, after });
  });

  const done = finish as { line: number; label: string } | null;
  if (!done) {
    // A commit pressed in an evening that never reached its outcome is named: the application may have changed.
    const pressed = acts.filter((a) => a.act.effect.kind === 'commit');
    for (const p of pressed) {
      hole(p.line, 'COMMIT_WITHOUT_OUTCOME', `this commit (${p.act.verb} on ${p.act.control.role} '${p.act.control.name || p.act.control.hint || ''}') was pressed, but the book never reaches an outcome screen after it: check the application for its effect before authoring again`);
    }
    hole(lines.length || 1, 'NO_FINISH', 'the book never finishes: no finish line names the screen where the goal is done');
  }
  if (done && !labels.has(done.label)) hole(done.line, 'UNLABELLED_SCREEN', `finishes on "${done.label}", which no label line names`);
  if (acts.length === 0 && done) hole(done.line, 'NO_FINISH', 'the book finishes without a single action: there is nothing to replay');
  if (holes.length || !start || !done) return { ok: false, holes: sortHoles(holes) };

  const targetIds = new Ids();
  const stepIds = new Ids();
  const byKey = new Map<string, Built>();
  const steps: Step[] = [];
  const owners = new Map<string, string[]>();
  const unconfirmed: string[] = [];
  const commits: { id: string; after: string }[] = [];
  for (const { line, act, screen, after } of acts) {
    const built = buildTarget(act, b, walker);
    if (act.verb === 'read_rows' && act.rows) built.base = `${act.rows.output}_${ROWS_WORD[act.control.role] ?? 'rows'}`;
    let t = byKey.get(built.key);
    if (!t) {
      t = { ...built, id: targetIds.take(built.base) };
      byKey.set(built.key, t);
    }
    // A verb the table offers with the control's own (press in a field) joins what the target supports when used.
    if (!t.target.supports.includes(act.verb)) t.target.supports = [...t.target.supports, act.verb];
    const id = stepIds.take(slug(stepBase(act, t.base), 40) || 'step');
    stepLines.set(id, line);
    const changed = act.after.signature !== act.before.signature && after !== null;
    const confirmed = act.effect.kind === 'commit' && act.effect.by === 'owner' && act.effect.owner;
    if (act.effect.kind === 'commit' && !confirmed) unconfirmed.push(id);
    if (act.effect.kind === 'commit') commits.push({ id, after: after ?? screen ?? '' });
    if (act.effect.by === 'owner' && act.effect.owner) {
      owners.set(act.effect.owner, [...(owners.get(act.effect.owner) ?? []), `${id} → ${act.effect.kind}`]);
    }
    steps.push({
      id,
      intent: intentOf(act, t.target),
      screen: screen as string,
      op: { verb: act.verb, ...(act.value !== undefined ? { value: act.value } : {}) },
      target: t.id,
      effect: { kind: act.effect.kind, ...(confirmed ? { confirmed_by: { owner: act.effect.owner as string } } : {}) },
      settle: changed ? { kind: 'screen_is', screen: after } : { kind: 'none' },
      ...(changed ? { expect: { screen_in: [after] } } : {}),
      ...(opts.post?.[id]?.length ? { post: [...(opts.post[id] ?? [])] } : {}),
      ...(act.effect.kind === 'commit' ? saidOf(act, b) : {}),
    });
  }
  for (const id of Object.keys(opts.post ?? {})) {
    const step = steps.find((s) => s.id === id);
    if (!step || step.effect.kind !== 'commit') {
      hole(done.line, 'UNKNOWN_POSTCONDITION_STEP', `a postcondition was given for step "${id}", which is no commit step of this book (commits: ${commits.map((c) => c.id).join(', ') || 'none'})`, id);
    }
  }
  for (const id of [...Object.keys(opts.pre ?? {}), ...(opts.noRecord ?? [])]) {
    const step = steps.find((s) => s.id === id);
    if (!step || step.effect.kind !== 'commit') {
      hole(done.line, 'UNKNOWN_PRECONDITION_STEP', `a record was named for step "${id}", which is no commit step of this book (commits: ${commits.map((c) => c.id).join(', ') || 'none'})`, id);
    }
  }
  // Identity before the press: each commit says what the screen shows of its record, or that it chooses none.
  const screensByLabel = new Map([...labels.values()].map((l) => [l.label, screenOf(l, inputs)]));
  for (const [i, step] of steps.entries()) {
    if (step.effect.kind !== 'commit') continue;
    const given = opts.pre?.[step.id];
    if (given?.length) {
      step.pre = [...given];
      continue;
    }
    if (opts.noRecord?.includes(step.id)) {
      step.no_record = true;
      continue;
    }
    const targets = steps.slice(0, i + 1).map((s) => [...byKey.values()].find((t) => t.id === s.target)?.target);
    const pre = recordProof({
      inputs: inputs.filter((x) => !x.secret).map((x) => x.name),
      target: targets[i],
      before: targets.slice(0, i),
      recordPaths: screensByLabel.get(step.screen)?.record_paths ?? [],
    });
    if (pre.length) step.pre = pre;
    else {
      hole(
        stepLines.get(step.id) ?? done.line,
        'NO_RECORD_IDENTITY',
        `commit step "${step.id}" acts on a record no input chose on the way (no row, link or title named by an input leads to it), so replay could not prove it is the right one before the press. ` +
          `Say what its screen shows of the record: handrail compile --pre '${step.id}=text:{{input.<name>}}'; or, if it chooses none (it adds a record, it signs on): handrail compile --no-record ${step.id}; or the form under this hole in the extension's panel`,
        step.id,
      );
    }
  }
  for (const [i, step] of steps.entries()) {
    // A commit that lands on the screen it started on, or on one the evening showed before it (the list its dialog
    // was opened from), cannot show by its screen that it did anything (docs/design/replay.md, "Postconditions").
    const seen = step.effect.kind === 'commit' && !step.post?.length ? landingSeenBefore(steps, i) : null;
    if (seen) {
      const where = seen.step === step.id ? `the screen it started on (${seen.screen})` : `${seen.screen}, which the evening showed before it (step "${seen.step}"): a refusal may show it again`;
      hole(
        stepLines.get(step.id) ?? done.line,
        'NO_VISIBLE_EFFECT',
        `commit step "${step.id}" ends on ${where}: nothing on the screen shows it did anything. ` +
          `Supply a postcondition for it, e.g. the added row's text: handrail compile --post '${step.id}=text:{{input.<name>}}', or the form under this hole in the extension's panel`,
        step.id,
      );
    }
  }
  if (holes.length) return { ok: false, holes: sortHoles(holes) };

  const used = new Set(steps.flatMap((s) => blanksIn(s.op.value ?? '').map((x) => x.name)));
  for (const t of byKey.values()) {
    for (const text of [t.target.name?.eq ?? '', t.target.hint ?? '', ...t.target.scope.map((s) => s.name), ...t.target.ladder.map((r) => r.value ?? '')]) {
      for (const x of blanksIn(text)) used.add(x.name);
    }
  }
  const outputsOf: Record<string, Output> = {};
  for (const [i, { act }] of acts.entries()) {
    const step = steps[i];
    if (act.rows && step) outputsOf[act.rows.output] = { kind: 'rows', from_step: step.id, columns: act.rows.columns };
  }
  const notes = reviewNotes({ finish: done.label, commits, unconfirmed, owners, inputs, used, outputs: Object.keys(outputsOf) });
  const surface: SurfaceName = opts.surface ?? start.surface ?? 'browser';
  const network = start.writes ? networkOf(start.writes, acts.map((a) => a.act), start.entry, opts.baseUrlBlank ?? true) : null;
  if (network?.ignore.length) {
    notes.push(`Writes the owner said are not commits are ignored in replay (network.ignore): ${network.ignore.join(', ')}. Check that none of them changes a record.`);
  }
  const card: CapabilityInput = {
    schema: CAPABILITY_SCHEMA_ID,
    id: opts.id ?? idFromGoal(start.goal),
    version: 1,
    intent: start.goal.trim() || 'Authored capability (no goal was given)',
    surface,
    entry: entryOf(start.entry, surface, opts.baseUrlBlank ?? true),
    inputs: Object.fromEntries(
      inputs.map((i) => [
        i.name,
        i.secret ? { type: 'string', secret: true } : { type: 'string', ...(i.value ? { example: i.value } : {}) },
      ]),
    ),
    outputs: outputsOf,
    screens: withMarks(
      Object.fromEntries([...labels.values()].map((l) => [l.label, screenOf(l, inputs)])),
      steps,
      done.label,
      publicValues(inputs),
    ),
    targets: Object.fromEntries([...byKey.values()].map((t) => [t.id, t.target])),
    steps,
    outcomes: { success: { screens: [done.label] }, business: {}, recovery: {}, failure: {} },
    ...(network ? { network } : {}),
    lifecycle: { state: 'draft', review_notes: notes },
  };
  const parsed = Capability.safeParse(card);
  if (!parsed.success) {
    return {
      ok: false,
      holes: parsed.error.issues.map((x) => {
        // An issue inside a step (a postcondition the reviewer gave, most often) names that step, for the panel's form.
        const step = x.path[0] === 'steps' && typeof x.path[1] === 'number' ? steps[x.path[1]]?.id : undefined;
        return {
          line: done.line,
          code: 'INVALID_CARD' as const,
          message: `the compiled card does not load: ${x.path.join('.')}${step ? ` (step "${step}")` : ''}: ${x.message}`,
          ...(step ? { step } : {}),
        };
      }),
    };
  }
  return { ok: true, card: parsed.data, notes };
}

/**
 * What the app said on the screen a commit landed on that it had not said before the press (docs/design/replay.md,
 * "What the app says"), each input value standing in it as its blank, so replay compares it for its own inputs, and
 * its digits as `#` (shared/said.ts saidTemplate).
 * Nothing new: no `said` (silence proves nothing).
 */
function saidOf(act: TraceAct, b: Blanker): { said?: string[] } {
  const said = newSaid(act.after.said ?? [], act.before.said ?? []).map((w) => saidTemplate(b.within(w)));
  return said.length ? { said } : {};
}

/** The screens labelled from line index `from` up to the next act or finish line, as the namer knows them. */
function labelsBeforeNextAction(lines: readonly TraceLine[], from: number, inputs: TraceStart['inputs']): KnownScreen[] {
  const out: KnownScreen[] = [];
  for (const l of lines.slice(from)) {
    if (l.kind === 'act' || l.kind === 'finish') break;
    if (l.kind === 'label') out.push(labelledScreen(l.label, l.screen, inputs));
  }
  return out;
}

type DraftScreen = { title: string; signature: string; paths: string[]; record_paths?: string[]; marks?: { paths: string[]; text: string[] } };

/** A labelled screen as the card keeps it: paths that carry the record become templates (shared/screens.ts). */
function screenOf(l: TraceLabel, inputs: TraceStart['inputs']): DraftScreen {
  const t = templateScreen(l.screen, inputs);
  return { title: l.title, signature: t.signature, paths: t.paths, ...(t.record ? { record_paths: t.record } : {}) };
}

/**
 * A read_rows line must declare one rows output (the guard writes it so): its target is a table, grid, list or a
 * header, its name is new, it has columns, and each header column is one the surface read (docs/design/authoring.md,
 * "Authoring rows"). Any other verb carries no rows.
 */
function rowsHoles(line: number, l: TraceAct, outputs: Set<string>, hole: (line: number, code: HoleCode, message: string) => void): void {
  const r = l.rows;
  if (l.verb !== 'read_rows') {
    if (r) hole(line, 'ROWS_WITHOUT_OUTPUT', `a ${l.verb} line declares the rows output "${r.output}"; only a read_rows line reads rows`);
    return;
  }
  if (!r) {
    hole(line, 'ROWS_WITHOUT_OUTPUT', `reads the rows of the ${l.control.role} '${labelOf(l.control)}' but declares no output to return them`);
    return;
  }
  if (!ROWS_ROLES.includes(l.control.role)) {
    hole(line, 'ROWS_TARGET', `reads rows from a ${l.control.role}; a read_rows target is one of ${ROWS_ROLES.join(', ')}`);
  }
  if (outputs.has(r.output)) hole(line, 'OUTPUT_TAKEN', `the output "${r.output}" is declared twice; each output has one name`);
  outputs.add(r.output);
  const columns = Object.entries(r.columns);
  if (columns.length === 0) hole(line, 'NO_COLUMNS', `the rows output "${r.output}" names no column`);
  for (const [name, c] of columns) {
    if (c.header !== undefined && !r.headers.includes(c.header)) {
      hole(line, 'UNKNOWN_HEADER', `column "${name}" of output "${r.output}" takes the header "${c.header}", which the table did not have (headers: ${r.headers.map((h) => `"${h}"`).join(', ') || 'none'})`);
    }
  }
}

/** Every screen that can follow a commit gets the structural marks that tell it apart (shared/marks.ts). */
function withMarks(screens: Record<string, DraftScreen>, steps: Step[], finish: string, values: PublicValues): Record<string, DraftScreen> {
  const marks = proposeMarks({ steps, outcomes: { success: { screens: [finish] }, business: {}, recovery: {}, failure: {} }, screens }, values);
  const out: Record<string, DraftScreen> = {};
  for (const [label, screen] of Object.entries(screens)) {
    const m = marks[label];
    out[label] = m ? { ...screen, marks: { paths: [...m.paths], text: [...m.text] } } : screen;
  }
  return out;
}

function sortHoles(holes: Hole[]): Hole[] {
  return [...holes].sort((a, b) => a.line - b.line || a.code.localeCompare(b.code));
}

function reviewNotes(f: {
  finish: string;
  commits: { id: string; after: string }[];
  unconfirmed: string[];
  owners: Map<string, string[]>;
  inputs: readonly { name: string; secret: boolean }[];
  used: Set<string>;
  outputs: readonly string[];
}): string[] {
  const notes: string[] = [];
  const after = f.commits.map((c) => `${c.id} (seen ending on ${c.after})`).join(', ');
  notes.push(
    `Business outcomes: this book only saw success (ending on ${f.finish}). Declare under outcomes.business every answer ` +
      `the application can give that is not a failure and that this evening never met${after ? ` — e.g. an "already done" screen after commit ${after}, such as a record already held` : ''}; ` +
      'add those screens to the steps\' settle and expect.',
  );
  notes.push(
    'Failure and recovery outcomes: none are declared. Add the ones a run can meet (rejected credentials, an expired session) under outcomes.failure and outcomes.recovery.',
  );
  notes.push(
    `Inputs are declared as plain strings: add a pattern, an enum of values or a description for ${f.inputs.map((i) => i.name).join(', ') || '(none)'}.`,
  );
  notes.push(
    f.outputs.length
      ? `Outputs: ${f.outputs.join(', ')} (rows, as the book read them). Add a description to each; check every column is one a caller needs.`
      : 'Outputs: the card extracts none. If the caller needs a value from the final screen (a confirmation number), add a read step and an output.',
  );
  for (const [owner, steps] of [...f.owners.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    notes.push(`Risk classified by the owner ${owner}: ${steps.join(', ')}. Check each commit is a commit.`);
  }
  if (f.unconfirmed.length) {
    notes.push(`Commit step(s) ${f.unconfirmed.join(', ')} were never confirmed by an owner: the card cannot leave draft until one confirms them.`);
  }
  const unused = f.inputs.filter((i) => !f.used.has(i.name)).map((i) => i.name);
  if (unused.length) notes.push(`Input(s) ${unused.join(', ')} are declared but no step uses them: remove them or add the step.`);
  return notes;
}
