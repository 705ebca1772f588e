// A record-mode session: the clerk does the task by hand; each click and keystroke the content script reports is
// mapped to the same menu row and goes through the same Guard (resumed from the book), which writes the same book
// line a model's call would. The panel's label and finish go through it too. The host runs all of one session's
// calls one at a time (a typed value before the click that submits it).
import type { Masker } from '../../shared/secrets.ts';
import { Guard } from '../../shared/author/guard.ts';
import { formatRef, parseRef, sameScope } from '../../shared/ref.ts';
import { labelOf, type MenuRow } from '../../shared/menu.ts';
import { menuItemKeys, optionKeys } from '../../shared/dom/options.ts';
import { lostNote, lostValue, type TraceLine, type TraceLost } from '../../shared/schema/trace.ts';
import { describeWrite, originOf, type WriteScope } from '../../shared/writes.ts';
import type { ClerkAct, CommandReply, PanelCommand } from './messages.ts';
import { UNASKED_NOTE, valueForGuard } from './record.ts';
import { fail, type Live, type SessionContext } from './session-context.ts';
import type { SessionRecord } from './store.ts';

/** How long a clerk's pick waits for its control to be offered again (a list they opened meanwhile still up). */
const PICK_WAITS_MS = 60_000;

/** The record without a dispatched action: that action's line is written, or it was settled another way. */
function settled(r: SessionRecord): SessionRecord {
  const { dispatched: _done, ...rest } = r;
  return rest;
}

/** The origins a record session is bound to. */
export const originsOf = (s: SessionRecord): string[] => s.origins ?? [originOf(s.entry) ?? s.entry];

/** The writes a record session watches (docs/design/writes.md, "Writes"): any non-safe request to its origins. */
export const writeScopeOf = (s: SessionRecord): WriteScope & { origins: string[]; ignore: string[] } => ({ origins: originsOf(s), ignore: [] });

/**
 * What the clerk is told when their action sent a write nobody confirmed (docs/design/writes.md, "Writes"): the
 * extension sees a write only once it has left, so the step is an unasked commit and the book cannot compile.
 */
function unaskedNote(line: TraceLine | null): string | null {
  if (line?.kind !== 'act' || !line.effect.unasked) return null;
  const w = line.writes?.find((x) => x.fate === 'unasked');
  const sent = w ? ` (${describeWrite(w)})` : '';
  return `${UNASKED_NOTE} line ${line.seq}, ${line.control.role} '${labelOf(line.control)}', sent a change to the application${sent} that nobody confirmed as a commit. The book cannot be compiled until this step is done again with the question answered.`;
}

/** A record-mode guard; after a restart it goes on from the book (numbering, labels, finished). */
export async function recordGuard(ctx: SessionContext, live: Live, s: SessionRecord): Promise<Guard> {
  if (live.guard) return live.guard;
  const { d } = ctx;
  live.writes = writeScopeOf(s);
  live.guard = new Guard({
    surface: live.surface,
    owner: ctx.owner(s.id),
    book: live.book,
    masker: live.masker,
    goal: s.goal,
    inputs: live.inputs,
    actor: 'human',
    writes: live.writes,
    resume: await d.store.lines(s.id),
    dispatching: async (x) => {
      const lines = await d.store.countLines(s.id);
      await d.store.updateSession(s.id, (r) => ({ ...r, dispatched: { ...x, lines } }));
    },
    selectorsFor: (ref) => live.surface.inner.selectorsFor(ref),
    ...(d.now ? { now: d.now } : {}),
  });
  return live.guard;
}

/** A running record session with its live state and guard, or the reply that says why there is none. */
async function recording(ctx: SessionContext, id: string): Promise<{ s: SessionRecord; live: Live; guard: Guard } | CommandReply> {
  const s = await ctx.d.store.getSession(id);
  if (!s) return fail('NO_SESSION', 'no such session');
  if (s.state !== 'running') return fail('NOT_RUNNING', `the session is ${s.state}`);
  if (s.mode !== 'record') return fail('NOT_RECORDING', 'in model mode the model labels screens and finishes');
  try {
    const live = await ctx.open(s);
    return { s, live, guard: await recordGuard(ctx, live, s) };
  } catch (e) {
    const code = (e as { code?: string }).code ?? 'SURFACE_FAILED';
    return fail(code, (e as Error).message);
  }
}

