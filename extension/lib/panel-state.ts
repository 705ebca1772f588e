// The side panel's state logic, kept out of the components so it can be tested without a browser: the new-session
// form, what a session's record and book say to show, and what compiling a book gave.
import { compile, cardBytes, type Hole } from '../../shared/compile/compile.ts';
import { postconditionOf, type PostWords } from '../../shared/compile/post.ts';
import type { Postcondition } from '../../shared/schema/capability.ts';
import { LOST_NOTE, lostNote, type TraceLine } from '../../shared/schema/trace.ts';
import { PanelCommand, SessionInput, type Mode } from './messages.ts';
import type { SessionRecord } from './store.ts';
import { UNASKED_NOTE } from './record.ts';

export interface InputRow {
  name: string;
  value: string;
  secret: boolean;
}

export interface StartForm {
  mode: Mode;
  goal: string;
  owner: string;
  inputs: InputRow[];
}

export const emptyForm = (): StartForm => ({ mode: 'record', goal: '', owner: '', inputs: [{ name: '', value: '', secret: false }] });

/** The form as a start command, or the first thing wrong with it in words a clerk reads. Blank rows are skipped. */
export function startCommand(form: StartForm, tabId: number): { ok: true; cmd: PanelCommand } | { ok: false; message: string } {
  const rows = form.inputs.filter((r) => r.name.trim() !== '' || r.value !== '');
  const inputs = [];
  const seen = new Set<string>();
  for (const r of rows) {
    const parsed = SessionInput.safeParse({ name: r.name.trim(), value: r.value, secret: r.secret });
    if (!parsed.success) return { ok: false, message: `input "${r.name.trim() || '(no name)'}": ${parsed.error.issues[0]?.message ?? 'invalid'}` };
    if (seen.has(parsed.data.name)) return { ok: false, message: `the input "${parsed.data.name}" is named twice` };
    if (parsed.data.secret && parsed.data.value.length < 3) return { ok: false, message: `the secret "${parsed.data.name}" needs a value of at least 3 characters` };
    seen.add(parsed.data.name);
    inputs.push(parsed.data);
  }
  const cmd = PanelCommand.safeParse({ type: 'start', tabId, mode: form.mode, goal: form.goal, owner: form.owner, inputs });
  if (!cmd.success) return { ok: false, message: cmd.error.issues[0]?.message ?? 'the form is incomplete' };
  return { ok: true, cmd: cmd.data };
}

export type Phase = 'none' | 'asking' | 'recording' | 'paused' | 'running' | 'finished' | 'failed' | 'stopped';

export interface SessionView {
  phase: Phase;
  /** Record mode, a running session, no question waiting: the clerk may label the screen and finish. */
  canLabel: boolean;
  /** The labels written so far, in order (finish takes one that is showing). */
  labels: string[];
  /** A record session running, with a step in its book: the clerk may undo the last one. */
  canUndo: boolean;
  /** The book's steps and labels may be changed (not while a model is working on it). */
  canEdit: boolean;
  /** The label of the screen showing, if it has one. */
  showing: string | null;
  /** The book's lines, technical form (describeLine). */
  rows: string[];
  /** The same lines in a clerk's words (plainLine). */
  plain: string[];
}

export function phaseOf(s: SessionRecord | null): Phase {
  if (!s) return 'none';
  if (s.state !== 'running') return s.state;
  if (s.question) return 'asking';
  if (s.mode === 'record' && s.paused) return 'paused';
  return s.mode === 'record' ? 'recording' : 'running';
}