/** The panel's `label` or `finish` in a record session: the guard's assert_screen or finish. */
export async function recordTool(ctx: SessionContext, cmd: Extract<PanelCommand, { type: 'label' | 'finish' }>): Promise<CommandReply> {
  const got = await recording(ctx, cmd.session);
  if ('ok' in got) return got;
  const { live, guard } = got;
  const shown = await guard.show();
  if (cmd.type === 'label' && shown.obs.signature !== cmd.signature) {
    // The clerk named the screen the panel showed them; a label pinned to whatever shows now could name the wrong one.
    live.lastSignature = null;
    await guard.show();
    return fail('SCREEN_CHANGED', `the tab no longer shows the screen you asked to label (it changed, or could not be read); nothing was labelled: look at the panel's screen and label it again`);
  }
  const input = cmd.type === 'label' ? { label: cmd.label, ...(cmd.title ? { title: cmd.title } : {}) } : { label: cmd.label };
  const out = await guard.handle({ id: ctx.d.newId(), name: cmd.type === 'label' ? 'assert_screen' : 'finish', input });
  const note = live.masker.mask(out.text);
  if (guard.finished) {
    await ctx.end(cmd.session, 'finished', null, `finished on ${guard.finished}`);
    return { ok: true, text: note };
  }
  live.lastSignature = null;
  await guard.show();
  await ctx.update(cmd.session, (r) => ({ ...r, note }));
  return out.ok ? { ok: true, text: note } : fail('REFUSED', note);
}

/**
 * A clerk's click on a control that was hidden until the pointer entered its row (docs/design/extension.md, "The
 * extension's trusted input"): the book gets what replay must do, as the walker offers it — a hover on the control
 * (its row), then the press. The pointer is moved off the page so the screen shows the control hidden again, the
 * guard hovers it (trusted input), and the press follows on the screen that shows it. Returns why it could not
 * (nothing is pressed then), or null when the hover is in the book.
 */
async function hoverFirst(live: Live, guard: Guard, msg: ClerkAct, ref: string): Promise<string | null> {
  try {
    await live.surface.inner.pointerAway();
  } catch (e) {
    return `that control shows only while its row is hovered, and the extension could not hover it for you: ${(e as Error).message}; nothing recorded`;
  }
  const hidden = await guard.show();
  const row = hidden.menu.find((r) => r.control.ref === ref && r.verb === 'hover');
  // Not offered as hidden after all (it shows without the pointer): the press alone is the step.
  if (!row) return null;
  const out = await guard.handle({ id: `${msg.event}:hover`, name: 'act', input: { row: row.n, verb: 'hover' } });
  return out.ok ? null : live.masker.mask(out.text);
}

/** What a lost line carries of a clerk's action: never a typed text (a value only for a key or a pick). */
type LostWhat = Pick<TraceLost, 'verb' | 'control' | 'value' | 'why'>;

/**
 * Books a clerk's action the recorder caught and could not book as a `lost` line (a hole the compiler refuses), once
 * per event, and says in the panel which it was and to do it again (docs/design/extension.md, "The extension's trusted
 * input": no silent loss). An event already booked (its act line written after all) is not written again as lost.
 * Run in the session's turn.
 */
export async function bookLost(ctx: SessionContext, id: string, event: string, what: LostWhat): Promise<void> {
  const s = await ctx.d.store.getSession(id);
  if (!s || s.state !== 'running' || s.mode !== 'record' || s.events.includes(event)) return;
  const live = await ctx.open(s);
  const guard = await recordGuard(ctx, live, s);
  const lost = {
    kind: 'lost' as const,
    actor: 'human' as const,
    verb: what.verb,
    why: what.why,
    ...(what.control ? { control: { role: what.control.role, name: what.control.name } } : {}),
    ...lostValue(what.verb, what.value),
  };
  await guard.write(lost);
  const note = live.masker.mask(lostNote(lost));
  await ctx.update(id, (r) => ({ ...settled(r), note, events: [...r.events, event].slice(-200) }));
}

/**
 * A clerk's action that failed while being recorded, said in the panel — never silent (a select's own form submit once
 * took the page mid-probe, and nothing was shown). Its line may be written already (what failed came after it: the
 * look at the screen it led to): a line after this action's own dispatch (`dispatched.lines`, the count before it) is
 * its line — lines written earlier in the same call (held presses, a stray write's refusal, a hover) are not — and then
 * "do it again" would have the clerk do it twice. `dispatched` is cleared: nothing is being done any more, so the
 * panel stops saying it waits for the screen, and the book can be edited. Without the session's masker nothing the
 * page or the error says is shown: it could hold a secret's value.
 */
export async function sayNotRecorded(ctx: SessionContext, id: string, msg: ClerkAct, e: unknown, masker?: Masker): Promise<void> {
  const d = (await ctx.d.store.getSession(id))?.dispatched;
  const written = d?.call === msg.event && (await ctx.d.store.countLines(id)) > d.lines;
  const what = masker ? `your last action (${msg.verb} on ${msg.control?.role ?? 'a control'} '${msg.control?.name ?? ''}')` : 'your last action';
  const cause = masker ? `: ${(e as Error).message}` : '';
  const why = written
    ? `${what} is in the book, but the screen it led to could not be read${cause}; look at the page before going on`
    : `${what} could not be recorded${cause}; check the page, and do it again if it did not happen`;
  const note = masker ? masker.mask(why) : why;
  // Not in the book: a lost line says so where the compiler sees it (the note below is the panel's, with the cause).
  if (!written) await bookLost(ctx, id, msg.event, { ...lostOf(msg), why: 'failed' }).catch(() => undefined);
  await ctx.update(id, (r) => (r.state === 'running' ? { ...settled(r), note } : r));
}

/** A clerk_act as a lost line's words: the verb, the control, and a key's or a pick's value (never a typed text). */
const lostOf = (msg: ClerkAct): Omit<LostWhat, 'why'> => ({
  verb: msg.verb,
  ...(msg.control ? { control: { role: msg.control.role, name: msg.control.name } } : {}),
  ...lostValue(msg.verb, msg.value),
});

/**
 * One clerk action in session `id` (already queued behind the session's earlier calls): written once, even when a
 * restarted content script sends it again, and never pressed twice when the last worker stopped during it.
 */