/** One book line as the panel lists it. Lines are masked already; nothing here can add a secret. */
export function describeLine(l: TraceLine): string {
  switch (l.kind) {
    case 'start':
      return `${l.seq} start: ${l.goal} (${l.author.kind}${l.author.model ? ` ${l.author.model}` : ''})`;
    case 'label':
      return `${l.seq} label: ${l.label} "${l.title}"`;
    case 'act': {
      const what = `${l.control.role} '${l.control.name || l.control.hint || ''}'`;
      const value = l.value !== undefined ? ` = ${l.value}` : '';
      const who = l.effect.by === 'owner' ? `, ${l.effect.owner ?? 'owner'} said` : '';
      return `${l.seq} ${l.actor} ${l.verb} ${what}${value} [${l.effect.kind}${who}]`;
    }
    case 'refusal':
      return `${l.seq} refused ${l.tool}: ${l.code}`;
    case 'finish':
      return `${l.seq} finish: ${l.label}`;
    case 'end':
      return `${l.seq} end: ${l.outcome}${l.code ? ` ${l.code}` : ''}`;
    case 'edit':
      return `${l.seq} edit by ${l.by}: ${l.op} line ${l.line} (${l.was})`;
    case 'lost':
      return `${l.seq} ${l.actor} ${l.verb} ${l.control ? `${l.control.role} '${l.control.name}'` : '?'}${l.value !== undefined ? ` = ${l.value}` : ''} NOT BOOKED (${l.why})`;
  }
}

/** One book line in a clerk's words ("Typed {{input.member_number}} into Member number"); the technical form is describeLine. */
export function plainLine(l: TraceLine): string {
  switch (l.kind) {
    case 'start':
      return `Started: ${l.goal} (${l.author.kind === 'human' ? 'by hand' : `by the model${l.author.model ? ` ${l.author.model}` : ''}`})`;
    case 'label':
      return `Named this screen "${l.title}" (${l.label})`;
    case 'act': {
      const what = l.control.name || l.control.hint || `the ${l.control.role}`;
      const value = l.value ?? '';
      const done = {
        set_value: `Typed ${value} into ${what}`,
        select: `Chose ${value} in ${what}`,
        toggle: `Ticked ${what}`,
        read: `Read ${what}`,
        press: `Pressed ${value} in ${what}`,
        hover: `Hovered its row to show ${what}`,
        double_click: `Double-clicked ${what}`,
        choose: `Picked ${value} in ${what}`,
        context_menu: `Right-clicked ${what} to open its menu`,
        read_rows: l.rows ? `Read ${l.rows.count} rows of ${what} as ${l.rows.output}` : `Read the rows of ${what}`,
      }[l.verb as string] ?? `Pressed ${what}`;
      const kind = l.effect.kind === 'commit' ? ' — a commit' : l.effect.kind === 'navigate' && l.verb === 'invoke' ? ' — moves on' : '';
      const who = l.effect.by === 'owner' ? ` (${l.effect.owner ?? 'the owner'} said)` : '';
      return `${done}${kind}${kind ? who : ''}`;
    }
    case 'refusal':
      return `Refused: ${l.message}`;
    case 'finish':
      return `Done: the task ends on ${l.label}`;
    case 'end':
      return l.outcome === 'finished' ? 'Finished' : `Ended without finishing${l.code ? ` (${l.code})` : ''}`;
    case 'edit':
      return `Changed by ${l.by}: ${l.what}`;
    case 'lost':
      return `${lostNote(l)} Do that step again, then remove this line.`;
  }
}

export function sessionView(s: SessionRecord | null, lines: readonly TraceLine[]): SessionView {
  const phase = phaseOf(s);
  return {
    phase,
    canLabel: phase === 'recording',
    canUndo: (phase === 'recording' || phase === 'paused') && lines.some((l) => l.kind === 'act'),
    canEdit: s !== null && !(s.state === 'running' && s.mode === 'model') && phase !== 'asking',
    labels: lines.flatMap((l) => (l.kind === 'label' ? [l.label] : [])),
    showing: s?.view?.label ?? null,
    rows: lines.map(describeLine),
    plain: lines.map(plainLine),
  };
}

/** A label the clerk typed, made into the lower_snake_case the book takes ("Hold Form" → hold_form). */
export function toLabel(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+|_+$/g, '');
}

/**
 * What compiling a book in the panel gave. A failing one names the commit steps a postcondition is wanted for
 * (`needsPost`: each lands where nothing on its screen shows it did anything, or was given one the card refused), so
 * the panel can ask for them as `handrail compile --post` takes them (docs/design/replay.md, "Postconditions");
 * `inputs` are the book's inputs a postcondition may name as blanks.
 */
export type CompileView =
  | { ok: true; id: string; steps: number; notes: string[]; bytes: string; inputs: string[] }
  | { ok: false; holes: Hole[]; needsPost: string[]; needsRecord: string[]; inputs: string[] };

/** Postconditions a reviewer gave in the panel, by compiled step id. */
export type PostBySteps = Readonly<Record<string, readonly Postcondition[]>>;

/**
 * How a reviewer answers "which record does this commit act on?" (NO_RECORD_IDENTITY) in the panel, as
 * `handrail compile --pre` / `--no-record` take it: the text the screen shows of the record before the press, or that
 * the commit chooses no record (it adds one, signs on, searches).
 */
export interface RecordForm {
  none: boolean;
  text: string;
}
export const emptyRecord = (): RecordForm => ({ none: false, text: '' });

/** The answers filled in: preconditions and the steps that choose no record, or the first problem in words. */
export function recordsOf(forms: Readonly<Record<string, RecordForm>>): { ok: true; pre: Record<string, Postcondition[]>; noRecord: string[] } | { ok: false; problem: string } {
  const pre: Record<string, Postcondition[]> = {};
  const noRecord: string[] = [];
  for (const [step, f] of Object.entries(forms)) {
    if (f.none) {
      noRecord.push(step);
      continue;
    }
    const r = postconditionOf({ kind: 'text', text: f.text, role: '', name: '' });
    if (!r.ok) return { ok: false, problem: `Before "${step}": say what the screen shows of the record it acts on, e.g. {{input.<name>}}, or tick that it chooses none.` };
    pre[step] = [r.post];
  }
  return { ok: true, pre, noRecord };
}

export function compileBook(lines: readonly TraceLine[], opts: { id?: string; post?: PostBySteps; pre?: PostBySteps; noRecord?: readonly string[] } = {}): CompileView {
  const start = lines.find((l) => l.kind === 'start');
  const inputs = start?.kind === 'start' ? start.inputs.map((i) => i.name) : [];
  const r = compile(lines, {
    ...(opts.id ? { id: opts.id } : {}),
    ...(opts.post ? { post: opts.post } : {}),
    ...(opts.pre && Object.keys(opts.pre).length ? { pre: opts.pre } : {}),
    ...(opts.noRecord?.length ? { noRecord: opts.noRecord } : {}),
  });
  if (!r.ok) {
    const needsPost = [...new Set(r.holes.flatMap((h) => (h.step && (h.code === 'NO_VISIBLE_EFFECT' || h.code === 'INVALID_CARD') ? [h.step] : [])))];
    const needsRecord = [...new Set(r.holes.flatMap((h) => (h.step && h.code === 'NO_RECORD_IDENTITY' ? [h.step] : [])))];
    return { ok: false, holes: r.holes, needsPost, needsRecord, inputs };
  }
  return { ok: true, id: r.card.id, steps: r.card.steps.length, notes: r.notes, bytes: cardBytes(r.card), inputs };
}

/** A postcondition as the reviewer fills it in (shared/compile/post.ts, the same words `--post` takes). */
export type PostForm = PostWords;

export const emptyPost = (): PostForm => ({ kind: 'text', text: '', role: '', name: '' });

/** A postcondition as the form shows it again (after a compile, to be changed). */
export const formOf = (p: Postcondition): PostForm =>
  p.kind === 'text' ? { ...emptyPost(), text: p.contains } : p.kind === 'row' ? { kind: 'row', text: p.contains, role: '', name: p.key } : { kind: 'control', text: '', role: p.role, name: p.name };