export async function recordClerkAct(ctx: SessionContext, id: string, msg: ClerkAct): Promise<void> {
  const fresh = await ctx.d.store.getSession(id);
  if (!fresh || fresh.state !== 'running' || fresh.events.includes(msg.event)) return;
  const got = await recording(ctx, id);
  if ('ok' in got) {
    await ctx.update(id, (r) => ({ ...r, note: got.ok ? null : got.message }));
    return;
  }
  const { live, guard } = got;
  // A pick in a custom list: the list the clerk opened is part of the step (choose opens it), so the step starts
  // on the screen shown before it opened, as replay will find it (docs/design/extension.md, "The extension's trusted
  // input"). Anything else starts on a fresh look.
  const ref = formatRef(msg.frame, msg.ref);
  // The frame's refs are positions in its last look: the same ref in another look must be the same control (its role
  // and name, as the frame reported them), or a re-rendered page — a list opened over it — would have it press another.
  const reported = (r: MenuRow): boolean => r.verb === msg.verb && (!msg.control || (r.control.role === msg.control.role && r.control.name === msg.control.name));
  // A control the page moved to another place between the two looks (a row inserted above it) is the one row of the
  // same frame with that verb, role, name and scope (its row, dialog, form: another "Delete" in another row is not
  // it); with two or more, which one the clerk meant cannot be told. An unnamed control is never guessed at.
  const frame = parseRef(ref)?.key;
  const reportedAs = msg.control;
  const inScope = (r: MenuRow): boolean => !reportedAs?.scope || sameScope(r.control.scope, reportedAs.scope, { frames: false });
  const theRow = (menu: readonly MenuRow[]): MenuRow | undefined => {
    // At its place too the scope must be the reported one: a row inserted above puts the row above's "Delete" there.
    const at = menu.find((r) => r.control.ref === ref && reported(r) && inScope(r));
    if (at || !reportedAs?.name || !reportedAs.scope) return at;
    const moved = menu.filter((r) => reported(r) && parseRef(r.control.ref)?.key === frame && inScope(r));
    return moved.length === 1 ? moved[0] : undefined;
  };
  const before = msg.verb === 'choose' ? guard.lastShown : null;
  const same = before !== null && msg.control !== undefined && theRow(before.menu) !== undefined;
  let shown = (same ? before : null) ?? (await guard.show());
  const was = fresh.dispatched;
  if (was?.call === msg.event) {
    // The last worker was doing this very action when it stopped, and the content script sent it again.
    const recovery = (await ctx.d.store.countLines(id)) > was.lines ? 'written' : await guard.recover(was);
    if (recovery !== 'redo') {
      const note =
        recovery === 'written'
          ? 'the extension restarted during that action; it had happened and is in the book'
          : 'the extension restarted during that press and cannot tell whether it happened: check the application, and press again only if it did not';
      live.lastSignature = null;
      await guard.show();
      await ctx.update(id, (r) => ({ ...settled(r), note, events: [...r.events, msg.event].slice(-200) }));
      return;
    }
  }
  if (msg.revealed) {
    const hovered = await hoverFirst(live, guard, msg, ref);
    if (hovered) {
      await ctx.update(id, (r) => ({ ...settled(r), note: hovered, events: [...r.events, msg.event].slice(-200) }));
      return;
    }
    shown = await guard.show();
  }
  let row = theRow(shown.menu);
  if (!row && msg.verb === 'choose') {
    // A pick whose control a list covers now: the clerk opened a list again before this pick was made again (a second
    // quick pick in a modal list). It is made once that list closes — the clerk's next pick closes it — as the clerk
    // did it, before their next pick, which waits behind it (docs/design/extension.md, "The extension's trusted input").
    // Only while a list is up and the control is nowhere on the menu: a control gone for another reason (the page
    // moved on), or shown at another place (its ref shifted), is said at once.
    const covered = (): boolean => {
      const controls = shown.menu.map((r) => r.control);
      return (menuItemKeys(controls).length > 0 || optionKeys(controls).length > 0) && !shown.menu.some(reported);
    };
    const until = Date.now() + PICK_WAITS_MS;
    if (covered()) await ctx.update(id, (r) => ({ ...r, note: live.masker.mask(`waiting for the list over ${msg.control?.role ?? 'the control'} '${msg.control?.name ?? ''}' to close, to make your pick there`) }));
    while (!row && covered() && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      live.lastSignature = null;
      shown = await guard.show();
      // Stopped or finished meanwhile (during the wait or the look): nothing more is done in this session.
      if ((await ctx.d.store.getSession(id))?.state !== 'running') return;
      row = theRow(shown.menu);
    }
  }
  if (!row) {
    // The frame saw the control and the worker's look does not (the page changed between the two: a document that
    // left while the clerk acted on it): a hole in the book, not only a note the next action overwrites.
    await bookLost(ctx, id, msg.event, { ...lostOf(msg), why: 'not_on_screen' });
    return;
  }
  const value = valueForGuard(msg, live.inputs);
  const out = await guard.handle({ id: msg.event, name: 'act', input: { row: row.n, verb: msg.verb, ...(value !== undefined ? { value } : {}) } });
  const note = live.masker.mask(out.ok ? (unaskedNote(guard.lastLine) ?? out.text) : out.text);
  live.lastSignature = null;
  await guard.show();
  await ctx.update(id, (r) => ({ ...settled(r), note, events: [...r.events, msg.event].slice(-200) }));
}