/** The postcondition a filled-in form stands for, or what is wrong with it in words for the panel. */
export function postOf(step: string, f: PostForm): { ok: true; post: Postcondition } | { ok: false; problem: string } {
  const r = postconditionOf(f);
  return r.ok ? r : { ok: false, problem: `After "${step}": ${r.problem}.` };
}

/** Every step's forms made into postconditions, or the first problem; a step with no forms is left out. */
export function postsOf(forms: Readonly<Record<string, readonly PostForm[]>>): { ok: true; post: Record<string, Postcondition[]> } | { ok: false; problem: string } {
  const post: Record<string, Postcondition[]> = {};
  for (const [step, list] of Object.entries(forms)) {
    for (const f of list) {
      const r = postOf(step, f);
      if (!r.ok) return r;
      (post[step] ??= []).push(r.post);
    }
  }
  return { ok: true, post };
}

/** Why a capability id the reviewer typed cannot be used, in words for the panel; null when it can. */
export function cardIdProblem(id: string): string | null {
  if (!id) return 'Give the capability an id, e.g. place_hold.';
  if (id.length > 64) return 'An id is at most 64 characters.';
  if (!/^[a-z][a-z0-9_]*$/.test(id)) return 'An id is lower-case letters, digits and underscores, starting with a letter (e.g. place_hold).';
  return null;
}

/** A file name for a session's downloads: the goal's first words and the session's start. */
export function fileStem(s: Pick<SessionRecord, 'goal' | 'created'>): string {
  const words = s.goal.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'trace';
  return `${words}-${s.created.replace(/[-:.]/g, '').slice(0, 13)}`;
}

/** The session's last note as the panel shows it: an error (with what to do next) or a plain note. */
export type NoteView = { kind: 'note'; text: string } | { kind: 'error'; title: string; text: string; next: string };

const NOT_DONE = 'Not done.';
const AGAIN = 'Look at the screen in the tab and do the step again.';

export function noteOf(s: SessionRecord | null): NoteView | null {
  const text = s?.note;
  if (!s || !text) return null;
  // The clerk's own Cancel is not an error.
  if (text.startsWith('refused (CANCELLED)')) return { kind: 'note', text };
  if (text.startsWith(UNASKED_NOTE)) {
    // Done, and not undoable by the book: the application has the change. The extension cannot hold a write to ask
    // first (docs/design/writes.md, "Writes"), so the step is worked out again where it can.
    return {
      kind: 'error',
      title: 'Sent without a question.',
      text: text.slice(UNASKED_NOTE.length).trim(),
      next: 'Undo this step (the application keeps the change), then work it out with `handrail author`, which holds the change while the owner is asked.',
    };
  }
  if (s.state === 'failed') return { kind: 'error', title: NOT_DONE, text, next: 'The session has ended. Export what was recorded if you need it, and start a new session.' };
  if (text.startsWith('refused (') || /nothing recorded|nothing was labelled/.test(text)) return { kind: 'error', title: NOT_DONE, text, next: AGAIN };
  if (text.startsWith(LOST_NOTE)) return { kind: 'error', title: NOT_DONE, text: text.slice(LOST_NOTE.length).trim(), next: 'Do that step again, then remove its "Not recorded" line from the book (change, then Remove): until then the card will not compile.' };
  if (/cannot tell whether/.test(text)) return { kind: 'error', title: NOT_DONE, text, next: 'Check in the application whether it happened before you press again.' };
  return { kind: 'note', text };
}

/** What the worker is doing while the clerk waits (shown with Stop), or null when it is waiting for the clerk. */
export function busyOf(s: SessionRecord | null): string | null {
  if (!s || s.state !== 'running' || s.question) return null;
  if (s.mode === 'model') return 'The model is working out the next step…';
  const d = s.dispatched?.line;
  if (!d) return null;
  const what = `${d.control.role} '${d.control.name || d.control.hint || ''}'`;
  const doing = d.verb === 'set_value' ? `Typing into ${what}` : d.verb === 'select' ? `Choosing in ${what}` : `Pressing ${what}`;
  return `${doing} for you and waiting for the screen…`;
}
